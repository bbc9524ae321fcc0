/** Open5e v2 /classes/ (class + subclass), /species/ (species + subspecies), /backgrounds/, /feats/. */
import type { ClassData, ClassFeature, NamedText, Ref } from "../../../entities/kinds.ts";
import {
  backgroundEntity,
  classEntity,
  featEntity,
  sortFeatures,
  speciesEntity,
} from "../../../entities/normalize/canonical/character.ts";
import { arr, int, isRec, names, rec, recs, refKey, refName, str, type Rec } from "../../../entities/normalize/read.ts";
import { titleCase } from "../../../entities/normalize/text.ts";
import type { NormalizeContext, NormalizeResult } from "../../../entities/normalize/types.ts";
import { v2Key, v2Normalizer } from "./common.ts";

const ABILITY_RE = /\b(Strength|Dexterity|Constitution|Intelligence|Wisdom|Charisma) is your spellcasting ability/;

/** The start of a proficiency line's label → its field. */
const PROFICIENCY_LABELS: [string, keyof ClassData["proficiencies"]][] = [
  ["armor", "armor"],
  ["weapon", "weapons"],
  ["tool", "tools"],
  ["saving throw", "saving_throws"],
  ["skill", "skills"],
];

/** "**Armor:** None\n**Weapons:** ..." or a 2024 core-traits table → proficiency fields. */
function parseProficiencies(text: string): ClassData["proficiencies"] {
  const out: ClassData["proficiencies"] = {
    armor: null,
    weapons: null,
    tools: null,
    saving_throws: null,
    skills: null,
  };
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/\*+/g, "").trim();
    const m = /^\|\s*([^|]+?)\s*\|\s*([^|]+?)\s*\|?$/.exec(line) ?? /^([A-Za-z ]+?)\s*:\s*(.+)$/.exec(line);
    const value = m?.[2]?.trim();
    const field = PROFICIENCY_LABELS.find(([start]) => m?.[1]?.toLowerCase().startsWith(start))?.[1];
    if (value && field) out[field] = value;
  }
  return out;
}

function tableRow(text: string, label: string): string | null {
  const m = new RegExp(`\\|\\s*${label}\\s*\\|\\s*([^|\\n]+?)\\s*\\|`, "i").exec(text);
  return m ? m[1]! : null;
}

/** A level table (markdown) from the class-table columns (proficiency bonus, spell slots, ...). */
function levelTable(columns: Rec[], levelFeatures: Rec[] = []): string | null {
  // The features gained at each level (every level a feature lists in gained_at, e.g. each ASI).
  const gained = new Map<number | null, string[]>();
  for (const f of levelFeatures)
    for (const g of recs(f.gained_at))
      (gained.get(int(g.level)) ?? gained.set(int(g.level), []).get(int(g.level))!).push(str(f.name) ?? "Feature");
  const featureCol = gained.size
    ? [{ name: "Features", cells: new Map([...gained].map(([l, ns]) => [l, ns.join(", ")])) }]
    : [];
  const cols = [
    ...featureCol,
    ...columns.map((f) => ({
      name: str(f.name) ?? "",
      cells: new Map(recs(f.data_for_class_table).map((c) => [int(c.level), str(c.column_value) ?? ""])),
    })),
  ].filter((c) => c.cells.size > 0);
  if (!cols.length) return null;
  const head = `| Level | ${cols.map((c) => c.name).join(" | ")} |\n|---|${cols.map(() => "---").join("|")}|`;
  const rows = Array.from(
    { length: 20 },
    (_, i) => `| ${i + 1} | ${cols.map((c) => c.cells.get(i + 1) || "—").join(" | ")} |`,
  );
  return [head, ...rows].join("\n");
}

export function normalizeV2Classes(records: unknown[], ctx: NormalizeContext): NormalizeResult {
  const subclassesOf = new Map<string, Ref[]>();
  for (const r of records) {
    if (!isRec(r) || !r.subclass_of) continue;
    const parent = refKey(r.subclass_of);
    const key = str(r.key) ?? refKey(r.url ?? null);
    const name = str(r.name);
    if (parent && key && name)
      (subclassesOf.get(parent) ?? subclassesOf.set(parent, []).get(parent)!).push({ key, name });
  }
  return v2Normalizer("classes", (r, b) => {
    const feats = recs(r.features);
    const ofType = (t: string) => feats.filter((f) => str(f.feature_type) === t);
    const levelFeatures: ClassFeature[] = feats
      .filter((f) =>
        ["CLASS_LEVEL_FEATURE", "CLASS_FEATURE_OPTION_LIST"].includes(str(f.feature_type) ?? "CLASS_LEVEL_FEATURE"),
      )
      .map((f) => {
        const levels = recs(f.gained_at).flatMap((g) => int(g.level) ?? []);
        return {
          name: str(f.name) ?? "Feature",
          level: levels.length ? Math.min(...levels) : null,
          desc: str(f.desc) ?? "",
        };
      });
    const descs = (t: string) => ofType(t).map((f) => str(f.desc) ?? "");
    const core = descs("CORE_TRAITS_TABLE").join("\n");
    const profText = [...descs("PROFICIENCIES"), core].join("\n");
    const hp = rec(r.hit_points);
    const hitDice = str(r.hit_dice) ?? str(hp?.hit_dice);
    const spellcasting = feats.map((f) => ABILITY_RE.exec(str(f.desc) ?? "")?.[1]).find(Boolean) ?? null;
    const parent = r.subclass_of
      ? { key: refKey(r.subclass_of) ?? "", name: refName(r.subclass_of) ?? titleCase(refKey(r.subclass_of) ?? "") }
      : null;
    const primary = names(r.primary_abilities);
    return classEntity("open5e_v2", b, {
      desc: str(r.desc),
      hit_die: hitDice ? hitDice.toLowerCase() : null,
      hit_points_at_1st_level: str(hp?.hit_points_at_1st_level),
      hit_points_at_higher_levels: str(hp?.hit_points_at_higher_levels),
      saving_throws: names(r.saving_throws),
      proficiencies: parseProficiencies(profText),
      equipment: descs("STARTING_EQUIPMENT").find(Boolean) ?? tableRow(core, "Starting Equipment"),
      spellcasting_ability: spellcasting,
      caster_type: str(r.caster_type)?.toLowerCase() ?? null,
      primary_abilities: primary.length
        ? primary
        : (tableRow(core, "Primary Ability")
            ?.split(/,| and | or /)
            .map((s) => s.trim())
            .filter(Boolean) ?? []),
      features: sortFeatures(levelFeatures),
      subclasses: subclassesOf.get(b.key) ?? [],
      subclass_of: parent,
      table: levelTable(
        [...ofType("PROFICIENCY_BONUS"), ...ofType("CLASS_TABLE_DATA"), ...ofType("SPELL_SLOTS")],
        ofType("CLASS_LEVEL_FEATURE"),
      ),
    });
  })(records, ctx);
}

