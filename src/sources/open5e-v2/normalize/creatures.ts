/** Open5e v2 /creatures/ → creature (2026 numeric `challenge_rating` or 2025 `challenge_rating_decimal`/`_text`). */
import type { CreatureAction, CreatureData } from "../../../entities/kinds.ts";
import { parseCr } from "../../../entities/types.ts";
import { correctV2Environments } from "../../../entities/normalize/environments.ts";
import { bonusMap, creatureEntity, crFields, speedModes } from "../../../entities/normalize/canonical/creature.ts";
import { int, isRec, names, num, rec, recs, refKey, refName, str, type Rec } from "../../../entities/normalize/read.ts";
import { ABILITY_NAMES, abilityName, xpForCr } from "../../../entities/normalize/vocab.ts";
import { v2Normalizer } from "./common.ts";

function v2Cr(r: Rec): number | null {
  return num(r.challenge_rating) ?? num(r.challenge_rating_decimal) ?? parseCr(r.challenge_rating_text) ?? null;
}

function usageText(name: string, u: unknown): string | null {
  const o = rec(u);
  if (!o) return null;
  const type = str(o.type)?.toUpperCase() ?? "";
  const p = int(o.param);
  if (type.startsWith("RECHARGE")) {
    if (/recharge/i.test(name)) return null;
    if (p === null) return "Recharge";
    return p >= 6 ? "Recharge 6" : `Recharge ${p}–6`;
  }
  if (type === "PER_DAY") return /\/day/i.test(name) ? null : `${p ?? 1}/Day`;
  return p !== null ? `${type.toLowerCase().replace(/_/g, " ")} ${p}` : null;
}

function display(ri: Rec | null, field: string): string | null {
  if (!ri) return null;
  return str(ri[`${field}_display`]) ?? (names(ri[field]).join(", ") || null);
}

function sensesText(r: Rec): string | null {
  const parts: string[] = [];
  for (const sense of ["blindsight", "darkvision", "tremorsense", "truesight"]) {
    const n = num(r[`${sense}_range`]);
    if (n !== null && n > 0) parts.push(`${sense} ${n} ft.`);
  }
  const pp = num(r.passive_perception);
  if (pp !== null) parts.push(`passive Perception ${pp}`);
  return parts.length ? parts.join(", ") : null;
}

function splitActions(r: Rec) {
  const groups: Record<string, { a: CreatureAction; order: number; i: number }[]> = {};
  recs(r.actions).forEach((x, i) => {
    const name = str(x.name) ?? "Action";
    const type = (str(x.action_type) ?? "ACTION").toUpperCase();
    const a: CreatureAction = {
      name,
      desc: str(x.desc) ?? "",
      usage: usageText(name, x.usage_limits),
      cost: type === "LEGENDARY_ACTION" ? (int(x.legendary_action_cost) ?? 1) : null,
    };
    (groups[type] ??= []).push({ a, order: int(x.order_in_statblock) ?? 999, i });
  });
  const take = (t: string) => (groups[t] ?? []).sort((p, q) => p.order - q.order || p.i - q.i).map((g) => g.a);
  return {
    actions: take("ACTION"),
    bonus_actions: take("BONUS_ACTION"),
    reactions: take("REACTION"),
    legendary_actions: take("LEGENDARY_ACTION"),
    lair_actions: take("LAIR_ACTION"),
  };
}

export const normalizeV2Creatures = v2Normalizer("creatures", (r, b) => {
  const cr = v2Cr(r);
  const scores = rec(r.ability_scores);
  const ri = rec(r.resistances_and_immunities);
  const langs = rec(r.languages);
  const acts = splitActions(r);
  const envs = correctV2Environments(b.key, names(r.environments));
  const data: CreatureData = {
    size: refName(r.size) ?? str(r.size),
    type: refName(r.type) ?? str(r.type),
    subtype: null,
    group: str(r.subcategory),
    alignment: str(r.alignment),
    armor_class: int(r.armor_class),
    armor_detail: str(r.armor_detail),
    hit_points: int(r.hit_points),
    hit_dice: str(r.hit_dice),
    speed: speedModes(r.speed, num),
    ability_scores: Object.fromEntries(
      ABILITY_NAMES.map((a) => [a, int(scores?.[a])]),
    ) as CreatureData["ability_scores"],
    saving_throws: bonusMap(r.saving_throws, abilityName),
    skills: bonusMap(r.skill_bonuses),
    damage_vulnerabilities: display(ri, "damage_vulnerabilities"),
    damage_resistances: display(ri, "damage_resistances"),
    damage_immunities: display(ri, "damage_immunities"),
    condition_immunities: display(ri, "condition_immunities"),
    senses: sensesText(r),
    passive_perception: int(r.passive_perception),
    languages: langs ? (str(langs.as_string) ?? (names(langs.data).join(", ") || null)) : str(r.languages),
    ...crFields(cr),
    xp: int(r.experience_points) ?? xpForCr(cr),
    proficiency_bonus: int(r.proficiency_bonus),
    traits: recs(r.traits).map((t) => ({
      name: str(t.name) ?? "Trait",
      desc: str(t.desc) ?? "",
      usage: null,
      cost: null,
    })),
    ...acts,
    legendary_desc: null,
    environments: envs.environments,
    desc: str(r.desc),
    ...(envs.notes.length ? { upstream_notes: envs.notes } : {}),
  };
  const e = creatureEntity("open5e_v2", b, data, {
    typeKey: refKey(r.type)?.toLowerCase() ?? null,
    sizeKey: isRec(r.size) ? (refKey(r.size)?.toLowerCase() ?? null) : null,
  });
  // The structured lists (keys) for the immunity/resistance filters; the display text stays the answer.
  const keys = (field: string) => recs(ri?.[field]).flatMap((x) => refKey(x)?.toLowerCase() || []);
  if (ri)
    Object.assign(e.filters, {
      damage_immunities: keys("damage_immunities"),
      damage_resistances: keys("damage_resistances"),
      condition_immunities: keys("condition_immunities"),
    });
  return e;
});
