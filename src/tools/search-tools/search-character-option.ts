/** search_character_option: classes, subclasses, species (races), subspecies, backgrounds, feats. */
import { vocab } from "../kit/params.ts";
import { searchTool } from "../kit/search-tool.ts";
import { CHARACTER_OPTION_TYPES } from "../kit/vocab.ts";

export const searchCharacterOption = searchTool({
  group: "character_option",
  name: "search_character_option",
  title: "Search character options",
  description: [
    "Classes, subclasses, species (races), backgrounds and feats, with features: by `name` or `search`.",
    'E.g. {"type": "feat", "name": "Sharpshooter"}, {"search": "divine warrior"}.',
  ].join("\n"),
  selector: {
    param: "type",
    schema: vocab(CHARACTER_OPTION_TYPES.values, '"race" = species', {
      subrace: "subspecies",
      archetype: "subclass",
    }).optional(),
    // class_key alone means the subclasses of that class.
    kinds: (a) => CHARACTER_OPTION_TYPES.select(a.type ?? (a.class_key ? "subclass" : undefined)),
  },
});
