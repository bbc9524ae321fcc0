import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { embedPending } from "../../src/ingest/embed.ts";
import { createEmbedderProvider } from "../../src/search/model/embedder.ts";
import type { Embedder, EmbedderProvider } from "../../src/search/types.ts";
import { indexPaths } from "../../src/search/index/vector-index-file.ts";
import { closeVectorIndex, exactSearch, loadOrBuildIndex } from "../../src/search/index/vector-index.ts";
import { openStore, type Store } from "../../src/store/db.ts";
import { getEntityByKey, replaceOrigin } from "../../src/store/entities.ts";
import { countPendingVectors, countVectors, getEmbeddingMeta } from "../../src/store/vectors.ts";
import { THEMED, THEMED_ORIGIN } from "../fixtures/embedding/entities.ts";
import { createTinyModel } from "../support/tiny-model.ts";
import { makeTempDir } from "../support/tmp.ts";

let models: ReturnType<typeof makeTempDir>;
let modelA: string;
let modelB: string;

beforeAll(async () => {
  models = makeTempDir();
  modelA = await createTinyModel(join(models.dir, "tiny-a"));
  modelB = await createTinyModel(join(models.dir, "tiny-b"), { seed: 7 });
});
afterAll(() => models.cleanup());

function provider(dir: string): EmbedderProvider {
  return createEmbedderProvider({ modelDir: dir, embeddedDir: null, allowDownload: false });
}

/** A provider that counts the passages it embeds. */
function counting(inner: Embedder): { provider: EmbedderProvider; passages: () => number } {
  let n = 0;
  const e: Embedder = {
    id: inner.id,
    dim: inner.dim,
    embedPassages: async (t) => {
      n += t.length;
      return inner.embedPassages(t);
    },
    embedQuery: (t) => inner.embedQuery(t),
  };
  return { provider: { state: () => "ready", get: async () => e, reason: () => undefined }, passages: () => n };
}

