/**
 * Who is embedding this store: a lease in `meta` (key `embed_lease`), so two processes never
 * embed the same rows (a `sync` embedding for most of an hour and a `serve` started meanwhile).
 * The holder renews it after every batch; a lease whose holder stopped renewing (killed, crashed)
 * or whose process is gone (same host) is free. Taken and renewed inside an immediate transaction.
 */
import type { Database } from "bun:sqlite";
import { hostname } from "node:os";
import { getMetaJson, setMeta } from "./schema.ts";

const KEY = "embed_lease";
/** A lease not renewed for this long is free (batches take seconds; a holder renews after each). */
export const LEASE_STALE_MS = 120_000;

export interface EmbedLease {
  pid: number;
  host: string;
  /** what holds it ("sync", "serve", "import", …) */
  holder: string;
  started_at: number;
  renewed_at: number;
}

function read(db: Database): EmbedLease | undefined {
  const v = getMetaJson(db, KEY) as Partial<EmbedLease> | undefined;
  return typeof v?.pid === "number" && typeof v.renewed_at === "number" ? (v as EmbedLease) : undefined;
}

/** Whether process `pid` runs (EPERM: it exists, owned by someone else). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

const mine = (l: EmbedLease) => l.pid === process.pid && l.host === hostname();

/** The lease another live process holds on `db`, if any. */
export function otherEmbedder(db: Database, now = Date.now()): EmbedLease | undefined {
  const l = read(db);
  if (!l || mine(l)) return undefined;
  if (now - l.renewed_at > LEASE_STALE_MS) return undefined;
  if (l.host === hostname() && !alive(l.pid)) return undefined;
  return l;
}

/** The lease for this process, held by `holder`, renewed now (since when it was this process's). */
function take(db: Database, holder: string): void {
  const now = Date.now();
  const cur = read(db);
  const started_at = cur && mine(cur) ? cur.started_at : now;
  setMeta(db, KEY, JSON.stringify({ pid: process.pid, host: hostname(), holder, started_at, renewed_at: now }));
}

/** Take the lease for this process; the other holder when it is taken. */
export function acquireEmbedLease(db: Database, holder: string): { ok: true } | { ok: false; by: EmbedLease } {
  return db
    .transaction((): { ok: true } | { ok: false; by: EmbedLease } => {
      const other = otherEmbedder(db);
      if (other) return { ok: false, by: other };
      take(db, holder);
      return { ok: true };
    })
    .immediate();
}

/** Renew this process's lease; false when another process holds it now (this one was too slow: stop). */
export function renewEmbedLease(db: Database): boolean {
  return db
    .transaction(() => {
      const cur = read(db);
      if ((!cur || !mine(cur)) && otherEmbedder(db)) return false;
      take(db, cur?.holder ?? "embed");
      return true;
    })
    .immediate();
}

/** Give the lease up (only this process's own). */
export function releaseEmbedLease(db: Database): void {
  db.transaction(() => {
    const cur = read(db);
    if (cur && mine(cur)) db.query("DELETE FROM meta WHERE key = ?").run(KEY);
  }).immediate();
}

/** "pid 1234 (sync)", "pid 1234 on host h (serve)": who holds a lease, for messages. */
export function describeLease(l: EmbedLease): string {
  return `pid ${l.pid}${l.host === hostname() ? "" : ` on ${l.host}`} (lorekeeper ${l.holder})`;
}
