/** Missing vectors filled in the background at server start (see search/index/pending-vectors.ts). */
import { setTimeout as sleep } from "node:timers/promises";
import { log } from "../log.ts";
import { markFilling, pendingVectors } from "../search/index/pending-vectors.ts";
import type { EmbedderProvider } from "../search/types.ts";
import type { Store } from "../store/db.ts";
import { describeLease, LEASE_STALE_MS, otherEmbedder } from "../store/embed-lease.ts";
import { embedPending } from "./embed.ts";

/** How often a server waiting on another process's embedding looks again (that process may stop). */
const RECHECK_MS = Math.min(30_000, LEASE_STALE_MS);

/**
 * Fill the missing vectors in the background (server start). Only for the model the store was
 * embedded with; a store made for another model is left to `lorekeeper sync` (doctor says so).
 * Rows another process is embedding (a `sync` running beside the server) are left to it: the
 * server looks again now and then and takes over only if that process stops before the end.
 * Never throws; resolves with how many were embedded.
 */
export async function fillPendingVectors(
  store: Store,
  provider: EmbedderProvider,
  signal?: AbortSignal,
  opts: { recheckMs?: number; onWait?: () => void } = {},
): Promise<number> {
  if (store.readonly) return 0;
  try {
    let said = false;
    for (;;) {
      const p = pendingVectors(store.db);
      if (!p || p.pending === 0 || signal?.aborted) return 0;
      const other = otherEmbedder(store.db);
      if (other) {
        if (!said)
          log.info(
            `${p.pending} of ${p.total} entities have no embedding yet; another LoreKeeper process, ` +
              `${describeLease(other)}, is computing them (this server leaves them to it)`,
          );
        said = true;
        markFilling(store.db, true);
        opts.onWait?.();
        // An abort ends the wait (the loop then returns); the timer never keeps the process alive.
        await sleep(opts.recheckMs ?? RECHECK_MS, undefined, { signal, ref: false }).catch(() => {});
        continue;
      }
      // Computing from here on (answers say so), the model's loading included: else the answers
      // given while it loads would say to run doctor --repair, and the next ones that it computes.
      markFilling(store.db, true);
      const embedder = await provider.get();
      if (!embedder || embedder.id !== p.modelId) return 0;
      log.info(`${p.pending} of ${p.total} entities have no embedding yet; computing them in the background`);
      try {
        const r = await embedPending(store, provider, { signal, holder: "serve", targetBatchMs: 1500 });
        // Another process took the lease between the look and the start: wait for it as above.
        if (r.busy) continue;
        return r.embedded;
      } finally {
        markFilling(store.db, false);
      }
    }
  } catch (err) {
    if (signal?.aborted) return 0;
    log.warn(
      "filling in missing embeddings failed; semantic ranking stays partial (run `lorekeeper doctor --repair`)",
      err,
    );
    return 0;
  } finally {
    markFilling(store.db, false);
  }
}
