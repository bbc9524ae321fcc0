/**
 * What a compact row shows per kind: the few fields a DM scans for (declarative; one place, meant
 * to sit in the kind catalog). Each entry is a top-level `data` field, `[field, path]` for one shown
 * under another name, or `[field, format]` for a value built from several fields. The one-line
 * summary is the first sentence of `desc`, else of the kind's optional `fallback`. Rows leave out
 * fields that are null, empty or false (flags show only when set: `"ritual": true`).
 */
import { arr, names, rec, refName, str } from "../../entities/normalize/read.ts";
import type { EntityKind, JsonObject, JsonValue } from "../../entities/types.ts";

export type Format = (d: JsonObject) => JsonValue | undefined;
/** A top-level `data` field shown under its own name, or `[field, path or format]`. */
type FieldSpec = string | readonly [field: string, from: string | Format];

export interface CompactSpec {
  fields: readonly FieldSpec[];
  fallback?: (d: JsonObject) => string | null | undefined;
}

/** "V, S, M" */
const components: Format = (d) => {
  const c = rec(d.components);
  return c && ([c.verbal && "V", c.somatic && "S", c.material && "M"].filter(Boolean).join(", ") || undefined);
};

/** "30, fly 60 ft. (hover)": the unit once, at the end. */
const speed: Format = (d) => {
  const s = rec(d.speed);
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
    const n = refName(p);
    const detail = str(rec(p)?.detail);
    return n ? [detail ? `${n} (${detail})` : n] : [];
  });
  return ps.join(", ") || undefined;
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

/** `s` in at most `max` characters: cut at a word when one ends late enough, with "…". */
export function cutAtWord(s: string, max: number): string {
  if (s.length <= max) return s;
  const cut = s.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).replace(/[,;:]$/, "")}…`;
}

/** The first sentence of a core entry's profile, cut at a word to PROFILE_CHARS: what the row is, at a glance. */
const shortProfile: Format = (d) => {
  const p = str(d.profile);
  return p ? cutAtWord(/^(.+?[.!?])(\s|$)/.exec(p)?.[1] ?? p, PROFILE_CHARS) : undefined;
};

const CLASS: CompactSpec = {
  fields: ["hit_die", "primary_abilities", "spellcasting_ability", ["subclass_of", (d) => refName(d.subclass_of)]],
};

const SPECIES: CompactSpec = {
  fields: ["size", ["speed", speed], ["subspecies_of", (d) => refName(d.subspecies_of)]],
  fallback: (d) => (names(d.traits).length ? `Traits: ${names(d.traits).join(", ")}` : undefined),
};

export const COMPACT_FIELDS: Readonly<Record<EntityKind, CompactSpec>> = {
  spell: {
    fields: [
      "level",
      "school",
      "casting_time",
      "range",
      "concentration",
      "ritual",
      ["components", components],
      ["profile", shortProfile],
    ],
  },
  creature: {
    fields: [
      ["cr", "cr_display"],
      "type",
      "size",
      "armor_class",
      "hit_points",
      ["speed", speed],
      ["profile", shortProfile],
    ],
    fallback: creatureFallback,
  },
  class: CLASS,
  subclass: CLASS,
  species: SPECIES,
  subspecies: SPECIES,
  background: { fields: ["skill_proficiencies", "ability_scores", "feat"] },
  feat: { fields: ["type", "prerequisite"] },
  weapon: { fields: ["category", ["damage", damage], ["properties", properties]] },
  armor: { fields: ["category", ["armor_class", "ac_display"], "strength_required", "stealth_disadvantage"] },
  item: {
    fields: [
      "category",
      "cost",
      "weight_lb",
      // magic gear a document files as an item (SRD 5.2 potions), when `type: "magic-item"` finds it
      "classified_as",
      ["profile", shortProfile],
    ],
  },
  magic_item: { fields: ["rarity", "type", ["attunement", attunement], ["profile", shortProfile]] },
  // Records with several documents' wording: which one the summary quotes (search/rank/present.ts).
  condition: { fields: ["desc_document"] },
  rule: { fields: ["section"] },
  rule_section: { fields: [] },
  damage_type: { fields: ["desc_document"] },
  weapon_property: { fields: ["type"] },
  skill: { fields: ["ability", "desc_document"] },
  ability_score: { fields: ["abbreviation", "desc_document"] },
  magic_school: { fields: [] },
  language: {
    fields: ["type", "script"],
    fallback: (d) => (str(d.typical_speakers) ? `Spoken by ${str(d.typical_speakers)}` : undefined),
  },
  proficiency: { fields: ["type"], fallback: (d) => refName(d.reference) },
  alignment: { fields: ["abbreviation", "desc_document"] },
  // A trait's reference row: who has it (count, first names, the call listing them all), whose wording.
  trait: {
    fields: [
      "creature_count",
      [
        "creatures",
        (d) =>
          arr(d.creatures)
            .flatMap((x) => str(x) ?? [])
            .join(", ") || undefined,
      ],
      "all_creatures",
      ["wording_from", (d) => refName(d.wording_from)],
    ],
  },
};
