/** search_creature: monsters and NPC stat blocks. */
import * as z from "zod";
import type { ToolDef } from "./define.ts";
import { defineTool } from "./define.ts";
import { common, cr, int, vocab } from "./params.ts";
import { searchOutputSchema } from "./response.ts";
import { answerSearch, cleanFilters } from "./run-search.ts";
import { CREATURE_TYPES, SIZES } from "./vocab.ts";

const input = z
  .object({
    ...common("creature", "Ancient Red Dragon", "undead that drain life"),
    cr: cr('Exact challenge rating: 0, 1/8, 1/4, 1/2 or 1–30 (a number, or a string such as "1/4")', true).optional(),
    cr_min: cr('Minimum challenge rating, 0–30 (e.g. 1 or "1/2")').optional(),
    cr_max: cr('Maximum challenge rating, 0–30 (e.g. 5 or "1/4")').optional(),
    type: vocab(CREATURE_TYPES, "Creature type").optional(),
    size: vocab(SIZES, "Size category").optional(),
    armor_class_min: int(0, 50, "Minimum armor class").optional(),
    hit_points_min: int(0, 10000, "Minimum hit points").optional(),
  })
  .strict();

export const searchCreature: ToolDef = defineTool({
  name: "search_creature",
  title: "Search creatures",
  description: [
    "Find D&D 5e creatures (monsters, NPCs, beasts) with full stat blocks: exact lookup by `name`, ranked natural-language `search`, and filters (challenge rating or CR range, type, size, minimum AC / HP, source documents).",
    'Example: {"search": "undead that drain life", "type": "undead"} or {"type": "dragon", "cr_min": 10, "limit": 5}.',
  ].join("\n"),
  input,
  output: searchOutputSchema,
  openWorld: true,
  run: (a, ctx) =>
    answerSearch(
      "search_creature",
      {
        kinds: ["creature"],
        name: a.name,
        search: a.search,
        documents: a.documents,
        limit: a.limit,
        filters: cleanFilters({
          cr: a.cr,
          cr_min: a.cr_min,
          cr_max: a.cr_max,
          creature_type: a.type,
          size: a.size,
          armor_class_min: a.armor_class_min,
          hit_points_min: a.hit_points_min,
        }),
      },
      ctx,
    ),
});
