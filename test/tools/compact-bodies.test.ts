/**
 * Compact rows remembered (tools/answer/compact-bodies.ts): a list answer built from them is the answer
 * built from the entities, byte for byte, over a store synced from every source's fixtures plus an
 * OrcBrew pack (same-document copies merged, several wordings, items filed as magic gear), for
 * every search tool, paging, all versions, wildcard names and ranked searches; and a store change
 * is never answered from the bodies of the version before it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { importOrcbrewText } from "../../src/ingest/import-orcbrew.ts";
import { runSearch } from "../../src/search/hybrid.ts";
import type { SearchContext } from "../../src/search/context.ts";
import type { SearchQuery, SearchResponse } from "../../src/search/types.ts";
import type { Store } from "../../src/store/db.ts";
import { getEntitiesByIds, replaceOrigin } from "../../src/store/entities.ts";
import { compactBodies } from "../../src/tools/answer/compact-bodies.ts";
import type { ToolDeps } from "../../src/tools/kit/deps.ts";
import { connectInMemory, noModel } from "../support/mcp.ts";
import { FIXTURES, type SyncedStore, syncedStore } from "../support/synced-store.ts";

let synced: SyncedStore;
let store: Store;

beforeAll(async () => {
  synced = await syncedStore("lk-compact-", ["open5e_v2", "open5e_v1", "dnd5e_api"]);
  store = synced.store;
  const file = join(FIXTURES, "orcbrew", "all-types.orcbrew");
  expect(importOrcbrewText(store.db, readFileSync(file, "utf8"), file).ok).toBe(true);
}, 60_000);

afterAll(() => synced.cleanup());

const NOW = new Date("2026-01-02T03:04:05Z");

/**
 * Deps as the server has them (tool answers: omitText), counting the hits that came with a body; `bodies: false` never
 * passes them on.
 */
function deps(bodies: boolean, seen: { compact: number; hits: number }): ToolDeps {
  const ctx: SearchContext = { store, embedder: noModel(), embeddingTimeoutMs: 2000 };
  return {
    db: store.db,
    search: async (q: SearchQuery): Promise<SearchResponse> => {
      const res = await runSearch(ctx, { ...q, omitText: true, ...(bodies ? {} : { compactBody: undefined }) });
      seen.hits += res.hits.length;
      seen.compact += res.hits.filter((h) => h.compact !== undefined).length;
      return res;
    },
    responseBudgetChars: 60_000,
    compactRows: true,
    now: () => NOW,
  };
}

const CALLS: Array<[string, Record<string, unknown>]> = [
  ["search_spell", {}],
  ["search_spell", { level: 3 }],
  ["search_spell", { school: "evocation", offset: 2, limit: 4 }],
  ["search_spell", { all_versions: true, limit: 50 }],
  ["search_spell", { name: "F*" }],
  ["search_spell", { search: "fire damage explosion" }],
  ["search_spell", { name: "Fireball", detail: "summary" }],
  ["search_creature", {}],
  ["search_creature", { cr_max: 2, limit: 50 }],
  ["search_creature", { type: "dragon" }],
  ["search_creature", { search: "undead" }],
  ["search_character_option", {}],
  ["search_character_option", { type: "background" }],
  ["search_equipment", {}],
  ["search_equipment", { type: "magic-item", limit: 50 }],
  ["search_equipment", { type: "weapon" }],
  ["search_rule", {}],
  ["search_rule", { rule_type: "condition" }],
  ["search_all", { query: "poison" }],
  ["search_all", { query: "sword", limit: 10 }],
];

async function answers(bodies: boolean): Promise<{ texts: string[]; seen: { compact: number; hits: number } }> {
  const seen = { compact: 0, hits: 0 };
  const { client, close } = await connectInMemory(deps(bodies, seen));
  try {
    const texts: string[] = [];
    for (const [name, args] of CALLS) {
      const r = await client.callTool({ name, arguments: args });
      expect(r.isError ?? false).toBe(false);
      texts.push(JSON.stringify([r.content, r.structuredContent]));
    }
    return { texts, seen };
  } finally {
    await close();
  }
}

describe("compact rows remembered", () => {
  test("answers from remembered bodies are the answers from the entities, byte for byte", async () => {
    const before = await answers(false);
    expect(before.seen.compact).toBe(0);
    // The first pass, answered from the entities, made the bodies (nothing is made ahead); this one answers from them.
    const after = await answers(true);
    // Every compact row of these calls came from a body (the name lookup with detail "summary" too).
    expect(after.seen.hits).toBe(before.seen.hits);
    expect(after.seen.compact).toBe(after.seen.hits);
    for (let i = 0; i < CALLS.length; i++) expect([CALLS[i], after.texts[i]]).toEqual([CALLS[i], before.texts[i]!]);
  }, 60_000);

  test("a store change is answered from the entities, and its answers remember new bodies", async () => {
    const row = store.db
      .query<{ id: number; origin: string; name: string }, []>(
        "SELECT id, origin, name FROM entities WHERE kind = 'spell' AND " +
          "group_rank = 0 AND origin LIKE 'open5e%' ORDER BY name LIMIT 1",
      )
      .get()!;
    const seen = { compact: 0, hits: 0 };
    const { client, close } = await connectInMemory(deps(true, seen));
    const ask = async () =>
      JSON.stringify(
        (await client.callTool({ name: "search_spell", arguments: { name: `${row.name}*` } })).structuredContent,
      );
    try {
      await ask();
      expect(compactBodies(store.db, undefined)?.get(row.id)).toMatch(/"(summary|profile)"/);
      const all = store.db
        .query<{ id: number }, [string]>("SELECT id FROM entities WHERE origin = ?")
        .all(row.origin)
        .map((r) => r.id);
      const entities = [...getEntitiesByIds(store.db, all).values()];
      // A core spell's row shows its profile, another's the summary of its desc: change both.
      const words = "Changed wording. Nothing else.";
      const changed = entities.map((e) =>
        e.id === row.id ? { ...e, data: { ...e.data, desc: words, ...(e.data.profile ? { profile: words } : {}) } } : e,
      );
      replaceOrigin(store.db, row.origin, changed);
      // The version the bodies were made for is gone: nothing of it is looked up.
      expect(compactBodies(store.db, undefined)?.get(row.id)).toBeUndefined();
      expect(await ask()).toContain("Changed wording.");
      expect(compactBodies(store.db, undefined)?.get(row.id)).toContain("Changed wording.");
    } finally {
      await close();
    }
  }, 60_000);
});
