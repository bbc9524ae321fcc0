/**
 * The deps the serve command runs the tools with: the store, the lazy embedding model, the search context and
 * the first-use loader. Building them loads nothing a session may not use (docs/benchmark.md: whole sessions).
 */
import type { Config } from "../config.ts";
import { log } from "../log.ts";
import type { SearchContext } from "../search/context.ts";
import type { EmbedderProvider } from "../search/types.ts";
import { runSearch } from "../search/hybrid.ts";
import { withPendingNote } from "../search/index/pending-vectors.ts";
import { rankPreference, setRankPreference } from "../store/canonical.ts";
import { documentRank } from "../entities/preference.ts";
import { refreshTraits } from "../store/entities.ts";
import { openStore, type Store } from "../store/db.ts";
import { createSearchSlots, type EnsureData, type ToolDeps } from "../tools/kit/deps.ts";

export interface ServeDeps {
  deps: ToolDeps;
  store: Store;
  close(): void;
}

/** The first-use loader, imported lazily: the server still answers from the store without it. */
async function loadEnsureData(
  store: Store,
  config: Config,
  embedder: EmbedderProvider,
): Promise<EnsureData | undefined> {
  try {
    const { createEnsureData } = await import("../ingest/ensure.ts");
    return createEnsureData(store, { config, embedder });
  } catch (err) {
    log.warn("first-use loading is unavailable; tools answer from the local store only (run `lorekeeper sync`)", err);
    return undefined;
  }
}

/**
 * The store keeps which version of each entry comes first (store/canonical.ts) for one document preference: a
 * server started with another recomputes it once, here. A store it cannot write keeps the recorded one; collapsed
 * answers are then computed per call (slower, same answers).
 */
function keepRanksFor(store: Store, preferDocuments: readonly string[]): void {
  // Recorded already (every start but the first with a new preference): no write lock taken.
  if (store.readonly || rankPreference(store.db) === documentRank(preferDocuments).id) return;
  try {
    // The trait rows quote the preferred document's wording: derived again in the same transaction (after a crash
    // in between, the next start would see the preference recorded and never derive them again).
    const changed = store.db
      .transaction(() => {
        if (!setRankPreference(store.db, preferDocuments)) return false;
        refreshTraits(store.db);
        return true;
      })
      .immediate();
    if (changed) log.info(`document preference ${preferDocuments.join(",") || "(default)"} recorded in the store`);
  } catch (err) {
    log.warn("could not record the document preference in the store; collapsed answers are computed per call", err);
  }
}

/** How often background work looks again whether the searches it waits for are done. */
const IDLE_WAIT_MS = 25;

/**
 * Background work that yields to searches: `run(delayMs, job)` runs `job` after `delayMs`, or later, once `busy()`
 * is false; never after `signal` aborted.
 */
export function idleRunner(busy: () => boolean, signal: AbortSignal): (delayMs: number, job: () => void) => void {
  const timers = new Set<ReturnType<typeof setTimeout>>();
  signal.addEventListener("abort", () => {
    for (const t of timers) clearTimeout(t);
    timers.clear();
  });
  const run = (delayMs: number, job: () => void): void => {
    if (signal.aborted) return;
    const t = setTimeout(() => {
      timers.delete(t);
      if (signal.aborted) return;
      if (busy()) run(IDLE_WAIT_MS, job);
      else job();
    }, delayMs);
    timers.add(t);
  };
  return run;
}

export interface ServeOptions {
  /** The Config the edge loaded, and the process's embedding model provider. */
  config: Config;
  embedder: EmbedderProvider;
  dbPath?: string;
  preferDocuments?: readonly string[];
}

export async function createServeDeps(opts: ServeOptions): Promise<ServeDeps> {
  const cfg = opts.config;
  // A store that cannot be written (read-only folder) is still served; there is then no first-use download.
  const store = openStore({ path: opts.dbPath, fallbackReadonly: true });
  const preferDocuments = opts.preferDocuments ?? cfg.preferDocuments;
  keepRanksFor(store, preferDocuments);
  const embedder = opts.embedder;
  const ctx: SearchContext = { store, embedder, embeddingTimeoutMs: cfg.embeddingTimeoutMs };
  let searching = 0;
  const stop = new AbortController();
  const whenIdle = idleRunner(() => searching > 0, stop.signal);
  // Vectors lost to an interrupted embedding run are computed again in the background once a meaning question
  // was asked: the check reads every vector stamp (tens of ms of CPU), of no use to a session that never asks one.
  let fillChecked = false;
  const fillPending = () => {
    fillChecked = true;
    whenIdle(0, () => {
      import("../ingest/fill-pending.ts")
        .then(({ fillPendingVectors }) => fillPendingVectors(store, embedder, stop.signal))
        .catch((err: unknown) => log.debug("background embedding check failed", err));
    });
  };
  const deps: ToolDeps = {
    db: store.db,
    // Tool answers never show an entity's search text: the server does not read it from the store.
    search: async (q) => {
      searching++;
      try {
        const res = await runSearch(ctx, { ...q, omitText: true });
        if (q.search && !fillChecked) fillPending();
        return withPendingNote(res, store.db);
      } finally {
        searching--;
      }
    },
    // Lists answer from the compact rows earlier answers made (tools/answer/compact-bodies.ts).
    compactRows: true,
    ensureData: store.readonly ? undefined : await loadEnsureData(store, cfg, embedder),
    modelState: () => embedder.state(),
    responseBudgetChars: cfg.responseBudgetChars,
    searchSlots: createSearchSlots(cfg.maxConcurrentCalls),
    preferDocuments,
  };
  return {
    deps,
    store,
    close: () => {
      stop.abort();
      store.close();
    },
  };
}
