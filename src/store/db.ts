/**
 * Opening the store: bun:sqlite in WAL mode, foreign keys on, a busy timeout so a second process
 * waits instead of failing, and migrations. Errors become StoreError with an actionable message.
 */
import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { dbPath } from "../config.ts";
import { log } from "../log.ts";
import { MIGRATIONS, SCHEMA_VERSION } from "./schema.ts";

export class StoreError extends Error {
  constructor(
    message: string,
    readonly hint: string,
    override readonly cause?: unknown,
  ) {
    super(message);
    this.name = "StoreError";
  }
}

export interface Store {
  db: Database;
  path: string;
  readonly: boolean;
  close(): void;
}

export interface OpenOptions {
  path?: string;
  readonly?: boolean;
  /** Milliseconds to wait on a locked database before failing (default 15000). */
  busyTimeoutMs?: number;
}

export function openStore(opts: OpenOptions = {}): Store {
  const path = opts.path === ":memory:" ? ":memory:" : dbPath(opts.path);
  const readonly = opts.readonly ?? false;
  let db: Database;
  try {
    if (path !== ":memory:" && !readonly) mkdirSync(dirname(path), { recursive: true });
    db = readonly ? new Database(path, { readonly: true }) : new Database(path, { create: true, readwrite: true });
  } catch (err) {
    throw new StoreError(
      `Cannot open the LoreKeeper database at ${path}: ${(err as Error).message}`,
      "Check that the directory exists and is writable, or point --db-path / LOREKEEPER_DB_PATH elsewhere.",
      err,
    );
  }
  try {
    db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(opts.busyTimeoutMs ?? 15000))}`);
    if (!readonly) {
      db.exec("PRAGMA journal_mode = WAL");
      db.exec("PRAGMA synchronous = NORMAL");
    }
    db.exec("PRAGMA foreign_keys = ON");
    if (!readonly) migrate(db);
    else checkVersion(db);
  } catch (err) {
    db.close();
    if (err instanceof StoreError) throw err;
    const msg = (err as Error).message ?? String(err);
    const corrupt = /malformed|not a database|corrupt/i.test(msg);
    throw new StoreError(
      corrupt ? `The LoreKeeper database at ${path} is damaged (${msg}).` : `Cannot use the LoreKeeper database at ${path}: ${msg}`,
      corrupt
        ? `Move it aside and rebuild it: mv "${path}" "${path}.damaged" && lorekeeper sync`
        : "Another LoreKeeper process may hold it locked; retry, or check permissions.",
      err,
    );
  }
  return {
    db,
    path,
    readonly,
    close: () => {
      try {
        db.close();
      } catch (err) {
        log.debug("closing store failed", err);
      }
    },
  };
}

function currentVersion(db: Database): number {
  const hasMeta = db.query("SELECT 1 FROM sqlite_master WHERE type='table' AND name='meta'").get();
  if (!hasMeta) return 0;
  const row = db.query<{ value: string }, []>("SELECT value FROM meta WHERE key='schema_version'").get();
  return row ? Number(row.value) : 0;
}

function checkVersion(db: Database): void {
  const v = currentVersion(db);
  if (v > SCHEMA_VERSION) {
    throw new StoreError(
      `This database was written by a newer LoreKeeper (schema ${v}, this build knows ${SCHEMA_VERSION}).`,
      "Upgrade LoreKeeper, or use a different --db-path.",
    );
  }
}

function migrate(db: Database): void {
  checkVersion(db);
  const from = currentVersion(db);
  for (const m of MIGRATIONS) {
    if (m.version <= from) continue;
    db.transaction(() => {
      db.exec(m.sql);
      db.query("INSERT INTO meta(key, value) VALUES ('schema_version', ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value").run(
        String(m.version),
      );
    }).immediate();
    log.debug(`store migrated to schema ${m.version}: ${m.description}`);
  }
}

export function getMeta(db: Database, key: string): string | undefined {
  const row = db.query<{ value: string }, [string]>("SELECT value FROM meta WHERE key = ?").get(key);
  return row?.value;
}

export function setMeta(db: Database, key: string, value: string): void {
  db.query("INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value=excluded.value").run(key, value);
}
