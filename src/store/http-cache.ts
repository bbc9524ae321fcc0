/**
 * SQLite-backed HTTP response cache over the `http_cache` table; implements the sources' `HttpCache`.
 * Key = URL with query params sorted (`cacheKey`). The clock is injectable so tests never sleep.
 */
import type { Database } from "bun:sqlite";
import type { Config } from "../config.ts";
import { cacheKey, type HttpCache, type UpstreamErrorKind } from "../sources/http.ts";

interface Row {
  url: string;
  ok: number;
  status: number;
  body: string | null;
  error: string | null;
  fetched_at: number;
  expires_at: number;
}

const KINDS: readonly UpstreamErrorKind[] = ["network", "timeout", "http", "malformed", "recent-failure", "pagination"];

function decodeError(raw: string | null): { kind: UpstreamErrorKind | null; message: string | null } {
  if (raw === null) return { kind: null, message: null };
  try {
    const v = JSON.parse(raw) as { kind?: unknown; message?: unknown };
    const kind = KINDS.includes(v.kind as UpstreamErrorKind) ? (v.kind as UpstreamErrorKind) : null;
    return { kind, message: typeof v.message === "string" ? v.message : raw };
  } catch {
    return { kind: null, message: raw };
  }
}

/**
 * The cache over `db`, successes kept `config.cacheTtlMs` (default 7 days) and failures
 * `config.errorCacheTtlMs` (default 300 s); `now` is the clock.
 */
export function createHttpCache(
  db: Database,
  config: Pick<Config, "cacheTtlMs" | "errorCacheTtlMs">,
  now: () => number = Date.now,
): HttpCache {
  const write = (url: string, ok: boolean, status: number, body: string | null, error: string | null, ttl: number) => {
    if (ttl <= 0) return;
    const t = now();
    db.query(
      "INSERT OR REPLACE INTO http_cache (cache_key, url, ok, status, body, error, fetched_at, expires_at) " +
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    ).run(cacheKey(url), url, ok ? 1 : 0, status, body, error, t, t + ttl);
  };
  return {
    get(url) {
      const row = db
        .query<Row, [string, number]>(
          "SELECT url, ok, status, body, error, fetched_at, expires_at FROM http_cache WHERE cache_key = ? AND " +
            "expires_at > ?",
        )
        .get(cacheKey(url), now());
      if (!row) return undefined;
      const err = decodeError(row.error);
      return {
        url: row.url,
        ok: row.ok === 1,
        status: row.status,
        body: row.body,
        errorKind: err.kind,
        errorMessage: err.message,
        fetchedAt: row.fetched_at,
        expiresAt: row.expires_at,
      };
    },
    putSuccess: (url, status, body) => write(url, true, status, body, null, config.cacheTtlMs),
    putFailure(url, failure) {
      const error = JSON.stringify({ kind: failure.kind, message: failure.message });
      write(url, false, failure.status, null, error, config.errorCacheTtlMs);
    },
    delete(url) {
      db.query("DELETE FROM http_cache WHERE cache_key = ?").run(cacheKey(url));
    },
  };
}
