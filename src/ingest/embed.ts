/**
 * Embedding of new or changed entities: after a sync or import, embed only the entities whose
 * vector is missing, from another model, or older than their content; write each batch in one
 * transaction; then bring the vector index in line (and save it beside the database).
 * No model → returns at once with a note: keyword search keeps working.
 *
 * One process at a time embeds a store (store/embed-lease.ts): another that finds the lease taken
 * leaves the rows to its holder. Batches adapt to the model's speed so progress moves every couple
 * of seconds; the measured rate (entities per second, per model) is kept in `meta` so the next long
 * run can say beforehand roughly how long it takes.
 */
import { log } from "../log.ts";
import type { Store } from "../store/db.ts";
import { getMeta, setMeta } from "../store/schema.ts";
import { acquireEmbedLease, describeLease, releaseEmbedLease, renewEmbedLease } from "../store/embed-lease.ts";
import {
  adoptVectors,
  countPendingVectors,
  deleteVectorsOfModel,
  getEmbeddingMeta,
  listPendingVectors,
  sameModelContent,
  setEmbeddingMeta,
  writeVectors,
} from "../store/vectors.ts";
import type { EmbedderProvider } from "../search/types.ts";
import { syncIndex } from "../search/index/vector-index.ts";

/**
 * Entities per embedding call and transaction. The embedder sorts each call's texts by length and
 * pads each inner batch only to its longest text: 256 texts at a time pad about 4 % beyond their
 * own tokens, 64 about 14 % (measured on the full corpus with all-MiniLM-L6-v2's tokenizer).
 */
export const EMBED_BATCH = 256;

export interface EmbedPendingOptions {
  /** Entities per batch (one embedding call + one transaction). Default EMBED_BATCH. */
  batchSize?: number;
  /** Called before the first batch (0, total) and after each batch. */
  onProgress?: (done: number, total: number) => void;
  /** Stop after the current batch (what was written stays; the rest stays pending). */
  signal?: AbortSignal;
  /** Update the vector index afterwards (default true; the bench times it apart). */
  updateIndex?: boolean;
  /**
   * Aim for batches of about this long (ms): batches grow or shrink to the model's measured speed,
   * between 4 entities and `batchSize`. Unset: every batch is `batchSize`.
   */
  targetBatchMs?: number;
  /**
   * Called once, before embedding (with the rate measured by an earlier run of this model) or
   * after the second batch (measured now; the first carries the model's warm-up): how many
   * entities remain and how many per second, how many the run embeds in all (the progress's total),
   * and the model's id.
   */
  onEstimate?: (
    remaining: number,
    perSecond: number,
    measured: "earlier" | "now",
    total: number,
    model: string,
  ) => void;
  /** Who embeds, for the lease ("sync", "serve", …). */
  holder?: string;
}

export interface EmbedPendingResult {
  /** Vectors written in this run. */
  embedded: number;
  /** Entities that were already up to date. */
  skipped: number;
  /** Entities still pending after the run (changed meanwhile, aborted, …). */
  remaining: number;
  /** The model used, or null when no model could load. */
  modelId: string | null;
  dim: number | null;
  /** Why nothing was embedded, when that is the case (no model, read-only store, aborted). */
  note?: string;
  /** Vectors in the index after the run (when updated). */
  indexSize?: number;
  /** Another process holds the embedding lease: who (nothing was embedded here). */
  busy?: string;
  durationMs: number;
}

