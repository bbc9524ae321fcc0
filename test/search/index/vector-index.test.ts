import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Entity } from "../../../src/entities/types.ts";
import type { Database } from "bun:sqlite";
import { indexPaths } from "../../../src/search/index/vector-index-file.ts";
import { closeVectorIndex, exactSearch, loadOrBuildIndex, syncIndex } from "../../../src/search/index/vector-index.ts";
import { openStore, type Store } from "../../../src/store/db.ts";
import { replaceOrigin } from "../../../src/store/entities.ts";
import { listPendingVectors, readVectorRows, setEmbeddingMeta, writeVectors } from "../../../src/store/vectors.ts";

/** The stored vectors of `model` (those of `ids`) by entity id. */
const readVectors = (db: Database, model: string, ids?: number[]) =>
  new Map([...readVectorRows(db, model, ids)].map(([id, r]) => [id, r.vector]));
import { makeTempDir } from "../../support/tmp.ts";

const DIM = 16;
const MODEL = "fake:random@1";

function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function unit(r: () => number, dim = DIM): Float32Array {
  const v = new Float32Array(dim);
  let n = 0;
  for (let i = 0; i < dim; i++) {
    v[i] = r() * 2 - 1;
    n += v[i]! * v[i]!;
  }
  n = Math.sqrt(n);
  return v.map((x) => x / n);
}

function ent(i: number, text = `Entity ${i}`): Entity {
  return {
    kind: "spell",
    key: `k${i}`,
    name: `Entity ${i}`,
    document_key: "doc",
    document_name: "Doc",
    document_source: "open5e_v2",
    source_url: `http://127.0.0.1/${i}`,
    text,
    filters: {},
    data: {},
  };
}

/** Give every pending entity a seeded random vector; returns how many were written. */
function embedRandom(store: Store, seed: number, model = MODEL, dim = DIM): number {
  const r = rng(seed);
  const pending = listPendingVectors(store.db, model, 100_000);
  return writeVectors(
    store.db,
    model,
    pending.map((p) => ({ id: p.id, contentHash: p.content_hash, vector: unit(r, dim) })),
  );
}

