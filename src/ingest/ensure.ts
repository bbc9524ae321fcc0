/**
 * First use: when a tool needs kinds the store has never synced, sync them (and embed) before
 * answering. Types synced longer ago than the TTL are refreshed in the background while the old
 * data keeps serving. One run at a time per process; concurrent callers share it.
 */
import { LoreKeeperError } from "../errors.ts";
import type { Config } from "../config.ts";
import type { EntityKind } from "../entities/types.ts";
import type { EmbedderProvider } from "../search/types.ts";
import { HOMEBREW_FILES, UPSTREAM_ENV_VARS } from "../sources/index.ts";
import { log } from "../log.ts";
import { checkpoint, type Store } from "../store/db.ts";
import { getSyncState } from "../store/sync-state.ts";
import { embedAfterIngest } from "./after-ingest.ts";
import { originOf, planSync, runSync } from "./sync.ts";

/** A step of a first-use data load, forwarded to the client as an MCP progress notification. */
export interface DataProgress {
  /** Monotonic counter (e.g. pages or records fetched so far). */
  progress: number;
  total?: number;
  message?: string;
}

export class DataUnavailableError extends LoreKeeperError {
  override name = "DataUnavailableError";
  constructor(message: string, hint?: string) {
    super("data_unavailable", message, hint);
  }
}

export interface EnsureOptions {
  config: Config;
  /** The model to embed what a first-use sync brought; without it nothing is embedded here. */
  embedder?: EmbedderProvider;
  /** Refresh stale types in the background (default true). */
  backgroundRefresh?: boolean;
}

export function createEnsureData(store: Store, opts: EnsureOptions) {
  const cfg = opts.config;
  // A sync, then what it brought embedded and the WAL folded in without waiting on readers.
  const syncAndEmbed = async (o: Omit<Parameters<typeof runSync>[1], "config">) => {
    const report = await runSync(store, { ...o, config: cfg });
    if (opts.embedder) await embedAfterIngest(store, { embedder: opts.embedder, config: cfg }, undefined, "serve");
    checkpoint(store, "PASSIVE");
    return report;
  };
  let chain: Promise<unknown> = Promise.resolve();
  const refreshing = new Set<string>();

  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const next = chain.then(fn, fn);
    chain = next.catch(() => undefined);
    return next;
  };

  return async function ensureData(
    kinds: readonly EntityKind[],
    onProgress?: (p: DataProgress) => void,
  ): Promise<void> {
    const plan = planSync({ kinds });
    const never = () => plan.filter((t) => !getSyncState(store.db, t.source, t.id)?.fetched_at);
    if (never().length > 0) {
      await serial(async () => {
        const todo = never().map((t) => t.id);
        if (todo.length === 0) return;
        let done = 0;
        onProgress?.({ progress: 0, total: todo.length, message: `Fetching ${todo.join(", ")} for the first time…` });
        const report = await syncAndEmbed({
          kinds,
          types: todo,
          onEvent: (e) => {
            if (e.type === "type-done")
              onProgress?.({
                progress: ++done,
                total: todo.length,
                message: `${e.result.contentType}: ${e.result.status}, ${e.result.records} records`,
              });
          },
        });
        const failed = report.results.filter((r) => r.status === "failed");
        if (failed.length > 0 && failed.length === report.results.length) {
          throw new DataUnavailableError(
            `The local store has no ${kinds.join("/")} data yet and the upstream API could not be reached ` +
              `(${failed[0]!.error ?? "unknown error"}). ` +
              `Fix: run \`lorekeeper sync\` when online, point ${UPSTREAM_ENV_VARS.join(" / ")} at a reachable ` +
              `mirror, or load homebrew with \`lorekeeper import ${HOMEBREW_FILES}\`.`,
          );
        }
      });
      return;
    }
    if (opts.backgroundRefresh === false) return;
    const now = Date.now();
    const stale = plan.filter((t) => {
      const s = getSyncState(store.db, t.source, t.id);
      return s?.fetched_at && now - s.fetched_at >= cfg.cacheTtlMs && !refreshing.has(originOf(t));
    });
    if (stale.length === 0) return;
    for (const t of stale) refreshing.add(originOf(t));
    void serial(async () => {
      try {
        await syncAndEmbed({ types: stale.map((t) => t.id), kinds });
      } catch (err) {
        log.warn("background refresh failed; serving the stored data", err);
      } finally {
        for (const t of stale) refreshing.delete(originOf(t));
      }
    });
  };
}
