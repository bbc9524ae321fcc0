/**
 * D&D 5e API reference data. /rules are containers (kind rule_section); /rule-sections are the rule
 * texts (kind rule, section = the parent rule's name, found through the related /rules records).
 */
import { runRecords } from "../../../entities/normalize/build.ts";
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
import { DndRecord, dndBase, dndDesc, dndKey, dndNormalizer, dndRef, dndRefs } from "./common.ts";

/** Drop a leading "# Name" heading that only repeats the name. */
function withoutTitle(desc: string, name: string): string {
  const m = /^\s*#{1,6}\s*(.+?)\s*(?:\n|$)/.exec(desc);
  return m && m[1]!.toLowerCase() === name.toLowerCase() ? desc.slice(m[0].length).trim() : desc.trim();
}

/** `/api/<year>/rules` (chapters such as "Combat") → `rule_section` entities. */
export const normalizeDndRulesToSections = dndNormalizer("rules", (r, b, year) =>
  ruleSectionEntity("dnd5e_api", b, {
    desc: withoutTitle(dndDesc(r) ?? "", r.name),
    rules: dndRefs(year, r.subsections),
  }),
);

/** `/api/<year>/rule-sections` (one rule each) → `rule` entities, named under their chapter. */
export function normalizeDndRuleSectionsToRules(year: Dnd5eYear) {
  return (records: unknown[], ctx: NormalizeContext): NormalizeResult => {
    const parent = new Map<string, { rule: Rec; order: number }>();
    for (const rule of ctx.related?.rules ?? []) {
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

export const normalizeDndConditions = dndNormalizer("conditions", (r, b) =>
  conditionEntity("dnd5e_api", b, dndDesc(r) ?? ""),
);
export const normalizeDndDamageTypes = dndNormalizer("damage-types", (r, b) =>
  damageTypeEntity("dnd5e_api", b, dndDesc(r) ?? ""),
);
export const normalizeDndMagicSchools = dndNormalizer("magic-schools", (r, b) =>
  magicSchoolEntity("dnd5e_api", b, { desc: dndDesc(r) ?? "" }),
);
export const normalizeDndAlignments = dndNormalizer("alignments", (r, b) =>
  alignmentEntity("dnd5e_api", b, { desc: dndDesc(r) ?? "", abbreviation: str(r.abbreviation), descriptions: [] }),
);
export const normalizeDndSkills = dndNormalizer("skills", (r, b) =>
  skillEntity("dnd5e_api", b, {
    desc: dndDesc(r) ?? "",
    ability: abilityName(refKey(r.ability_score)),
    descriptions: [],
  }),
);
export const normalizeDndAbilityScores = dndNormalizer("ability-scores", (r, b) =>
  abilityScoreEntity("dnd5e_api", b, {
    desc: dndDesc(r) ?? "",
    abbreviation: str(r.name),
    full_name: str(r.full_name),
    skills: recs(r.skills).flatMap((s) => refKey(s) || []),
    descriptions: [],
  }),
);
export const normalizeDndWeaponProperties = dndNormalizer("weapon-properties", (r, b) =>
  weaponPropertyEntity("dnd5e_api", b, { desc: dndDesc(r) ?? "", type: null }),
);

/** 2024 weapon mastery properties: keys "2024-mastery-<index>" so they never collide with properties. */
export const normalizeDndMasteryProperties = dndNormalizer("weapon-mastery-properties", (r, b, year) =>
  weaponPropertyEntity(
    "dnd5e_api",
    { ...b, key: dndKey(year, `mastery-${r.index}`) },
    { desc: dndDesc(r) ?? "", type: "mastery" },
  ),
);

export const normalizeDndLanguages = dndNormalizer("languages", (r, b) => {
  const rare = bool(r.is_rare);
  const type = str(r.type)?.toLowerCase() ?? (rare === null ? null : rare ? "rare" : "standard");
  return languageEntity("dnd5e_api", b, {
    desc: [dndDesc(r) ?? "", str(r.note)].filter(Boolean).join("\n\n") || null,
    type,
    script: str(r.script),
    typical_speakers: arr(r.typical_speakers).map(str).filter(Boolean).join(", ") || null,
  });
});

function keysOf(x: unknown): string[] {
  return recs(x).flatMap((c) => refKey(c)?.toLowerCase() || []);
}

export const normalizeDndProficiencies = dndNormalizer("proficiencies", (r, b, y) => {
  const d = dndDesc(r) ?? "";
  return proficiencyEntity("dnd5e_api", b, {
    type: str(r.type)?.toLowerCase() ?? null,
    classes: keysOf(r.classes),
    species: keysOf(r.races ?? r.species),
    backgrounds: keysOf(r.backgrounds),
    reference: dndRef(y, r.reference),
    desc: d || (names([r.reference]).length ? `Proficiency with ${names([r.reference])[0]}.` : null),
  });
});