function traitNamed(traits: NamedText[], types: Rec[], name: string): string | null {
  const i = types.findIndex((t) => str(t.type)?.toLowerCase() === name);
  if (i >= 0) return traits[i]?.desc ?? null;
  return traits.find((t) => t.name.toLowerCase() === name)?.desc ?? null;
}

function speciesSize(text: string | null): string | null {
  if (!text) return null;
  const m =
    /\b(?:size is|are|is)\s+(Tiny|Small|Medium|Large)\b/i.exec(text) ?? /\b(Tiny|Small|Medium|Large)\b/.exec(text);
  return m ? titleCase(m[1]!.toLowerCase()) : null;
}

function speciesSpeed(text: string | null): number | null {
  const m = text ? /(\d+)\s*feet/i.exec(text) : null;
  return m ? Number(m[1]) : null;
}

function speciesTraits(r: Rec) {
  const traitRecs = recs(r.traits);
  const traits: NamedText[] = traitRecs.map((t) => ({ name: str(t.name) ?? "Trait", desc: str(t.desc) ?? "" }));
  return {
    traits,
    size: speciesSize(traitNamed(traits, traitRecs, "size")),
    speed: speciesSpeed(traitNamed(traits, traitRecs, "speed")),
  };
}

export function normalizeV2Species(records: unknown[], ctx: NormalizeContext): NormalizeResult {
  const byKey = new Map<string, string>();
  const children = new Map<string, Ref[]>();
  const parentStats = new Map<string, { size: string | null; speed: number | null }>();
  for (const r of records) {
    if (!isRec(r)) continue;
    const key = str(r.key) ?? refKey(r.url ?? null);
    if (key) parentStats.set(key, speciesTraits(r));
    const name = str(r.name);
    if (!key || !name) continue;
    byKey.set(key, name);
    const parent = refKey(r.subspecies_of);
    if (parent) (children.get(parent) ?? children.set(parent, []).get(parent)!).push({ key, name });
  }
  return v2Normalizer("species", (r, b) => {
    const { traits, size, speed } = speciesTraits(r);
    const parentKey = refKey(r.subspecies_of);
    const parent = parentKey ? parentStats.get(parentKey) : undefined;
    return speciesEntity("open5e_v2", b, {
      desc: str(r.desc),
      size: size ?? parent?.size ?? null,
      speed: speed ?? parent?.speed ?? null,
      traits,
      subspecies: children.get(v2Key(r)) ?? [],
      subspecies_of: parentKey
        ? { key: parentKey, name: byKey.get(parentKey) ?? titleCase(parentKey.replace(/^[^_]*_/, "")) }
        : null,
    });
  })(records, ctx);
}

export const normalizeV2Backgrounds = v2Normalizer("backgrounds", (r, b) => {
  const benefits = recs(r.benefits).map((x) => ({
    name: str(x.name) ?? "Benefit",
    desc: str(x.desc) ?? "",
    type: str(x.type) ?? "",
  }));
  const byType = (t: string) => benefits.find((x) => x.type === t)?.desc ?? null;
  const feature = benefits.find((x) => x.type === "feature");
  return backgroundEntity("open5e_v2", b, {
    desc: str(r.desc),
    skill_proficiencies: byType("skill_proficiency"),
    tool_proficiencies: byType("tool_proficiency"),
    languages: byType("language"),
    equipment: byType("equipment"),
    feature: feature ? { name: feature.name, desc: feature.desc } : null,
    ability_scores: byType("ability_score"),
    feat: byType("feat"),
    benefits: benefits.map((x) => ({ name: x.name, desc: x.desc })),
  });
});

export const normalizeV2Feats = v2Normalizer("feats", (r, b) => {
  return featEntity("open5e_v2", b, {
    desc: str(r.desc) ?? "",
    prerequisite: str(r.prerequisite),
    benefits: arr(r.benefits).flatMap((x) => (isRec(x) ? str(x.desc) : str(x)) || []),
    type: str(r.type)?.toLowerCase() ?? null,
  });
});
