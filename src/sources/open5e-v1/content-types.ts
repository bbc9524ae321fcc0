/** Registry of Open5e v1 content types (opt-in source; frozen data set, no SRD 5.2). */
import type { EntityKind } from "../../entities/types.ts";
import type { ContentType } from "../../entities/normalize/types.ts";
import * as character from "./normalize/character.ts";
import * as equipment from "./normalize/equipment.ts";
import { normalizeV1Monsters, normalizeV1Spells } from "./normalize/spells-monsters.ts";

type Fn = ContentType["normalize"];

function ct(endpoint: string, kinds: EntityKind[], normalize: Fn): ContentType {
  return { source: "open5e_v1", id: endpoint, endpoint, kinds, normalize };
}

export const OPEN5E_V1_TYPES: ContentType[] = [
  ct("spells", ["spell"], normalizeV1Spells),
  ct("monsters", ["creature"], normalizeV1Monsters),
  ct("classes", ["class", "subclass"], character.normalizeV1Classes),
  ct("races", ["species", "subspecies"], character.normalizeV1Races),
  ct("backgrounds", ["background"], character.normalizeV1Backgrounds),
  ct("feats", ["feat"], character.normalizeV1Feats),
  ct("magicitems", ["magic_item"], equipment.normalizeV1MagicItems),
  ct("weapons", ["weapon"], equipment.normalizeV1Weapons),
  ct("armor", ["armor"], equipment.normalizeV1Armor),
  ct("conditions", ["condition"], equipment.normalizeV1Conditions),
  ct("sections", ["rule"], equipment.normalizeV1Sections),
];
