/** search_spell: spells by name, natural-language query and spell filters. */
import { searchTool } from "../kit/search-tool.ts";

export const searchSpell = searchTool({
  group: "spell",
  name: "search_spell",
  title: "Search spells",
  description: [
    "D&D 5e spells: by `name`, description (`search`) or filters.",
    'E.g. {"name": "Fireball"}, {"search": "protect allies from fire", "level_max": 3}.',
  ].join("\n"),
});
