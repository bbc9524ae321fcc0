/** search_spell: spells by name, natural-language query and spell filters. */
import * as z from "zod";
import type { ToolDef } from "./define.ts";
import { defineTool } from "./define.ts";
import { bool, common, int, key, vocab } from "./params.ts";
import { searchOutputSchema } from "./response.ts";
import { answerSearch, cleanFilters } from "./run-search.ts";
import { DAMAGE_TYPES, SPELL_SCHOOLS } from "./vocab.ts";
import { derivedArgs, derivedParams } from "./derived-params.ts";

const input = z
  .object({
    ...common(),
    level: int(0, 9, "0 = cantrip").optional(),
    level_min: int(0, 9, "").optional(),
    level_max: int(0, 9, "").optional(),
    school: vocab(SPELL_SCHOOLS, "").optional(),
    class_key: key('e.g. "wizard"').optional(),
    concentration: bool("").optional(),
    ritual: bool("").optional(),
    casting_time: key('e.g. "1 bonus action", "1 reaction"').optional(),
    damage_type: vocab(DAMAGE_TYPES, "").optional(),
    ...derivedParams(["spell"]),
  })
  .strict();

export const searchSpell: ToolDef = defineTool({
  name: "search_spell",
  title: "Search spells",
  description: [
    "D&D 5e spells: by `name`, by description (`search`) or by filters.",
    'E.g. {"name": "Fireball"}, {"search": "protect allies from fire", "level_max": 3}.',
  ].join("\n"),
  input,
  output: searchOutputSchema,
  openWorld: true,
  run: (a, ctx) =>
    answerSearch(
      "search_spell",
      {
        kinds: ["spell"],
        name: a.name,
        search: a.search,
        documents: a.documents,
        limit: a.limit,
        filters: cleanFilters({
          level: a.level,
          level_min: a.level_min,
          level_max: a.level_max,
          school: a.school,
          class_key: a.class_key,
          concentration: a.concentration,
          ritual: a.ritual,
          casting_time: a.casting_time,
          damage_type: a.damage_type,
          ...derivedArgs(a, ["spell"]),
        }),
      },
      ctx,
      { offset: a.offset, detail: a.detail, all_versions: a.all_versions, args: a },
    ),
});
