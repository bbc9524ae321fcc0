/**
 * Vector search over the stored embeddings. The `vectors` table is the truth; the HNSW index
 * (usearch, cosine, f16: half the size of f32 with the same top-k recall at 384 dims) is saved
 * beside the database (vector-index-file.ts) and served memory-mapped (`view`: a search touches only
 * the pages it walks, which belong to the file, not the heap); a missing, damaged or mismatched
 * file is rebuilt. Each call checks a cheap change token and, when the store moved, applies the
 * (id, content hash) difference (or rebuilds when most changed). `exactSearch` ranks a few
 * candidates by exact cosine over their f32 vectors, kept per store and model until it changes.
 */
import { statSync } from "node:fs";
import type { Index, IndexConfig, MetricKind, ScalarKind } from "usearch";
import { log } from "../../log.ts";
import type { Store } from "../../store/db.ts";
import { changeToken } from "../../store/version-cache.ts";
import { getEmbeddingMeta, listVectorStamps, readVectorRows, type StoredVector } from "../../store/vectors.ts";
import type { Neighbor, VectorIndex } from "../types.ts";
import { hashPrefix, indexPaths, readSidecar, saveIndexFiles, verifyIndexFile } from "./vector-index-file.ts";

export const HNSW_CONFIG = {
  // usearch's MetricKind.Cos and ScalarKind.F16 (string enums), without loading usearch to name them.
  metric: "cos" as MetricKind.Cos,
  quantization: "f16" as ScalarKind.F16,
  connectivity: 16,
  expansion_add: 128,
  expansion_search: 64,
  multi: false,
} as const;
const ADD_CHUNK = 4096;
const SINGLE_THREAD_BELOW = 2048;

/**
 * usearch and its native addon (~10 MB of RSS, ~8 ms of CPU) load with the first index made: a
 * session whose meaning searches all rank exactly, or that asks none, never loads them.
 */
let usearch: typeof import("usearch") | undefined;

function newIndex(dim: number): Index {
  usearch ??= require("usearch") as typeof import("usearch");
  const config: IndexConfig = { dimensions: dim, ...HNSW_CONFIG };
  return new usearch.Index(config);
}

/** The HNSW index of one model's vectors. Obtain it with loadOrBuildIndex. */
export class HnswVectorIndex implements VectorIndex {
  /** @internal entity id → content hash prefix of the vector held. */
  readonly entries = new Map<number, string>();

