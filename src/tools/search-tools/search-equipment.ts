/** search_equipment: weapons, armor, adventuring gear and magic items, one ranked list. */
import { vocabWithDefault } from "../kit/params.ts";
import { searchTool } from "../kit/search-tool.ts";
import { EQUIPMENT_KINDS, EQUIPMENT_TYPES, type EquipmentType } from "../kit/vocab.ts";

export const searchEquipment = searchTool({
  group: "equipment",
  name: "search_equipment",
  title: "Search equipment",
  description: [
    "Weapons, armor, adventuring gear and magic items: by `name`, `search` or filters.",
    'E.g. {"type": "magic-item", "rarity": "rare"}, {"search": "protects against arrows"}.',
  ].join("\n"),
  selector: {
    param: "type",
    schema: vocabWithDefault(
      EQUIPMENT_TYPES,
      "all",
      "item = adventuring gear and tools; magic-item also finds magic gear (SRD 5.2 potions)",
      {
        magic: "magic-item",
        gear: "item",
        armour: "armor",
      },
    ),
    kinds: (a) => EQUIPMENT_KINDS[a.type as EquipmentType],
    // magic-item finds items too (EQUIPMENT_KINDS): the magic ones only.
    filters: (a) => (a.type === "magic-item" ? { magic: true } : {}),
  },
});
