/**
 * Embedding of new or changed entities: after a sync or import, embed only the entities whose
 * vector is missing, from another model, or older than their content; write each batch in one
 * transaction; then bring the vector index in line (and save it beside the database).
 * No model → returns at once with a note: keyword search keeps working.
 */
import { log } from "../log.ts";
import type { Store } from "../store/db.ts";
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
  /** Update the vector index afterwards (default true). */
  updateIndex?: boolean;
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
  durationMs: number;
}

export async function embedPending(store: Store, provider: EmbedderProvider, opts: EmbedPendingOptions = {}): Promise<EmbedPendingResult> {
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  const batchSize = Math.max(1, Math.floor(opts.batchSize ?? EMBED_BATCH));
  const embedder = await provider.get();
  if (!embedder) {
    return {
      embedded: 0,
      skipped: 0,
      remaining: 0,
      modelId: null,
      dim: null,
      note: `no embedding model, semantic search is off (${provider.reason() ?? "unknown reason"})`,
      durationMs: ms(),
    };
  }
  const db = store.db;
  const modelId = embedder.id;
  const dim = embedder.dim;
  if (store.readonly) {
    return { embedded: 0, skipped: 0, remaining: countPendingVectors(db, modelId), modelId, dim, note: "the store is open read-only", durationMs: ms() };
  }

  const meta = getEmbeddingMeta(db);
  if (meta && meta.modelId !== modelId && meta.dim === dim && sameModelContent(meta.modelId, modelId)) {
    // The same model file under another name (installed twice, renamed): its vectors are this model's.
    const kept = adoptVectors(db, meta.modelId, { modelId, dim });
    log.info(`the store's vectors were made by ${meta.modelId}, the same model file as ${modelId}: ${kept} vectors kept, none embedded again`);
  } else if (!meta || meta.modelId !== modelId || meta.dim !== dim) {
    if (meta) log.info(`embedding model changed (${meta.modelId}, dim ${meta.dim} → ${modelId}, dim ${dim}): every entity will be embedded again`);
    // Same id with another dimension cannot happen with a real model; if it does, its vectors are unusable.
    if (meta && meta.modelId === modelId && meta.dim !== dim) deleteVectorsOfModel(db, modelId);
    setEmbeddingMeta(db, { modelId, dim });
  }

  const total = countPendingVectors(db, modelId);
  const entityCount = db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM entities").get()?.n ?? 0;
  const skipped = Math.max(0, entityCount - total);
  let embedded = 0;
  let done = 0;
  let afterId = 0;
  let note: string | undefined;
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
      note = `another process switched the store to ${current.modelId}; stopped here (that model's run embeds the rest)`;
      break;
    }
    const batch = listPendingVectors(db, modelId, batchSize, afterId);
    if (batch.length === 0) break;
    afterId = batch[batch.length - 1]!.id;
    const vectors = await embedder.embedPassages(batch.map((e) => e.text));
    embedded += writeVectors(
      db,
      modelId,
      batch.map((e, i) => ({ id: e.id, contentHash: e.content_hash, vector: vectors[i]! })),
    );
    done += batch.length;
    opts.onProgress?.(Math.min(done, total), total);
  }

  const result: EmbedPendingResult = {
    embedded,
    skipped,
    remaining: countPendingVectors(db, modelId),
    modelId,
    dim,
    durationMs: 0,
  };
  if (note) result.note = note;
  if (opts.updateIndex ?? true) result.indexSize = syncIndex(store, { modelId, dim }).size;
  result.durationMs = ms();
  if (embedded > 0) log.info(`embedded ${embedded} entities with ${modelId} in ${result.durationMs} ms (${(embedded / Math.max(0.001, result.durationMs / 1000)).toFixed(1)} entities/s)`);
  return result;
}
