/**
 * Sync: fetch every record of each content type from its source, normalize, and replace that
 * content type in the store atomically (one transaction per type: readers never see half a type,
 * and a failure or a kill keeps the previous data). Fresh types (synced inside the TTL) are skipped
 * without a request unless `force`.
 */
import type { Config } from "../config.ts";
import { loadConfig } from "../config.ts";
import type { DocumentInfo, DocumentSource, EntityKind } from "../entities/types.ts";
import type { ContentType, NormalizeContext } from "../entities/normalize/types.ts";
import { DND5EAPI_TYPES, OPEN5E_V1_TYPES, OPEN5E_V2_TYPES } from "../entities/normalize/index.ts";
import { documentMap, dnd5eApiDocuments, normalizeOpen5eDocuments, normalizeOpen5eV1Documents } from "../entities/normalize/documents.ts";
import { log } from "../log.ts";
import { Dnd5eApiClient } from "../sources/dnd5eapi.ts";
import { HttpClient, UpstreamError } from "../sources/http.ts";
import { Open5eClient } from "../sources/open5e.ts";
import { type Store, storeFailure } from "../store/db.ts";
import { countOrigin, replaceOrigin } from "../store/entities.ts";
import { createHttpCache } from "../store/http-cache.ts";
import { getSyncState, putSyncState } from "../store/sync-state.ts";

export type SyncSource = Exclude<DocumentSource, "orcbrew">;
export const SYNC_SOURCES: readonly SyncSource[] = ["open5e_v2", "open5e_v1", "dnd5e_api"];
/** What `lorekeeper sync` fetches without --source: v1 is opt-in. */
export const DEFAULT_SOURCES: readonly SyncSource[] = ["open5e_v2", "dnd5e_api"];
/**
 * Without an explicit --source, the D&D 5e API only supplies what Open5e v2 lacks (spec decision 6):
 * rules, rule sections and proficiencies. Everything else it has duplicates the SRD already in v2.
 * `--source dnd5e_api` syncs all of its content types.
 */
export const DND5E_DEFAULT_ENDPOINTS: readonly string[] = ["rules", "rule-sections", "proficiencies"];

export type TypeStatus = "ok" | "partial" | "failed" | "fresh";

export interface TypeResult {
  source: SyncSource;
  contentType: string;
  status: TypeStatus;
  records: number;
  skipped: number;
  inserted: number;
  updated: number;
  unchanged: number;
  deleted: number;
  requests: number;
  durationMs: number;
  error?: string;
  warnings: string[];
}

export type SyncEvent =
  | { type: "type-start"; source: SyncSource; contentType: string; index: number; total: number }
  | { type: "progress"; source: SyncSource; contentType: string; records: number; totalRecords: number | null; pages: number }
  | { type: "type-done"; result: TypeResult };

export interface SyncOptions {
  sources?: readonly SyncSource[];
  /** Content type ids ("spells", "2014/rules") or endpoint names ("rule-sections") to include. */
  types?: readonly string[];
  /** Only content types producing any of these kinds. */
  kinds?: readonly EntityKind[];
  force?: boolean;
  config?: Config;
  /** Injectable HTTP client (tests); by default one with the store's HTTP cache. */
  http?: HttpClient;
  onEvent?: (e: SyncEvent) => void;
  signal?: AbortSignal;
}

export interface SyncReport {
  results: TypeResult[];
  status: "ok" | "partial" | "failed";
  durationMs: number;
  requests: number;
  records: number;
}

export function allContentTypes(sources: readonly SyncSource[] = SYNC_SOURCES): ContentType[] {
  const out: ContentType[] = [];
  if (sources.includes("open5e_v2")) out.push(...OPEN5E_V2_TYPES);
  if (sources.includes("open5e_v1")) out.push(...OPEN5E_V1_TYPES);
  if (sources.includes("dnd5e_api")) out.push(...DND5EAPI_TYPES);
  return out;
}

