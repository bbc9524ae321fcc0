/**
 * Canonical detail shapes (`Entity.data`) per kind. Every source fills the same fields; a value the
 * source does not have is `null` (or an empty list/object), never missing. Declared as type aliases
 * (not interfaces) so that they are assignable to `JsonObject`. See docs/entities.md.
 */
import type { EntityKind } from "./types.ts";

/** A named block of text: a trait, an action, a feature, a benefit. */
export type NamedText = { name: string; desc: string };

/** A reference to another entity of the same source: its key and display name. */
export type Ref = { key: string; name: string };

/** One document's text of a shared record (Open5e v2 "core" conditions, skills, ... carry one per book). */
export type DocDescription = { document_key: string; document_name: string; desc: string };

export type SpellData = {
  level: number;
  /** magic school key, lower-case ("evocation") */
  school: string | null;
  /** as written by the source ("1 action", "1 reaction, which you take when ...") */
  casting_time: string | null;
  range: string | null;
  /** range in feet when numeric (Self/Touch → null) */
  range_ft: number | null;
  duration: string | null;
  concentration: boolean;
  ritual: boolean;
  components: {
    verbal: boolean;
    somatic: boolean;
    material: boolean;
    material_text: string | null;
    material_cost: string | null;
    material_consumed: boolean | null;
  };
  desc: string;
  higher_level: string | null;
  /** class keys without document prefix ("wizard") */
  classes: string[];
  damage_types: string[];
  /** ability of the saving throw, lower-case full name ("dexterity") */
  saving_throw: string | null;
  attack_roll: boolean | null;
  /** core spells / magic items (SRD 5.1/5.2): what it does and what people reach for it for (data/*-profiles.json) */
  profile?: string;
  /** core spells / magic items: names people use for it ("slow fall") */
  common_names?: string[];
  /** where the upstream record is wrong and what was corrected (present only then) */
  upstream_notes?: string[];
  /** base damage/healing dice when the source gives it ("8d6") */
  damage_roll: string | null;
  /** area of effect, e.g. { type: "sphere", size_ft: 20 } */
  area: { type: string; size_ft: number | null } | null;
  reaction_condition: string | null;
};

export type CreatureAction = {
  name: string;
  desc: string;
  /** "Recharge 5–6", "3/Day", ... when the source states it separately from the name */
  usage: string | null;
  /** legendary actions only: cost in actions (1 when unstated) */
  cost: number | null;
};

export type CreatureData = {
  /** display size ("Large") */
  size: string | null;
  /** display type ("Undead") */
  type: string | null;
  subtype: string | null;
  /** family the source files it under ("Dragons, Chromatic", "Demons"); optional */
  group?: string | null;
  alignment: string | null;
  armor_class: number | null;
  armor_detail: string | null;
  hit_points: number | null;
  hit_dice: string | null;
  /** speeds in feet by mode (walk, fly, swim, climb, burrow), plus hover: true when it hovers */
  speed: { [mode: string]: number | boolean };
  ability_scores: {
    strength: number | null;
    dexterity: number | null;
    constitution: number | null;
    intelligence: number | null;
    wisdom: number | null;
    charisma: number | null;
  };
  /** proficient saving throws only: ability (lower-case full name) → bonus */
  saving_throws: { [ability: string]: number };
  /** skill (lower-case, underscores: "sleight_of_hand") → bonus */
  skills: { [skill: string]: number };
  damage_vulnerabilities: string | null;
  damage_resistances: string | null;
  damage_immunities: string | null;
  condition_immunities: string | null;
  senses: string | null;
  passive_perception: number | null;
  languages: string | null;
  cr: number | null;
  cr_display: string | null;
  xp: number | null;
  proficiency_bonus: number | null;
  traits: CreatureAction[];
  actions: CreatureAction[];
  bonus_actions: CreatureAction[];
  reactions: CreatureAction[];
  legendary_desc: string | null;
  legendary_actions: CreatureAction[];
  lair_actions: CreatureAction[];
  environments: string[];
  desc: string | null;
  /**
   * core creatures (SRD 5.1/5.2): what it looks like, where it lives,
   * what it is known for (src/entities/data/creature-profiles.json)
   */
  profile?: string;
  /** core creatures: names people use for it ("owl bear") */
  common_names?: string[];
  /** where the upstream record is wrong and what was corrected (present only then) */
  upstream_notes?: string[];
};

