/**
 * Values derived from the store (counts, document lists, candidate sets...) remembered per
 * connection until the database changes: any change drops everything remembered for it.
 */
import type { Database } from "bun:sqlite";

/**
 * A cheap token that changes whenever this database changes: `data_version` moves on commits by
 * other connections, `total_changes()` on rows changed by this one.
 */
export function changeToken(db: Database): string {
  // Two prepared statements: the pragma as a table-valued function (one statement for both) is
  // cheaper to write but prepares the pragma again on each read (a share of a name lookup's CPU).
  const v = db.query<{ data_version: number }, []>("PRAGMA data_version").get();
  const n = db.query<{ n: number }, []>("SELECT total_changes() AS n").get();
  return `${v?.data_version ?? 0}:${n?.n ?? 0}`;
}

interface Memo {
  token: string;
  values: Map<string, unknown>;
}

const memos = new WeakMap<Database, Memo>();

/** Memos pinned by `pinVersion` while its synchronous computation runs. */
const pinned = new WeakMap<Database, Memo>();

/** The memo of `db` for its current contents (a fresh one when the database changed). */
function memoFor(db: Database): Memo {
  const pin = pinned.get(db);
  if (pin) return pin;
  const token = changeToken(db);
  let m = memos.get(db);
  if (!m || m.token !== token) {
    m = { token, values: new Map() };
    memos.set(db, m);
  }
  return m;
}

/** What is remembered for one version of a database (see versionMemo). */
export class VersionMemo {
  constructor(private readonly m: Memo) {}

  /** `compute()` once per version; later calls with `key` return the same (shared) value. */
  get<T>(key: string, compute: () => T): T {
    return this.m.values.getOrInsertComputed(key, compute) as T;
  }

  /** The value `get` has computed for `key` in this version, if it has (nothing is computed). */
  peek<T>(key: string): T | undefined {
    return this.m.values.get(key) as T | undefined;
  }

  /** Like get, for many keys of one family: at most `max` kept, least recently used dropped first. */
  lru<T>(family: string, key: string, max: number, compute: () => T): T {
    const lru = this.get(family, () => new Map<string, T>());
    if (lru.has(key)) {
      const v = lru.get(key) as T;
      lru.delete(key);
      lru.set(key, v);
      return v;
    }
    const v = compute();
    lru.set(key, v);
    // A Map keeps insertion order: the first key is the least recently used.
    for (const oldest of lru.keys()) {
      if (lru.size <= max) break;
      lru.delete(oldest);
    }
    return v;
  }
}

/**
 * The memo of `db` as it is now (the change token is read once, here). Use it within one
 * synchronous computation: it does not look at the store again, so a write made after this call
 * is seen only by the next versionMemo.
 */
export function versionMemo(db: Database): VersionMemo {
  return new VersionMemo(memoFor(db));
}

/**
 * Run `fn` (synchronous, and writing nothing to `db`) with the store's version read once, in one
 * transaction: every cache lookup inside it uses that version's memo instead of reading the
 * change token again (a structured search looks up three to five cached values), and every
 * statement reads the version the token names. Nested calls keep the outer pin.
 */
export function pinVersion<T>(db: Database, fn: () => T): T {
  if (pinned.has(db)) return fn();
  return inOneTransaction(db, () => {
    pinned.set(db, memoFor(db));
    try {
      return fn();
    } finally {
      pinned.delete(db);
    }
  });
}

const transactions = new WeakMap<Database, (fn: () => unknown) => unknown>();

/**
 * `fn` in one (read) transaction, a savepoint inside another: its statements share one snapshot
 * and one take of the store's lock, where each statement outside a transaction begins and ends
 * its own (in WAL mode, a lock of the shared-memory index each time).
 */
function inOneTransaction<T>(db: Database, fn: () => T): T {
  return transactions.getOrInsertComputed(db, () => db.transaction((f: () => unknown) => f()))(fn) as T;
}