/** The content types a sync run covers (unknown `types` names → an error listing valid ones). */
export function planSync(opts: Pick<SyncOptions, "sources" | "types" | "kinds">): ContentType[] {
  let types = opts.sources
    ? allContentTypes(opts.sources)
    : allContentTypes(DEFAULT_SOURCES).filter((t) => t.source !== "dnd5e_api" || DND5E_DEFAULT_ENDPOINTS.includes(t.endpoint));
  if (opts.types && opts.types.length) {
    const wanted = [...new Set(opts.types.map((t) => t.toLowerCase()))];
    const matches = (t: ContentType, w: string) => t.id.toLowerCase() === w || t.endpoint.toLowerCase() === w || t.kinds.includes(w as EntityKind);
    const unknown = wanted.filter((w) => !types.some((t) => matches(t, w)));
    if (unknown.length) {
      const valid = [...new Set(types.map((t) => t.endpoint))].sort().join(", ");
      throw new Error(`Unknown content type(s): ${unknown.join(", ")}. Valid: ${valid} (or kinds such as spell, creature).`);
    }
    types = types.filter((t) => wanted.some((w) => matches(t, w)));
  }
  if (opts.kinds && opts.kinds.length) {
    const ks = new Set(opts.kinds);
    types = types.filter((t) => t.kinds.some((k) => ks.has(k)));
  }
  return types;
}

export function originOf(t: ContentType): string {
  return `${t.source}:${t.id}`;
}

function emptyResult(t: ContentType, status: TypeStatus): TypeResult {
  return { source: t.source as SyncSource, contentType: t.id, status, records: 0, skipped: 0, inserted: 0, updated: 0, unchanged: 0, deleted: 0, requests: 0, durationMs: 0, warnings: [] };
}

function isFresh(store: Store, t: ContentType, ttlMs: number, now: number): boolean {
  const s = getSyncState(store.db, t.source, t.id);
  return !!s && (s.status === "ok" || s.status === "partial") && s.fetched_at !== null && now - s.fetched_at < ttlMs;
}

interface Clients {
  http: HttpClient;
  open5e: Open5eClient;
  dnd: Dnd5eApiClient;
}

interface FetchedRecords {
  records: unknown[];
  warnings: string[];
  skipped: number;
}

/**
 * One walk over an Open5e list. `changed` is set when the data moved under the walk: the envelope
 * count changed between pages, or a record came twice (pages shifted) — then a record may also
 * have been missed, and replacing the stored set with it would drop good records.
 */
async function walkOpen5e(c: Clients, version: "v1" | "v2", endpoint: string, opts: SyncOptions, force: boolean, pageSize: number, onProgress: (records: number, total: number | null, pages: number) => void): Promise<FetchedRecords & { changed?: string }> {
  const records: unknown[] = [];
  const warnings: string[] = [];
  const ids = new Set<string>();
  let changed: string | undefined;
  try {
    for await (const page of c.open5e.pages(version, endpoint, { force, signal: opts.signal, pageSize })) {
      if (page.count !== null && page.totalCount !== null && page.count !== page.totalCount) changed ??= `its record count changed from ${page.totalCount} to ${page.count} between pages`;
      for (const r of page.results) {
        const id = r && typeof r === "object" ? (r as Record<string, unknown>)[version === "v1" ? "slug" : "key"] : undefined;
        if (typeof id === "string") {
          if (ids.has(id)) changed ??= `record ${id} came twice (pages shifted)`;
          ids.add(id);
        }
        records.push(r);
      }
      warnings.push(...page.warnings);
      onProgress(page.recordsSoFar, page.totalCount, page.page);
    }
  } catch (err) {
    // After a change, a failing page (e.g. "Invalid page." past the new end) is part of that change.
    if (!changed || !(err instanceof UpstreamError)) throw err;
    changed += `, then ${err.message.split(". ")[0]}`;
  }
  return { records, warnings, skipped: 0, ...(changed ? { changed } : {}) };
}

