/** search_spell: spells by name, natural-language query and spell filters. */
import * as z from "zod";
import type { ToolDef } from "./define.ts";
import { defineTool } from "./define.ts";
import { bool, common, int, key, vocab } from "./params.ts";
import { searchOutputSchema } from "./response.ts";
import { answerSearch, cleanFilters } from "./run-search.ts";
import { DAMAGE_TYPES, SPELL_SCHOOLS } from "./vocab.ts";

const input = z
  .object({
    ...common("spell", "Fireball", "protect allies from fire"),
    level: int(0, 9, "Exact spell level, 0 (cantrip) to 9").optional(),
    level_min: int(0, 9, "Minimum spell level, 0–9").optional(),
    level_max: int(0, 9, "Maximum spell level, 0–9").optional(),
    school: vocab(SPELL_SCHOOLS, "Magic school").optional(),
    class_key: key('Class that can cast it, e.g. "wizard", "cleric"').optional(),
    concentration: bool("true = only concentration spells; false = only spells without concentration").optional(),
    ritual: bool("true = only rituals; false = only non-ritual spells").optional(),
    casting_time: key('Casting time, e.g. "1 action", "1 bonus action", "1 reaction", "1 minute"').optional(),
    damage_type: vocab(DAMAGE_TYPES, "Damage type the spell deals").optional(),
  })
  .strict();

export const searchSpell: ToolDef = defineTool({
  name: "search_spell",
  title: "Search spells",
  description: [
    "Find D&D 5e spells: exact lookup by `name`, ranked natural-language `search`, and filters (level, school, class, concentration, ritual, casting time, damage type, source documents). Returns full spell text with source attribution.",
    'Example: {"search": "damage over time", "level": 3, "school": "evocation"} or {"name": "Fireball"}.',
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
        }),
      },
      ctx,
    ),
});
