/**
 * Values derived from the store (counts, document lists, candidate sets...) remembered per
 * connection until the database changes. The change token is cheap (two tiny statements):
 * `PRAGMA data_version` moves when another connection commits, `total_changes()` when this one
 * writes. Any change drops everything remembered for that connection.
 */
import type { Database } from "bun:sqlite";

/**
 * A cheap token that changes whenever this database changes: `data_version` moves on commits by
 * other connections, `total_changes()` on rows changed by this one.
 */
export function changeToken(db: Database): string {
  const v = db.query<{ data_version: number }, []>("PRAGMA data_version").get();
  const c = db.query<{ n: number }, []>("SELECT total_changes() AS n").get();
  return `${v?.data_version ?? 0}:${c?.n ?? 0}`;
}

interface Memo {
  token: string;
  values: Map<string, unknown>;
}

const memos = new WeakMap<Database, Memo>();

/** The memo of `db` for its current contents (a fresh one when the database changed). */
function memoFor(db: Database): Memo {
  const token = changeToken(db);
  let m = memos.get(db);
  if (!m || m.token !== token) {
    m = { token, values: new Map() };
    memos.set(db, m);
  }
  return m;
}

/**
 * `compute()` once per database version: later calls with the same `key` return the same value
 * until the database changes. The value is shared by every caller (a mutable value, e.g. a Set
 * filled as facts are learnt, lives exactly as long as that version).
 */
export function memoByVersion<T>(db: Database, key: string, compute: () => T): T {
  const m = memoFor(db);
  if (m.values.has(key)) return m.values.get(key) as T;
  const v = compute();
  m.values.set(key, v);
  return v;
}

/**
 * Like memoByVersion, for many keys of one family (e.g. one entry per filter combination): at most
 * `max` entries of the family are kept, least recently used dropped first.
 */
export function memoLru<T>(db: Database, family: string, key: string, max: number, compute: () => T): T {
  const m = memoFor(db);
  let lru = m.values.get(family) as Map<string, T> | undefined;
  if (!lru) m.values.set(family, (lru = new Map()));
  if (lru.has(key)) {
    const v = lru.get(key) as T;
    lru.delete(key);
    lru.set(key, v);
    return v;
  }
  const v = compute();
  lru.set(key, v);
  while (lru.size > max) {
    const oldest = lru.keys().next().value;
    if (oldest === undefined) break;
    lru.delete(oldest);
  }
  return v;
}