export async function embedPending(
  store: Store,
  provider: EmbedderProvider,
  opts: EmbedPendingOptions = {},
): Promise<EmbedPendingResult> {
  const started = performance.now();
  const batchSize = Math.max(1, Math.floor(opts.batchSize ?? EMBED_BATCH));
  const embedder = await provider.get();
  const result = (r: Partial<EmbedPendingResult>): EmbedPendingResult => ({
    embedded: 0,
    skipped: 0,
    remaining: 0,
    modelId: null,
    dim: null,
    ...r,
    durationMs: Math.round(performance.now() - started),
  });
  if (!embedder)
    return result({ note: `no embedding model, semantic search is off (${provider.reason() ?? "unknown reason"})` });
  const db = store.db;
  const { id: modelId, dim } = embedder;
  const pending = () => countPendingVectors(db, modelId);
  if (store.readonly) return result({ remaining: pending(), modelId, dim, note: "the store is open read-only" });

  // One process embeds a store at a time; the lease is taken before the model is recorded, so a
  // process with another model does not switch the store under a running embed.
  const lease = acquireEmbedLease(db, opts.holder ?? "embed");
  if (!lease.ok) {
    const busy = describeLease(lease.by);
    const note = `another LoreKeeper process, ${busy}, is embedding this store`;
    return result({ remaining: pending(), modelId, dim, busy, note });
  }
  let embedded = 0;
  let skipped = 0;
  let note: string | undefined;
  try {
    const meta = getEmbeddingMeta(db);
    if (meta && meta.modelId !== modelId && meta.dim === dim && sameModelContent(meta.modelId, modelId)) {
      // The same model file under another name (installed twice, renamed): its vectors are this model's.
      const kept = adoptVectors(db, meta.modelId, { modelId, dim });
      log.info(
        `the store's vectors were made by ${meta.modelId}, the same model file as ${modelId}: ${kept} vectors kept, ` +
          `none embedded again`,
      );
    } else if (!meta || meta.modelId !== modelId || meta.dim !== dim) {
      if (meta)
        log.info(
          `embedding model changed (${meta.modelId}, dim ${meta.dim} → ${modelId}, dim ${dim}): ` +
            `every entity will be embedded again`,
        );
      // Same id with another dimension cannot happen with a real model; if it does, its vectors are unusable.
      if (meta && meta.modelId === modelId && meta.dim !== dim) deleteVectorsOfModel(db, modelId);
      setEmbeddingMeta(db, { modelId, dim });
    }
    const total = pending();
    const entityCount =
      db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM entities WHERE dup_of IS NULL").get()?.n ?? 0;
    skipped = Math.max(0, entityCount - total);
    ({ embedded, note } = await embedBatches(store, embedder, total, batchSize, opts));
  } finally {
    releaseEmbedLease(db);
  }
  const remaining = pending();
  const indexSize = (opts.updateIndex ?? true) ? syncIndex(store, { modelId, dim }).size : undefined;
  const r = result({ embedded, skipped, remaining, modelId, dim, ...(note ? { note } : {}), indexSize });
  if (embedded > 0)
    log.info(
      `embedded ${embedded} entities with ${modelId} in ${r.durationMs} ms ` +
        `(${(embedded / Math.max(0.001, r.durationMs / 1000)).toFixed(1)} entities/s)`,
    );
  return r;
}

const rateKey = (modelId: string) => `embed_rate:${modelId}`;

type Embedder = NonNullable<Awaited<ReturnType<EmbedderProvider["get"]>>>;

/** The embedding loop (lease held): batches written one transaction each, the lease renewed after each. */
async function embedBatches(
  store: Store,
  embedder: Embedder,
  total: number,
  maxBatch: number,
  opts: EmbedPendingOptions,
): Promise<{ embedded: number; note?: string }> {
  const db = store.db;
  const modelId = embedder.id;
  const target = opts.targetBatchMs;
  // Entities per second this model embedded in an earlier run on this store (undefined before one).
  const rate = Number(getMeta(db, rateKey(modelId)));
  const earlier = Number.isFinite(rate) && rate > 0 ? rate : undefined;
  let size = target ? Math.min(maxBatch, earlier ? Math.max(4, Math.round((earlier * target) / 1000)) : 8) : maxBatch;
  let embedded = 0;
  let done = 0;
  let afterId = 0;
  let note: string | undefined;
  let estimated = false;
  let batches = 0;
  if (total > 0 && earlier && opts.onEstimate) {
    opts.onEstimate(total, earlier, "earlier", total, modelId);
    estimated = true;
  }
  const t0 = performance.now();
  opts.onProgress?.(done, total);
  for (;;) {
    if (opts.signal?.aborted) {
      note = "stopped before the end; the rest is embedded next time";
      break;
    }
    // Another process switched the store to another model meanwhile: stop rather than overwrite its
    // vectors batch by batch (each would re-embed what the other wrote); that process embeds the rest.
    const current = getEmbeddingMeta(db);
    if (current && current.modelId !== modelId) {
      const rest = "that model's run embeds the rest";
      note = `another process switched the store to ${current.modelId}; stopped here (${rest})`;
      break;
    }
    const batch = listPendingVectors(db, modelId, size, afterId);
    if (batch.length === 0) break;
    afterId = batch[batch.length - 1]!.id;
    const b0 = performance.now();
    const vectors = await embedder.embedPassages(batch.map((e) => e.text));
    const rows = batch.map((e, i) => ({ id: e.id, contentHash: e.content_hash, vector: vectors[i]! }));
    embedded += writeVectors(db, modelId, rows);
    done += batch.length;
    const rate = batch.length / Math.max(0.001, (performance.now() - b0) / 1000);
    batches++;
    // Two small batches first (the warm-up, then the one the estimate is measured on); then batches sized to the rate.
    if (target && batches >= 2) size = Math.min(maxBatch, Math.max(4, Math.round((rate * target) / 1000)));
    // The first batch carries the model's warm-up (onnxruntime optimising its graph: seconds): the
    // estimate uses the second one.
    if (!estimated && opts.onEstimate && total - done > 0 && batches >= 2) {
      opts.onEstimate(total - done, rate, "now", total, modelId);
      estimated = true;
    }
    opts.onProgress?.(Math.min(done, total), total);
    if (!renewEmbedLease(db)) {
      note = "another process took over embedding this store";
      break;
    }
  }
  const seconds = (performance.now() - t0) / 1000;
  // Enough to be a rate, not a warm-up: kept for the next run's estimate.
  if (embedded >= 32 && seconds > 0) setMeta(db, rateKey(modelId), (embedded / seconds).toFixed(3));
  return note ? { embedded, note } : { embedded };
}
