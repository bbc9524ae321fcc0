/** search_creature: monsters and NPC stat blocks. */
import { searchTool } from "../kit/search-tool.ts";

export const searchCreature = searchTool({
  group: "creature",
  name: "search_creature",
  title: "Search creatures",
  description: [
    "D&D 5e creatures (monsters, NPCs, beasts) with stat blocks: by `name`, `search` or filters.",
    'E.g. {"name": "Goblin"}, {"type": "dragon", "cr_min": 10}, {"search": "undead that drain life"}.',
  ].join("\n"),
});
