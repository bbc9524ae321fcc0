/**
 * The calls a server makes to itself after start (server/warm-calls.ts): they run every warm-up
 * shape the store has data for, write nothing, never ask for a download, wait for an idle moment
 * before each call, stop at their time budget, and leave the answers to real questions as they were.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { EntityKind } from "../../src/entities/types.ts";
import type { WhenIdle } from "../../src/server/deps.ts";
import { LineStdioTransport } from "../../src/server/stdio-transport.ts";
import { swapped, WARM_SHAPES, warmCalls } from "../../src/server/warm-calls.ts";
import { openStore, type Store } from "../../src/store/db.ts";
import { changeToken } from "../../src/store/version-cache.ts";
import { connectInMemory, makeDeps } from "../support/mcp.ts";
import { recordQueries } from "../support/sql-seen.ts";
import { type SyncedStore, syncedStore } from "../support/synced-store.ts";

let synced: SyncedStore;
/** The shapes that run without an embedding model (all but the searches). */
const UNRANKED = WARM_SHAPES.filter((s) => !s.ranked).length;
let store: Store;

beforeAll(async () => {
  synced = await syncedStore("lk-warm-", ["open5e_v2", "dnd5e_api"]);
  store = synced.store;
}, 60_000);

afterAll(() => synced.cleanup());

/** Runs each job at once, counting the idle moments asked for. */
function countingIdle(): { whenIdle: WhenIdle; asked: () => number } {
  let asked = 0;
  return {
    whenIdle: (_delay, job) => {
      asked++;
      queueMicrotask(job);
    },
    asked: () => asked,
  };
}

const QUESTIONS: Array<[string, Record<string, unknown>]> = [
  ["search_spell", { name: "Fireball" }],
  ["search_spell", { level: 3, school: "evocation", limit: 5 }],
  ["search_creature", { cr: 1, limit: 10 }],
  ["search_creature", { name: "Goblni" }],
  ["search_equipment", { type: "magic-item", rarity: "rare" }],
  ["list_documents", {}],
];

async function answers(): Promise<string[]> {
  const { client, close } = await connectInMemory(makeDeps(store, { now: () => new Date("2026-01-02T03:04:05Z") }));
  try {
    const out: string[] = [];
    for (const [name, args] of QUESTIONS) {
      const r = await client.callTool({ name, arguments: args });
      out.push(JSON.stringify([r.isError ?? false, r.content, r.structuredContent]));
    }
    return out;
  } finally {
    await close();
  }
}

describe("warm-up calls at start", () => {
  test("run every shape the store has data for, one idle moment each; write nothing; ask for no download; answers unchanged", async () => {
    const before = await answers();
    const loads: Array<readonly EntityKind[]> = [];
    const deps = makeDeps(store, { ensureData: async (kinds) => void loads.push(kinds) });
    // A new store version: nothing the answers above remembered is left.
    store.db.run("INSERT INTO meta(key, value) VALUES ('warm-test', '1') ON CONFLICT(key) DO UPDATE SET value = value || '1'");
    const token = changeToken(store.db);
    const idle = countingIdle();
    // Through the line transport (loopback.ts): one answer sent per call, after the opening's, none an error.
    const send = LineStdioTransport.prototype.send;
    const sent: Array<Record<string, unknown>> = [];
    LineStdioTransport.prototype.send = function (this: LineStdioTransport, ...args: Parameters<typeof send>) {
      sent.push(args[0] as Record<string, unknown>);
      return send.apply(this, args);
    };
    let calls: number;
    try {
      calls = await warmCalls(deps, idle.whenIdle, 3, 60_000);
    } finally {
      LineStdioTransport.prototype.send = send;
    }
    expect(sent).toHaveLength(calls + 1);
    const results = sent.slice(1).map((m) => m.result as { isError?: boolean } | undefined);
    expect(results.filter((r) => r === undefined || r.isError === true)).toEqual([]);
    // Every shape has data in this store (spells, creatures, equipment, character options, rules);
    // no model is loaded, so no search.
    expect(calls).toBe(3 * UNRANKED);
    // One idle moment before opening the connection, then one per call.
    expect(idle.asked()).toBe(calls + 1);
    expect(loads).toEqual([]);
    expect(changeToken(store.db)).toBe(token);
    // list_documents' table of the store is remembered: a first real call does not group the store again.
    const { seen, stop } = recordQueries(store.db);
    try {
      expect(await answers()).toEqual(before);
    } finally {
      stop();
    }
    expect(seen.filter((q) => q.includes("GROUP BY document_source"))).toEqual([]);
  }, 60_000);

  test("stop at their time budget, and make no call over a store without data", async () => {
    const idle = countingIdle();
    // A budget of 0 ms: the first round runs (the budget is checked between rounds), no second.
    expect(await warmCalls(makeDeps(store), idle.whenIdle, 5, 0)).toBe(UNRANKED);
    const empty = openStore({ path: join(synced.dir, "empty.db") });
    try {
      const loads: Array<readonly EntityKind[]> = [];
      expect(await warmCalls(makeDeps(empty, { ensureData: async (kinds) => void loads.push(kinds) }), countingIdle().whenIdle, 3, 60_000)).toBe(0);
      expect(loads).toEqual([]);
    } finally {
      empty.close();
    }
  }, 60_000);

  test("without the in-process connection, the calls go to the tool handlers", async () => {
    const idle = countingIdle();
    const calls = await warmCalls(makeDeps(store), idle.whenIdle, 1, 60_000, () => Promise.reject(new Error("no loopback here")));
    expect(calls).toBe(UNRANKED);
  }, 60_000);

  test("with the embedding model loaded, one search a round, each tool's in turn, none an error", async () => {
    const seen: Array<Record<string, unknown>> = [];
    const send = LineStdioTransport.prototype.send;
    LineStdioTransport.prototype.send = function (this: LineStdioTransport, ...args: Parameters<typeof send>) {
      seen.push(args[0] as Record<string, unknown>);
      return send.apply(this, args);
    };
    const { seen: queries, stop } = recordQueries(store.db);
    let calls: number;
    try {
      // "ready" without a model behind it: the searches rank by keywords, through the same code up to the embedding.
      calls = await warmCalls(makeDeps(store, { modelState: () => "ready" }), countingIdle().whenIdle, 4, 60_000);
    } finally {
      LineStdioTransport.prototype.send = send;
      stop();
    }
    const searches = WARM_SHAPES.length - UNRANKED;
    expect(searches).toBe(4);
    expect(calls).toBe(4 * UNRANKED + searches);
    expect(seen).toHaveLength(calls + 1);
    const results = seen.slice(1).map((m) => m.result as { isError?: boolean } | undefined);
    expect(results.filter((r) => r === undefined || r.isError === true)).toEqual([]);
    // Each search ran: the text index was queried four times.
    expect(queries.filter((q) => q.includes("entities_fts MATCH")).length).toBeGreaterThanOrEqual(4);
  }, 60_000);

  test("a misspelling swaps two letters near the middle", () => {
    expect(swapped("Fireball")).toBe("Firbeall");
    expect(swapped("Goblin")).not.toBe("Goblin");
    expect(swapped("Goblin").length).toBe(6);
    expect(swapped("A")).toBe("Ax");
  });
});
