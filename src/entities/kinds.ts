/**
 * Canonical detail shapes (`Entity.data`) per kind, written once as valibot schemas; the types are
 * inferred from them. Every source fills the same fields; a value the source does not have is `null`
 * (or an empty list/object), never missing. A field added later is optional, so that packs and stores
 * written before it stay valid. See docs/entities.md.
 *
 * The schemas check data that did not come from this build's own normalizers: a content pack's rows
 * before anything is written (ingest/pack-check.ts); the normalizers' output passes them too
 * (normalize/build.ts). Values are checked as the code that reads them needs them (a number is a
 * finite number, a list a list of the right items), plus what every source enforces itself: a
 * spell's level is a whole number ≥ 0 (homebrew has level-10 spells). Unknown extra fields are let
 * through: they are carried, never read.
 */
import * as v from "valibot";
import type { JsonObject } from "../json.ts";

const num = v.pipe(v.number(), v.finite());
const str = v.string();
const bool = v.boolean();
const nstr = v.nullable(str);
const nnum = v.nullable(num);
const nbool = v.nullable(bool);
const strs = v.array(str);
const upstream_notes = v.optional(strs);
/**
 * Core (SRD 5.1/5.2) creatures, spells, items, rules: their plain-words profile and the names people
 * use for them ("owl bear", "slow fall"), from data/*-profiles.json.
 */
const profiled = { profile: v.optional(str), common_names: v.optional(strs) };
/** Equipment: the price as written ("5 sp"), in gold pieces, and the weight in pounds. */
const priced = { cost: nstr, cost_gp: nnum, weight_lb: nnum };

/** A named block of text: a trait, an action, a feature, a benefit. */
const NamedText = v.object({ name: str, desc: str });
/** A reference to another entity of the same source: its key and display name. */
const Ref = v.object({ key: str, name: str });
/** One document's text of a shared record (Open5e v2 "core" conditions, skills, ... carry one per book). */
const DocDescription = v.object({ document_key: str, document_name: str, desc: str });
const descriptions = v.array(DocDescription);
const CreatureAction = v.object({
  name: str,
  desc: str,
  /** "Recharge 5–6", "3/Day", ... when the source states it separately from the name */
  usage: nstr,
  /** legendary actions only: cost in actions (1 when unstated) */
  cost: nnum,
});
const actions = v.array(CreatureAction);
const ClassFeature = v.object({ name: str, level: nnum, desc: str });
const WeaponProperty = v.object({ name: str, detail: nstr });

const Spell = v.object({
  level: v.pipe(v.number(), v.integer(), v.minValue(0)),
  /** magic school key, lower-case ("evocation") */
  school: nstr,
  /** as written by the source ("1 action", "1 reaction, which you take when ...") */
  casting_time: nstr,
  range: nstr,
  /** range in feet when numeric (Self/Touch → null) */
  range_ft: nnum,
  duration: nstr,
  concentration: bool,
  ritual: bool,
  components: v.object({
    verbal: bool,
    somatic: bool,
    material: bool,
    material_text: nstr,
    material_cost: nstr,
    material_consumed: nbool,
  }),
  desc: str,
  higher_level: nstr,
  /** class keys without document prefix ("wizard") */
  classes: strs,
  damage_types: strs,
  /** ability of the saving throw, lower-case full name ("dexterity") */
  saving_throw: nstr,
  attack_roll: nbool,
  ...profiled,
  /** where the upstream record is wrong and what was corrected (present only then) */
  upstream_notes,
  /** base damage/healing dice when the source gives it ("8d6") */
  damage_roll: nstr,
  /** area of effect, e.g. { type: "sphere", size_ft: 20 } */
  area: v.nullable(v.object({ type: str, size_ft: nnum })),
  reaction_condition: nstr,
});

const Creature = v.object({
  /** display size ("Large") and type ("Undead") */
  size: nstr,
  type: nstr,
  subtype: nstr,
  /** family the source files it under ("Dragons, Chromatic", "Demons") */
  group: v.optional(nstr),
  alignment: nstr,
  armor_class: nnum,
  armor_detail: nstr,
  hit_points: nnum,
  hit_dice: nstr,
  /** speeds in feet by mode (walk, fly, swim, climb, burrow), plus hover: true when it hovers */
  speed: v.record(str, v.union([num, bool])),
  ability_scores: v.object({
    strength: nnum,
    dexterity: nnum,
    constitution: nnum,
    intelligence: nnum,
    wisdom: nnum,
    charisma: nnum,
  }),
  /** proficient saving throws only: ability (lower-case full name) → bonus */
  saving_throws: v.record(str, num),
  /** skill (lower-case, underscores: "sleight_of_hand") → bonus */
  skills: v.record(str, num),
  damage_vulnerabilities: nstr,
  damage_resistances: nstr,
  damage_immunities: nstr,
  condition_immunities: nstr,
  senses: nstr,
  passive_perception: nnum,
  languages: nstr,
  cr: nnum,
  cr_display: nstr,
  xp: nnum,
  proficiency_bonus: nnum,
  traits: actions,
  actions,
  bonus_actions: actions,
  reactions: actions,
  legendary_desc: nstr,
  legendary_actions: actions,
  lair_actions: actions,
  environments: strs,
  desc: nstr,
  ...profiled,
  upstream_notes,
});

