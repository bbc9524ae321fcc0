/** OrcBrew `:orcpub.dnd.e5/monsters` item → canonical creature (pure). */
import type { CreatureAction, CreatureData } from "../../../entities/kinds.ts";
import { formatCr, parseCr, type JsonObject, type JsonValue } from "../../../entities/types.ts";
import type { CreatureFilterKeys } from "../../../entities/normalize/canonical/creature.ts";
import { humanize, onKeys, str, words } from "./common.ts";
import { ABILITIES, xpForCr } from "../../../entities/normalize/vocab.ts";
import { arr, int, num, own, rec } from "../../../entities/normalize/read.ts";

/** `{:die 8 :die-count 2 :modifier 2}` → 11 and "2d8+2"; a plain number is taken as is. */
function hitPoints(v: JsonValue | undefined): { hp: number | null; dice: string | null } {
  const n = num(v);
  if (n !== null) return { hp: Math.max(0, Math.trunc(n)), dice: null };
  const o = rec(v);
  if (!o) return { hp: null, dice: null };
  const die = int(o.die);
  const count = int(o["die-count"] ?? o.die_count);
  const mod = int(o.modifier) ?? 0;
  const mean = int(o.mean);
  const dice =
    die !== null && count !== null && die > 0 && count > 0
      ? `${count}d${die}${mod > 0 ? `+${mod}` : mod < 0 ? `${mod}` : ""}`
      : null;
  if (mean !== null) return { hp: Math.max(0, mean), dice };
  if (die === null || count === null || die <= 0 || count <= 0) return { hp: null, dice: null };
  return { hp: Math.max(1, Math.floor((count * (die + 1)) / 2) + mod), dice };
}

/** "30 ft., fly 60 ft. (hover), swim 30 ft." → { walk: 30, fly: 60, hover: true, swim: 30 }. */
function parseSpeed(v: JsonValue | undefined): CreatureData["speed"] {
  const out: CreatureData["speed"] = {};
  const n = num(v);
  if (n !== null) return { walk: n };
  const s = str(v);
  if (!s) return out;
  for (const part of s.split(/[,;]/)) {
    const m = /^\s*(walk|fly|swim|climb|burrow)?\s*(\d+)\s*(?:ft\.?|feet)?/i.exec(part);
    if (!m) continue;
    const mode = (m[1] ?? "walk").toLowerCase();
    if (out[mode] === undefined) out[mode] = Number(m[2]);
    if (/hover/i.test(part)) out.hover = true;
  }
  return out;
}

function damageList(d: JsonObject, propKey: string, builtIn: string): string | null {
  const fromProps = onKeys(rec(d.props)?.[propKey]).map(words);
  const builtInText = str(d[builtIn]);
  const all = [...(builtInText ? [builtInText] : []), ...fromProps];
  return all.length ? all.join(", ") : null;
}

function action(o: JsonObject | null): CreatureAction | null {
  if (!o) return null;
  const name = str(o.name);
  const desc = str(o.description) ?? str(o.desc) ?? "";
  if (!name && !desc) return null;
  return { name: name ?? "Unnamed", desc, usage: str(o.notes) ?? str(o.usage), cost: null };
}

/** `{:str 5 :dex 2}` → bonuses by the lower-case key as `keyOf` names it; values that are no number are left out. */
function bonuses(v: JsonValue | undefined, keyOf: (lowerKey: string) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, x] of Object.entries(rec(v) ?? {})) {
    const n = int(x);
    if (n !== null) out[keyOf(k.toLowerCase())] = n;
  }
  return out;
}

function abilityMod(score: number | null): number {
  return score === null ? 0 : Math.floor((score - 10) / 2);
}

export function buildCreature(d: JsonObject): { data: CreatureData; keys: CreatureFilterKeys } {
  const sizeKey = str(d.size)?.toLowerCase() ?? null;
  const typeKey = str(d.type) ? words(str(d.type)!) : null;
  const subtypes = Array.isArray(d.subtypes)
    ? arr(d.subtypes)
        .filter((x): x is string => typeof x === "string")
        .map(words)
    : str(d.subtypes)
      ? [str(d.subtypes)!]
      : [];
  const { hp, dice } = hitPoints(d["hit-points"] ?? d.hit_points);
  const cr = parseCr(d.challenge ?? d.cr ?? null) ?? null;
  const scores = Object.fromEntries(
    Object.entries(ABILITIES).map(([k, full]) => [full, int(d[k] ?? rec(d.abilities)?.[k])]),
  ) as CreatureData["ability_scores"];
  const saves = bonuses(d["saving-throws"], (k) => own(ABILITIES, k) ?? k);
  const skills = bonuses(d.skills, (k) => k.replace(/[- ]+/g, "_"));
  const langs = [...(str(d.languages) ? [str(d.languages)!] : []), ...onKeys(rec(d.props)?.language).map(humanize)];
  const senses = str(d.senses);
  const pp = senses ? /passive perception\s*(\d+)/i.exec(senses) : null;
  const traits: CreatureAction[] = [];
  const actions: CreatureAction[] = [];
  const bonus: CreatureAction[] = [];
  const reactions: CreatureAction[] = [];
  const legendary: CreatureAction[] = [];
  for (const t of arr(d.traits)) {
    const a = action(rec(t));
    if (!a) continue;
    const type = str(rec(t)?.type)?.toLowerCase() ?? "";
    if (type === "action") actions.push(a);
    else if (type === "legendary-action") legendary.push({ ...a, cost: 1 });
    else if (type === "b-action" || type === "bonus-action") bonus.push(a);
    else if (type === "reaction") reactions.push(a);
    else traits.push(a);
  }
  actions.push(...arr(d.actions).flatMap((t) => action(rec(t)) ?? []));
  const leg = rec(d["legendary-actions"]);
  legendary.push(
    ...arr(leg?.actions)
      .flatMap((t) => action(rec(t)) ?? [])
      .map((a) => ({ ...a, cost: 1 })),
  );
  const data: CreatureData = {
    size: sizeKey ? humanize(sizeKey) : null,
    type: typeKey ? humanize(typeKey) : null,
    subtype: subtypes.length ? subtypes.join(", ") : null,
    alignment: str(d.alignment),
    armor_class: int(d["armor-class"] ?? d.armor_class),
    armor_detail: str(d["armor-notes"]),
    hit_points: hp,
    hit_dice: dice,
    speed: parseSpeed(d.speed),
    ability_scores: scores,
    saving_throws: saves,
    skills,
    damage_vulnerabilities: damageList(d, "damage-vulnerability", "damage-vulnerabilities"),
    damage_resistances: damageList(d, "damage-resistance", "damage-resistances"),
    damage_immunities: damageList(d, "damage-immunity", "damage-immunities"),
    condition_immunities: damageList(d, "condition-immunity", "condition-immunities"),
    senses,
    passive_perception: pp ? Number(pp[1]) : 10 + (skills.perception ?? abilityMod(scores.wisdom)),
    languages: langs.length ? langs.join(", ") : null,
    cr,
    cr_display: formatCr(cr),
    xp: xpForCr(cr),
    proficiency_bonus: cr !== null ? 2 + Math.floor((Math.max(cr, 1) - 1) / 4) : null,
    traits,
    actions,
    bonus_actions: bonus,
    reactions,
    legendary_desc: str(leg?.description),
    legendary_actions: legendary,
    lair_actions: [],
    environments: [],
    desc: str(d.description) ?? str(d.desc),
  };
  return { data, keys: { typeKey, sizeKey } };
}
