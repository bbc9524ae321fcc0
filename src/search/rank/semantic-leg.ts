/**
 * The vector leg of a ranked search: embed the query (with a timeout), then the nearest candidates
 * by exact cosine when they are few, else from the HNSW index with growing oversampling. Every
 * failure becomes a reason string, never an exception: the caller then ranks lexically.
 */
import { log } from "../../log.ts";
import type { Store } from "../../store/db.ts";
import { CACHES } from "../../store/caches.ts";
import type { CandidateSet } from "../filter/candidates.ts";
import type { SearchContext, VectorBackend } from "../context.ts";
import type { Embedder, Neighbor } from "../types.ts";
import { TimeoutError, withTimeout } from "../model/timeout.ts";
import { exactSearch, loadOrBuildIndex } from "../index/vector-index.ts";

/** Candidate sets up to this size are ranked exactly; larger ones go through the HNSW index. */
const EXACT_SEARCH_MAX = 2000;

/** The backend over the store (vector-index.ts): exact cosine and the HNSW index beside the database. */
export function storeVectorBackend(store: Store): VectorBackend {
  return {
    exactSearch: (modelId, query, ids, k) => exactSearch(store, query, ids, modelId).slice(0, Math.max(0, k)),
    annIndex: (modelId, dim) => {
      try {
        return loadOrBuildIndex(store, modelId, dim);
      } catch (err) {
        log.warn("the vector index is unavailable; ranking candidates exactly", err);
        return null;
      }
    },
    hasVectors: (modelId) =>
      CACHES.hasVectors.get(
        store.db,
        modelId,
        () => store.db.query("SELECT 1 FROM vectors WHERE model_id = ? LIMIT 1").get(modelId) !== null,
      ),
  };
}

async function embedQuery(
  ctx: SearchContext,
  text: string,
): Promise<{ embedder: Embedder; vector: Float32Array } | { reason: string }> {
  if (ctx.embedder.state() === "unavailable")
    return { reason: ctx.embedder.reason() ?? "no embedding model is available" };
  try {
    const r = await withTimeout(
      (async () => {
        const embedder = await ctx.embedder.get();
        if (!embedder) return null;
        return { embedder, vector: await embedder.embedQuery(text) };
      })(),
      // 0 means "no limit" to withTimeout; here it means "answer at once" (as before).
      Math.max(1, ctx.embeddingTimeoutMs),
    );
    if (r === null) return { reason: ctx.embedder.reason() ?? "no embedding model is available" };
    if (!r.vector.some((x) => x !== 0)) return { reason: "the embedding model knows none of the query's words" };
    return r;
  } catch (err) {
    if (err instanceof TimeoutError) {
      log.warn(`query embedding took longer than ${ctx.embeddingTimeoutMs} ms; ranking lexically`);
      return { reason: `the embedding model did not answer within ${ctx.embeddingTimeoutMs} ms` };
    }
    log.warn("query embedding failed; ranking lexically", err);
    return { reason: `the embedding model failed (${(err as Error).message ?? String(err)})` };
  }
}

/** The nearest `candidates` to `text`, at most `depth`, best first. */
export async function semanticLeg(
  ctx: SearchContext,
  text: string,
  depth: number,
  cands: CandidateSet,
): Promise<{ ok: true; neighbors: Neighbor[] } | { ok: false; reason: string }> {
  const q = await embedQuery(ctx, text);
  if ("reason" in q) return { ok: false, reason: q.reason };
  const backend = ctx.vectors ?? storeVectorBackend(ctx.store);
  const modelId = q.embedder.id;
  try {
    if (!backend.hasVectors(modelId)) {
      return {
        ok: false,
        reason: `no embeddings are stored for model ${modelId} yet (\`lorekeeper sync\` computes them)`,
      };
    }
    if (cands.size === 0) return { ok: true, neighbors: [] };
    const index =
      cands.size > (ctx.exactSearchMax ?? EXACT_SEARCH_MAX) ? backend.annIndex(modelId, q.vector.length) : null;
    if (!index || index.size === 0) {
      return { ok: true, neighbors: backend.exactSearch(modelId, q.vector, Array.from(cands.ids), depth) };
    }
    // HNSW over everything, filtered to the candidates; oversample until `depth` survive.
    let k = Math.min(index.size, Math.max(depth * 2, 64));
    for (;;) {
      const found = index.search(q.vector, k);
      const neighbors = found.filter((n) => cands.has(n.id)).slice(0, depth);
      if (neighbors.length >= depth || k >= index.size) return { ok: true, neighbors };
      k = Math.min(index.size, k * 4);
    }
  } catch (err) {
    log.warn("vector search failed; ranking lexically", err);
    return { ok: false, reason: `vector search failed (${(err as Error).message ?? String(err)})` };
  }
}
