/**
 * Opening the store: bun:sqlite in WAL mode, foreign keys on, a busy timeout so a second process
 * waits instead of failing, and migrations. Errors become StoreError with an actionable message.
 */
import { LoreKeeperError } from "../errors.ts";
import { constants, Database } from "bun:sqlite";
import { existsSync, mkdirSync, statfsSync, statSync } from "node:fs";
import { dirname } from "node:path";
import { dbPath } from "../config.ts";
import { log } from "../log.ts";
import {
  addFilterColumns,
  backfillDerived,
  lateIndexChanges,
  missingFilterColumns,
  recordRevisions,
  staleDerivedColumns,
  straightenTraitNames,
} from "./filter-columns.ts";
import { DERIVED_COLUMNS } from "../entities/filters.ts";
import { refreshGroupRanks } from "./canonical.ts";
import { refreshTraits } from "./entities.ts";
import { MIGRATIONS, SCHEMA_VERSION, setMeta, tableColumns } from "./schema.ts";

export class StoreError extends LoreKeeperError {
  declare readonly hint: string;
  constructor(message: string, hint: string, cause?: unknown) {
    super("store", message, hint, cause === undefined ? undefined : { cause });
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
  /**
   * When the store cannot be opened for writing (read-only folder or file), open it read-only
   * instead of failing (`serve`, `search`, `documents`: answering from the store needs no writes).
   */
  fallbackReadonly?: boolean;
}

/** The SQLite result code of an error thrown by bun:sqlite ("SQLITE_FULL", …), if it is one. */
export function sqliteCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && code.startsWith("SQLITE_") ? code : undefined;
}

/** The command that moves a damaged store aside and starts over. */
export function rebuildHint(path: string): string {
  return (
    `Run \`lorekeeper doctor --repair --db-path "${path}"\` (it moves the damaged files aside), ` +
    "then `lorekeeper sync` and re-import your homebrew (.orcbrew, 5etools .json) files. " +
    `By hand: move "${path}" and its -wal and -shm files elsewhere, then run \`lorekeeper sync\`.`
  );
}

/**
 * A SQLite failure that is about the store itself (damaged, disk full, read-only, I/O, busy) as a
 * StoreError naming the file and the way out; undefined for anything else (bugs, bad SQL).
 */
export function storeFailure(err: unknown, path: string): StoreError | undefined {
  if (err instanceof StoreError) return err;
  const code = sqliteCode(err);
  if (!code) return undefined;
  const msg = (err as Error).message;
  if (/^SQLITE_(CORRUPT|NOTADB)/.test(code)) {
    return new StoreError(`The LoreKeeper database at ${path} is damaged (${msg}).`, rebuildHint(path), err);
  }
  if (fullDisk(code, path)) {
    return new StoreError(
      `The disk holding the LoreKeeper database at ${path} is full (${msg}); nothing was changed.`,
      "Free some disk space and run the command again (the data stored before is intact), " +
        "or move the store elsewhere with --db-path / LOREKEEPER_DB_PATH.",
      err,
    );
  }
  if (/^SQLITE_(READONLY|CANTOPEN|PERM|AUTH)/.test(code)) {
    return new StoreError(
      `The LoreKeeper database at ${path} cannot be written (${msg}).`,
      "Make the file and its folder writable by this user, or point --db-path / LOREKEEPER_DB_PATH at a writable " +
        "place. `lorekeeper serve` still answers from a read-only store.",
      err,
    );
  }
  if (/^SQLITE_(BUSY|LOCKED)/.test(code)) {
    return new StoreError(
      `The LoreKeeper database at ${path} stayed locked by another process (${msg}).`,
      "Another `lorekeeper sync` or `lorekeeper import` is probably writing to it: wait for it to finish, then run " +
        "the command again.",
      err,
    );
  }
  if (code.startsWith("SQLITE_IOERR")) {
    return new StoreError(
      `Reading or writing the LoreKeeper database at ${path} failed (${msg}).`,
      `Check the disk (space, errors, a removed drive), then run \`lorekeeper doctor --db-path "${path}"\`.`,
      err,
    );
  }
  return undefined;
}

/**
 * Whether a SQLite result code says the disk is full: a disk full before SQLite even starts shows as
 * an I/O error (creating the -shm file).
 */
function fullDisk(code: string, path: string): boolean {
  return code.startsWith("SQLITE_FULL") || (code.startsWith("SQLITE_IOERR") && diskNearlyFull(path));
}

function diskNearlyFull(path: string): boolean {
  try {
    const fs = statfsSync(dirname(path));
    return Number(fs.bavail) * Number(fs.bsize) < 1024 * 1024;
  } catch {
    return false;
  }
}