export type ClassFeature = { name: string; level: number | null; desc: string };

export type ClassData = {
  desc: string | null;
  /** "d10" */
  hit_die: string | null;
  hit_points_at_1st_level: string | null;
  hit_points_at_higher_levels: string | null;
  saving_throws: string[];
  proficiencies: {
    armor: string | null;
    weapons: string | null;
    tools: string | null;
    saving_throws: string | null;
    skills: string | null;
  };
  equipment: string | null;
  /** full ability name ("Intelligence") */
  spellcasting_ability: string | null;
  caster_type: string | null;
  primary_abilities: string[];
  /** sorted by level; level null when the source does not say */
  features: ClassFeature[];
  subclasses: Ref[];
  /** subclasses only: the class they belong to */
  subclass_of: Ref | null;
  /** the level table as markdown, when the source gives one */
  table: string | null;
};

export type SpeciesData = {
  desc: string | null;
  size: string | null;
  /** walking speed in feet */
  speed: number | null;
  traits: NamedText[];
  subspecies: Ref[];
  subspecies_of: Ref | null;
};

export type BackgroundData = {
  desc: string | null;
  skill_proficiencies: string | null;
  tool_proficiencies: string | null;
  languages: string | null;
  equipment: string | null;
  feature: NamedText | null;
  ability_scores: string | null;
  feat: string | null;
  /** every benefit as given (Open5e v2 benefits, other sources' extra sections) */
  benefits: NamedText[];
};

export type FeatData = {
  desc: string;
  prerequisite: string | null;
  benefits: string[];
  /** lower-case feat category ("general", "origin", "fighting style", "epic boon") */
  type: string | null;
};

export type WeaponProperty = { name: string; detail: string | null };

export type WeaponData = {
  /** "simple" | "martial" */
  category: string | null;
  /** "melee" | "ranged" */
  range_type: string | null;
  damage_dice: string | null;
  damage_type: string | null;
  /** two-handed damage of versatile weapons ("1d10") */
  versatile_dice: string | null;
  properties: WeaponProperty[];
  /** normal/long range in feet (ranged or thrown) */
  range: number | null;
  long_range: number | null;
  is_improvised: boolean;
  mastery: string | null;
  cost: string | null;
  cost_gp: number | null;
  weight_lb: number | null;
  desc: string | null;
  /** Open5e v2: key of the /v2/items/ record this weapon is sold as (null when there is none) */
  item_key: string | null;
  /** where the upstream record is wrong and what was corrected (present only then) */
  upstream_notes?: string[];
};

export type ArmorData = {
  /** "light" | "medium" | "heavy" | "shield" */
  category: string | null;
  ac_base: number | null;
  ac_add_dex: boolean;
  /** cap on the Dexterity bonus (medium armor: 2); null = no cap or no Dex */
  ac_max_dex: number | null;
  ac_display: string | null;
  strength_required: number | null;
  stealth_disadvantage: boolean;
  cost: string | null;
  cost_gp: number | null;
  weight_lb: number | null;
  desc: string | null;
  /** Open5e v2: key of the /v2/items/ record this armor is sold as (null when there is none) */
  item_key: string | null;
};

export type ItemData = {
  /** item category key ("adventuring-gear", "tools", "poison") */
  category: string | null;
  cost: string | null;
  cost_gp: number | null;
  weight_lb: number | null;
  desc: string | null;
  /** core spells / magic items (SRD 5.1/5.2): what it does and what people reach for it for (data/*-profiles.json) */
  profile?: string;
  /** core spells / magic items: names people use for it ("slow fall") */
  common_names?: string[];
};

