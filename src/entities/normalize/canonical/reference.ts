/**
 * Reference entities from canonical data: condition, rule, rule_section, damage_type,
 * weapon_property, skill, ability_score, magic_school, language, proficiency, alignment.
 */
import type {
  AbilityScoreData,
  AlignmentData,
  DocDescription,
  LanguageData,
  ProficiencyData,
  RuleData,
  RuleSectionData,
  SkillData,
  WeaponPropertyData,
} from "../../kinds.ts";
import type { DocumentSource, Entity } from "../../types.ts";
import { entity, type Base } from "../build.ts";
import { capitalize, titleCase } from "../text.ts";
import { conditionLead, profileLead, ruleProfile } from "../../profiles.ts";

/**
 * Search text of the descriptions other than the main `desc` (those not already part of it), each
 * under its document's name, so every document's wording is searchable on the one entity.
 */
function otherDescriptions(desc: string, descriptions: DocDescription[] | undefined): string[] {
  return (descriptions ?? [])
    .filter((d) => d.desc && !desc.includes(d.desc))
    .map((d) => `${d.document_name}:\n${d.desc}`);
}

/** Kind data whose `descriptions` the caller may omit (sources with a single text: []). */
export type DescribedInput<T extends { descriptions: DocDescription[] }> = Omit<T, "descriptions"> & {
  descriptions?: DocDescription[];
};

function withDescriptions<T extends { descriptions: DocDescription[] }>(d: DescribedInput<T>): T {
  return { ...d, descriptions: d.descriptions ?? [] } as T;
}

/**
 * Kinds whose data is just a text and its per-document wordings; `leadOf`: words written for finding it, before the
 * text (not in its data).
 */
function textEntity(
  kind: "condition" | "damage_type",
  header: string,
  leadOf: (name: string) => string | null = () => null,
) {
  return (source: DocumentSource, b: Base, desc: string, descriptions: DocDescription[] = []): Entity =>
    entity(source, {
      kind,
      ...b,
      header,
      body: [leadOf(b.name), desc, ...otherDescriptions(desc, descriptions)],
      filters: {},
      data: { desc, descriptions },
    });
}

/** A condition's text leads with its plain words (src/entities/profiles.ts). */
export const conditionEntity = textEntity("condition", "Condition", conditionLead);
export const damageTypeEntity = textEntity("damage_type", "Damage type");

export function magicSchoolEntity(source: DocumentSource, b: Base, desc: string): Entity {
  return entity(source, {
    kind: "magic_school",
    ...b,
    header: "School of magic",
    body: [desc],
    filters: {},
    data: { desc },
  });
}

/** Section filter value: lower-case section name ("Combat" → "combat"). */
function sectionFilter(name: string | null): string | null {
  return name ? name.trim().toLowerCase() : null;
}

/**
 * A rule. A core rule's text leads with its plain-words profile: which questions it answers, in a
 * DM's words (src/entities/profiles.ts); its `data` carries it (`profile`, `common_names`).
 */
export function ruleEntity(source: DocumentSource, b: Base, raw: RuleData): Entity {
  const p = ruleProfile("rule", b.name, b.doc.key, raw.section);
  const d: RuleData = p ? { ...raw, profile: p.profile, common_names: [...p.names] } : raw;
  return entity(source, {
    kind: "rule",
    ...b,
    header: d.section ? `Rule (${d.section})` : "Rule",
    body: [profileLead(p), d.desc],
    filters: { section: sectionFilter(d.section) },
    data: d,
  });
}

export function ruleSectionEntity(source: DocumentSource, b: Base, raw: RuleSectionData): Entity {
  const p = ruleProfile("rule_section", b.name, b.doc.key, sectionFilter(b.name));
  const d: RuleSectionData = p ? { ...raw, profile: p.profile, common_names: [...p.names] } : raw;
  return entity(source, {
    kind: "rule_section",
    ...b,
    header: "Rules section",
    body: [profileLead(p), d.desc, d.rules.length ? `Rules: ${d.rules.map((r) => r.name).join(", ")}` : null],
    filters: { section: sectionFilter(b.name) },
    data: d,
  });
}

export function weaponPropertyEntity(source: DocumentSource, b: Base, d: WeaponPropertyData): Entity {
  return entity(source, {
    kind: "weapon_property",
    ...b,
    header: d.type === "mastery" ? "Weapon mastery property" : "Weapon property",
    body: [d.desc],
    filters: { category: d.type },
    data: d,
  });
}

export function skillEntity(source: DocumentSource, b: Base, input: DescribedInput<SkillData>): Entity {
  const d = withDescriptions<SkillData>(input);
  return entity(source, {
    kind: "skill",
    ...b,
    header: d.ability ? `Skill (${capitalize(d.ability)})` : "Skill",
    body: [d.desc, ...otherDescriptions(d.desc, d.descriptions)],
    filters: {},
    data: d,
  });
}

export function abilityScoreEntity(source: DocumentSource, b: Base, input: DescribedInput<AbilityScoreData>): Entity {
  const d = withDescriptions<AbilityScoreData>(input);
  return entity(source, {
    kind: "ability_score",
    ...b,
    header: `Ability score${d.full_name && d.full_name !== b.name ? ` (${d.full_name})` : ""}`,
    body: [
      d.desc,
      ...otherDescriptions(d.desc, d.descriptions),
      d.skills.length ? `Skills: ${d.skills.map(titleCase).join(", ")}` : null,
    ],
    filters: {},
    data: d,
  });
}

export function languageEntity(source: DocumentSource, b: Base, d: LanguageData): Entity {
  return entity(source, {
    kind: "language",
    ...b,
    header: d.type ? `${capitalize(d.type)} language` : "Language",
    body: [
      d.desc,
      d.typical_speakers ? `Typical speakers: ${d.typical_speakers}` : null,
      d.script ? `Script: ${d.script}` : null,
    ],
    filters: { category: d.type },
    data: d,
  });
}

export function proficiencyEntity(source: DocumentSource, b: Base, d: ProficiencyData): Entity {
  return entity(source, {
    kind: "proficiency",
    ...b,
    header: d.type ? `Proficiency (${d.type})` : "Proficiency",
    body: [
      d.desc,
      d.classes.length ? `Classes: ${d.classes.map(titleCase).join(", ")}` : null,
      d.species.length ? `Species: ${d.species.map(titleCase).join(", ")}` : null,
      d.backgrounds.length ? `Backgrounds: ${d.backgrounds.map(titleCase).join(", ")}` : null,
    ],
    filters: { category: d.type },
    data: d,
  });
}

export function alignmentEntity(source: DocumentSource, b: Base, input: DescribedInput<AlignmentData>): Entity {
  const d = withDescriptions<AlignmentData>(input);
  return entity(source, {
    kind: "alignment",
    ...b,
    header: `Alignment${d.abbreviation ? ` (${d.abbreviation})` : ""}`,
    body: [d.desc, ...otherDescriptions(d.desc, d.descriptions)],
    filters: {},
    data: d,
  });
}
