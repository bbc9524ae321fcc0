/** search_character_option: classes, subclasses, species (races), subspecies, backgrounds, feats. */
import * as z from "zod";
import type { ToolDef } from "./define.ts";
import { defineTool } from "./define.ts";
import { common, vocab } from "./params.ts";
import { searchOutputSchema } from "./response.ts";
import { answerSearch } from "./run-search.ts";
import { ALL_CHARACTER_OPTION_KINDS, CHARACTER_OPTION_KINDS, CHARACTER_OPTION_TYPES } from "./vocab.ts";

const input = z
  .object({
    type: vocab(
      CHARACTER_OPTION_TYPES,
      'Kind of option: class, subclass, species (or its older name "race"), subspecies, background, feat. Omit for all of them.',
      { subrace: "subspecies", archetype: "subclass" },
    ).optional(),
    ...common("option", "Wizard", "divine warrior"),
  })
  .strict();

export const searchCharacterOption: ToolDef = defineTool({
  name: "search_character_option",
  title: "Search character options",
  description: [
    "Find character-creation options: classes, subclasses, species/races, subspecies, backgrounds and feats, with their features and proficiencies. Use `type` to pick one kind, `name` for an exact lookup, `search` for a concept.",
    'Example: {"type": "class", "search": "divine warrior"} or {"type": "feat", "name": "Sharpshooter"}.',
  ].join("\n"),
  input,
  output: searchOutputSchema,
  openWorld: true,
  run: (a, ctx) =>
    answerSearch(
      "search_character_option",
      {
        kinds: a.type ? CHARACTER_OPTION_KINDS[a.type] : ALL_CHARACTER_OPTION_KINDS,
        name: a.name,
        search: a.search,
        documents: a.documents,
        limit: a.limit,
      },
      ctx,
    ),
});
