/** Registry of D&D 5e API content types, one per (year, endpoint). */
import type { EntityKind } from "../../entities/types.ts";
import type { ContentType, Dnd5eYear } from "../../entities/normalize/types.ts";
import * as character from "./normalize/character.ts";
import * as equipment from "./normalize/equipment.ts";
import * as ref from "./normalize/reference.ts";
import { normalizeDndMonsters, normalizeDndSpells } from "./normalize/spells-monsters.ts";

type Fn = ContentType["normalize"];

function ct(year: Dnd5eYear, endpoint: string, kinds: EntityKind[], normalize: Fn, related?: string[]): ContentType {
  const extra = related ? { related } : {};
  return { source: "dnd5e_api", id: `${year}/${endpoint}`, endpoint, year, kinds, normalize, ...extra };
}

function common(y: Dnd5eYear): ContentType[] {
  return [
    ct(y, "monsters", ["creature"], normalizeDndMonsters(y)),
    ct(y, "classes", ["class"], character.normalizeDndClasses(y), ["features", "levels"]),
    ct(y, "backgrounds", ["background"], character.normalizeDndBackgrounds(y)),
    ct(y, "feats", ["feat"], character.normalizeDndFeats(y)),
    ct(y, "equipment", ["weapon", "armor", "item"], equipment.normalizeDndEquipment(y)),
    ct(y, "magic-items", ["magic_item"], equipment.normalizeDndMagicItems(y)),
    ct(y, "conditions", ["condition"], ref.normalizeDndConditions(y)),
    ct(y, "damage-types", ["damage_type"], ref.normalizeDndDamageTypes(y)),
    ct(y, "magic-schools", ["magic_school"], ref.normalizeDndMagicSchools(y)),
    ct(y, "weapon-properties", ["weapon_property"], ref.normalizeDndWeaponProperties(y)),
    ct(y, "skills", ["skill"], ref.normalizeDndSkills(y)),
    ct(y, "ability-scores", ["ability_score"], ref.normalizeDndAbilityScores(y)),
    ct(y, "languages", ["language"], ref.normalizeDndLanguages(y)),
    ct(y, "proficiencies", ["proficiency"], ref.normalizeDndProficiencies(y)),
    ct(y, "alignments", ["alignment"], ref.normalizeDndAlignments(y)),
  ];
}

export const DND5EAPI_TYPES: ContentType[] = [
  ct("2014", "spells", ["spell"], normalizeDndSpells("2014")),
  ...common("2014"),
  ct("2014", "subclasses", ["subclass"], character.normalizeDndSubclasses("2014"), ["features"]),
  ct("2014", "races", ["species"], character.normalizeDndSpecies("races")("2014"), ["traits"]),
  ct("2014", "subraces", ["subspecies"], character.normalizeDndSpecies("subraces")("2014"), ["traits"]),
  ct("2014", "rules", ["rule_section"], ref.normalizeDndRulesToSections("2014")),
  ct("2014", "rule-sections", ["rule"], ref.normalizeDndRuleSectionsToRules("2014"), ["rules"]),
  ...common("2024"),
  ct("2024", "subclasses", ["subclass"], character.normalizeDndSubclasses("2024")),
  ct("2024", "species", ["species"], character.normalizeDndSpecies("species")("2024"), ["traits"]),
  ct("2024", "subspecies", ["subspecies"], character.normalizeDndSpecies("subspecies")("2024"), ["traits"]),
  ct("2024", "weapon-mastery-properties", ["weapon_property"], ref.normalizeDndMasteryProperties("2024")),
  ct("2024", "poisons", ["item"], equipment.normalizeDndPoisons("2024")),
];
