/**
 * The kind catalog: the one place that says, for every entity kind, its data type, its label and
 * aliases, the tool group that searches it, the filters that apply to it and the vocabularies its
 * filter columns hold. Tools (enums, kind maps), the CLI (--type words), the filter layer and the
 * normalizers read it; nothing else lists kinds or vocabularies.
 *
 * Checked at compile time where TypeScript can (`satisfies Record<EntityKind, …>`: a new kind that is
 * missing here does not compile; the data type is `KindData[kind]` in kinds.ts), and by one test where
 * it cannot (test/entities/catalog.test.ts: every value a synced store holds in a vocabulary column
 * lies inside its tool enum).
 */
import type { KindData } from "./kinds.ts";
import type { EntityFilters, EntityKind } from "./types.ts";

// ── Vocabularies: each defined once ─────────────────────────────────────────────────────────────

export const DAMAGE_TYPES = ["acid", "bludgeoning", "cold", "fire", "force", "lightning", "necrotic", "piercing", "poison", "psychic", "radiant", "slashing", "thunder"] as const;

export const SPELL_SCHOOLS = ["abjuration", "conjuration", "divination", "enchantment", "evocation", "illusion", "necromancy", "transmutation"] as const;

export const CREATURE_TYPES = ["aberration", "beast", "celestial", "construct", "dragon", "elemental", "fey", "fiend", "giant", "humanoid", "monstrosity", "ooze", "plant", "undead"] as const;

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
export const WEAPON_PROPERTIES = ["ammunition", "finesse", "heavy", "light", "loading", "reach", "special", "thrown", "two-handed", "versatile"] as const;
export const SPELL_COMPONENTS = ["verbal", "somatic", "material", "costly material", "consumed material"] as const;

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
  /** The structured filter columns (entities table) this kind fills. */
  filters: readonly (keyof EntityFilters)[];
  /** Filter columns that hold a closed vocabulary, and that vocabulary (the tool enum). */
  vocabularies?: Readonly<Partial<Record<keyof EntityFilters, readonly string[]>>>;
}

/** Ties each entry to its data type (`KindData[K]`), so a kind without a data shape does not compile. */
type Catalog = { [K in EntityKind]: KindInfo & { readonly data?: KindData[K] } };

const EQUIPMENT_FILTERS = ["category", "cost_gp", "weight_lb"] as const;

/** In the order the tools list them (groups together). */
export const KINDS = {
  spell: {
    label: "Spell",
    aliases: [],
    group: "spell",
    toolType: "spell",
    filters: ["level", "school", "classes", "concentration", "ritual", "casting_time", "damage_types"],
    vocabularies: { school: SPELL_SCHOOLS, damage_types: DAMAGE_TYPES },
  },
  creature: {
    label: "Creature",
    aliases: ["Monster"],
    group: "creature",
    toolType: "creature",
    filters: ["cr", "creature_type", "size", "armor_class", "hit_points"],
    vocabularies: { creature_type: CREATURE_TYPES, size: SIZES },
  },
  weapon: {
    label: "Weapon",
    aliases: [],
    group: "equipment",
    toolType: "weapon",
    filters: [...EQUIPMENT_FILTERS, "damage_types", "damage_dice", "is_simple"],
    vocabularies: { damage_types: DAMAGE_TYPES },
  },
  armor: { label: "Armor", aliases: ["Armour"], group: "equipment", toolType: "armor", filters: [...EQUIPMENT_FILTERS, "armor_class"] },
  item: { label: "Item", aliases: ["Gear", "AdventuringGear"], group: "equipment", toolType: "item", filters: EQUIPMENT_FILTERS },
  magic_item: {
    label: "MagicItem",
    aliases: [],
    group: "equipment",
    toolType: "magic-item",
    filters: [...EQUIPMENT_FILTERS, "rarity", "requires_attunement"],
    vocabularies: { rarity: RARITIES },
  },
  class: { label: "Class", aliases: [], group: "character_option", toolType: "class", filters: [] },
  subclass: { label: "Subclass", aliases: ["Archetype"], group: "character_option", toolType: "subclass", filters: [] },
  species: { label: "Species", aliases: ["Race"], group: "character_option", toolType: "species", toolAliases: ["race"], filters: ["size"], vocabularies: { size: SIZES } },
  subspecies: { label: "Subspecies", aliases: ["Subrace"], group: "character_option", toolType: "subspecies", filters: [] },
  background: { label: "Background", aliases: [], group: "character_option", toolType: "background", filters: [] },
  feat: { label: "Feat", aliases: [], group: "character_option", toolType: "feat", filters: [] },
  rule: { label: "Rule", aliases: [], group: "rule", toolType: "rule", filters: ["section"] },
  rule_section: { label: "RuleSection", aliases: [], group: "rule", toolType: "rule-section", alsoUnder: "rule", filters: [] },
  condition: { label: "Condition", aliases: [], group: "rule", toolType: "condition", filters: [] },
  damage_type: { label: "DamageType", aliases: [], group: "rule", toolType: "damage-type", filters: [] },
  weapon_property: { label: "WeaponProperty", aliases: [], group: "rule", toolType: "weapon-property", filters: [] },
  skill: { label: "Skill", aliases: [], group: "rule", toolType: "skill", filters: [] },
  ability_score: { label: "AbilityScore", aliases: ["Ability"], group: "rule", toolType: "ability-score", filters: [] },
  magic_school: { label: "MagicSchool", aliases: ["SpellSchool", "School"], group: "rule", toolType: "magic-school", filters: [] },
  language: { label: "Language", aliases: [], group: "rule", toolType: "language", filters: [] },
  proficiency: { label: "Proficiency", aliases: [], group: "rule", toolType: "proficiency", filters: [] },
  alignment: { label: "Alignment", aliases: [], group: "rule", toolType: "alignment", filters: [] },
} as const satisfies Catalog;

/** Groups with a name of their own (a search_all content type and a CLI --type word). */
export const GROUPS: Readonly<Record<ToolGroup, { label: string | null; cliWord: string | null }>> = {
  spell: { label: null, cliWord: null },
  creature: { label: null, cliWord: null },
  equipment: { label: "Equipment", cliWord: "equipment" },
  character_option: { label: null, cliWord: "character-option" },
  rule: { label: null, cliWord: "rules" },
};

export const CATALOG_KINDS = Object.keys(KINDS) as EntityKind[];

export function kindInfo(kind: EntityKind): KindInfo {
  return KINDS[kind];
}

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

/** The kinds one value of a group tool's `type` parameter selects. */
export function kindsOfToolType(group: ToolGroup, type: string): EntityKind[] {
  return kindsOfGroup(group).filter((k) => {
    const info: KindInfo = KINDS[k];
    return info.toolType === type || info.alsoUnder === type || (info.toolAliases ?? []).includes(type);
  });
}

/** `{ toolType → kinds }` for a group tool, typed by its enum. */
export function toolTypeKinds<T extends string>(group: ToolGroup, types: readonly T[]): Record<T, readonly EntityKind[]> {
  return Object.fromEntries(types.map((t) => [t, kindsOfToolType(group, t)])) as unknown as Record<T, readonly EntityKind[]>;
}

/** Every (kind, column, vocabulary) the catalog declares: what the vocabulary test checks. */
export function vocabularyColumns(): { kind: EntityKind; column: keyof EntityFilters; values: readonly string[] }[] {
  return CATALOG_KINDS.flatMap((kind) => {
    const info: KindInfo = KINDS[kind];
    return Object.entries(info.vocabularies ?? {}).map(([column, values]) => ({ kind, column: column as keyof EntityFilters, values: values as readonly string[] }));
  });
}