/** `file:` URI for SQLite (percent-encoding what URIs reserve). */
function sqliteUri(path: string, query: string): string {
  return `file:${path.replace(/[%?#]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}?${query}`;
}

/**
 * A read-only connection. In a read-only folder SQLite cannot create the `-shm` file a WAL database
 * needs (SQLITE_CANTOPEN, or SQLITE_READONLY_DIRECTORY when the folder belongs to another user),
 * so the file is then opened as immutable (what is on disk now; it cannot change underneath).
 */
function openReadonly(path: string): Database {
  let first: Database | undefined;
  try {
    first = new Database(path, { readonly: true });
    first.query("SELECT count(*) FROM sqlite_master").get();
    return first;
  } catch (err) {
    first?.close();
    // CANTOPEN, or READONLY_DIRECTORY / READONLY_CANTINIT...: the -shm file cannot be made here;
    // on a full disk it cannot be grown (IOERR_SHMSIZE). Either way, what is on disk can be read.
    const code = sqliteCode(err) ?? "";
    const full = fullDisk(code, path);
    if ((!/^SQLITE_(CANTOPEN|READONLY)/.test(code) && !full) || !existsSync(path)) throw err;
    const db = new Database(sqliteUri(path, "immutable=1"), constants.SQLITE_OPEN_READONLY | constants.SQLITE_OPEN_URI);
    const why = full ? `the disk holding ${path} is full` : `the folder of ${path} is read-only`;
    log.warn(`${why}: serving the store as it is on disk`);
    return db;
  }
}

export function openStore(opts: OpenOptions = {}): Store {
  const path = opts.path === ":memory:" ? ":memory:" : dbPath(opts.path);
  const readonly = opts.readonly ?? false;
  try {
    return openAt(path, readonly, opts.busyTimeoutMs);
  } catch (err) {
    if (readonly || !opts.fallbackReadonly || path === ":memory:" || !existsSync(path)) throw err;
    const cause = err instanceof StoreError ? err.cause : err;
    const code = sqliteCode(cause) ?? (cause as NodeJS.ErrnoException | undefined)?.code ?? "";
    // A full disk is read like a read-only mount: answering needs no writes.
    const readOnly = /^(SQLITE_READONLY|SQLITE_CANTOPEN|SQLITE_PERM|EACCES|EROFS|EPERM|ENOSPC)/.test(code);
    if (!readOnly && !fullDisk(code, path)) throw err;
    const store = openAt(path, true, opts.busyTimeoutMs);
    const why = fullDisk(code, path) || code === "ENOSPC" ? "its disk is full" : (cause as Error).message;
    const at = `the LoreKeeper database at ${path}`;
    log.warn(`${at} cannot be written (${why}); using it read-only: no downloads or imports`);
    return store;
  }
}

/**
 * File systems the kernel makes up (their files hold no data of anyone's): proc, sysfs, debugfs,
 * tracefs, cgroup2, securityfs.
 */
const VIRTUAL_FS = new Set([0x9fa0, 0x62656572, 0x64626720, 0x74726163, 0x63677270, 0x73636673]);

/** Why `path` can never hold a database (a /proc file, a directory, a device), or undefined. */
function notADatabasePlace(path: string): string | undefined {
  try {
    const st = existsSync(path) ? statSync(path) : undefined;
    if (st?.isDirectory()) return "it is a directory";
    if (st && !st.isFile()) return "it is a device, a pipe or a socket, not a file";
    if (VIRTUAL_FS.has(Number(statfsSync(st ? path : dirname(path)).type)))
      return "it is on a file system the kernel makes up (such as /proc or /sys), which holds no database";
  } catch {
    // opening it says what is wrong
  }
  return undefined;
}