describe("embedPending", () => {
  let tmp: ReturnType<typeof makeTempDir>;
  let store: Store;
  let dbPath: string;
  const total = THEMED.length;

  beforeEach(() => {
    tmp = makeTempDir();
    dbPath = join(tmp.dir, "lk.db");
    store = openStore({ path: dbPath });
    replaceOrigin(store.db, THEMED_ORIGIN, THEMED);
  });
  afterEach(() => {
    closeVectorIndex(store);
    store.close();
    tmp.cleanup();
  });

  const idOf = (key: string) =>
    store.db.query<{ id: number }, [string]>("SELECT id FROM entities WHERE key = ?").get(key)!.id;
  const keyOf = (id: number) =>
    store.db.query<{ key: string }, [number]>("SELECT key FROM entities WHERE id = ?").get(id)!.key;

  test("embeds everything once, in batches, records the model, and builds the index file", async () => {
    const progress: Array<[number, number]> = [];
    const p = provider(modelA);
    const r = await embedPending(store, p, { batchSize: 4, onProgress: (d, t) => progress.push([d, t]) });
    const e = (await p.get())!;
    expect(r).toMatchObject({ embedded: total, skipped: 0, remaining: 0, modelId: e.id, dim: 32, indexSize: total });
    expect(progress[0]).toEqual([0, total]);
    expect(progress.at(-1)).toEqual([total, total]);
    expect(progress.length).toBe(1 + Math.ceil(total / 4));
    expect(getEmbeddingMeta(store.db)).toEqual({ modelId: e.id, dim: 32 });
    expect(countVectors(store.db, e.id)).toBe(total);
    expect(existsSync(indexPaths(dbPath)!.index)).toBe(true);
  });

  test("embeds only new or changed entities on later runs", async () => {
    const inner = (await provider(modelA).get())!;
    const c = counting(inner);
    await embedPending(store, c.provider);
    expect(c.passages()).toBe(total);
    const again = await embedPending(store, c.provider);
    expect(again).toMatchObject({ embedded: 0, skipped: total, remaining: 0 });
    expect(c.passages()).toBe(total);

    const changed = THEMED.map((e) => (e.key === "shark" ? { ...e, text: "Shark. A dragon that breathes fire." } : e));
    replaceOrigin(store.db, THEMED_ORIGIN, changed);
    expect(countPendingVectors(store.db, inner.id)).toBe(1);
    const third = await embedPending(store, c.provider);
    expect(third).toMatchObject({ embedded: 1, skipped: total - 1 });
    expect(c.passages()).toBe(total + 1);

    // A deleted entity leaves the vectors and the index.
    replaceOrigin(
      store.db,
      THEMED_ORIGIN,
      changed.filter((e) => e.key !== "wraith"),
    );
    const fourth = await embedPending(store, c.provider);
    expect(fourth).toMatchObject({ embedded: 0, indexSize: total - 1 });
    expect(countVectors(store.db)).toBe(total - 1);
  });

  test("a model change re-embeds everything and replaces the index", async () => {
    const a = await embedPending(store, provider(modelA));
    const b = await embedPending(store, provider(modelB));
    expect(b.modelId).not.toBe(a.modelId);
    expect(b).toMatchObject({ embedded: total, skipped: 0, indexSize: total });
    expect(getEmbeddingMeta(store.db)?.modelId).toBe(b.modelId!);
    expect(countVectors(store.db, b.modelId!)).toBe(total);
    expect(countVectors(store.db, a.modelId!)).toBe(0);
    const again = await embedPending(store, provider(modelB));
    expect(again.embedded).toBe(0);
  });

  test("without a model it returns at once with a note", async () => {
    const none = createEmbedderProvider({
      modelDir: join(tmp.dir, "missing"),
      embeddedDir: null,
      allowDownload: false,
    });
    const orig = process.stderr.write;
    process.stderr.write = (() => true) as typeof process.stderr.write;
    try {
      const r = await embedPending(store, none);
      expect(r).toMatchObject({ embedded: 0, modelId: null });
      expect(r.note).toContain("no embedding model");
    } finally {
      process.stderr.write = orig;
    }
    expect(countVectors(store.db)).toBe(0);
  });

  test("an aborted run keeps what it wrote; the rest is done next time", async () => {
    const ac = new AbortController();
    const r = await embedPending(store, provider(modelA), {
      batchSize: 5,
      onProgress: (d) => d >= 5 && ac.abort(),
      signal: ac.signal,
    });
    expect(r.embedded).toBe(5);
    expect(r.remaining).toBe(total - 5);
    expect(r.note).toContain("stopped");
    const rest = await embedPending(store, provider(modelA));
    expect(rest).toMatchObject({ embedded: total - 5, skipped: 5, remaining: 0 });
  });

  test("semantic ranking works with the tiny model (HNSW and exact agree)", async () => {
    const p = provider(modelA);
    await embedPending(store, p);
    const e = (await p.get())!;
    const idx = loadOrBuildIndex(store, e.id, e.dim);
    const all = THEMED.map((t) => idOf(t.key));
    const top = async (q: string) => {
      const v = await e.embedQuery(q);
      const ann = idx.search(v, 3).map((h) => keyOf(h.id));
      const exact = exactSearch(store, v, all, e.id).map((h) => keyOf(h.id));
      expect(ann[0]).toBe(exact[0]!);
      return exact;
    };
    expect((await top("fire"))[0]).toBe("fireball");
    expect((await top("undead that drain life")).slice(0, 2).sort()).toEqual(["vampire", "wraith"]);
    expect((await top("restore health and cure wounds")).slice(0, 2).sort()).toEqual(["cure-wounds", "healing-word"]);
    expect((await top("protects against projectiles"))[0]).toBe("shield");
    expect((await top("masters of arcane magic"))[0]).toBe("wizard");
    const fire = await top("protect from fire");
    expect(fire.indexOf("fire-shield")).toBeLessThan(fire.indexOf("ice-storm"));
    expect(getEntityByKey(store.db, "spell", "fireball")).toBeDefined();
  });
});
