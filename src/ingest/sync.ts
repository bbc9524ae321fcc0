/**
 * Sync: fetch every record of each content type from its source, normalize, and replace that
 * content type in the store atomically (one transaction per type: readers never see half a type,
 * and a failure or a kill keeps the previous data). Fresh types (synced inside the TTL) are skipped
 * without a request unless `force`.
 */
import type { Config } from "../config.ts";
import type { DocumentInfo, DocumentSource, EntityKind, HOMEBREW_SOURCES } from "../entities/types.ts";
import type { ContentType, NormalizeContext } from "../entities/normalize/types.ts";
import { documentMap } from "../entities/normalize/documents.ts";
import { log } from "../log.ts";
import { HttpClient, UpstreamError } from "../sources/http.ts";
import { SOURCES, sourceById, type SourceRun, type SourceSession } from "../sources/index.ts";
import { type Store, storeFailure } from "../store/db.ts";
import { countOrigin, type ReplaceResult, replaceOrigin } from "../store/entities.ts";
import { applyCorrections } from "../entities/corrections/apply.ts";
import { createHttpCache } from "../store/http-cache.ts";
import { getSyncState, putSyncState } from "../store/sync-state.ts";

export type SyncSource = Exclude<DocumentSource, (typeof HOMEBREW_SOURCES)[number]>;
/** The sources a sync can fetch (those that open a session), in registry order. */
export const SYNC_SOURCES: readonly SyncSource[] = SOURCES.filter((s) => s.open).map((s) => s.id as SyncSource);
/** What `lorekeeper sync` fetches without --source (v1 is opt-in; see each source's `byDefault`). */
export const DEFAULT_SOURCES: readonly SyncSource[] = SOURCES.filter(
  (s) => s.open && s.contentTypes.some((t) => s.byDefault(t)),
).map((s) => s.id as SyncSource);

export type TypeStatus = "ok" | "partial" | "failed" | "fresh";

export interface TypeResult extends ReplaceResult {
  source: SyncSource;
  contentType: string;
  status: TypeStatus;
  records: number;
  skipped: number;
  requests: number;
  durationMs: number;
  error?: string;
  warnings: string[];
}

export type SyncEvent =
  | { type: "type-start"; source: SyncSource; contentType: string; index: number; total: number }
  | {
      type: "progress";
      source: SyncSource;
      contentType: string;
      records: number;
      totalRecords: number | null;
      pages: number;
    }
  | { type: "type-done"; result: TypeResult };

export interface SyncOptions {
  sources?: readonly SyncSource[];
  /** Content type ids ("spells", "2014/rules") or endpoint names ("rule-sections") to include. */
  types?: readonly string[];
  /** Only content types producing any of these kinds. */
  kinds?: readonly EntityKind[];
  force?: boolean;
  config: Config;
  /** Injectable HTTP client (tests); by default one with the store's HTTP cache. */
  http?: HttpClient;
  onEvent?: (e: SyncEvent) => void;
}

export interface SyncReport {
  results: TypeResult[];
  status: "ok" | "partial" | "failed";
  durationMs: number;
  requests: number;
  records: number;
}

function allContentTypes(sources: readonly SyncSource[]): ContentType[] {
  return SOURCES.filter((s) => sources.includes(s.id as SyncSource)).flatMap((s) => s.contentTypes);
}

/** The content types a sync run covers (unknown `types` names → an error listing valid ones). */
export function planSync(opts: Pick<SyncOptions, "sources" | "types" | "kinds">): ContentType[] {
  let types = opts.sources
    ? allContentTypes(opts.sources)
    : allContentTypes(DEFAULT_SOURCES).filter((t) => sourceById(t.source).byDefault(t));
  if (opts.types?.length) {
    const wanted = [...new Set(opts.types.map((t) => t.toLowerCase()))];
    const matches = (t: ContentType, w: string) =>
      t.id.toLowerCase() === w || t.endpoint.toLowerCase() === w || t.kinds.includes(w as EntityKind);
    const unknown = wanted.filter((w) => !types.some((t) => matches(t, w)));
    if (unknown.length) {
      const valid = [...new Set(types.map((t) => t.endpoint))].sort().join(", ");
      throw new Error(
        `Unknown content type(s): ${unknown.join(", ")}. Valid: ${valid} (or kinds such as spell, creature).`,
      );
    }
    types = types.filter((t) => wanted.some((w) => matches(t, w)));
  }
  if (opts.kinds?.length) {
    const ks = new Set(opts.kinds);
    types = types.filter((t) => t.kinds.some((k) => ks.has(k)));
  }
  return types;
}

export function originOf(t: ContentType): string {
  return `${t.source}:${t.id}`;
}

function emptyResult(t: ContentType, status: TypeStatus): TypeResult {
  const counts = { records: 0, skipped: 0, inserted: 0, updated: 0, unchanged: 0, deleted: 0, requests: 0 };
  return { source: t.source as SyncSource, contentType: t.id, status, ...counts, durationMs: 0, warnings: [] };
}

/** The records of a content type's related endpoints; the ones that failed are named in `missing`. */
async function fetchRelated(
  session: SourceSession,
  t: ContentType,
): Promise<{ related: Record<string, unknown[]>; missing: string[] }> {
  const related: Record<string, unknown[]> = {};
  const missing: string[] = [];
  for (const ep of t.related ?? []) {
    try {
      related[ep] = (await session.fetch(t, ep, () => {})).records;
    } catch (err) {
      if (!(err instanceof UpstreamError)) throw err;
      missing.push(`related ${ep} unavailable: ${err.message}`);
    }
  }
  return { related, missing };
}

