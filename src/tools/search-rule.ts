/** search_rule: rules, rule sections, conditions and reference lists (damage types, skills...). */
import * as z from "zod";
import type { ToolDef } from "./define.ts";
import { defineTool } from "./define.ts";
import { common, key, vocab } from "./params.ts";
import { searchOutputSchema } from "./response.ts";
import { answerSearch, cleanFilters } from "./run-search.ts";
import { ALL_RULE_KINDS, RULE_TYPE_KINDS, RULE_TYPES } from "./vocab.ts";

const input = z
  .object({
    rule_type: vocab(
      RULE_TYPES,
      "",
      { conditions: "condition", ability: "ability-score", "spell-school": "magic-school", school: "magic-school", property: "weapon-property" },
    ).optional(),
    section: key('Rules\' section, e.g. "combat"').optional(),
    ...common(),
  })
  .strict();

export const searchRule: ToolDef = defineTool({
  name: "search_rule",
  title: "Search rules",
  description: [
    "Game rules and reference entries (conditions, skills, damage types, languages...): by `name` or `search`.",
    'E.g. {"name": "Grappled"}, {"search": "what happens when I fall"}.',
  ].join("\n"),
  input,
  output: searchOutputSchema,
  openWorld: true,
  run: (a, ctx) =>
    answerSearch(
      "search_rule",
      {
        kinds: a.rule_type ? RULE_TYPE_KINDS[a.rule_type] : ALL_RULE_KINDS,
        name: a.name,
        search: a.search,
        documents: a.documents,
        limit: a.limit,
        filters: cleanFilters({ section: a.section }),
      },
      ctx,
      { offset: a.offset, detail: a.detail, all_versions: a.all_versions, args: a },
    ),
});