export type MagicItemData = {
  /** item type key ("weapon", "armor", "shield", "wondrous-item", "ring", "potion", ...) */
  type: string | null;
  /** rarity as written, lower-case ("very rare", "uncommon (+1), rare (+2)") */
  rarity: string | null;
  requires_attunement: boolean;
  attunement_detail: string | null;
  desc: string;
  /** the mundane weapon/armor it is based on, when the source says */
  base_item: string | null;
  damage_dice: string | null;
  damage_type: string | null;
  cost: string | null;
  cost_gp: number | null;
  weight_lb: number | null;
  /** core spells / magic items (SRD 5.1/5.2): what it does and what people reach for it for (data/*-profiles.json) */
  profile?: string;
  /** core spells / magic items: names people use for it ("slow fall") */
  common_names?: string[];
};

/**
 * `descriptions`: every document's text of a shared record, `desc` being the main one (Open5e v2
 * records with `descriptions[]`); empty when the source has a single text.
 */
export type ConditionData = { desc: string; descriptions: DocDescription[] };
export type DamageTypeData = { desc: string; descriptions: DocDescription[] };
export type MagicSchoolData = { desc: string };

export type RuleData = {
  desc: string;
  /** display name of the parent section ("Combat") */
  section: string | null;
  section_key: string | null;
  /** position within the section */
  order: number | null;
  /** core rules (SRD 5.1/5.2): which questions it answers, in plain words (src/entities/data/rule-profiles.json) */
  profile?: string;
  /** core rules: topics people name it by ("surprise", "initiative") */
  common_names?: string[];
};

export type RuleSectionData = { desc: string; rules: Ref[]; profile?: string; common_names?: string[] };

export type WeaponPropertyData = {
  desc: string;
  /** null for ordinary properties, "mastery" for 2024 weapon mastery properties */
  type: string | null;
};

export type SkillData = { desc: string; ability: string | null; descriptions: DocDescription[] };

export type AbilityScoreData = {
  desc: string;
  abbreviation: string | null;
  full_name: string | null;
  skills: string[];
  descriptions: DocDescription[];
};

export type LanguageData = {
  desc: string | null;
  /** "standard" | "exotic" | "rare" | "secret" */
  type: string | null;
  script: string | null;
  typical_speakers: string | null;
};

export type ProficiencyData = {
  /** lower-case proficiency type ("armor", "weapons", "skills", "saving throws", "artisan's tools") */
  type: string | null;
  classes: string[];
  species: string[];
  backgrounds: string[];
  reference: Ref | null;
  desc: string | null;
};

export type AlignmentData = { desc: string; abbreviation: string | null; descriptions: DocDescription[] };

/** A monster trait many stat blocks share, derived from the stored creatures (entities/traits.ts). */
export type TraitData = {
  /** the trait's text, as `wording_from`'s stat block has it */
  desc: string;
  wording_from: { name: string; document_key: string; uri: string };
  /** how many creatures (distinct names, any book) have it */
  creature_count: number;
  /** the first of them: the preferred documents' first, then by name */
  creatures: string[];
  /** the documents whose creatures have it */
  documents: string[];
  /** the call that lists every creature with it */
  all_creatures: string;
};

/** The data type of each kind. */
export type KindData = {
  spell: SpellData;
  creature: CreatureData;
  class: ClassData;
  subclass: ClassData;
  species: SpeciesData;
  subspecies: SpeciesData;
  background: BackgroundData;
  feat: FeatData;
  weapon: WeaponData;
  armor: ArmorData;
  item: ItemData;
  magic_item: MagicItemData;
  condition: ConditionData;
  rule: RuleData;
  rule_section: RuleSectionData;
  damage_type: DamageTypeData;
  weapon_property: WeaponPropertyData;
  skill: SkillData;
  ability_score: AbilityScoreData;
  magic_school: MagicSchoolData;
  language: LanguageData;
  proficiency: ProficiencyData;
  alignment: AlignmentData;
  trait: TraitData;
};

export type DataOf<K extends EntityKind> = KindData[K];