/** Fetch one endpoint's records (and report progress). */
async function fetchRecords(c: Clients, t: ContentType, endpoint: string, opts: SyncOptions, pageSize: number, onProgress: (records: number, total: number | null, pages: number) => void): Promise<FetchedRecords> {
  if (t.source === "dnd5e_api") {
    const r = await c.dnd.fetchAll(t.year ?? "2014", endpoint, { force: opts.force, signal: opts.signal, onProgress: (done, total) => onProgress(done, total, 1) });
    return { records: r.records, warnings: [...r.warnings, ...r.skipped.map((s) => `skipped ${s.index}: ${s.message}`)], skipped: r.skipped.length };
  }
  const version = t.source === "open5e_v1" ? "v1" : "v2";
  const first = await walkOpen5e(c, version, endpoint, opts, opts.force ?? false, pageSize, onProgress);
  if (!first.changed) return first;
  // The list changed while it was read: read it again from the network (cached pages are stale).
  log.info(`${version}/${endpoint} changed upstream while it was being listed (${first.changed}); listing it again`);
  const second = await walkOpen5e(c, version, endpoint, opts, true, pageSize, onProgress);
  if (second.changed && /count changed/.test(second.changed)) {
    throw new UpstreamError(
      "pagination",
      c.open5e.listUrl(version, endpoint),
      `Open5e ${version}/${endpoint} kept changing while it was being listed (${second.changed}), so the list cannot be trusted to be complete; ` +
        "the previous data is kept. Run `lorekeeper sync` again in a while.",
    );
  }
  return second;
}

/** The records of a content type's related endpoints; the ones that failed are named in `missing`. */
async function fetchRelated(c: Clients, t: ContentType, opts: SyncOptions, pageSize: number): Promise<{ related: Record<string, unknown[]>; missing: string[] }> {
  const related: Record<string, unknown[]> = {};
  const missing: string[] = [];
  for (const ep of t.related ?? []) {
    try {
      related[ep] = (await fetchRecords(c, t, ep, opts, pageSize, () => {})).records;
    } catch (err) {
      if (!(err instanceof UpstreamError)) throw err;
      missing.push(`related ${ep} unavailable: ${err.message}`);
    }
  }
  return { related, missing };
}

/** Document metadata for a source (fetched once per run, cached over HTTP). */
async function loadDocuments(c: Clients, source: SyncSource, opts: SyncOptions, cfg: Config, v2docs: () => Promise<DocumentInfo[]>): Promise<DocumentInfo[]> {
  if (source === "open5e_v2") return v2docs();
  if (source === "dnd5e_api") return dnd5eApiDocuments(cfg.dnd5eApiBaseUrl);
  const v1 = await c.open5e.fetchAll("v1", "documents", { force: opts.force, signal: opts.signal, pageSize: cfg.open5ePageSize });
  let v2: DocumentInfo[] = [];
  try {
    v2 = await v2docs();
  } catch (err) {
    log.debug("v2 documents unavailable while syncing v1", err);
  }
  return normalizeOpen5eV1Documents(v1.records, v2);
}

/**
 * Sync the planned content types. Upstream failures fail their type (previous data kept); a failure
 * of the store itself (damaged, disk full, read-only, locked) stops the run with a StoreError.
 */
export async function runSync(store: Store, opts: SyncOptions = {}): Promise<SyncReport> {
  try {
    return await syncTypes(store, opts);
  } catch (err) {
    throw storeFailure(err, store.path) ?? err;
  }
}

