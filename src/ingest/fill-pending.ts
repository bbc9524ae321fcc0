/** Missing vectors filled in the background at server start (see search/index/pending-vectors.ts). */
import { log } from "../log.ts";
import { markFilling, pendingVectors } from "../search/index/pending-vectors.ts";
import type { EmbedderProvider } from "../search/types.ts";
import type { Store } from "../store/db.ts";
import { embedPending } from "./embed.ts";

/**
 * Fill the missing vectors in the background (server start). Only for the model the store was
 * embedded with; a store made for another model is left to `lorekeeper sync` (doctor says so).
 * Never throws; resolves with how many were embedded.
 */
export async function fillPendingVectors(store: Store, provider: EmbedderProvider, signal?: AbortSignal): Promise<number> {
  if (store.readonly) return 0;
  try {
    const p = pendingVectors(store.db);
    if (!p || p.pending === 0) return 0;
    const embedder = await provider.get();
    if (!embedder || embedder.id !== p.modelId) return 0;
    log.info(`${p.pending} of ${p.total} entities have no embedding (an earlier run was interrupted); computing them in the background`);
    markFilling(store.db, true);
    try {
      const r = await embedPending(store, provider, { signal });
      return r.embedded;
    } finally {
      markFilling(store.db, false);
    }
  } catch (err) {
    if (signal?.aborted) return 0;
    log.warn("filling in missing embeddings failed; semantic ranking stays partial (run `lorekeeper doctor --repair`)", err);
    return 0;
  }
}
