/** Registry of Open5e v1 content types (opt-in source; frozen data set, no SRD 5.2). */
import type { EntityKind } from "../../entities/types.ts";
import type { ContentType, NormalizeContext, NormalizeResult } from "../../entities/normalize/types.ts";
import {
  normalizeV1Backgrounds,
  normalizeV1Classes,
  normalizeV1Feats,
  normalizeV1Races,
} from "./normalize/character.ts";
import {
  normalizeV1Armor,
  normalizeV1Conditions,
  normalizeV1MagicItems,
  normalizeV1Sections,
  normalizeV1Weapons,
} from "./normalize/equipment.ts";
import { normalizeV1Monsters, normalizeV1Spells } from "./normalize/spells-monsters.ts";

type Fn = (records: unknown[], ctx: NormalizeContext) => NormalizeResult;

function ct(endpoint: string, kinds: EntityKind[], normalize: Fn): ContentType {
  return { source: "open5e_v1", id: endpoint, endpoint, kinds, normalize };
}

export const OPEN5E_V1_TYPES: ContentType[] = [
  ct("spells", ["spell"], normalizeV1Spells),
  ct("monsters", ["creature"], normalizeV1Monsters),
  ct("classes", ["class", "subclass"], normalizeV1Classes),
  ct("races", ["species", "subspecies"], normalizeV1Races),
  ct("backgrounds", ["background"], normalizeV1Backgrounds),
  ct("feats", ["feat"], normalizeV1Feats),
  ct("magicitems", ["magic_item"], normalizeV1MagicItems),
  ct("weapons", ["weapon"], normalizeV1Weapons),
  ct("armor", ["armor"], normalizeV1Armor),
  ct("conditions", ["condition"], normalizeV1Conditions),
  ct("sections", ["rule"], normalizeV1Sections),
];
