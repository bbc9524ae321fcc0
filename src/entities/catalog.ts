/**
 * The kind catalog: the one place that says, for every entity kind, its label and aliases and the
 * tool group that searches it, and that defines the vocabularies. Which filters apply to a kind is
 * the filter table's (filters.ts); its data shape is kinds.ts'. Tools (enums, kind maps), the CLI
 * (--type words), the filter table and the normalizers read it; nothing else lists kinds or vocabularies.
 *
 * Checked at compile time where TypeScript can (`satisfies Record<EntityKind, …>`: a new kind that is
 * missing here does not compile), and by one test where it cannot (test/entities/catalog.test.ts:
 * every value a synced store holds in a vocabulary column of the filter table lies inside its tool enum).
 */
import type { EntityKind } from "./types.ts";

// ── Vocabularies: each defined once ─────────────────────────────────────────────────────────────

export const DAMAGE_TYPES = [
  "acid",
  "bludgeoning",
  "cold",
  "fire",
  "force",
  "lightning",
  "necrotic",
  "piercing",
  "poison",
  "psychic",
  "radiant",
  "slashing",
  "thunder",
] as const;

export const SPELL_SCHOOLS = [
  "abjuration",
  "conjuration",
  "divination",
  "enchantment",
  "evocation",
  "illusion",
  "necromancy",
  "transmutation",
] as const;

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

/** The rarities a source can state for one item. */
export const ITEM_RARITIES = ["common", "uncommon", "rare", "very rare", "legendary", "artifact"] as const;
/** What the `rarity` filter column holds: one of ITEM_RARITIES, or "varies" (several, or "rarity varies"). */
export const RARITIES = [...ITEM_RARITIES, "varies"] as const;

/** Derived filters (derived.ts): creature movement modes, senses, conditions; weapon properties; spell components. */
export const MOVEMENT_MODES = ["fly", "swim", "climb", "burrow", "hover"] as const;
export const SENSES = ["blindsight", "darkvision", "tremorsense", "truesight"] as const;
export const CONDITIONS = [
  "blinded",
  "charmed",
  "deafened",
  "exhaustion",
  "frightened",
  "grappled",
  "incapacitated",
  "invisible",
  "paralyzed",
  "petrified",
  "poisoned",
  "prone",
  "restrained",
  "stunned",
  "unconscious",
] as const;
export const WEAPON_PROPERTIES = [
  "ammunition",
  "finesse",
  "heavy",
  "light",
  "loading",
  "reach",
  "special",
  "thrown",
  "two-handed",
  "versatile",
] as const;
export const SPELL_COMPONENTS = ["verbal", "somatic", "material", "costly material", "consumed material"] as const;
/**
 * Creature alignment words (derived.ts alignmentWords): the axes' words, "unaligned", and "any" for "any alignment".
 */
export const ALIGNMENT_WORDS = ["lawful", "neutral", "chaotic", "good", "evil", "unaligned", "any"] as const;

// ── Kinds ───────────────────────────────────────────────────────────────────────────────────────

/** The search tool that covers a kind (`search_all` covers every kind). */
export type ToolGroup = "spell" | "creature" | "character_option" | "equipment" | "rule";

export interface KindInfo {
  /** Display name, also the `search_all(content_types=…)` name ("MagicItem"). */
  label: string;
  /** Other names people use for it ("Monster", "Race"): accepted by search_all and the CLI. */
  aliases: readonly string[];
  group: ToolGroup;
  /** The value of the group tool's `type` / `rule_type` parameter that selects this kind. */
  toolType: string;
  /** Older names of `toolType` accepted by that parameter ("race" for species). */
  toolAliases?: readonly string[];
  /** Another `toolType` of the same group that also selects this kind (rule sections under "rule"). */
  alsoUnder?: string;
}

