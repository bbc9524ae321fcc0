/**
 * The canonical data shape of each kind (kinds.ts) as a valibot schema, for data that did not come
 * from this build's own normalizers: a content pack's rows are checked against them before anything
 * is written (ingest/pack-check.ts), and the normalizer tests check every source's output with them,
 * so the two cannot drift apart. The compiler holds each schema to its type in kinds.ts (both ways:
 * a field added to a type without its schema, or the other way round, does not compile).
 *
 * Values are checked as the code that reads them needs them (a number is a finite number, a list a
 * list of the right items), plus what every source enforces itself: a spell's level is a whole
 * number ≥ 0 (homebrew has level-10 spells). Unknown extra fields are let through: they are carried,
 * never read.
 */
import * as v from "valibot";
import type { KindData } from "./kinds.ts";
import type { EntityKind, JsonObject } from "./types.ts";

const num = v.pipe(v.number(), v.finite());
const str = v.string();
const bool = v.boolean();
const nstr = v.nullable(str);
const nnum = v.nullable(num);
const nbool = v.nullable(bool);
const strs = v.array(str);

const NamedText = v.object({ name: str, desc: str });
const Ref = v.object({ key: str, name: str });
const DocDescription = v.object({ document_key: str, document_name: str, desc: str });
const CreatureAction = v.object({ name: str, desc: str, usage: nstr, cost: nnum });
const actions = v.array(CreatureAction);

const Spell = v.object({
  level: v.pipe(v.number(), v.integer(), v.minValue(0)),
  school: nstr,
  casting_time: nstr,
  range: nstr,
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
  classes: strs,
  damage_types: strs,
  saving_throw: nstr,
  attack_roll: nbool,
  upstream_notes: v.optional(strs),
  damage_roll: nstr,
  area: v.nullable(v.object({ type: str, size_ft: nnum })),
  reaction_condition: nstr,
});

const Creature = v.object({
  size: nstr,
  type: nstr,
  subtype: nstr,
  group: v.optional(nstr),
  alignment: nstr,
  armor_class: nnum,
  armor_detail: nstr,
  hit_points: nnum,
  hit_dice: nstr,
  speed: v.record(str, v.union([num, bool])),
  ability_scores: v.object({
    strength: nnum,
    dexterity: nnum,
    constitution: nnum,
    intelligence: nnum,
    wisdom: nnum,
    charisma: nnum,
  }),
  saving_throws: v.record(str, num),
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
  profile: v.optional(str),
  common_names: v.optional(strs),
  upstream_notes: v.optional(strs),
});

const Class = v.object({
  desc: nstr,
  hit_die: nstr,
  hit_points_at_1st_level: nstr,
  hit_points_at_higher_levels: nstr,
  saving_throws: strs,
  proficiencies: v.object({ armor: nstr, weapons: nstr, tools: nstr, saving_throws: nstr, skills: nstr }),
  equipment: nstr,
  spellcasting_ability: nstr,
  caster_type: nstr,
  primary_abilities: strs,
  features: v.array(v.object({ name: str, level: nnum, desc: str })),
  subclasses: v.array(Ref),
  subclass_of: v.nullable(Ref),
  table: nstr,
});

const Species = v.object({
  desc: nstr,
  size: nstr,
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
  benefits: v.array(NamedText),
});

const Feat = v.object({ desc: str, prerequisite: nstr, benefits: strs, type: nstr });

const Weapon = v.object({
  category: nstr,
  range_type: nstr,
  damage_dice: nstr,
  damage_type: nstr,
  versatile_dice: nstr,
  properties: v.array(v.object({ name: str, detail: nstr })),
  range: nnum,
  long_range: nnum,
  is_improvised: bool,
  mastery: nstr,
  cost: nstr,
  cost_gp: nnum,
  weight_lb: nnum,
  desc: nstr,
  item_key: nstr,
  upstream_notes: v.optional(strs),
});

const Armor = v.object({
  category: nstr,
  ac_base: nnum,
  ac_add_dex: bool,
  ac_max_dex: nnum,
  ac_display: nstr,
  strength_required: nnum,
  stealth_disadvantage: bool,
  cost: nstr,
  cost_gp: nnum,
  weight_lb: nnum,
  desc: nstr,
  item_key: nstr,
});

const Item = v.object({ category: nstr, cost: nstr, cost_gp: nnum, weight_lb: nnum, desc: nstr });

const MagicItem = v.object({
  type: nstr,
  rarity: nstr,
  requires_attunement: bool,
  attunement_detail: nstr,
  desc: str,
  base_item: nstr,
  damage_dice: nstr,
  damage_type: nstr,
  cost: nstr,
  cost_gp: nnum,
  weight_lb: nnum,
});

const described = v.object({ desc: str, descriptions: v.array(DocDescription) });

const Rule = v.object({ desc: str, section: nstr, section_key: nstr, order: nnum });
const RuleSection = v.object({ desc: str, rules: v.array(Ref) });
const WeaponPropertyKind = v.object({ desc: str, type: nstr });
const Skill = v.object({ desc: str, ability: nstr, descriptions: v.array(DocDescription) });
const AbilityScore = v.object({
  desc: str,
  abbreviation: nstr,
  full_name: nstr,
  skills: strs,
  descriptions: v.array(DocDescription),
});
const Language = v.object({ desc: nstr, type: nstr, script: nstr, typical_speakers: nstr });
const Proficiency = v.object({
  type: nstr,
  classes: strs,
  species: strs,
  backgrounds: strs,
  reference: v.nullable(Ref),
  desc: nstr,
});
const Alignment = v.object({ desc: str, abbreviation: nstr, descriptions: v.array(DocDescription) });
const Trait = v.object({
  desc: str,
  wording_from: v.object({ name: str, document_key: str, uri: str }),
  creature_count: num,
  creatures: strs,
  documents: strs,
  all_creatures: str,
});

/** The schema of each kind's canonical data. */
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
  condition: described,
  rule: Rule,
  rule_section: RuleSection,
  damage_type: described,
  weapon_property: WeaponPropertyKind,
  skill: Skill,
  ability_score: AbilityScore,
  magic_school: v.object({ desc: str }),
  language: Language,
  proficiency: Proficiency,
  alignment: Alignment,
  trait: Trait,
} as const;

/** True when A and B are assignable to each other. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Drift = {
  [K in EntityKind]: Same<v.InferOutput<(typeof KIND_SCHEMAS)[K]>, KindData[K]> extends true ? never : K;
}[EntityKind];
/** Names the kinds whose schema and type disagree (never, or this line does not compile). */
const inStep: [Drift] extends [never] ? true : Drift = true;
void inStep;

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
