/**
 * What a compact row shows per kind: the few fields a DM scans for (declarative; one place, meant
 * to sit in the kind catalog). Each entry is `[field, path]` — a top-level `data` field — or
 * `[field, format]` for a value built from several fields. `summary` lists the data fields whose
 * first sentence makes the row's one-line summary (the first present one wins), then an optional
 * fallback built from the data. Rows leave out fields that are null, empty or false (flags show
 * only when set: `"ritual": true`).
 */
import type { EntityKind, JsonObject, JsonValue } from "../../entities/types.ts";

export type Format = (d: JsonObject) => JsonValue | undefined;
export type FieldSpec = readonly [field: string, from: string | Format];

export interface CompactSpec {
  fields: readonly FieldSpec[];
  summary: readonly string[];
  fallback?: (d: JsonObject) => string | undefined;
}

const str = (v: JsonValue | undefined): string | undefined =>
  typeof v === "string" && v.trim() ? v.trim() : undefined;
const obj = (v: JsonValue | undefined): JsonObject | undefined =>
  v && typeof v === "object" && !Array.isArray(v) ? (v as JsonObject) : undefined;
const arr = (v: JsonValue | undefined): JsonValue[] => (Array.isArray(v) ? v : []);
const names = (v: JsonValue | undefined): string[] => arr(v).flatMap((x) => str(obj(x)?.name) ?? []);
const refName =
  (field: string): Format =>
  (d) =>
    str(obj(d[field])?.name);

/** "V, S, M" */
const components: Format = (d) => {
  const c = obj(d.components);
  if (!c) return undefined;
  const out = [c.verbal && "V", c.somatic && "S", c.material && "M"].filter(Boolean);
  return out.length ? out.join(", ") : undefined;
};

/** "30, fly 60 ft. (hover)": the unit once, at the end. */
const speed: Format = (d) => {
  const s = obj(d.speed);
  if (!s) return typeof d.speed === "number" ? `${d.speed} ft.` : undefined;
  const parts: string[] = [];
  // A mode at 0 is no such mode (walk 0 stays: the creature does not move).
  for (const [mode, v] of Object.entries(s))
    if (typeof v === "number" && (v > 0 || mode === "walk")) parts.push(mode === "walk" ? `${v}` : `${mode} ${v}`);
  if (parts.length === 0) return undefined;
  return `${parts.join(", ")} ft.${s.hover === true ? " (hover)" : ""}`;
};

/** "1d8 slashing" */
const damage: Format = (d) => [str(d.damage_dice), str(d.damage_type)].filter(Boolean).join(" ") || undefined;

/** "finesse, light, thrown (20/60)" */
const properties: Format = (d) => {
  const ps = arr(d.properties).flatMap((p) => {
    const o = obj(p);
    const n = str(o?.name);
    if (!n) return [];
    const detail = str(o?.detail);
    return [detail ? `${n} (${detail})` : n];
  });
  return ps.length ? ps.join(", ") : undefined;
};

const attunement: Format = (d) => (d.requires_attunement === true ? (str(d.attunement_detail) ?? true) : false);

/** Alignment and the first actions (size and type are fields already): "chaotic evil; Bite, Claw". */
const creatureFallback = (d: JsonObject): string | undefined => {
  const actions = names(d.actions)
    .filter((n) => n !== "Multiattack")
    .slice(0, 2);
  return [str(d.alignment), actions.join(", ")].filter(Boolean).join("; ") || undefined;
};

/**
 * Longest compact `profile` (a core creature's, spell's or magic item's profile, first sentence), in
 * characters. Shown in searches and name lookups only (rows.ts leaves it out of structured lists).
 */
export const PROFILE_CHARS = 100;

/** The first sentence of a core entry's profile, cut at a word to PROFILE_CHARS: what the row is, at a glance. */
const shortProfile: Format = (d) => {
  const p = str(d.profile);
  if (!p) return undefined;
  const first = /^(.+?[.!?])(\s|$)/.exec(p)?.[1] ?? p;
  if (first.length <= PROFILE_CHARS) return first;
  const cut = first.slice(0, PROFILE_CHARS - 1);
  return `${cut.slice(0, cut.lastIndexOf(" ")).replace(/[,;:]$/, "")}…`;
};

const DESC = ["desc"] as const;

