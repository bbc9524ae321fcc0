/**
 * D&D 5e API reference data. /rules are containers (kind rule_section, their `subsections` listed);
 * /rule-sections are the rule texts (kind rule, section = the parent rule's name, found through the
 * related /rules records). Plus conditions, damage types, magic schools, weapon (mastery)
 * properties, skills, ability scores, languages, proficiencies, alignments.
 */
import type { Entity } from "../../../entities/types.ts";
import { related, runRecords, type Base } from "../../../entities/normalize/build.ts";
import {
  abilityScoreEntity,
  alignmentEntity,
  conditionEntity,
  damageTypeEntity,
  languageEntity,
  magicSchoolEntity,
  proficiencyEntity,
  ruleEntity,
  ruleSectionEntity,
  skillEntity,
  weaponPropertyEntity,
} from "../../../entities/normalize/canonical/reference.ts";
import { arr, bool, isRec, names, recs, refKey, str, type Rec } from "../../../entities/normalize/read.ts";
import type { Dnd5eYear, NormalizeContext, NormalizeResult } from "../../../entities/normalize/types.ts";
import { abilityName } from "../../../entities/normalize/vocab.ts";
import { DndRecord, dndBase, dndDesc, dndKey, dndRef, dndRefs } from "./common.ts";

/** Drop a leading "# Name" heading that only repeats the name. */
function withoutTitle(desc: string, name: string): string {
  const m = /^\s*#{1,6}\s*(.+?)\s*(?:\n|$)/.exec(desc);
  return m && m[1]!.toLowerCase() === name.toLowerCase() ? desc.slice(m[0].length).trim() : desc.trim();
}

/** `/api/<year>/rules` (chapters such as "Combat") → `rule_section` entities. */
export function normalizeDndRulesToSections(year: Dnd5eYear) {
  return (records: unknown[], ctx: NormalizeContext): NormalizeResult =>
    runRecords(records, DndRecord, (r) =>
      ruleSectionEntity("dnd5e_api", dndBase(ctx, year, "rules", r), {
        desc: withoutTitle(dndDesc(r) ?? "", r.name),
        rules: dndRefs(year, r.subsections),
      }),
    );
}

/** `/api/<year>/rule-sections` (one rule each) → `rule` entities, named under their chapter. */
export function normalizeDndRuleSectionsToRules(year: Dnd5eYear) {
  return (records: unknown[], ctx: NormalizeContext): NormalizeResult => {
    const parent = new Map<string, { rule: Rec; order: number }>();
    for (const rule of related(ctx, "rules")) {
      if (!isRec(rule)) continue;
      recs(rule.subsections).forEach((s, i) => {
        const idx = refKey(s);
        if (idx && !parent.has(idx)) parent.set(idx, { rule, order: i + 1 });
      });
    }
    return runRecords(records, DndRecord, (r) => {
      const p = parent.get(r.index);
      const section = p ? str(p.rule.name) : null;
      return ruleEntity("dnd5e_api", dndBase(ctx, year, "rule-sections", r), {
        desc: withoutTitle(dndDesc(r) ?? "", r.name),
        section,
        section_key: p && str(p.rule.index) ? dndKey(year, str(p.rule.index)!) : null,
        order: p?.order ?? null,
      });
    });
  };
}

type Make = (b: Base, r: Rec & { index: string; name: string }, desc: string) => Entity;

function simple(year: Dnd5eYear, endpoint: string, make: Make) {
  return (records: unknown[], ctx: NormalizeContext): NormalizeResult =>
    runRecords(records, DndRecord, (r) => make(dndBase(ctx, year, endpoint, r), r, dndDesc(r) ?? ""));
}

export const normalizeDndConditions = (y: Dnd5eYear) =>
  simple(y, "conditions", (b, _r, d) => conditionEntity("dnd5e_api", b, d));
export const normalizeDndDamageTypes = (y: Dnd5eYear) =>
  simple(y, "damage-types", (b, _r, d) => damageTypeEntity("dnd5e_api", b, d));
export const normalizeDndMagicSchools = (y: Dnd5eYear) =>
  simple(y, "magic-schools", (b, _r, d) => magicSchoolEntity("dnd5e_api", b, { desc: d }));
export const normalizeDndAlignments = (y: Dnd5eYear) =>
  simple(y, "alignments", (b, r, d) =>
    alignmentEntity("dnd5e_api", b, { desc: d, abbreviation: str(r.abbreviation), descriptions: [] }),
  );
export const normalizeDndSkills = (y: Dnd5eYear) =>
  simple(y, "skills", (b, r, d) =>
    skillEntity("dnd5e_api", b, { desc: d, ability: abilityName(refKey(r.ability_score)), descriptions: [] }),
  );
export const normalizeDndAbilityScores = (y: Dnd5eYear) =>
  simple(y, "ability-scores", (b, r, d) =>
    abilityScoreEntity("dnd5e_api", b, {
      desc: d,
      abbreviation: str(r.name),
      full_name: str(r.full_name),
      skills: recs(r.skills)
        .map((s) => refKey(s))
        .filter((s): s is string => !!s),
      descriptions: [],
    }),
  );
export const normalizeDndWeaponProperties = (y: Dnd5eYear) =>
  simple(y, "weapon-properties", (b, _r, d) => weaponPropertyEntity("dnd5e_api", b, { desc: d, type: null }));

/** 2024 weapon mastery properties: keys "2024-mastery-<index>" so they never collide with properties. */
export function normalizeDndMasteryProperties(year: Dnd5eYear) {
  return (records: unknown[], ctx: NormalizeContext): NormalizeResult =>
    runRecords(records, DndRecord, (r) => {
      const b = dndBase(ctx, year, "weapon-mastery-properties", r);
      return weaponPropertyEntity(
        "dnd5e_api",
        { ...b, key: dndKey(year, `mastery-${r.index}`) },
        { desc: dndDesc(r) ?? "", type: "mastery" },
      );
    });
}

export const normalizeDndLanguages = (y: Dnd5eYear) =>
  simple(y, "languages", (b, r, d) => {
    const rare = bool(r.is_rare);
    const type = str(r.type)?.toLowerCase() ?? (rare === null ? null : rare ? "rare" : "standard");
    return languageEntity("dnd5e_api", b, {
      desc: [d, str(r.note)].filter(Boolean).join("\n\n") || null,
      type,
      script: str(r.script),
      typical_speakers: arr(r.typical_speakers).map(str).filter(Boolean).join(", ") || null,
    });
  });

export const normalizeDndProficiencies = (y: Dnd5eYear) =>
  simple(y, "proficiencies", (b, r, d) =>
    proficiencyEntity("dnd5e_api", b, {
      type: str(r.type)?.toLowerCase() ?? null,
      classes: recs(r.classes)
        .map((c) => refKey(c)?.toLowerCase())
        .filter((s): s is string => !!s),
      species: recs(r.races ?? r.species)
        .map((c) => refKey(c)?.toLowerCase())
        .filter((s): s is string => !!s),
      backgrounds: recs(r.backgrounds)
        .map((c) => refKey(c)?.toLowerCase())
        .filter((s): s is string => !!s),
      reference: dndRef(y, r.reference),
      desc: d || (names([r.reference]).length ? `Proficiency with ${names([r.reference])[0]}.` : null),
    }),
  );
