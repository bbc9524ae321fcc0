/** Per source and content type: when it was synced, how it went. */
import type { Database } from "bun:sqlite";

export interface SyncState {
  source: string;
  content_type: string;
  status: "ok" | "partial" | "failed" | "running";
  fetched_at: number | null;
  record_count: number;
  skipped_count: number;
  request_count: number;
  duration_ms: number;
  error: string | null;
}

export function getSyncState(db: Database, source: string, contentType: string): SyncState | undefined {
  return (
    db
      .query<SyncState, [string, string]>("SELECT * FROM sync_state WHERE source = ? AND content_type = ?")
      .get(source, contentType) ?? undefined
  );
}

export function listSyncState(db: Database): SyncState[] {
  return db.query<SyncState, []>("SELECT * FROM sync_state ORDER BY source, content_type").all();
}

export function putSyncState(db: Database, s: SyncState): void {
  db.query(
    `INSERT INTO sync_state (source, content_type, status, fetched_at, record_count, skipped_count, request_count, ` +
      `duration_ms, error)
     VALUES (?,?,?,?,?,?,?,?,?)
     ON CONFLICT(source, content_type) DO UPDATE SET status=excluded.status, ` +
      `fetched_at=COALESCE(excluded.fetched_at, sync_state.fetched_at),
       record_count=excluded.record_count, skipped_count=excluded.skipped_count, request_count=excluded.request_count,
       duration_ms=excluded.duration_ms, error=excluded.error`,
  ).run(
    s.source,
    s.content_type,
    s.status,
    s.fetched_at,
    s.record_count,
    s.skipped_count,
    s.request_count,
    s.duration_ms,
    s.error,
  );
}

/** The newest successful sync time across everything (for response metadata). */
export function lastSyncedAt(db: Database): number | null {
  const row = db
    .query<{ t: number | null }, []>("SELECT MAX(fetched_at) AS t FROM sync_state WHERE status IN ('ok','partial')")
    .get();
  return row?.t ?? null;
}