const CLASS: CompactSpec = {
  fields: [
    ["hit_die", "hit_die"],
    ["primary_abilities", "primary_abilities"],
    ["spellcasting_ability", "spellcasting_ability"],
    ["subclass_of", refName("subclass_of")],
  ],
  summary: DESC,
};

const SPECIES: CompactSpec = {
  fields: [
    ["size", "size"],
    ["speed", speed],
    ["subspecies_of", refName("subspecies_of")],
  ],
  summary: DESC,
  fallback: (d) => (names(d.traits).length ? `Traits: ${names(d.traits).join(", ")}` : undefined),
};

export const COMPACT_FIELDS: Readonly<Record<EntityKind, CompactSpec>> = {
  spell: {
    fields: [
      ["level", "level"],
      ["school", "school"],
      ["casting_time", "casting_time"],
      ["range", "range"],
      ["concentration", "concentration"],
      ["ritual", "ritual"],
      ["components", components],
      ["profile", shortProfile],
    ],
    summary: DESC,
  },
  creature: {
    fields: [
      ["cr", "cr_display"],
      ["type", "type"],
      ["size", "size"],
      ["armor_class", "armor_class"],
      ["hit_points", "hit_points"],
      ["speed", speed],
      ["profile", shortProfile],
    ],
    summary: DESC,
    fallback: creatureFallback,
  },
  class: CLASS,
  subclass: CLASS,
  species: SPECIES,
  subspecies: SPECIES,
  background: {
    fields: [
      ["skill_proficiencies", "skill_proficiencies"],
      ["ability_scores", "ability_scores"],
      ["feat", "feat"],
    ],
    summary: DESC,
  },
  feat: {
    fields: [
      ["type", "type"],
      ["prerequisite", "prerequisite"],
    ],
    summary: DESC,
  },
  weapon: {
    fields: [
      ["category", "category"],
      ["damage", damage],
      ["properties", properties],
    ],
    summary: DESC,
  },
  armor: {
    fields: [
      ["category", "category"],
      ["armor_class", "ac_display"],
      ["strength_required", "strength_required"],
      ["stealth_disadvantage", "stealth_disadvantage"],
    ],
    summary: DESC,
  },
  item: {
    fields: [
      ["category", "category"],
      ["cost", "cost"],
      ["weight_lb", "weight_lb"],
      // magic gear a document files as an item (SRD 5.2 potions), when `type: "magic-item"` finds it
      ["classified_as", "classified_as"],
      ["profile", shortProfile],
    ],
    summary: DESC,
  },
  magic_item: {
    fields: [
      ["rarity", "rarity"],
      ["type", "type"],
      ["attunement", attunement],
      ["profile", shortProfile],
    ],
    summary: DESC,
  },
  // Records with several documents' wording: which one the summary quotes (search/rank/present.ts).
  condition: { fields: [["desc_document", "desc_document"]], summary: DESC },
  rule: { fields: [["section", "section"]], summary: DESC },
  rule_section: { fields: [], summary: DESC },
  damage_type: { fields: [["desc_document", "desc_document"]], summary: DESC },
  weapon_property: { fields: [["type", "type"]], summary: DESC },
  skill: {
    fields: [
      ["ability", "ability"],
      ["desc_document", "desc_document"],
    ],
    summary: DESC,
  },
  ability_score: {
    fields: [
      ["abbreviation", "abbreviation"],
      ["desc_document", "desc_document"],
    ],
    summary: DESC,
  },
  magic_school: { fields: [], summary: DESC },
  language: {
    fields: [
      ["type", "type"],
      ["script", "script"],
    ],
    summary: DESC,
    fallback: (d) => (str(d.typical_speakers) ? `Spoken by ${str(d.typical_speakers)}` : undefined),
  },
  proficiency: { fields: [["type", "type"]], summary: DESC, fallback: (d) => str(obj(d.reference)?.name) },
  alignment: {
    fields: [
      ["abbreviation", "abbreviation"],
      ["desc_document", "desc_document"],
    ],
    summary: DESC,
  },
  // A trait's reference row: who has it (count, first names, the call listing them all), whose wording.
  trait: {
    fields: [
      ["creature_count", "creature_count"],
      [
        "creatures",
        (d) =>
          arr(d.creatures)
            .flatMap((x) => str(x) ?? [])
            .join(", ") || undefined,
      ],
      ["all_creatures", "all_creatures"],
      ["wording_from", (d) => str(obj(d.wording_from)?.name)],
    ],
    summary: DESC,
  },
};