const Class = v.object({
  desc: nstr,
  /** "d10" */
  hit_die: nstr,
  hit_points_at_1st_level: nstr,
  hit_points_at_higher_levels: nstr,
  saving_throws: strs,
  proficiencies: v.object({ armor: nstr, weapons: nstr, tools: nstr, saving_throws: nstr, skills: nstr }),
  equipment: nstr,
  /** full ability name ("Intelligence") */
  spellcasting_ability: nstr,
  caster_type: nstr,
  primary_abilities: strs,
  /** sorted by level; level null when the source does not say */
  features: v.array(ClassFeature),
  subclasses: v.array(Ref),
  /** subclasses only: the class they belong to */
  subclass_of: v.nullable(Ref),
  /** the level table as markdown, when the source gives one */
  table: nstr,
});

const Species = v.object({
  desc: nstr,
  size: nstr,
  /** walking speed in feet */
  speed: nnum,
  traits: v.array(NamedText),
  subspecies: v.array(Ref),
  subspecies_of: v.nullable(Ref),
});

const Background = v.object({
  desc: nstr,
  skill_proficiencies: nstr,
  tool_proficiencies: nstr,
  languages: nstr,
  equipment: nstr,
  feature: v.nullable(NamedText),
  ability_scores: nstr,
  feat: nstr,
  /** every benefit as given (Open5e v2 benefits, other sources' extra sections) */
  benefits: v.array(NamedText),
});

/** `type`: lower-case feat category ("general", "origin", "fighting style", "epic boon") */
const Feat = v.object({ desc: str, prerequisite: nstr, benefits: strs, type: nstr });

/** Open5e v2 weapons and armor: `item_key` is the /v2/items/ record it is sold as (null when there is none). */
const Weapon = v.object({
  /** "simple" | "martial" */
  category: nstr,
  /** "melee" | "ranged" */
  range_type: nstr,
  damage_dice: nstr,
  damage_type: nstr,
  /** two-handed damage of versatile weapons ("1d10") */
  versatile_dice: nstr,
  properties: v.array(WeaponProperty),
  /** normal/long range in feet (ranged or thrown) */
  range: nnum,
  long_range: nnum,
  is_improvised: bool,
  mastery: nstr,
  ...priced,
  desc: nstr,
  item_key: nstr,
  upstream_notes,
});

const Armor = v.object({
  /** "light" | "medium" | "heavy" | "shield" */
  category: nstr,
  ac_base: nnum,
  ac_add_dex: bool,
  /** cap on the Dexterity bonus (medium armor: 2); null = no cap or no Dex */
  ac_max_dex: nnum,
  ac_display: nstr,
  strength_required: nnum,
  stealth_disadvantage: bool,
  ...priced,
  desc: nstr,
  item_key: nstr,
});

/** `category`: item category key ("adventuring-gear", "tools", "poison") */
const Item = v.object({ category: nstr, ...priced, desc: nstr, ...profiled });

const MagicItem = v.object({
  /** item type key ("weapon", "armor", "shield", "wondrous-item", "ring", "potion", ...) */
  type: nstr,
  /** rarity as written, lower-case ("very rare", "uncommon (+1), rare (+2)") */
  rarity: nstr,
  requires_attunement: bool,
  attunement_detail: nstr,
  desc: str,
  /** the mundane weapon/armor it is based on, when the source says */
  base_item: nstr,
  damage_dice: nstr,
  damage_type: nstr,
  ...priced,
  ...profiled,
});

/**
 * `descriptions`: every document's text of a shared record, `desc` being the main one (Open5e v2
 * records with `descriptions[]`); empty when the source has a single text.
 */
const Described = v.object({ desc: str, descriptions });