function openAt(path: string, readonly: boolean, busyTimeoutMs: number | undefined): Store {
  let db: Database;
  const misplaced = path === ":memory:" ? undefined : notADatabasePlace(path);
  if (misplaced) {
    throw new StoreError(
      `${path} cannot hold the LoreKeeper database: ${misplaced}.`,
      "Point --db-path / LOREKEEPER_DB_PATH at a file in an ordinary folder " +
        "(the default is $XDG_DATA_HOME/lorekeeper/lorekeeper.db).",
    );
  }
  try {
    if (path !== ":memory:" && !readonly) mkdirSync(dirname(path), { recursive: true });
    db = readonly ? openReadonly(path) : new Database(path, { create: true, readwrite: true });
  } catch (err) {
    const mapped = storeFailure(err, path);
    if (mapped && !sqliteCode(err)?.startsWith("SQLITE_CANTOPEN")) throw mapped;
    throw new StoreError(
      `Cannot open the LoreKeeper database at ${path}: ${(err as Error).message}`,
      "Check that the directory exists and is writable, or point --db-path / LOREKEEPER_DB_PATH elsewhere.",
      err,
    );
  }
  if (Database.MAX_QUERY_CACHE_SIZE < STATEMENT_CACHE_SIZE) Database.MAX_QUERY_CACHE_SIZE = STATEMENT_CACHE_SIZE;
  try {
    db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs ?? 15000))}`);
    // Pages are allocated as they are first read, so this is a ceiling, not a cost.
    db.exec(`PRAGMA cache_size = -${PAGE_CACHE_KIB}`);
    db.exec("PRAGMA temp_store = MEMORY");
    if (!readonly) {
      db.exec("PRAGMA journal_mode = WAL");
      db.exec("PRAGMA synchronous = NORMAL");
      // After a big sync the WAL file would keep its peak size while a server holds the store open.
      db.exec(`PRAGMA journal_size_limit = ${WAL_SIZE_LIMIT}`);
    }
    db.exec("PRAGMA foreign_keys = ON");
    if (!readonly) migrate(db);
    else checkVersion(db);
  } catch (err) {
    db.close();
    if (err instanceof StoreError) throw err;
    const mapped = storeFailure(err, path);
    if (mapped) throw mapped;
    throw new StoreError(
      `Cannot use the LoreKeeper database at ${path}: ${(err as Error).message ?? String(err)}`,
      "Run `lorekeeper doctor` to see what is wrong.",
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

/**
 * SQLite page cache per connection, KiB (default 2 MB): what a call reads stays in the process
 * instead of being read again with pread; larger raised a session's peak RSS for no CPU gain
 * (docs/benchmark.md, "SQLite sizing"). Not mmap: a store truncated or damaged under a running
 * server must give an error, not SIGBUS.
 */
const PAGE_CACHE_KIB = 4 * 1024;

/**
 * Prepared statements bun:sqlite keeps per connection (its default, 20, made a mix of calls
 * prepare most statements again each time); 256 holds every shape a session uses.
 */
const STATEMENT_CACHE_SIZE = 256;

/** Bytes the WAL file is cut back to when it restarts (SQLite `journal_size_limit`). */
export const WAL_SIZE_LIMIT = 4 * 1024 * 1024;

/**
 * Move what the WAL holds into the database file (after a sync or import). TRUNCATE (commands)
 * also empties the WAL file, waiting up to the busy timeout for another writer; PASSIVE (the
 * server) never waits. Best effort: what cannot be done now is done by a later checkpoint.
 */
export function checkpoint(store: Store, mode: "TRUNCATE" | "PASSIVE" = "TRUNCATE"): void {
  if (store.readonly || store.path === ":memory:") return;
  try {
    store.db.query(`PRAGMA wal_checkpoint(${mode})`).get();
  } catch (err) {
    log.debug("WAL checkpoint failed", err);
  }
}

/** The schema version `meta` records: a whole number ≥ 1, else undefined (missing, "-1", "abc"). */
function recordedVersion(db: Database): { raw: string | undefined; version: number | undefined } {
  const row = db.query<{ value: unknown }, []>("SELECT value FROM meta WHERE key='schema_version'").get();
  const raw = row ? String(row.value) : undefined;
  const n = raw !== undefined && /^\d+$/.test(raw.trim()) ? Number(raw) : NaN;
  return { raw, version: Number.isSafeInteger(n) && n >= 1 ? n : undefined };
}

function hasTable(db: Database, name: string): boolean {
  return !!db.query("SELECT 1 FROM sqlite_master WHERE name = ?").get(name);
}

const indexes = new WeakMap<Database, Map<string, boolean>>();

/**
 * Whether the store has the index `name`, remembered per connection: what a migration created is
 * there for good (an older store opened read-only lacks the later ones; readers fall back).
 */
export function hasIndex(db: Database, name: string): boolean {
  return indexes
    .getOrInsertComputed(db, () => new Map())
    .getOrInsertComputed(
      name,
      () => db.query("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?").get(name) !== null,
    );
}

/** True when every table, index, trigger and column migration `sql` creates is there. */
function migrationPresent(db: Database, sql: string): boolean {
  for (const m of sql.matchAll(
    /CREATE\s+(?:VIRTUAL\s+)?(?:TABLE|INDEX|TRIGGER|VIEW)\s+(?:IF\s+NOT\s+EXISTS\s+)?(\w+)/gi,
  )) {
    if (!hasTable(db, m[1]!)) return false;
  }
  for (const m of sql.matchAll(/ALTER\s+TABLE\s+(\w+)\s+ADD\s+COLUMN\s+(\w+)/gi)) {
    if (!db.query("SELECT 1 FROM pragma_table_info(?) WHERE name = ?").get(m[1]!, m[2]!)) return false;
  }
  return true;
}

/** The schema version the tables themselves show: the last migration of an unbroken run whose objects all exist. */
export function inferSchemaVersion(db: Database): number {
  let v = 0;
  for (const m of MIGRATIONS) {
    if (!migrationPresent(db, m.sql)) break;
    v = m.version;
  }
  return v;
}

/**
 * What is wrong with the recorded schema version, if anything: missing or not a version while the
 * tables are LoreKeeper's (a hand edit, a tool that "cleaned" meta). The tables tell the version.
 */
export function schemaVersionProblem(db: Database): { problem: string; inferred: number } | undefined {
  if (!hasTable(db, "meta") || !hasTable(db, "entities")) return undefined;
  const { raw, version } = recordedVersion(db);
  if (version !== undefined) return undefined;
  const inferred = inferSchemaVersion(db);
  const said = raw === undefined ? "is missing" : `is ${JSON.stringify(raw.slice(0, 40))}, not a version`;
  return {
    problem: `the store's schema version (meta.schema_version) ${said}; its tables are those of schema ${inferred}`,
    inferred,
  };
}

