/** search_character_option: classes, subclasses, species (races), subspecies, backgrounds, feats. */
import * as z from "zod";
import type { ToolDef } from "./define.ts";
import { defineTool } from "./define.ts";
import { common, key, vocab } from "./params.ts";
import { searchOutputSchema } from "./response.ts";
import { answerSearch, cleanFilters } from "./run-search.ts";
import { ALL_CHARACTER_OPTION_KINDS, CHARACTER_OPTION_KINDS, CHARACTER_OPTION_TYPES } from "./vocab.ts";

const input = z
  .object({
    type: vocab(
      CHARACTER_OPTION_TYPES,
      '"race" = species',
      { subrace: "subspecies", archetype: "subclass" },
    ).optional(),
    ...common(),
    class_key: key('Subclasses of this class, e.g. "wizard" (type defaults to subclass)').optional(),
  })
  .strict();

export const searchCharacterOption: ToolDef = defineTool({
  name: "search_character_option",
  title: "Search character options",
  description: [
    "Classes, subclasses, species (races), backgrounds and feats, with features: by `name` or `search`.",
    'E.g. {"type": "feat", "name": "Sharpshooter"}, {"search": "divine warrior"}.',
  ].join("\n"),
  input,
  output: searchOutputSchema,
  openWorld: true,
  run: (a, ctx) =>
    answerSearch(
      "search_character_option",
      {
        kinds: a.type ? CHARACTER_OPTION_KINDS[a.type] : a.class_key ? CHARACTER_OPTION_KINDS.subclass : ALL_CHARACTER_OPTION_KINDS,
        name: a.name,
        search: a.search,
        documents: a.documents,
        limit: a.limit,
        filters: cleanFilters({ class_key: a.class_key }),
      },
      ctx,
      { offset: a.offset, detail: a.detail, all_versions: a.all_versions, args: a },
    ),
});
