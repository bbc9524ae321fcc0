/**
 * Fixed vocabularies of the tool parameters and how each maps to entity kinds. Pure data and
 * tiny pure helpers; the zod parameter builders live in params.ts.
 *
 * Matching is forgiving: case, spaces, "-" and "_" are ignored ("Very_Rare" → "very rare",
 * "damage_type" → "damage-type", "MagicItem" → "magic_item").
 */
import { DOCUMENT_SOURCES, ENTITY_KINDS, type EntityKind } from "../entities/types.ts";

export { DAMAGE_TYPES, SPELL_SCHOOLS } from "../entities/normalize/vocab.ts";

export const CREATURE_TYPES = [
  "aberration",
  "beast",
  "celestial",
  "construct",
  "dragon",
  "elemental",
  "fey",
  "fiend",
  "giant",
  "humanoid",
  "monstrosity",
  "ooze",
  "plant",
  "undead",
] as const;

export const SIZES = ["tiny", "small", "medium", "large", "huge", "gargantuan"] as const;

export const RARITIES = ["common", "uncommon", "rare", "very rare", "legendary", "artifact", "varies"] as const;

export const EQUIPMENT_TYPES = ["weapon", "armor", "item", "magic-item", "all"] as const;
export type EquipmentType = (typeof EQUIPMENT_TYPES)[number];

export const EQUIPMENT_KINDS: Record<EquipmentType, readonly EntityKind[]> = {
  weapon: ["weapon"],
  armor: ["armor"],
  item: ["item"],
  "magic-item": ["magic_item"],
  all: ["weapon", "armor", "item", "magic_item"],
};

export const RULE_TYPES = [
  "rule",
  "rule-section",
  "condition",
  "damage-type",
  "weapon-property",
  "skill",
  "ability-score",
  "magic-school",
  "language",
  "proficiency",
  "alignment",
] as const;
export type RuleType = (typeof RULE_TYPES)[number];

/** `rule` covers the top-level rules and their sections (where `section=` applies). */
export const RULE_TYPE_KINDS: Record<RuleType, readonly EntityKind[]> = {
  rule: ["rule", "rule_section"],
  "rule-section": ["rule_section"],
  condition: ["condition"],
  "damage-type": ["damage_type"],
  "weapon-property": ["weapon_property"],
  skill: ["skill"],
  "ability-score": ["ability_score"],
  "magic-school": ["magic_school"],
  language: ["language"],
  proficiency: ["proficiency"],
  alignment: ["alignment"],
};
export const ALL_RULE_KINDS: readonly EntityKind[] = [...new Set(Object.values(RULE_TYPE_KINDS).flat())];

export const CHARACTER_OPTION_TYPES = ["class", "subclass", "species", "race", "subspecies", "background", "feat"] as const;
export type CharacterOptionType = (typeof CHARACTER_OPTION_TYPES)[number];

/** `race` is the older name of `species`. */
export const CHARACTER_OPTION_KINDS: Record<CharacterOptionType, readonly EntityKind[]> = {
  class: ["class"],
  subclass: ["subclass"],
  species: ["species"],
  race: ["species"],
  subspecies: ["subspecies"],
  background: ["background"],
  feat: ["feat"],
};
export const ALL_CHARACTER_OPTION_KINDS: readonly EntityKind[] = ["class", "subclass", "species", "subspecies", "background", "feat"];

export const SOURCES = DOCUMENT_SOURCES;
export const FORMATS = ["json", "text"] as const;

/**
 * `search_all(content_types=...)`: display name → kinds. Open5e-style names (Spell, MagicItem,
 * Creature); matching ignores case, "-", "_" and a plural "s".
 */
export const CONTENT_TYPES: ReadonlyArray<{ name: string; aliases?: string[]; kinds: readonly EntityKind[] }> = [
  { name: "Spell", kinds: ["spell"] },
  { name: "Creature", aliases: ["Monster"], kinds: ["creature"] },
  { name: "Weapon", kinds: ["weapon"] },
  { name: "Armor", aliases: ["Armour"], kinds: ["armor"] },
  { name: "Item", aliases: ["Gear", "AdventuringGear"], kinds: ["item"] },
  { name: "MagicItem", kinds: ["magic_item"] },
  { name: "Equipment", kinds: ["weapon", "armor", "item", "magic_item"] },
  { name: "Class", kinds: ["class"] },
  { name: "Subclass", aliases: ["Archetype"], kinds: ["subclass"] },
  { name: "Species", aliases: ["Race"], kinds: ["species"] },
  { name: "Subspecies", aliases: ["Subrace"], kinds: ["subspecies"] },
  { name: "Background", kinds: ["background"] },
  { name: "Feat", kinds: ["feat"] },
  { name: "Rule", kinds: ["rule"] },
  { name: "RuleSection", kinds: ["rule_section"] },
  { name: "Condition", kinds: ["condition"] },
  { name: "DamageType", kinds: ["damage_type"] },
  { name: "WeaponProperty", kinds: ["weapon_property"] },
  { name: "Skill", kinds: ["skill"] },
  { name: "AbilityScore", aliases: ["Ability"], kinds: ["ability_score"] },
  { name: "MagicSchool", aliases: ["SpellSchool", "School"], kinds: ["magic_school"] },
  { name: "Language", kinds: ["language"] },
  { name: "Proficiency", kinds: ["proficiency"] },
  { name: "Alignment", kinds: ["alignment"] },
];

/** Lower-case with spaces, "-" and "_" removed: the form two spellings are compared in. */
export function squash(s: string): string {
  return s.toLowerCase().replace(/[\s_-]+/g, "");
}

/**
 * The canonical vocabulary value `raw` stands for, or `raw` itself (trimmed, lower-cased) when
 * nothing matches, so the enum check reports it. Non-strings pass through untouched.
 */
export function canonical(raw: unknown, values: readonly string[], aliases: Record<string, string> = {}): unknown {
  if (typeof raw !== "string") return raw;
  for (const s of singulars(squash(raw.trim()))) {
    for (const v of values) if (squash(v) === s) return v;
    for (const [alias, v] of Object.entries(aliases)) if (squash(alias) === s) return v;
  }
  return raw.trim().toLowerCase();
}

/** The word itself, then its plausible singulars ("classes" → "class", "abilities" → "ability"). */
function singulars(s: string): string[] {
  const out = [s];
  if (s.length > 3 && s.endsWith("ies")) out.push(`${s.slice(0, -3)}y`);
  if (s.length > 3 && s.endsWith("es")) out.push(s.slice(0, -2));
  if (s.length > 3 && s.endsWith("s")) out.push(s.slice(0, -1));
  return out;
}

const CONTENT_TYPE_INDEX = new Map<string, (typeof CONTENT_TYPES)[number]>();
for (const ct of CONTENT_TYPES) {
  for (const n of [ct.name, ...(ct.aliases ?? []), ...ct.kinds.filter(() => ct.kinds.length === 1)]) CONTENT_TYPE_INDEX.set(squash(n), ct);
}

/** One content type name → its kinds, or undefined. Accepts "MagicItem", "magic_item", "magic-items", "spells". */
export function contentTypeKinds(raw: string): readonly EntityKind[] | undefined {
  for (const c of singulars(squash(raw.trim()))) {
    const hit = CONTENT_TYPE_INDEX.get(c);
    if (hit) return hit.kinds;
  }
  return undefined;
}

export const CONTENT_TYPE_NAMES: readonly string[] = CONTENT_TYPES.map((c) => c.name);

export function isEntityKind(s: string): s is EntityKind {
  return (ENTITY_KINDS as readonly string[]).includes(s);
}
