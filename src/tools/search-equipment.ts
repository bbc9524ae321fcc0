/** search_equipment: weapons, armor, adventuring gear and magic items, one ranked list. */
import * as z from "zod";
import type { ToolDef } from "./define.ts";
import { defineTool } from "./define.ts";
import { bool, common, key, num, vocab, vocabWithDefault } from "./params.ts";
import { searchOutputSchema } from "./response.ts";
import { answerSearch, cleanFilters } from "./run-search.ts";
import { DAMAGE_TYPES, EQUIPMENT_KINDS, EQUIPMENT_TYPES, RARITIES } from "./vocab.ts";

const input = z
  .object({
    type: vocabWithDefault(EQUIPMENT_TYPES, "all", "weapon, armor, item (adventuring gear and tools), magic-item, or all (default): one list ranked across every kind", {
      magic: "magic-item",
      gear: "item",
      armour: "armor",
    }),
    ...common("equipment", "Longsword", "protects against projectiles"),
    category: key('Category: weapons "simple melee", "martial ranged"...; armor "light", "medium", "heavy", "shield"; magic items their item type, e.g. "wondrous item"').optional(),
    rarity: vocab(RARITIES, "Magic item rarity").optional(),
    requires_attunement: bool("Magic items: true = only items that need attunement; false = only items that do not").optional(),
    damage_dice: z
      .string()
      .trim()
      .regex(/^\d*d\d+$/i, 'must look like "1d8" or "2d6"')
      .transform((s) => s.toLowerCase())
      .describe('Weapon damage dice, e.g. "1d8"')
      .optional(),
    damage_type: vocab(DAMAGE_TYPES, "Weapon damage type").optional(),
    is_simple: bool("Weapons: true = simple weapons only; false = martial weapons only").optional(),
    cost_min: num(0, 10_000_000, "Minimum cost in gold pieces").optional(),
    cost_max: num(0, 10_000_000, "Maximum cost in gold pieces").optional(),
    weight_max: num(0, 100_000, "Maximum weight in pounds").optional(),
  })
  .strict();

export const searchEquipment: ToolDef = defineTool({
  name: "search_equipment",
  title: "Search equipment",
  description: [
    "Find weapons, armor, adventuring gear and magic items. `type` narrows the kind (default all: one list ranked across every kind); filters cover rarity, attunement, damage dice and type, simple/martial, cost and weight.",
    'Example: {"type": "armor", "search": "protects against projectiles"} or {"type": "magic-item", "rarity": "rare"}.',
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
        }),
      },
      ctx,
    ),
});
