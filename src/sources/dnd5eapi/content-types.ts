/** Registry of D&D 5e API content types, one per (year, endpoint). */
import type { EntityKind } from "../../entities/types.ts";
import type { ContentType, Dnd5eYear, NormalizeContext, NormalizeResult } from "../../entities/normalize/types.ts";
import {
  normalizeDndBackgrounds,
  normalizeDndClasses,
  normalizeDndFeats,
  normalizeDndSpecies,
  normalizeDndSubclasses,
} from "./normalize/character.ts";
import { normalizeDndEquipment, normalizeDndMagicItems, normalizeDndPoisons } from "./normalize/equipment.ts";
import {
  normalizeDndAbilityScores,
  normalizeDndAlignments,
  normalizeDndConditions,
  normalizeDndDamageTypes,
  normalizeDndLanguages,
  normalizeDndMagicSchools,
  normalizeDndMasteryProperties,
  normalizeDndProficiencies,
  normalizeDndRulesToSections,
  normalizeDndRuleSectionsToRules,
  normalizeDndSkills,
  normalizeDndWeaponProperties,
} from "./normalize/reference.ts";
import { normalizeDndMonsters, normalizeDndSpells } from "./normalize/spells-monsters.ts";

type Fn = (records: unknown[], ctx: NormalizeContext) => NormalizeResult;

function ct(year: Dnd5eYear, endpoint: string, kinds: EntityKind[], normalize: Fn, related?: string[]): ContentType {
  return {
    source: "dnd5e_api",
    id: `${year}/${endpoint}`,
    endpoint,
    year,
    kinds,
    normalize,
    ...(related ? { related } : {}),
  };
}

function common(y: Dnd5eYear): ContentType[] {
  return [
    ct(y, "monsters", ["creature"], normalizeDndMonsters(y)),
    ct(y, "classes", ["class"], normalizeDndClasses(y), ["features", "levels"]),
    ct(y, "backgrounds", ["background"], normalizeDndBackgrounds(y)),
    ct(y, "feats", ["feat"], normalizeDndFeats(y)),
    ct(y, "equipment", ["weapon", "armor", "item"], normalizeDndEquipment(y)),
    ct(y, "magic-items", ["magic_item"], normalizeDndMagicItems(y)),
    ct(y, "conditions", ["condition"], normalizeDndConditions(y)),
    ct(y, "damage-types", ["damage_type"], normalizeDndDamageTypes(y)),
    ct(y, "magic-schools", ["magic_school"], normalizeDndMagicSchools(y)),
    ct(y, "weapon-properties", ["weapon_property"], normalizeDndWeaponProperties(y)),
    ct(y, "skills", ["skill"], normalizeDndSkills(y)),
    ct(y, "ability-scores", ["ability_score"], normalizeDndAbilityScores(y)),
    ct(y, "languages", ["language"], normalizeDndLanguages(y)),
    ct(y, "proficiencies", ["proficiency"], normalizeDndProficiencies(y)),
    ct(y, "alignments", ["alignment"], normalizeDndAlignments(y)),
  ];
}

const DND5EAPI_2014_TYPES: ContentType[] = [
  ct("2014", "spells", ["spell"], normalizeDndSpells("2014")),
  ...common("2014"),
  ct("2014", "subclasses", ["subclass"], normalizeDndSubclasses("2014"), ["features"]),
  ct("2014", "races", ["species"], normalizeDndSpecies("2014", "races"), ["traits"]),
  ct("2014", "subraces", ["subspecies"], normalizeDndSpecies("2014", "subraces"), ["traits"]),
  ct("2014", "rules", ["rule_section"], normalizeDndRulesToSections("2014")),
  ct("2014", "rule-sections", ["rule"], normalizeDndRuleSectionsToRules("2014"), ["rules"]),
];

const DND5EAPI_2024_TYPES: ContentType[] = [
  ...common("2024"),
  ct("2024", "subclasses", ["subclass"], normalizeDndSubclasses("2024")),
  ct("2024", "species", ["species"], normalizeDndSpecies("2024", "species"), ["traits"]),
  ct("2024", "subspecies", ["subspecies"], normalizeDndSpecies("2024", "subspecies"), ["traits"]),
  ct("2024", "weapon-mastery-properties", ["weapon_property"], normalizeDndMasteryProperties("2024")),
  ct("2024", "poisons", ["item"], normalizeDndPoisons("2024")),
];

export const DND5EAPI_TYPES: ContentType[] = [...DND5EAPI_2014_TYPES, ...DND5EAPI_2024_TYPES];