describe("vector index", () => {
  let tmp: ReturnType<typeof makeTempDir>;
  let dbPath: string;
  let store: Store;
  const N = 400;

  beforeEach(() => {
    tmp = makeTempDir();
    dbPath = join(tmp.dir, "lk.db");
    store = openStore({ path: dbPath });
    replaceOrigin(
      store.db,
      "o",
      Array.from({ length: N }, (_, i) => ent(i)),
    );
    expect(embedRandom(store, 1)).toBe(N);
    setEmbeddingMeta(store.db, { modelId: MODEL, dim: DIM });
  });
  afterEach(() => {
    closeVectorIndex(store);
    store.close();
    tmp.cleanup();
  });

  const allIds = () =>
    store.db
      .query<{ id: number }, []>("SELECT id FROM entities")
      .all()
      .map((r) => r.id);

  test("HNSW search agrees with exact search on top-1, similarity = 1 − cosine distance", () => {
    const idx = loadOrBuildIndex(store, MODEL, DIM);
    expect(idx.size).toBe(N);
    const r = rng(99);
    let agree = 0;
    for (let q = 0; q < 30; q++) {
      const query = unit(r);
      const ann = idx.search(query, 5);
      const exact = exactSearch(store, query, allIds(), MODEL);
      expect(exact.length).toBe(N);
      if (ann[0]!.id === exact[0]!.id) agree++;
      expect(Math.abs(ann[0]!.similarity - exact.find((e) => e.id === ann[0]!.id)!.similarity)).toBeLessThan(0.01);
      for (let i = 1; i < ann.length; i++)
        expect(ann[i]!.similarity).toBeLessThanOrEqual(ann[i - 1]!.similarity + 1e-6);
    }
    expect(agree).toBe(30);
    // A stored vector finds itself first.
    const [id, { vector: v }] = [...readVectorRows(store.db, MODEL)][7]!;
    expect(idx.search(v, 1)[0]).toMatchObject({ id });
    expect(idx.search(v, 1)[0]!.similarity).toBeGreaterThan(0.999);
  });

  test("is saved beside the database and reloaded without a rebuild, with the same results", () => {
    const first = syncIndex(store);
    expect(first).toMatchObject({ modelId: MODEL, size: N, rebuilt: true, saved: true });
    const paths = indexPaths(dbPath)!;
    expect(existsSync(paths.index)).toBe(true);
    const sidecar = JSON.parse(readFileSync(paths.sidecar, "utf8"));
    expect(sidecar).toMatchObject({ modelId: MODEL, dim: DIM, count: N, quantization: "f16" });
    const query = unit(rng(5));
    const before = loadOrBuildIndex(store, MODEL, DIM).search(query, 10);

    closeVectorIndex(store);
    store.close();
    store = openStore({ path: dbPath });
    const again = syncIndex(store);
    expect(again).toMatchObject({ size: N, rebuilt: false, added: 0, removed: 0, saved: false });
    expect(loadOrBuildIndex(store, MODEL, DIM).search(query, 10)).toEqual(before);
  });

  test("a missing, damaged, truncated or foreign index file is rebuilt, never trusted", () => {
    syncIndex(store);
    const paths = indexPaths(dbPath)!;
    const good = readFileSync(paths.index);
    const query = unit(rng(6));
    const expected = loadOrBuildIndex(store, MODEL, DIM).search(query, 3);
    const reopen = () => {
      closeVectorIndex(store);
      return syncIndex(store);
    };

    rmSync(paths.index);
    expect(reopen()).toMatchObject({ rebuilt: true, size: N, saved: true });

    const damaged = new Uint8Array(readFileSync(paths.index));
    for (let i = 0; i < 64; i++) damaged[i] = 0xff;
    writeFileSync(paths.index, damaged);
    expect(reopen()).toMatchObject({ rebuilt: true, size: N });

    writeFileSync(paths.index, good.subarray(0, 100));
    expect(reopen()).toMatchObject({ rebuilt: true, size: N });

    writeFileSync(paths.sidecar, "{ not json");
    expect(reopen()).toMatchObject({ rebuilt: true, size: N });

    const sc = JSON.parse(readFileSync(paths.sidecar, "utf8"));
    writeFileSync(paths.sidecar, JSON.stringify({ ...sc, modelId: "other@1" }));
    expect(reopen()).toMatchObject({ rebuilt: true, size: N });

    expect(reopen()).toMatchObject({ rebuilt: false });
    expect(
      loadOrBuildIndex(store, MODEL, DIM)
        .search(query, 3)
        .map((h) => h.id),
    ).toEqual(expected.map((h) => h.id));
  });

  test("follows deletes, changes and additions incrementally", () => {
    const idx = loadOrBuildIndex(store, MODEL, DIM);
    // Drop 10 entities (vectors cascade), change the text of one (its vector is dropped), add 5.
    const keep = Array.from({ length: N }, (_, i) => i).filter((i) => i >= 10);
    const entities = keep.map((i) => (i === 20 ? ent(i, "changed text") : ent(i)));
    for (let i = N; i < N + 5; i++) entities.push(ent(i));
    replaceOrigin(store.db, "o", entities);
    const r1 = syncIndex(store);
    expect(r1).toMatchObject({ rebuilt: false, removed: 11, added: 0, size: N - 11 });
    expect(embedRandom(store, 2)).toBe(6);
    const r2 = syncIndex(store);
    expect(r2).toMatchObject({ rebuilt: false, removed: 0, added: 6, size: N - 5, saved: true });

    const same = loadOrBuildIndex(store, MODEL, DIM);
    expect(same).toBe(idx);
    const ids = new Set(allIds());
    const vecs = readVectors(store.db, MODEL);
    for (const [id, v] of vecs) {
      const hit = same.search(v, 1)[0]!;
      expect(ids.has(hit.id)).toBe(true);
      expect(hit.id).toBe(id);
    }
    // After a reload from the saved file, the same set.
    closeVectorIndex(store);
    expect(syncIndex(store)).toMatchObject({ rebuilt: false, size: N - 5 });
  });

  test("a saved index is served as a view of its file, and loaded into memory when the store changes", () => {
    syncIndex(store);
    closeVectorIndex(store);
    const viewed = loadOrBuildIndex(store, MODEL, DIM);
    expect(viewed.viewOf).toBe(indexPaths(dbPath)!.index);
    replaceOrigin(store.db, "o2", [ent(2000)]);
    expect(embedRandom(store, 4)).toBe(1);
    expect(syncIndex(store)).toMatchObject({ rebuilt: false, added: 1, size: N + 1, saved: true });
    const same = loadOrBuildIndex(store, MODEL, DIM);
    expect(same).toBe(viewed);
    expect(same.viewOf).toBeUndefined();
    const [id, v] = [...readVectors(store.db, MODEL)].at(-1)!;
    expect(same.search(v, 1)[0]!.id).toBe(id);
    // The saved file holds the change: the next start views it again, with the new entry.
    closeVectorIndex(store);
    const again = loadOrBuildIndex(store, MODEL, DIM);
    expect([again.viewOf !== undefined, again.size, again.search(v, 1)[0]!.id]).toEqual([true, N + 1, id]);
  });

  test("sees vectors written by another connection", () => {
    const idx = loadOrBuildIndex(store, MODEL, DIM);
    const other = openStore({ path: dbPath });
    try {
      replaceOrigin(other.db, "o2", [ent(1000)]);
      expect(embedRandom(other, 3)).toBe(1);
    } finally {
      other.close();
    }
    const fresh = loadOrBuildIndex(store, MODEL, DIM);
    expect(fresh.size).toBe(N + 1);
    expect(fresh).toBe(idx);
  });

  test("exactSearch: only candidates with a current vector, and it follows vector changes", () => {
    const ids = allIds().slice(0, 20);
    const target = ids[3]!;
    const q = readVectors(store.db, MODEL, [target]).get(target)!;
    const res = exactSearch(store, q, [...ids, 999_999], MODEL);
    expect(res.length).toBe(20);
    expect(res[0]).toMatchObject({ id: target });
    expect(res[0]!.similarity).toBeCloseTo(1, 5);
    // Change entity `target`: its vector is dropped until re-embedded, then the new vector counts.
    const i = Number(
      store.db.query<{ key: string }, [number]>("SELECT key FROM entities WHERE id = ?").get(target)!.key.slice(1),
    );
    replaceOrigin(
      store.db,
      "o",
      Array.from({ length: N }, (_, j) => (j === i ? ent(j, "new text") : ent(j))),
    );
    expect(exactSearch(store, q, ids, MODEL).some((h) => h.id === target)).toBe(false);
    embedRandom(store, 4);
    const after = exactSearch(store, q, ids, MODEL);
    expect(after.find((h) => h.id === target)!.similarity).toBeLessThan(0.99);
  });

  test("stored vectors read back bit for bit, many ids in one read, each in its own buffer", () => {
    const mem = openStore({ path: ":memory:" });
    try {
      replaceOrigin(
        mem.db,
        "o",
        Array.from({ length: 1200 }, (_, j) => ent(j)),
      );
      const r = rng(7);
      const pending = listPendingVectors(mem.db, MODEL, 100_000);
      const written = new Map(pending.map((p) => [p.id, { id: p.id, contentHash: p.content_hash, vector: unit(r) }]));
      expect(writeVectors(mem.db, MODEL, [...written.values()])).toBe(1200);
      const back = readVectorRows(mem.db, MODEL, [...written.keys(), 999_999, ...written.keys()], DIM);
      expect(back.size).toBe(1200);
      for (const [id, w] of written) expect(back.get(id)).toEqual({ contentHash: w.contentHash, vector: w.vector });
      expect(readVectorRows(mem.db, MODEL, [], DIM).size).toBe(0);
      // Viewed, not copied, yet never sharing memory: changing one vector leaves the others alone.
      const [a, b] = [...back.values()].map((row) => row.vector);
      a!.fill(0);
      expect(b!.some((x) => x !== 0)).toBe(true);
      expect(new Set([...back.values()].map((row) => row.vector.buffer)).size).toBe(1200);
    } finally {
      mem.close();
    }
  });

  test("works for in-memory stores (no file) and for models with no vectors", () => {
    const mem = openStore({ path: ":memory:" });
    try {
      replaceOrigin(mem.db, "o", [ent(1), ent(2)]);
      embedRandom(mem, 1);
      expect(syncIndex(mem, { modelId: MODEL, dim: DIM })).toMatchObject({ size: 2, saved: false });
      expect(loadOrBuildIndex(mem, "other@2", DIM).search(unit(rng(1)), 3)).toEqual([]);
      expect(syncIndex(mem)).toMatchObject({ modelId: null, size: 0 });
    } finally {
      closeVectorIndex(mem);
      mem.close();
    }
  });
});
