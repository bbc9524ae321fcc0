/**
 * One call per tool of each outcome, over the sample store (test/support/entities.ts): `ok` (an
 * answer with results), `empty` (an answer with no results, whose `message` says why and what to
 * try), `error` (bad arguments: a tool error whose text is the guidance). Shared by the tests
 * that check what a client shows the model, and by the era tests that call every tool.
 */
export interface ToolCases {
  ok: Record<string, unknown>;
  empty?: Record<string, unknown>;
  error: Record<string, unknown>;
}

export const TOOL_CASES: Record<string, ToolCases> = {
  search_spell: { ok: { name: "Fireball" }, empty: { name: "Nothing Like This" }, error: { level: 12 } },
  search_creature: {
    ok: { name: "Goblin" },
    empty: { name: "Nothing Like This" },
    error: { creature_type: "dragonish" },
  },
  search_character_option: {
    ok: { type: "class" },
    empty: { name: "Nothing Like This" },
    error: { type: "spaceship" },
  },
  search_equipment: { ok: { name: "Longsword" }, empty: { name: "Nothing Like This" }, error: { bogus: 1 } },
  search_rule: { ok: { name: "Grappled" }, empty: { name: "Nothing Like This" }, error: { rule_type: "nope" } },
  search_all: {
    ok: { query: "sword", limit: 3 },
    empty: { query: "Fireball", documents: ["no-such-book"] },
    error: {},
  },
  list_documents: { ok: {}, empty: { source: "dnd5eapi" }, error: { format: "xml" } },
  build_encounter: {
    ok: { party_levels: [3, 3, 4], monsters: [{ name: "Goblin", count: 4 }] },
    error: { party_levels: [] },
  },
  class_progression: { ok: { class: "Wizard", level_max: 3 }, error: { class: "Spaceman" } },
  compare_editions: { ok: { name: "Fireball" }, error: { name: "Nothing Like This" } },
  roll_odds: { ok: { bonus: 7, ac: 16, mode: "advantage", dice: "1d8+4" }, error: { dice: "2d" } },
};