async function syncTypes(store: Store, opts: SyncOptions): Promise<SyncReport> {
  const cfg = opts.config ?? loadConfig();
  const started = Date.now();
  const http = opts.http ?? HttpClient.fromConfig(cfg, { cache: createHttpCache(store.db, cfg) });
  const c: Clients = { http, open5e: new Open5eClient(http, { baseUrl: cfg.open5eBaseUrl }), dnd: new Dnd5eApiClient(http, { baseUrl: cfg.dnd5eApiBaseUrl }) };
  const plan = planSync(opts);
  const results: TypeResult[] = [];
  const finish = (r: TypeResult) => {
    results.push(r);
    opts.onEvent?.({ type: "type-done", result: r });
  };

  let v2docsPromise: Promise<DocumentInfo[]> | undefined;
  const v2docs = () =>
    (v2docsPromise ??= (async () => {
      const f = (ep: string) => c.open5e.fetchAll("v2", ep, { force: opts.force, signal: opts.signal, pageSize: cfg.open5ePageSize }).then((r) => r.records);
      const docs = await f("documents");
      const [licenses, publishers] = await Promise.all([f("licenses").catch(() => []), f("publishers").catch(() => [])]);
      return normalizeOpen5eDocuments(docs, licenses, publishers);
    })());
  const docsBySource = new Map<SyncSource, Promise<DocumentInfo[]>>();
  const dndAvailable = new Map<string, Promise<Set<string> | null>>();

  for (const [i, t] of plan.entries()) {
    const source = t.source as SyncSource;
    opts.onEvent?.({ type: "type-start", source, contentType: t.id, index: i, total: plan.length });
    const t0 = Date.now();
    const req0 = http.stats.requests;
    if (!opts.force && isFresh(store, t, cfg.cacheTtlMs, Date.now())) {
      const r = emptyResult(t, "fresh");
      r.records = getSyncState(store.db, t.source, t.id)?.record_count ?? 0;
      finish(r);
      continue;
    }
    const r = emptyResult(t, "ok");
    try {
      if (source === "dnd5e_api") {
        const year = t.year ?? "2014";
        if (!dndAvailable.has(year)) dndAvailable.set(year, c.dnd.availableEndpoints(year, { force: opts.force }).then((xs) => new Set(xs)).catch(() => null));
        const avail = await dndAvailable.get(year)!;
        if (avail && !avail.has(t.endpoint)) {
          r.warnings.push(`${year} has no ${t.endpoint} endpoint`);
          r.durationMs = Date.now() - t0;
          finish(r);
          continue;
        }
      }
      if (!docsBySource.has(source)) docsBySource.set(source, loadDocuments(c, source, opts, cfg, v2docs));
      const documents = await docsBySource.get(source)!;
      const main = await fetchRecords(c, t, t.endpoint, opts, cfg.open5ePageSize, (records, totalRecords, pages) =>
        opts.onEvent?.({ type: "progress", source, contentType: t.id, records, totalRecords, pages }),
      );
      const { related, missing } = await fetchRelated(c, t, opts, cfg.open5ePageSize);
      if (missing.length > 0) {
        // Records without their related parts are worse than the complete ones already stored.
        const stored = countOrigin(store.db, originOf(t));
        if (stored > 0) throw new Error(`${missing.join("; ")} — the previous (complete) data is kept`);
        r.warnings.push(...missing);
      }
      const baseUrl = source === "dnd5e_api" ? cfg.dnd5eApiBaseUrl : cfg.open5eBaseUrl;
      const ctx: NormalizeContext = { baseUrl, documents: documentMap(documents), related };
      const norm = t.normalize(main.records, ctx);
      for (const s of norm.skipped) log.warn(`${source} ${t.id}: skipped record ${s.key ?? "(no key)"}: ${s.reason}`);
      const rep = replaceOrigin(store.db, originOf(t), norm.entities, documents);
      Object.assign(r, rep);
      r.records = norm.entities.length;
      r.skipped = norm.skipped.length + main.skipped;
      r.warnings.push(...main.warnings);
      r.status = r.skipped > 0 || missing.length > 0 ? "partial" : "ok";
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
