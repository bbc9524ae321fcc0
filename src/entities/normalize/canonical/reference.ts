/**
 * Reference entities from canonical data: condition, rule, rule_section, damage_type,
 * weapon_property, skill, ability_score, magic_school, language, proficiency, alignment.
 */
import type { DocDescription, RuleData, RuleSectionData } from "../../kinds.ts";
import { conditionLead, profileLead, ruleProfile } from "../../profiles.ts";
import type { DocumentSource, Entity } from "../../types.ts";
import { type Base, builder, entity } from "../build.ts";
import { capitalize, titleCase } from "../text.ts";

/**
 * Search text of the descriptions other than the main `desc` (those not already part of it), each
 * under its document's name, so every document's wording is searchable on the one entity.
 */
function otherDescriptions(d: { desc: string; descriptions: DocDescription[] }): string[] {
  return d.descriptions.filter((x) => x.desc && !d.desc.includes(x.desc)).map((x) => `${x.document_name}:\n${x.desc}`);
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
  const build = builder(kind, (d, b) => ({ header, body: [leadOf(b.name), d.desc, ...otherDescriptions(d)] }));
  return (source: DocumentSource, b: Base, desc: string, descriptions: DocDescription[] = []): Entity =>
    build(source, b, { desc, descriptions });
}

/** A condition's text leads with its plain words (src/entities/profiles.ts). */
export const conditionEntity = textEntity("condition", "Condition", conditionLead);
export const damageTypeEntity = textEntity("damage_type", "Damage type");

export const magicSchoolEntity = builder("magic_school", (d) => ({ header: "School of magic", body: [d.desc] }));

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

export const weaponPropertyEntity = builder("weapon_property", (d) => ({
  header: d.type === "mastery" ? "Weapon mastery property" : "Weapon property",
  body: [d.desc],
  filters: { category: d.type },
}));

export const skillEntity = builder("skill", (d) => ({
  header: d.ability ? `Skill (${capitalize(d.ability)})` : "Skill",
  body: [d.desc, ...otherDescriptions(d)],
}));

export const abilityScoreEntity = builder("ability_score", (d, b) => ({
  header: `Ability score${d.full_name && d.full_name !== b.name ? ` (${d.full_name})` : ""}`,
  body: [d.desc, ...otherDescriptions(d), d.skills.length ? `Skills: ${d.skills.map(titleCase).join(", ")}` : null],
}));

export const languageEntity = builder("language", (d) => ({
  header: d.type ? `${capitalize(d.type)} language` : "Language",
  body: [
    d.desc,
    d.typical_speakers ? `Typical speakers: ${d.typical_speakers}` : null,
    d.script ? `Script: ${d.script}` : null,
  ],
  filters: { category: d.type },
}));

export const proficiencyEntity = builder("proficiency", (d) => ({
  header: d.type ? `Proficiency (${d.type})` : "Proficiency",
  body: [
    d.desc,
    d.classes.length ? `Classes: ${d.classes.map(titleCase).join(", ")}` : null,
    d.species.length ? `Species: ${d.species.map(titleCase).join(", ")}` : null,
    d.backgrounds.length ? `Backgrounds: ${d.backgrounds.map(titleCase).join(", ")}` : null,
  ],
  filters: { category: d.type },
}));

export const alignmentEntity = builder("alignment", (d) => ({
  header: `Alignment${d.abbreviation ? ` (${d.abbreviation})` : ""}`,
  body: [d.desc, ...otherDescriptions(d)],
}));
