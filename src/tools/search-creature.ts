/** search_creature: monsters and NPC stat blocks. */
import * as z from "zod";
import type { ToolDef } from "./define.ts";
import { defineTool } from "./define.ts";
import { common, cr, int, vocab } from "./params.ts";
import { searchOutputSchema } from "./response.ts";
import { answerSearch, cleanFilters } from "./run-search.ts";
import { CREATURE_TYPES, SIZES } from "./vocab.ts";
import { derivedArgs, derivedParams } from "./derived-params.ts";

const input = z
  .object({
    ...common(),
    cr: cr('Challenge rating: 0–30 or "1/8", "1/4", "1/2"', true).optional(),
    cr_min: cr("").optional(),
    cr_max: cr("").optional(),
    type: vocab(CREATURE_TYPES, "").optional(),
    size: vocab(SIZES, "").optional(),
    armor_class_min: int(0, Number.MAX_SAFE_INTEGER, "").optional(),
    hit_points_min: int(0, Number.MAX_SAFE_INTEGER, "").optional(),
    ...derivedParams(["creature"]),
  })
  .strict();

export const searchCreature: ToolDef = defineTool({
  name: "search_creature",
  title: "Search creatures",
  description: [
    "D&D 5e creatures (monsters, NPCs, beasts) with stat blocks: by `name`, `search` or filters (also speed, senses, immunities, resistances, legendary).",
    'E.g. {"name": "Goblin"}, {"type": "dragon", "cr_min": 10}, {"search": "undead that drain life"}.',
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
          ...derivedArgs(a, ["creature"]),
        }),
      },
      ctx,
      { offset: a.offset, detail: a.detail, all_versions: a.all_versions, args: a },
    ),
});
