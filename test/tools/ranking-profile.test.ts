/**
 * Each search tool ranks with its own fusion constants (src/search/rank/fusion.ts): it passes its profile to the
 * search.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { SearchQuery } from "../../src/search/types.ts";
import type { Store } from "../../src/store/db.ts";
import { DataGate } from "../../src/tools/kit/data-gate.ts";
import type { ToolDeps } from "../../src/tools/kit/deps.ts";
import { TOOLS } from "../../src/tools/index.ts";
import { makeStore } from "../support/entities.ts";

let store: Store;
let cleanup: () => void;
beforeAll(() => {
  ({ store, cleanup } = makeStore());
});
afterAll(() => cleanup());

test("search_spell … search_all pass profiles spell … all", async () => {
  const seen: Record<string, SearchQuery["profile"]> = {};
  for (const [tool, args] of [
    ["search_spell", { search: "fire" }],
    ["search_creature", { search: "fire" }],
    ["search_equipment", { search: "fire" }],
    ["search_character_option", { search: "fire" }],
    ["search_rule", { search: "fire" }],
    ["search_all", { query: "fire" }],
  ] as const) {
    const deps: ToolDeps = {
      db: store.db,
      search: async (q) => {
        seen[tool] = q.profile;
        return { hits: [], total: 0, mode: "hybrid" };
      },
      responseBudgetChars: 60_000,
    };
    const def = TOOLS.find((t) => t.name === tool)!;
    await def.call(args, { deps, gate: new DataGate(deps), progress: () => {} });
  }
  expect(seen).toEqual({
    search_spell: "spell",
    search_creature: "creature",
    search_equipment: "equipment",
    search_character_option: "character_option",
    search_rule: "rule",
    search_all: "all",
  });
});