const Rule = v.object({
  desc: str,
  /** display name of the parent section ("Combat") */
  section: nstr,
  section_key: nstr,
  /** position within the section */
  order: nnum,
  ...profiled,
});
const RuleSection = v.object({ desc: str, rules: v.array(Ref), ...profiled });
/** `type`: null for ordinary properties, "mastery" for 2024 weapon mastery properties */
const WeaponPropertyKind = v.object({ desc: str, type: nstr });
const Skill = v.object({ desc: str, ability: nstr, descriptions });
const AbilityScore = v.object({ desc: str, abbreviation: nstr, full_name: nstr, skills: strs, descriptions });
/** `type`: "standard" | "exotic" | "rare" | "secret" */
const Language = v.object({ desc: nstr, type: nstr, script: nstr, typical_speakers: nstr });
const Proficiency = v.object({
  /** lower-case proficiency type ("armor", "weapons", "skills", "saving throws", "artisan's tools") */
  type: nstr,
  classes: strs,
  species: strs,
  backgrounds: strs,
  reference: v.nullable(Ref),
  desc: nstr,
});
const Alignment = v.object({ desc: str, abbreviation: nstr, descriptions });
/** A monster trait many stat blocks share, derived from the stored creatures (entities/traits.ts). */
const Trait = v.object({
  /** the trait's text, as `wording_from`'s stat block has it */
  desc: str,
  wording_from: v.object({ name: str, document_key: str, uri: str }),
  /** how many creatures (distinct names, any book) have it */
  creature_count: num,
  /** the first of them: the preferred documents' first, then by name */
  creatures: strs,
  /** the documents whose creatures have it */
  documents: strs,
  /** the call that lists every creature with it */
  all_creatures: str,
});

/** The schema of each kind's canonical data: the kinds are these keys. */
export const KIND_SCHEMAS = {
  spell: Spell,
  creature: Creature,
  class: Class,
  subclass: Class,
  species: Species,
  subspecies: Species,
  background: Background,
  feat: Feat,
  weapon: Weapon,
  armor: Armor,
  item: Item,
  magic_item: MagicItem,
  condition: Described,
  rule: Rule,
  rule_section: RuleSection,
  damage_type: Described,
  weapon_property: WeaponPropertyKind,
  skill: Skill,
  ability_score: AbilityScore,
  magic_school: v.object({ desc: str }),
  language: Language,
  proficiency: Proficiency,
  alignment: Alignment,
  trait: Trait,
} as const;

export type EntityKind = keyof typeof KIND_SCHEMAS;
export const ENTITY_KINDS = Object.keys(KIND_SCHEMAS) as readonly EntityKind[];

/** The data type of each kind. */
export type KindData = { [K in EntityKind]: v.InferOutput<(typeof KIND_SCHEMAS)[K]> };
export type NamedText = v.InferOutput<typeof NamedText>;
export type Ref = v.InferOutput<typeof Ref>;
export type DocDescription = v.InferOutput<typeof DocDescription>;
export type CreatureAction = v.InferOutput<typeof CreatureAction>;
export type ClassFeature = v.InferOutput<typeof ClassFeature>;
export type WeaponProperty = v.InferOutput<typeof WeaponProperty>;
export type SpellData = KindData["spell"];
export type CreatureData = KindData["creature"];
export type ClassData = KindData["class"];
export type SpeciesData = KindData["species"];
export type BackgroundData = KindData["background"];
export type FeatData = KindData["feat"];
export type WeaponData = KindData["weapon"];
export type ArmorData = KindData["armor"];
export type ItemData = KindData["item"];
export type MagicItemData = KindData["magic_item"];
export type RuleData = KindData["rule"];
export type RuleSectionData = KindData["rule_section"];
export type LanguageData = KindData["language"];

/** How a value looks in a message: short, one line. */
function shown(x: unknown): string {
  if (x === undefined) return "missing";
  if (x === null) return "null";
  if (Array.isArray(x)) return "a list";
  if (typeof x === "object") return "an object";
  const t = JSON.stringify(x) ?? String(x);
  return t.length > 40 ? `${t.slice(0, 40)}…` : t;
}

/** What an issue of each type asked for, in words. */
const WANTED: Record<string, (requirement: unknown) => string> = {
  array: () => "a list",
  object: () => "an object",
  record: () => "an object",
  string: () => "text",
  number: () => "a number",
  boolean: () => "true or false",
  union: () => "a number or true/false",
  integer: () => "a whole number",
  finite: () => "a finite number",
  min_value: (r) => `at least ${String(r)}`,
  max_value: (r) => `at most ${String(r)}`,
};

/**
 * Why `data` is not the canonical data of `kind`, naming the first field that is wrong
 * (`` `actions` is "bite", expected a list ``), or undefined when it is.
 */
export function kindDataProblem(kind: EntityKind, data: JsonObject): string | undefined {
  const r = v.safeParse(KIND_SCHEMAS[kind], data, { abortEarly: true });
  if (r.success) return undefined;
  const issue = r.issues[0];
  const path = issue.path?.map((p) => String(p.key)).join(".") ?? "";
  const where = path ? `\`${path}\`` : "it";
  const got = issue.path?.length ? issue.path[issue.path.length - 1]!.value : data;
  if (issue.kind === "schema" && got === undefined) return `${where} is missing`;
  return `${where} is ${shown(got)}, expected ${WANTED[issue.type]?.(issue.requirement) ?? issue.expected}`;
}