/**
 * Sync the planned content types. Upstream failures fail their type (previous data kept); a failure
 * of the store itself (damaged, disk full, read-only, locked) stops the run with a StoreError.
 */
export async function runSync(store: Store, opts: SyncOptions): Promise<SyncReport> {
  try {
    return await syncTypes(store, opts);
  } catch (err) {
    throw storeFailure(err, store.path) ?? err;
  }
}

async function syncTypes(store: Store, opts: SyncOptions): Promise<SyncReport> {
  const cfg = opts.config;
  const started = Date.now();
  const http = opts.http ?? HttpClient.fromConfig(cfg, { cache: createHttpCache(store.db, cfg) });
  const plan = planSync(opts);
  const results: TypeResult[] = [];
  const finish = (r: TypeResult) => {
    results.push(r);
    opts.onEvent?.({ type: "type-done", result: r });
  };

  // One session per source per run; each source's documents are fetched at most once.
  const sessions = new Map<DocumentSource, SourceSession>();
  const docs = new Map<DocumentSource, Promise<DocumentInfo[]>>();
  const run: SourceRun = {
    http,
    config: cfg,
    force: opts.force ?? false,
    documentsOf,
  };
  function sessionOf(id: DocumentSource): SourceSession {
    return sessions.getOrInsertComputed(id, () => {
      const src = sourceById(id);
      if (!src.open) throw new Error(`${src.label} is not synced (it is imported from files)`);
      return src.open(run);
    });
  }
  function documentsOf(id: DocumentSource): Promise<DocumentInfo[]> {
    return docs.getOrInsertComputed(id, () => sessionOf(id).documents());
  }

  for (const [i, t] of plan.entries()) {
    const source = t.source as SyncSource;
    opts.onEvent?.({ type: "type-start", source, contentType: t.id, index: i, total: plan.length });
    const t0 = Date.now();
    const req0 = http.stats.requests;
    const state = getSyncState(store.db, t.source, t.id);
    const synced = state?.status === "ok" || state?.status === "partial";
    if (!opts.force && synced && state.fetched_at !== null && Date.now() - state.fetched_at < cfg.cacheTtlMs) {
      finish({ ...emptyResult(t, "fresh"), records: state.record_count });
      continue;
    }
    const r = emptyResult(t, "ok");
    try {
      const session = sessionOf(source);
      const unavailable = (await session.unavailable?.(t)) ?? null;
      if (unavailable) {
        r.warnings.push(unavailable);
        r.durationMs = Date.now() - t0;
        finish(r);
        continue;
      }
      const documents = await documentsOf(source);
      const main = await session.fetch(t, t.endpoint, (records, totalRecords, pages) =>
        opts.onEvent?.({ type: "progress", source, contentType: t.id, records, totalRecords, pages }),
      );
      const { related, missing } = await fetchRelated(session, t);
      if (missing.length > 0) {
        // Records without their related parts are worse than the complete ones already stored.
        const stored = countOrigin(store.db, originOf(t));
        if (stored > 0) throw new Error(`${missing.join("; ")} — the previous (complete) data is kept`);
        r.warnings.push(...missing);
      }
      const ctx: NormalizeContext = { baseUrl: session.baseUrl, documents: documentMap(documents), related };
      const norm = t.normalize(main.records, ctx);
      for (const s of norm.skipped) log.warn(`${source} ${t.id}: skipped record ${s.key ?? "(no key)"}: ${s.reason}`);
      // Fields two other upstreams transcribe differently are answered by the majority (entities/corrections).
      const entities = norm.entities.map(applyCorrections);
      // Only a complete listing proves a record gone: when the upstream failed to return some
      // records, the stored ones are kept rather than deleted.
      const complete = main.skipped === 0 && !main.incomplete && missing.length === 0;
      const rep = replaceOrigin(store.db, originOf(t), entities, documents, { keepMissing: !complete });
      Object.assign(r, rep);
      r.records = norm.entities.length;
      r.skipped = norm.skipped.length + main.skipped;
      r.warnings.push(...main.warnings);
      if (main.incomplete) r.warnings.push(main.incomplete);
      if (!complete) r.warnings.push("the upstream did not return every record, so no stored record was removed");
      r.status = r.skipped > 0 || !complete ? "partial" : "ok";
    } catch (err) {
      // The store itself failing (damaged, disk full, read-only) is not this type's problem: stop.
      const storeErr = storeFailure(err, store.path);
      if (storeErr) throw storeErr;
      r.status = "failed";
      r.error = err instanceof UpstreamError ? err.message : `${(err as Error).message ?? String(err)}`;
      log.debug(`sync ${source} ${t.id} failed`, err);
    }
    r.requests = http.stats.requests - req0;
    r.durationMs = Date.now() - t0;
    for (const w of r.warnings) log.warn(`${source} ${t.id}: ${w}`);
    putSyncState(store.db, {
      source,
      content_type: t.id,
      status: r.status,
      fetched_at: r.status === "failed" ? null : Date.now(),
      record_count: r.records,
      skipped_count: r.skipped,
      request_count: r.requests,
      duration_ms: r.durationMs,
      error: r.error ?? null,
    });
    finish(r);
  }
  const failed = results.filter((r) => r.status === "failed").length;
  const partial = results.some((r) => r.status === "partial");
  return {
    results,
    status: failed === 0 ? (partial ? "partial" : "ok") : failed === results.length ? "failed" : "partial",
    durationMs: Date.now() - started,
    requests: results.reduce((a, r) => a + r.requests, 0),
    records: results.reduce((a, r) => a + r.records, 0),
  };
}
