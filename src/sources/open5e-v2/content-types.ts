/** Registry of Open5e v2 content types (one per endpoint the sync layer fetches). */
import type { EntityKind } from "../../entities/types.ts";
import type { ContentType, NormalizeContext, NormalizeResult } from "../../entities/normalize/types.ts";
import {
  normalizeV2Backgrounds,
  normalizeV2Classes,
  normalizeV2Feats,
  normalizeV2Species,
} from "./normalize/character.ts";
import { normalizeV2Creatures } from "./normalize/creatures.ts";
import { normalizeV2Items, normalizeV2MagicItems } from "./normalize/items.ts";
import {
  normalizeV2Abilities,
  normalizeV2Alignments,
  normalizeV2Conditions,
  normalizeV2DamageTypes,
  normalizeV2Languages,
  normalizeV2Rulesets,
  normalizeV2Skills,
  normalizeV2SpellSchools,
  normalizeV2WeaponProperties,
} from "./normalize/reference.ts";
import { normalizeV2Spells } from "./normalize/spells.ts";

type Fn = (records: unknown[], ctx: NormalizeContext) => NormalizeResult;

function ct(endpoint: string, kinds: EntityKind[], normalize: Fn, related?: string[]): ContentType {
  return { source: "open5e_v2", id: endpoint, endpoint, kinds, normalize, ...(related ? { related } : {}) };
}

export const OPEN5E_V2_TYPES: ContentType[] = [
  ct("spells", ["spell"], normalizeV2Spells),
  ct("creatures", ["creature"], normalizeV2Creatures),
  ct("classes", ["class", "subclass"], normalizeV2Classes),
  ct("species", ["species", "subspecies"], normalizeV2Species),
  ct("backgrounds", ["background"], normalizeV2Backgrounds),
  ct("feats", ["feat"], normalizeV2Feats),
  ct("items", ["item", "weapon", "armor", "magic_item"], normalizeV2Items, ["weapons", "armor"]),
  ct("magicitems", ["magic_item"], normalizeV2MagicItems),
  ct("conditions", ["condition"], normalizeV2Conditions),
  ct("rulesets", ["rule_section", "rule"], normalizeV2Rulesets),
  ct("damagetypes", ["damage_type"], normalizeV2DamageTypes),
  ct("weaponproperties", ["weapon_property"], normalizeV2WeaponProperties),
  ct("skills", ["skill"], normalizeV2Skills),
  ct("abilities", ["ability_score"], normalizeV2Abilities),
  ct("spellschools", ["magic_school"], normalizeV2SpellSchools),
  ct("languages", ["language"], normalizeV2Languages),
  ct("alignments", ["alignment"], normalizeV2Alignments),
];