/** In the order the tools list them (groups together). */
export const KINDS = {
  spell: { label: "Spell", aliases: [], group: "spell", toolType: "spell" },
  creature: { label: "Creature", aliases: ["Monster"], group: "creature", toolType: "creature" },
  weapon: { label: "Weapon", aliases: [], group: "equipment", toolType: "weapon" },
  armor: { label: "Armor", aliases: ["Armour"], group: "equipment", toolType: "armor" },
  item: { label: "Item", aliases: ["Gear", "AdventuringGear"], group: "equipment", toolType: "item" },
  magic_item: { label: "MagicItem", aliases: [], group: "equipment", toolType: "magic-item" },
  class: { label: "Class", aliases: [], group: "character_option", toolType: "class" },
  subclass: { label: "Subclass", aliases: ["Archetype"], group: "character_option", toolType: "subclass" },
  species: {
    label: "Species",
    aliases: ["Race"],
    group: "character_option",
    toolType: "species",
    toolAliases: ["race"],
  },
  subspecies: { label: "Subspecies", aliases: ["Subrace"], group: "character_option", toolType: "subspecies" },
  background: { label: "Background", aliases: [], group: "character_option", toolType: "background" },
  feat: { label: "Feat", aliases: [], group: "character_option", toolType: "feat" },
  rule: { label: "Rule", aliases: [], group: "rule", toolType: "rule" },
  rule_section: { label: "RuleSection", aliases: [], group: "rule", toolType: "rule-section", alsoUnder: "rule" },
  condition: { label: "Condition", aliases: [], group: "rule", toolType: "condition" },
  damage_type: { label: "DamageType", aliases: [], group: "rule", toolType: "damage-type" },
  weapon_property: { label: "WeaponProperty", aliases: [], group: "rule", toolType: "weapon-property" },
  skill: { label: "Skill", aliases: [], group: "rule", toolType: "skill" },
  ability_score: { label: "AbilityScore", aliases: ["Ability"], group: "rule", toolType: "ability-score" },
  magic_school: { label: "MagicSchool", aliases: ["SpellSchool", "School"], group: "rule", toolType: "magic-school" },
  language: { label: "Language", aliases: [], group: "rule", toolType: "language" },
  proficiency: { label: "Proficiency", aliases: [], group: "rule", toolType: "proficiency" },
  alignment: { label: "Alignment", aliases: [], group: "rule", toolType: "alignment" },
  trait: { label: "Trait", aliases: ["MonsterTrait"], group: "rule", toolType: "trait" },
} as const satisfies Record<EntityKind, KindInfo>;

/** Groups with a name of their own (a search_all content type and a CLI --type word). */
export const GROUPS: Readonly<Record<ToolGroup, { label: string | null; cliWord: string | null }>> = {
  spell: { label: null, cliWord: null },
  creature: { label: null, cliWord: null },
  equipment: { label: "Equipment", cliWord: "equipment" },
  character_option: { label: null, cliWord: "character-option" },
  rule: { label: null, cliWord: "rules" },
};

export const CATALOG_KINDS = Object.keys(KINDS) as EntityKind[];

/** The kinds a tool group searches, in catalog order. */
export function kindsOfGroup(group: ToolGroup): EntityKind[] {
  return CATALOG_KINDS.filter((k) => KINDS[k].group === group);
}

/** The `type` enum of a group tool (toolType values then their older names, in catalog order). */
export function toolTypesOf(group: ToolGroup): string[] {
  return kindsOfGroup(group).flatMap((k) => {
    const info: KindInfo = KINDS[k];
    return [info.toolType, ...(info.toolAliases ?? [])];
  });
}

/** `{ toolType → kinds }` for a group tool, typed by its enum: the kinds each value of its `type` selects. */
export function toolTypeKinds<T extends string>(
  group: ToolGroup,
  types: readonly T[],
): Record<T, readonly EntityKind[]> {
  const selects = (info: KindInfo, t: string) =>
    info.toolType === t || info.alsoUnder === t || (info.toolAliases ?? []).includes(t);
  const out = {} as Record<T, readonly EntityKind[]>;
  for (const t of types) out[t] = kindsOfGroup(group).filter((k) => selects(KINDS[k], t));
  return out;
}
