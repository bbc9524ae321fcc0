/**
 * The first hour's long embed: before it, how many entities and roughly how long at the
 * model's measured rate; progress every batch, with batches sized to the model's speed; and a store
 * another process is embedding is left to that process (a lease in the store), by `embedPending`
 * and by a server's background fill alike.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { loadConfig } from "../../src/config.ts";
import { embedAfterIngest, roughDuration } from "../../src/ingest/after-ingest.ts";
import { embedPending } from "../../src/ingest/embed.ts";
import { fillPendingVectors } from "../../src/ingest/fill-pending.ts";
import type { EmbedderProvider } from "../../src/search/types.ts";
import { closeVectorIndex } from "../../src/search/index/vector-index.ts";
import { openStore, type Store } from "../../src/store/db.ts";
import { otherEmbedder } from "../../src/store/embed-lease.ts";
import { replaceOrigin } from "../../src/store/entities.ts";
import { countPendingVectors, deleteVectorsOfModel, setEmbeddingMeta } from "../../src/store/vectors.ts";
import { makeEntity } from "../support/entities.ts";
import { makeTempDir } from "../support/tmp.ts";
import { waitFor } from "../support/wait.ts";

const N = 300;
const DIM = 8;

/** A model that takes `msPerPassage` per passage and counts what it embeds. */
function slowModel(msPerPassage: number): { provider: EmbedderProvider; passages: () => number } {
  let n = 0;
  const vec = (i: number) => {
    const v = new Float32Array(DIM);
    v[i % DIM] = 1;
    return v;
  };
  const e = {
    id: "test:slow",
    dim: DIM,
    embedPassages: async (t: string[]) => {
      await Bun.sleep(msPerPassage * t.length);
      n += t.length;
      return t.map((_, i) => vec(i));
    },
    embedQuery: async () => vec(0),
  };
  return { provider: { state: () => "ready", get: async () => e, reason: () => undefined }, passages: () => n };
}

let tmp: ReturnType<typeof makeTempDir>;
let store: Store;
let dbPath: string;

beforeEach(() => {
  tmp = makeTempDir("lk-embed-");
  dbPath = join(tmp.dir, "lk.db");
  store = openStore({ path: dbPath });
  const entities = Array.from({ length: N }, (_, i) =>
    makeEntity("spell", `Spell ${i}`, { level: i % 10 }, { key: `s${i}` }),
  );
  replaceOrigin(store.db, "test:spells", entities);
});

afterEach(() => {
  closeVectorIndex(store);
  store.close();
  tmp.cleanup();
});