/** The schema version of the store; a database holding other tables than a store's is refused. */
function currentVersion(db: Database): number {
  if (!hasTable(db, "entities") || !hasTable(db, "meta")) {
    const foreign = db
      .query<{ name: string }, []>(
        "SELECT name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' AND name <> 'meta' ORDER BY name LIMIT 6",
      )
      .all()
      .map((r) => r.name);
    if (foreign.length > 0)
      throw new StoreError(
        `This database is not a LoreKeeper store: it holds other tables (${foreign.slice(0, 5).join(", ")}` +
          `${foreign.length > 5 ? ", …" : ""}), so LoreKeeper leaves it untouched.`,
        "Point --db-path / LOREKEEPER_DB_PATH at a new file (or an existing LoreKeeper store), not at another " +
          "application's database.",
      );
  }
  if (!hasTable(db, "meta")) return 0;
  return recordedVersion(db).version ?? (hasTable(db, "entities") ? inferSchemaVersion(db) : 0);
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

/**
 * Pending migrations, then the filter table's columns this store lacks and the indexes of its later
 * columns (src/store/filter-columns.ts), in one IMMEDIATE transaction: the derived columns a store did
 * not have are back-filled from its rows inside it, so a crash leaves the store as it was. Nothing to do
 * → no write lock is taken.
 */
function migrate(db: Database): void {
  checkVersion(db);
  const bad = schemaVersionProblem(db);
  if (bad) {
    // The tables say which migrations ran: record that again rather than re-running them.
    setMeta(db, "schema_version", String(bad.inferred));
    log.warn(`${bad.problem}: recorded ${bad.inferred} again`);
    // A migration that creates nothing (12) leaves no trace the tables could show: redo its mend,
    // which changes nothing where it was done.
    straightenTraitNames(db);
  }
  const current =
    currentVersion(db) >= SCHEMA_VERSION && missingFilterColumns(db).length === 0 && lateIndexChanges(db).length === 0;
  if (current && staleDerivedColumns(db).length === 0) return;
  db.transaction(() => {
    const from = currentVersion(db); // again under the lock: another process may have migrated meanwhile
    const had = from > 0 ? tableColumns(db, "entities") : undefined;
    for (const m of MIGRATIONS) {
      if (m.version <= from) continue;
      db.exec(m.sql);
      setMeta(db, "schema_version", String(m.version));
      log.debug(`store migrated to schema ${m.version}: ${m.description}`);
    }
    const added = addFilterColumns(db);
    if (added.length) log.debug(`store: filter columns added: ${added.join(", ")}`);
    // Columns this store lacked, and those derived by an older revision than this build's (read
    // again from the stat blocks).
    const stale = new Set(staleDerivedColumns(db));
    if (had)
      backfillDerived(
        db,
        DERIVED_COLUMNS.filter((c) => !had.has(c) || stale.has(c)),
        !had.has("dup_of"),
      );
    recordRevisions(db);
    // Canonical-ness (migration 5) and the document ranks (migration 7) are computed for the rows
    // already stored, by the stored preference (after the back-fill above, as when each migration
    // filled its own rows).
    if (had && from < 8) refreshGroupRanks(db);
    // Trait names with straight apostrophes (migration 12), then the trait reference rows
    // (migration 9; again for 12, whose names group ‘ with ’ and ') from the creatures stored.
    if (had && from < 12) {
      straightenTraitNames(db);
      refreshTraits(db);
    }
    // Last: the rows above are written before these indexes exist (one sort, not an update per row).
    const indexed = lateIndexChanges(db);
    for (const i of indexed) db.exec(i.sql);
    const names = indexed.map((i) => i.name).join(", ");
    if (indexed.length) log.debug(`store: indexes of the later filter columns made: ${names}`);
  }).immediate();
}
