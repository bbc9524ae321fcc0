/**
 * The MCP Apps card (a `ui://` resource, server/features/cards/) each tool links to through
 * `_meta.ui.resourceUri` in tools/list. Hosts that speak MCP Apps show the card next to the answer;
 * every other client ignores `_meta` and reads the same text and structuredContent as always.
 */
export const CARD_URIS: Readonly<Record<string, string>> = {
  search_creature: "ui://lorekeeper/creature.html",
  search_spell: "ui://lorekeeper/spell.html",
  search_equipment: "ui://lorekeeper/item.html",
  build_encounter: "ui://lorekeeper/encounter.html",
  class_progression: "ui://lorekeeper/class.html",
};
