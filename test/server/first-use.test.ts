/**
 * First use of a content type through a real MCP client: the loader (deps.ensureData) is awaited
 * when the store holds nothing of the kinds a tool needs, its progress reaches the client, failures
 * become tool errors that say how to fix them; internal failures never leak a stack trace.
 */
import { afterEach, describe, expect, test } from "bun:test";
import type { EntityKind } from "../../src/entities/types.ts";
import { DataUnavailableError } from "../../src/ingest/ensure.ts";
import { replaceOrigin } from "../../src/store/entities.ts";
import type { DataProgress, EnsureData } from "../../src/tools/kit/deps.ts";
import { makeStore, sampleEntities } from "../support/entities.ts";
import { answerOf, connectInMemory, makeDeps, namesOf, textOf } from "../support/mcp.ts";

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(ensureData?: EnsureData, entities = [] as ReturnType<typeof sampleEntities>) {
  const made = makeStore(entities);
  const deps = makeDeps(made.store, { ensureData });
  const conn = await connectInMemory(deps);
  cleanups.push(made.cleanup, conn.close);
  return { ...made, ...conn };
}

/** A loader that fills the store with the sample entities of the kinds asked for, reporting 3 steps. */
function fillingLoader(storeRef: () => import("../../src/store/db.ts").Store) {
  const calls: EntityKind[][] = [];
  const fn: EnsureData = async (kinds, onProgress) => {
    calls.push([...kinds]);
    if (calls.length > 1) return new Promise<void>(() => {}); // later calls: a background refresh nobody waits for
    for (let i = 1; i <= 3; i++) {
      onProgress?.({ progress: i, total: 3, message: `step ${i}` });
      await Bun.sleep(5);
    }
    const wanted = sampleEntities().filter((e) => kinds.includes(e.kind));
    for (const k of kinds)
      replaceOrigin(
        storeRef().db,
        `test:${k}`,
        wanted.filter((e) => e.kind === k),
      );
  };
  return { fn, calls };
}

describe("first use", () => {
  test("an empty store is filled before answering, with progress notifications", async () => {
    let storeRef!: import("../../src/store/db.ts").Store;
    const loader = fillingLoader(() => storeRef);
    const s = await setup(loader.fn);
    storeRef = s.store;
    const progress: DataProgress[] = [];
    const r = await s.client.callTool(
      { name: "search_spell", arguments: { name: "fireball", all_versions: true } },
      undefined,
      {
        onprogress: (p) => progress.push({ progress: p.progress, total: p.total, message: p.message }),
      },
    );
    expect(namesOf(r)).toEqual(["Fireball", "Fireball"]);
    expect(loader.calls).toEqual([["spell"]]);
    expect(progress.map((p) => p.message)).toEqual(["step 1", "step 2", "step 3"]);
    expect(progress.map((p) => p.total)).toEqual([3, 3, 3]);
    // second call: the data is there, so the tool answers at once; the loader only gets a
    // background nudge (it may refresh stale data) that nobody waits for
    const again = await s.client.callTool({ name: "search_spell", arguments: { level: 3, all_versions: true } });
    expect(namesOf(again)).toEqual(["Fireball", "Fireball"]);
    expect(loader.calls).toEqual([["spell"], ["spell"]]);
  });

  test("search_equipment(type=all) asks for every equipment kind; concurrent calls share one load", async () => {
    let storeRef!: import("../../src/store/db.ts").Store;
    const loader = fillingLoader(() => storeRef);
    const s = await setup(loader.fn);
    storeRef = s.store;
    const [a, b] = await Promise.all([
      s.client.callTool({ name: "search_equipment", arguments: {} }),
      s.client.callTool({ name: "search_equipment", arguments: { type: "weapon" } }),
    ]);
    expect(loader.calls).toEqual([["weapon", "armor", "item", "magic_item"]]);
    expect(answerOf(a).count).toBe(
      sampleEntities().filter((e) => ["weapon", "armor", "item", "magic_item"].includes(e.kind)).length,
    );
    expect(namesOf(b)).toEqual(["Dagger", "Handaxe", "Longsword"]);
  });

  test("a store that already holds the kinds answers without waiting for the loader", async () => {
    let calls = 0;
    const never: EnsureData = () => {
      calls++;
      return new Promise(() => {});
    };
    const s = await setup(never, sampleEntities());
    const r = await s.client.callTool({ name: "search_creature", arguments: { type: "undead" } });
    expect(namesOf(r)).toEqual(["Vampire", "Wraith", "Zombie"]);
    expect(calls).toBe(1); // nudged in the background, not awaited
  });

  test("upstream unreachable → a tool error saying what happened and how to fix it", async () => {
    const failing: EnsureData = async () => {
      throw new Error("connect ECONNREFUSED 127.0.0.1:9");
    };
    const s = await setup(failing);
    const r = await s.client.callTool({ name: "search_creature", arguments: { name: "goblin" } });
    expect(r.isError).toBe(true);
    const t = textOf(r);
    expect(t).toContain("Could not load creature data");
    expect(t).toContain("ECONNREFUSED");
    expect(t).toContain("lorekeeper sync");
    expect(t).toContain("LOREKEEPER_OPEN5E_BASE_URL");
    expect(t).toContain("lorekeeper import");
    expect(t).not.toMatch(/\n\s+at /);
  });

  test("the loader's own DataUnavailableError message is passed through", async () => {
    const failing: EnsureData = async () => {
      throw new DataUnavailableError("No spell data and the API is down. Fix: run `lorekeeper sync` later.");
    };
    const s = await setup(failing);
    const r = await s.client.callTool({ name: "search_spell", arguments: {} });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toBe("No spell data and the API is down. Fix: run `lorekeeper sync` later.");
  });

  test("without a loader an empty store gives an empty answer that says how to fill it", async () => {
    const s = await setup(undefined);
    const a = answerOf(await s.client.callTool({ name: "search_rule", arguments: { rule_type: "condition" } }));
    expect(a.count).toBe(0);
    expect(a.message).toContain("holds no condition data yet");
    expect(a.message).toContain("lorekeeper sync");
  });

  test("list_documents on an empty store is not an error and never loads anything", async () => {
    let calls = 0;
    const s = await setup(async () => {
      calls++;
    });
    for (const format of ["json", "text"]) {
      const r = await s.client.callTool({ name: "list_documents", arguments: { format } });
      expect(r.isError).toBeFalsy();
      expect(textOf(r)).toContain("No documents found in cache");
      expect(textOf(r)).toContain("lorekeeper sync");
      expect((r.structuredContent as { count: number }).count).toBe(0);
    }
    expect(calls).toBe(0);
  });

  test("an internal failure is a short tool error, details only on stderr", async () => {
    const made = makeStore(sampleEntities());
    const deps = makeDeps(made.store, {
      search: async () => {
        throw new Error("SQLITE_CORRUPT: secret internals");
      },
    });
    const conn = await connectInMemory(deps);
    cleanups.push(made.cleanup, conn.close);
    const r = await conn.client.callTool({ name: "search_spell", arguments: { name: "x" } });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain("search_spell failed because of an internal error");
    expect(textOf(r)).not.toContain("SQLITE_CORRUPT");
    expect(textOf(r)).not.toMatch(/\n\s+at /);
  });
});
