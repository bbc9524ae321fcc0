/**
 * SQLite-backed HTTP response cache over the `http_cache` table; implements the sources' `HttpCache`.
 * Key = URL with query params sorted (`cacheKey`). The clock is injectable so tests never sleep.
 */
import type { Database } from "bun:sqlite";
import type { Config } from "../config.ts";
import { cacheKey, type HttpCache, type HttpCacheEntry, type UpstreamErrorKind } from "../sources/http.ts";

/** A stored row: the entry with `ok` as 0/1 and the failure as the JSON `putFailure` wrote. */
type Row = Omit<HttpCacheEntry, "ok" | "errorKind" | "errorMessage"> & { ok: number; error: string | null };

const KINDS: readonly UpstreamErrorKind[] = ["network", "timeout", "http", "malformed", "recent-failure", "pagination"];

function decodeError(raw: string | null): Pick<HttpCacheEntry, "errorKind" | "errorMessage"> {
  if (raw === null) return { errorKind: null, errorMessage: null };
  try {
    const v = JSON.parse(raw) as { kind?: unknown; message?: unknown };
    const kind = KINDS.includes(v.kind as UpstreamErrorKind) ? (v.kind as UpstreamErrorKind) : null;
    return { errorKind: kind, errorMessage: typeof v.message === "string" ? v.message : raw };
  } catch {
    return { errorKind: null, errorMessage: raw };
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
          "SELECT url, ok, status, body, error, fetched_at AS fetchedAt, expires_at AS expiresAt FROM http_cache " +
            "WHERE cache_key = ? AND expires_at > ?",
        )
        .get(cacheKey(url), now());
      if (!row) return undefined;
      const { ok, error, ...entry } = row;
      return { ...entry, ok: ok === 1, ...decodeError(error) };
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
