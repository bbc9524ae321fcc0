/** Registry of Open5e v2 content types (one per endpoint the sync layer fetches). */
import type { EntityKind } from "../../entities/types.ts";
import type { ContentType } from "../../entities/normalize/types.ts";
import * as character from "./normalize/character.ts";
import { normalizeV2Creatures } from "./normalize/creatures.ts";
import { normalizeV2Items, normalizeV2MagicItems } from "./normalize/items.ts";
import * as ref from "./normalize/reference.ts";
import { normalizeV2Spells } from "./normalize/spells.ts";

type Fn = ContentType["normalize"];

function ct(endpoint: string, kinds: EntityKind[], normalize: Fn, related?: string[]): ContentType {
  return { source: "open5e_v2", id: endpoint, endpoint, kinds, normalize, ...(related ? { related } : {}) };
}

export const OPEN5E_V2_TYPES: ContentType[] = [
  ct("spells", ["spell"], normalizeV2Spells),
  ct("creatures", ["creature"], normalizeV2Creatures),
  ct("classes", ["class", "subclass"], character.normalizeV2Classes),
  ct("species", ["species", "subspecies"], character.normalizeV2Species),
  ct("backgrounds", ["background"], character.normalizeV2Backgrounds),
  ct("feats", ["feat"], character.normalizeV2Feats),
  ct("items", ["item", "weapon", "armor", "magic_item"], normalizeV2Items, ["weapons", "armor"]),
  ct("magicitems", ["magic_item"], normalizeV2MagicItems),
  ct("conditions", ["condition"], ref.normalizeV2Conditions),
  ct("rulesets", ["rule_section", "rule"], ref.normalizeV2Rulesets),
  ct("damagetypes", ["damage_type"], ref.normalizeV2DamageTypes),
  ct("weaponproperties", ["weapon_property"], ref.normalizeV2WeaponProperties),
  ct("skills", ["skill"], ref.normalizeV2Skills),
  ct("abilities", ["ability_score"], ref.normalizeV2Abilities),
  ct("spellschools", ["magic_school"], ref.normalizeV2SpellSchools),
  ct("languages", ["language"], ref.normalizeV2Languages),
  ct("alignments", ["alignment"], ref.normalizeV2Alignments),
];