  constructor(
    readonly modelId: string,
    readonly dim: number,
    /** @internal */ public index: Index,
    /** @internal The file `index` is a read-only view of (usearch `view`); undefined when in memory. */
    public viewOf?: string,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  search(query: Float32Array, k: number): Neighbor[] {
    const n = Math.min(Math.floor(k), this.entries.size);
    if (n <= 0) return [];
    if (query.length !== this.dim) throw new Error(`query has ${query.length} dimensions, the index ${this.dim}`);
    const m = this.index.search(query, n, 1);
    const out: Neighbor[] = [];
    for (let i = 0; i < m.keys.length; i++) out.push({ id: Number(m.keys[i]), similarity: 1 - (m.distances[i] ?? 1) });
    return out;
  }
}

interface VectorState {
  modelId: string;
  dim: number;
  token: string | undefined;
  /** entity id → full content hash of the current vector in the store. */
  stamps: Map<number, string>;
  /** Vectors exactSearch read (null: none stored), valid while the store's change token is `cacheToken`. */
  cache: Map<number, Float32Array | null>;
  cacheToken?: string;
  hnsw: HnswVectorIndex | undefined;
}

const registry = new WeakMap<Store, Map<string, VectorState>>();

function stateFor(store: Store, modelId: string, dim: number): VectorState {
  let byModel = registry.get(store);
  if (!byModel) registry.set(store, (byModel = new Map()));
  const key = `${modelId}#${dim}`;
  let st = byModel.get(key);
  if (!st)
    byModel.set(key, (st = { modelId, dim, token: undefined, stamps: new Map(), cache: new Map(), hnsw: undefined }));
  return st;
}

/** Forget the in-memory index and vector cache of `store` (e.g. before closing it). */
export function closeVectorIndex(store: Store): void {
  registry.delete(store);
}

export interface IndexSyncResult {
  modelId: string | null;
  size: number;
  added: number;
  removed: number;
  rebuilt: boolean;
  saved: boolean;
}

/**
 * Add rows to the HNSW graph. While the graph is small, one thread: concurrent inserts into a small
 * graph leave some nodes badly linked (measured: ~0.4% of 400 vectors unreachable by their own
 * vector); once it has a backbone, all cores (faster, same recall: docs/benchmark.md, "Figures behind the code").
 */
function addVectors(idx: HnswVectorIndex, rows: Map<number, StoredVector>): void {
  const list = [...rows];
  let i = 0;
  while (i < list.length) {
    const small = idx.index.size() < SINGLE_THREAD_BELOW;
    const end = Math.min(list.length, i + (small ? SINGLE_THREAD_BELOW - idx.index.size() : ADD_CHUNK));
    const chunk = list.slice(i, end);
    const keys = new BigUint64Array(chunk.length);
    const flat = new Float32Array(chunk.length * idx.dim);
    chunk.forEach(([id, row], j) => {
      keys[j] = BigInt(id);
      flat.set(row.vector, j * idx.dim);
    });
    idx.index.add(keys, flat, small ? 1 : 0);
    for (const [id, row] of chunk) idx.entries.set(id, hashPrefix(row.contentHash));
    i = end;
  }
}

function build(store: Store, st: VectorState, why: string): HnswVectorIndex {
  const started = performance.now();
  const idx = new HnswVectorIndex(st.modelId, st.dim, newIndex(st.dim));
  addVectors(idx, readVectorRows(store.db, st.modelId, undefined, st.dim));
  log.info(
    `vector index rebuilt from the store (${idx.size} vectors, ${Math.round(performance.now() - started)} ms): ${why}`,
  );
  return idx;
}

/** The index saved beside the database, if it is intact and made for this model. */
function loadFile(store: Store, st: Pick<VectorState, "modelId" | "dim">): HnswVectorIndex | string {
  const paths = indexPaths(store.path);
  if (!paths) return "the database is in memory";
  const sidecar = readSidecar(paths);
  if ("problem" in sidecar) return sidecar.problem;
  if (sidecar.modelId !== st.modelId || sidecar.dim !== st.dim)
    return `the saved index was made for ${sidecar.modelId} (dim ${sidecar.dim})`;
  if (sidecar.quantization !== HNSW_CONFIG.quantization || sidecar.connectivity !== HNSW_CONFIG.connectivity)
    return "the saved index has other HNSW settings";
  const fileId = () => {
    const f = statSync(paths.index);
    return `${f.ino}:${f.size}:${f.mtimeMs}`;
  };
  let idx: HnswVectorIndex;
  try {
    const before = fileId();
    const damaged = verifyIndexFile(paths, sidecar);
    if (damaged) return damaged;
    idx = new HnswVectorIndex(st.modelId, st.dim, newIndex(st.dim), paths.index);
    idx.index.view(paths.index);
    // Another process may have replaced the file between the check and the load.
    if (fileId() !== before) return "the index file was replaced while loading";
  } catch (err) {
    return `the index file could not be loaded (${(err as Error).message})`;
  }
  if (idx.index.dimensions() !== st.dim || idx.index.size() !== sidecar.entries.length)
    return "the index file does not match its description";
  for (const [id, hash] of sidecar.entries) idx.entries.set(id, hash);
  const differs = sampleMismatch(store, st.modelId, st.dim, idx);
  if (differs) return differs;
  return idx;
}

/** What is wrong with the index file beside the store (sizes, hashes, sampled vectors); undefined when usable. */
export function savedIndexProblem(store: Store, modelId: string, dim: number): string | undefined {
  const r = loadFile(store, { modelId, dim });
  return typeof r === "string" ? r : undefined;
}

/** Entries of a loaded index checked against the stored vectors (the sidecar's hashes only describe the file). */
const INDEX_SAMPLE = 8;

/**
 * Up to INDEX_SAMPLE entries, spread over the index, searched with the vector the store holds, must
 * come back among the first hits (or a near-identical stored twin must).
 */
function sampleMismatch(store: Store, modelId: string, dim: number, idx: HnswVectorIndex): string | undefined {
  const ids = [...idx.entries.keys()];
  if (ids.length === 0) return undefined;
  const step = Math.max(1, Math.floor(ids.length / INDEX_SAMPLE));
  const pick = ids.filter((_, i) => i % step === 0).slice(0, INDEX_SAMPLE);
  let checked = 0;
  let bad = 0;
  for (const [id, row] of readVectorRows(store.db, modelId, pick, dim)) {
    if (hashPrefix(row.contentHash) !== idx.entries.get(id)) continue; // changed since the save: the update replaces it
    checked++;
    const hits = idx.search(row.vector, 10).filter((h) => h.similarity >= 0.99);
    if (hits.some((h) => h.id === id)) continue;
    // Texts that embed alike crowd the first hits: one whose stored vector is (nearly) this one is as good.
    const twins = hits.map((h) => h.id);
    if (exactSearch(store, row.vector, twins, modelId).some((o) => o.similarity >= 0.999)) continue;
    bad++;
  }
  // HNSW search is approximate (a graph with many removals can miss an entry now and then): a file is
  // refused when most samples fail, as every one does in a file whose vectors are not the store's.
  return bad > checked / 2
    ? `${bad} of ${checked} sampled vectors in the index file differ from the store's (the file was replaced ` +
        `or damaged)`
    : undefined;
}

/** Bring `idx` in line with `stamps` (incremental remove/add, or a rebuild when most changed), counted in `result`. */
function applyDiff(store: Store, st: VectorState, idx: HnswVectorIndex, result: IndexSyncResult): HnswVectorIndex {
  const stale: number[] = [];
  const wanted: number[] = [];
  for (const [id, hash] of idx.entries) {
    const now = st.stamps.get(id);
    if (now === undefined || hashPrefix(now) !== hash) stale.push(id);
  }
  for (const [id, hash] of st.stamps) if (idx.entries.get(id) !== hashPrefix(hash)) wanted.push(id);
  if (stale.length === 0 && wanted.length === 0) return idx;
  const rebuild = (why: string, removed: number) => {
    const fresh = build(store, st, why);
    result.added += fresh.size;
    result.removed += removed;
    result.rebuilt = true;
    return fresh;
  };
  if (stale.length + wanted.length > Math.max(1000, st.stamps.size / 2)) {
    return rebuild(`${stale.length} vectors removed or changed and ${wanted.length} new or changed`, idx.size);
  }
  try {
    // A view of the file cannot change: the file is loaded into memory first (the rename of a later save leaves the
    // view's file alone).
    if (idx.viewOf) {
      const loaded = newIndex(idx.dim);
      loaded.load(idx.viewOf);
      idx.index = loaded;
      idx.viewOf = undefined;
    }
    if (stale.length) {
      idx.index.remove(BigUint64Array.from(stale, (id) => BigInt(id)));
      for (const id of stale) idx.entries.delete(id);
    }
    addVectors(idx, readVectorRows(store.db, st.modelId, wanted, st.dim));
  } catch (err) {
    return rebuild(`updating it in place failed (${(err as Error).message})`, stale.length);
  }
  result.added += wanted.length;
  result.removed += stale.length;
  return idx;
}

function save(store: Store, idx: HnswVectorIndex): boolean {
  const paths = indexPaths(store.path);
  if (!paths) return false;
  try {
    const entries = [...idx.entries].sort((a, b) => a[0] - b[0]);
    const { quantization, connectivity } = HNSW_CONFIG;
    saveIndexFiles(idx.index, paths, { modelId: idx.modelId, dim: idx.dim, quantization, connectivity, entries });
    return true;
  } catch (err) {
    log.warnOnce(
      `vector-index-save:${store.path}`,
      `could not save the vector index beside ${store.path} (it is rebuilt when needed)`,
      err,
    );
    return false;
  }
}

function ensure(store: Store, st: VectorState): IndexSyncResult {
  const result: IndexSyncResult = { modelId: st.modelId, size: 0, added: 0, removed: 0, rebuilt: false, saved: false };
  const token = changeToken(store.db);
  // The store changed: its stamps are read again, and a loaded index brought in line with them.
  let needDiff = token !== st.token;
  if (needDiff) {
    st.stamps = new Map(listVectorStamps(store.db, st.modelId).map((s) => [s.id, s.content_hash]));
    st.token = token;
  }
  if (!st.hnsw) {
    const loaded = loadFile(store, st);
    if (typeof loaded === "string") {
      st.hnsw = build(store, st, loaded);
      result.rebuilt = true;
      result.added = st.hnsw.size;
      needDiff = false;
    } else {
      st.hnsw = loaded;
      needDiff = true;
      log.debug(`vector index loaded from ${store.path}.usearch (${loaded.size} vectors)`);
    }
  }
  if (needDiff) st.hnsw = applyDiff(store, st, st.hnsw, result);
  if (result.added || result.removed || result.rebuilt) result.saved = save(store, st.hnsw);
  result.size = st.hnsw.size;
  return result;
}

/** The HNSW index of `modelId` for `store`, current with `vectors`: loaded, or rebuilt and saved. Cached per store. */
export function loadOrBuildIndex(store: Store, modelId: string, dim: number): HnswVectorIndex {
  const st = stateFor(store, modelId, dim);
  ensure(store, st);
  return st.hnsw!;
}

/** Bring the index of the store's active model (or the given one) in line with `vectors`, and save it. */
export function syncIndex(store: Store, model?: { modelId: string; dim: number }): IndexSyncResult {
  const m = model ?? getEmbeddingMeta(store.db);
  if (!m) return { modelId: null, size: 0, added: 0, removed: 0, rebuilt: false, saved: false };
  return ensure(store, stateFor(store, m.modelId, m.dim));
}

/** Exact cosine similarity of `query` to the candidates' stored vectors, best first (those without one left out). */
export function exactSearch(
  store: Store,
  query: Float32Array,
  candidateIds: Iterable<number>,
  modelId: string,
): Neighbor[] {
  const st = stateFor(store, modelId, query.length);
  // Only the candidates' vectors are read, never every vector's stamp (a walk of the whole table):
  // the vectors read are kept until the store changes.
  const token = changeToken(store.db);
  if (token !== st.cacheToken) {
    st.cache.clear();
    st.cacheToken = token;
  }
  const ids = [...new Set(candidateIds)];
  const missing = ids.filter((id) => !st.cache.has(id));
  if (missing.length) {
    const rows = readVectorRows(store.db, modelId, missing, st.dim);
    for (const id of missing) st.cache.set(id, rows.get(id)?.vector ?? null);
  }
  let qn = 0;
  for (let i = 0; i < query.length; i++) qn += query[i]! * query[i]!;
  qn = Math.sqrt(qn);
  const out: Neighbor[] = [];
  for (const id of ids) {
    const v = st.cache.get(id);
    if (!v) continue;
    let dot = 0;
    let vn = 0;
    for (let i = 0; i < v.length; i++) {
      dot += v[i]! * query[i]!;
      vn += v[i]! * v[i]!;
    }
    const denom = qn * Math.sqrt(vn);
    out.push({ id, similarity: denom > 0 ? dot / denom : 0 });
  }
  return out.sort((a, b) => b.similarity - a.similarity || a.id - b.id);
}
