/** OrcBrew classes and subclasses → canonical class / subclass (pure). */
import type { ClassData, ClassFeature, Ref } from "../../../entities/kinds.ts";
import type { JsonObject, JsonValue } from "../../../entities/types.ts";
import { hitPoints, sortFeatures } from "../../../entities/normalize/canonical/character.ts";
import { equipmentList, humanize, namedTexts, str } from "./common.ts";
import { abilityTitle } from "../../../entities/normalize/vocab.ts";
import { levelModifier, profsSummary, propsLines } from "./props.ts";
import { ordinal } from "../../../entities/normalize/text.ts";
import { arr, int, rec } from "../../../entities/normalize/read.ts";

/** What a normalizer may look up in the same pack. */
export interface PackRefs {
  /** A spell's display name (pack spell name, else the humanized key). */
  spellName(key: string): string;
  /** Another item of the pack by type and item key, as a Ref to its entity. */
  ref(type: string, key: string): Ref | undefined;
  /** Items of `type` whose `field` names `parentKey` (subclasses of a class, subraces of a race). */
  children(type: string, field: string, parentKey: string): Ref[];
  /** A selection of the pack (for class `:level-selections`). */
  selection(key: string): { name: string; options: Array<{ name: string; desc: string }> } | undefined;
}

/** The item a subclass or subrace names as its parent, as a Ref; "Unknown <noun>" when it names none. */
export function parentRef(refs: PackRefs, type: string, key: string | null, noun: string): Ref {
  if (!key) return { key: "unknown", name: `Unknown ${noun}` };
  return refs.ref(type, key) ?? { key, name: humanize(key) };
}

const CASTER: Record<number, string> = { 1: "full", 2: "half", 3: "third" };

/**
 * Spells by spell level (`{1 [:bless] 2 {…}}`) → "1st: Bless" lines. A class's `:spell-list` names level 0
 * "Cantrips", keeps empty levels and reads only lists.
 */
function spellLevelLines(v: JsonValue | undefined, refs: PackRefs, spellList: boolean): string[] {
  const lines: string[] = [];
  for (const [lvl, spells] of Object.entries(rec(v) ?? {}).sort(([a], [b]) => Number(a) - Number(b))) {
    const keys = spellList || Array.isArray(spells) ? arr(spells) : Object.values(rec(spells) ?? {});
    const names = keys.filter((x) => typeof x === "string").map((k) => refs.spellName(k));
    const label = spellList && lvl === "0" ? "Cantrips" : /^\d+$/.test(lvl) ? ordinal(Number(lvl)) : lvl;
    if (names.length || spellList) lines.push(`${label}: ${names.join(", ")}`);
  }
  return lines;
}

function features(d: JsonObject, refs: PackRefs): ClassFeature[] {
  const out: ClassFeature[] = namedTexts(d.traits).map((t) => ({ name: t.name, level: t.level, desc: t.desc }));
  out.push(...arr(d["level-modifiers"]).flatMap((m) => levelModifier(m, (k) => refs.spellName(k)) ?? []));
  for (const s of arr(d["level-selections"])) {
    const o = rec(s);
    const key = str(o?.type);
    if (!o || !key) continue;
    const sel = refs.selection(key);
    const n = int(o.num) ?? 1;
    const opts = sel?.options ?? [];
    // Option names are never empty (namedTexts names the unnamed), so no line is blank.
    const desc = [
      `Choose ${n}${opts.length ? ` of the following` : ` from ${humanize(key)}`}.`,
      ...opts.map((x) => (x.desc ? `${x.name}: ${x.desc}` : x.name)),
    ].join("\n");
    out.push({ name: sel?.name ?? humanize(key), level: int(o.level) ?? 1, desc });
  }
  for (const field of ["cleric-spells", "paladin-spells", "warlock-spells"]) {
    const lines = spellLevelLines(d[field], refs, false);
    const name = `${humanize(field.replace(/-spells$/, ""))} Spells`;
    if (lines.length) out.push({ name, level: 1, desc: lines.join("\n") });
  }
  const spellList = spellLevelLines(rec(d.spellcasting)?.["spell-list"], refs, true);
  if (spellList.length) out.push({ name: "Spell List", level: 1, desc: spellList.join("\n") });
  const props = propsLines(d.props);
  if (props.length) out.push({ name: "Benefits", level: 1, desc: props.join("\n") });
  return sortFeatures(out);
}

function spellTable(sc: JsonObject | null): string | null {
  const known = rec(sc?.["spells-known"]);
  const cantrips = rec(sc?.["cantrips-known"]);
  if (!known && !cantrips) return null;
  const levels = [
    ...new Set(
      [...Object.keys(known ?? {}), ...Object.keys(cantrips ?? {})].map(Number).filter((n) => Number.isInteger(n)),
    ),
  ].sort((a, b) => a - b);
  if (levels.length === 0) return null;
  const rows = levels.map(
    (l) =>
      `| ${l} | ${cantrips ? (int(cantrips[String(l)]) ?? "") : ""} | ${known ? (int(known[String(l)]) ?? "") : ""} |`,
  );
  return ["| Level | Cantrips Known (new) | Spells Known (new) |", "| --- | --- | --- |", ...rows].join("\n");
}

export function buildClass(d: JsonObject, name: string, itemKey: string, refs: PackRefs, isSubclass: boolean) {
  const profs = profsSummary(d.profs, true);
  const sc = rec(d.spellcasting);
  const factor = int(sc?.["level-factor"]);
  const subclassOf = isSubclass ? parentRef(refs, "classes", str(d.class), "class") : null;
  const desc = str(d.help) ?? str(d.description);
  const equipment = equipmentList(d, (opts, name) => `${name ?? "One of"}: ${opts}`);
  const data: ClassData = {
    desc,
    ...hitPoints(int(d["hit-die"]), name),
    saving_throws: profs.saves,
    proficiencies: {
      armor: profs.armor,
      weapons: profs.weapons,
      tools: profs.tools,
      saving_throws: profs.saves.length ? profs.saves.join(", ") : null,
      skills: profs.skills,
    },
    equipment: equipment.length ? equipment.join("; ") : null,
    spellcasting_ability: abilityTitle(sc?.ability),
    caster_type: factor !== null ? (CASTER[factor] ?? null) : null,
    primary_abilities: [],
    features: features(d, refs),
    subclasses: !isSubclass ? refs.children("subclasses", "class", itemKey) : [],
    subclass_of: subclassOf,
    table: spellTable(sc),
  };
  const title = str(d["subclass-title"]);
  const subLevel = int(d["subclass-level"]);
  if (title || subLevel)
    data.features = sortFeatures([
      ...data.features,
      {
        name: title ?? "Subclass",
        level: subLevel,
        desc: `Choose your ${title ?? "subclass"}${subLevel ? ` at level ${subLevel}` : ""}.`,
      },
    ]);
  return data;
}