describe("before and during a long embed", () => {
  test(
    "the estimate comes after the second (small) batch, then from " +
      "the rate kept by that run; batches follow the model's speed",
    async () => {
      const m = slowModel(2);
      const estimates: Array<[number, number, string]> = [];
      const progress: number[] = [];
      const r = await embedPending(store, m.provider, {
        targetBatchMs: 40,
        batchSize: 256,
        onEstimate: (rest, rate, how) => estimates.push([rest, rate, how]),
        onProgress: (done) => progress.push(done),
      });
      expect(r.embedded).toBe(N);
      // A first batch of 8 (the model's warm-up), then the second measures the rate; the estimate covers what is left.
      expect(progress[1]).toBe(8);
      expect(estimates.length).toBe(1);
      expect(progress[2]).toBe(16);
      expect(estimates[0]![0]).toBe(N - 16);
      expect(estimates[0]![2]).toBe("now");
      // ~2 ms a passage and 40 ms a batch: batches of about 20, never the 256 allowed.
      const sizes = progress.slice(1).map((d, i) => d - progress[i]!);
      expect(Math.max(...sizes)).toBeLessThan(60);
      expect(progress.length).toBeGreaterThan(N / 60);

      // The next long run says it before the first batch, with the rate measured here.
      deleteVectorsOfModel(store.db, "test:slow");
      setEmbeddingMeta(store.db, { modelId: "test:slow", dim: DIM });
      const again: string[] = [];
      let batchesBefore = -1;
      let calls = 0;
      await embedPending(store, m.provider, {
        targetBatchMs: 40,
        batchSize: 256,
        onEstimate: (rest, _rate, how) => (again.push(`${rest} ${how}`), (batchesBefore = calls)),
        onProgress: () => calls++,
      });
      expect(again).toEqual([`${N} earlier`]);
      expect(batchesBefore).toBe(0);
    },
  );

  test("sync's words: how many, about how long, at what rate, and a progress line", async () => {
    const said: string[] = [];
    const r = await embedAfterIngest(
      store,
      { embedder: slowModel(1).provider, config: loadConfig() },
      (m) => said.push(m),
      "sync",
    );
    expect(r.embedded).toBe(N);
    expect(said[0]).toMatch(/^embedding: 0\/300 entries$/);
    const estimate = said.find((s) => s.startsWith("Embedding "))!;
    // One count: the estimate names the progress lines' total (what is done already said apart).
    expect(estimate).toMatch(/^Embedding 300 new or changed entries \(16 done\) with test:slow: about \d+ s more at /);
    expect(estimate).toMatch(/ at [\d.]+ per second \(measured on the first batches\)\. Keyword search works /);
    expect(said.at(-1)).toBe("embedding: 300/300 entries");
    expect(r.summary).toContain("Embedded 300 new/changed entries with test:slow");
  });

  test("rough durations", () => {
    expect(roughDuration(40)).toBe("40 s");
    expect(roughDuration(2862)).toBe("48 min");
    expect(roughDuration(6000)).toBe("1 h 40 min");
  });
});

describe("one process embeds a store at a time", () => {
  async function holder(): Promise<{ kill: () => Promise<void> }> {
    const p = Bun.spawn([process.execPath, join(import.meta.dir, "lease-worker.ts"), dbPath], {
      stdout: "pipe",
      stderr: "pipe",
    });
    const reader = p.stdout.getReader();
    const { value } = await reader.read();
    expect(new TextDecoder().decode(value)).toBe("held\n");
    return {
      kill: async () => {
        p.kill();
        await p.exited;
      },
    };
  }

  test("embedPending leaves rows another live process is embedding, and says who", async () => {
    const h = await holder();
    try {
      const m = slowModel(0);
      const r = await embedPending(store, m.provider);
      expect(m.passages()).toBe(0);
      expect(r.embedded).toBe(0);
      expect(r.busy).toMatch(/^pid \d+ \(lorekeeper sync\)$/);
      const said = await embedAfterIngest(store, { embedder: m.provider, config: loadConfig() }, () => {}, "import");
      expect(said.summary).toMatch(
        /^Not embedded now: another LoreKeeper process, pid \d+ \(lorekeeper sync\), is embedding this store/,
      );
    } finally {
      await h.kill();
    }
    // Its process gone, the lease is free.
    expect(otherEmbedder(store.db)).toBeUndefined();
    expect((await embedPending(store, slowModel(0).provider)).embedded).toBe(N);
  });

  test("a server started meanwhile does not embed the same rows; takes over only when that process stops", async () => {
    setEmbeddingMeta(store.db, { modelId: "test:slow", dim: DIM });
    const h = await holder();
    const m = slowModel(0);
    let waits = 0;
    const fill = fillPendingVectors(store, m.provider, undefined, { recheckMs: 20, onWait: () => waits++ });
    // It has looked at least three times and found the rows taken each time.
    expect(await waitFor(() => waits >= 3)).toBe(true);
    expect(m.passages()).toBe(0);
    expect(countPendingVectors(store.db, "test:slow")).toBe(N);
    await h.kill();
    expect(await fill).toBe(N);
    expect(countPendingVectors(store.db, "test:slow")).toBe(0);
  });
});
