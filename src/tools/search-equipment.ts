/** search_equipment: weapons, armor, adventuring gear and magic items, one ranked list. */
import * as z from "zod";
import type { ToolDef } from "./define.ts";
import { defineTool } from "./define.ts";
import { bool, common, key, num, vocab, vocabWithDefault } from "./params.ts";
import { searchOutputSchema } from "./response.ts";
import { answerSearch, cleanFilters } from "./run-search.ts";
import { DAMAGE_TYPES, EQUIPMENT_KINDS, EQUIPMENT_TYPES, EQUIPMENT_TYPE_FILTERS, RARITIES } from "./vocab.ts";
import { derivedArgs, derivedParams } from "./derived-params.ts";

const input = z
  .object({
    type: vocabWithDefault(EQUIPMENT_TYPES, "all", "item = adventuring gear and tools; magic-item also finds magic gear (SRD 5.2 potions)", {
      magic: "magic-item",
      gear: "item",
      armour: "armor",
    }),
    ...common(),
    category: key('e.g. "martial melee", "shield", "wondrous item"').optional(),
    rarity: vocab(RARITIES, "").optional(),
    requires_attunement: bool("").optional(),
    damage_dice: z
      .string()
      .trim()
      .regex(/^\d*d\d+$/i, 'must look like "1d8" or "2d6"')
      .transform((s) => s.toLowerCase())
      .describe('e.g. "1d8"')
      .optional(),
    damage_type: vocab(DAMAGE_TYPES, "").optional(),
    is_simple: bool("Weapons: simple (true) or martial (false)").optional(),
    cost_min: num(0, Number.MAX_SAFE_INTEGER, "In gp").optional(),
    cost_max: num(0, Number.MAX_SAFE_INTEGER, "In gp").optional(),
    weight_max: num(0, Number.MAX_SAFE_INTEGER, "In lb").optional(),
    ...derivedParams(["weapon"]),
  })
  .strict();

export const searchEquipment: ToolDef = defineTool({
  name: "search_equipment",
  title: "Search equipment",
  description: [
    "Weapons, armor, adventuring gear and magic items: by `name`, `search` or filters.",
    'E.g. {"type": "magic-item", "rarity": "rare"}, {"search": "protects against arrows"}.',
  ].join("\n"),
  input,
  output: searchOutputSchema,
  openWorld: true,
  run: (a, ctx) =>
    answerSearch(
      "search_equipment",
      {
        kinds: EQUIPMENT_KINDS[a.type],
        name: a.name,
        search: a.search,
        documents: a.documents,
        limit: a.limit,
        filters: cleanFilters({
          category: a.category,
          rarity: a.rarity,
          requires_attunement: a.requires_attunement,
          damage_dice: a.damage_dice,
          damage_type: a.damage_type,
          is_simple: a.is_simple,
          cost_min: a.cost_min,
          cost_max: a.cost_max,
          weight_max: a.weight_max,
          ...EQUIPMENT_TYPE_FILTERS[a.type],
          ...derivedArgs(a, ["weapon"]),
        }),
      },
      ctx,
      { offset: a.offset, detail: a.detail, all_versions: a.all_versions, args: a },
    ),
});
