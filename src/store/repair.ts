/**
 * Checking and repairing the store (`lorekeeper doctor`, `lorekeeper doctor --repair`):
 * SQLite's own integrity checks, the full-text tables against the entities they index, rebuilding
 * those tables, and moving a damaged database aside so that a sync can start over.
 */
import { Database } from "bun:sqlite";
import { existsSync, renameSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { HOMEBREW_SQL } from "../entities/types.ts";
import { sqliteCode } from "./db.ts";

/** The full-text tables built from `entities` (external content: rebuildable at any time). */
const FTS_TABLES = ["entities_fts", "names_fts"] as const;

function messages(rows: unknown[]): string[] {
  return rows.map((r) => String(Object.values(r as Record<string, unknown>)[0])).filter((m) => m !== "ok");
}

/**
 * Read-only checks: SQLite's quick_check (or the slower integrity_check with `full`), then each
 * full-text table holds one row per entity. Returns the problems found (empty = healthy). A store
 * too damaged to read throws (SQLITE_CORRUPT / SQLITE_NOTADB).
 */
export function checkStore(db: Database, opts: { full?: boolean } = {}): string[] {
  // At most 20 problems: enough to tell what is damaged, not a page per broken row.
  const problems = messages(db.query(`PRAGMA ${opts.full ? "integrity_check" : "quick_check"}(20)`).all());
  if (problems.length > 0) return problems;
  const entities = db.query<{ n: number }, []>("SELECT count(*) AS n FROM entities").get()?.n ?? 0;
  for (const t of FTS_TABLES) {
    const n = db.query<{ n: number }, []>(`SELECT count(*) AS n FROM ${t}_docsize`).get()?.n ?? 0;
    if (n !== entities) problems.push(`the search table ${t} indexes ${n} entities, the store holds ${entities}`);
  }
  return problems;
}

/**
 * Compare each full-text table with the entities it indexes, term by term. Needs a writable
 * connection (FTS5 runs its checks as an INSERT command), though it changes nothing.
 */
export function checkSearchTables(db: Database): string[] {
  const problems: string[] = [];
  for (const t of FTS_TABLES) {
    try {
      db.exec(`INSERT INTO ${t}(${t}, rank) VALUES('integrity-check', 1)`);
    } catch (err) {
      problems.push(`the search table ${t} does not match the entities (${(err as Error).message})`);
    }
  }
  return problems;
}

/** Rebuild the full-text tables from `entities` and every index, in one transaction. */
export function rebuildSearchTables(db: Database): void {
  db.transaction(() => {
    for (const t of FTS_TABLES) db.exec(`INSERT INTO ${t}(${t}) VALUES('rebuild')`);
    db.exec("REINDEX");
  }).immediate();
}

/** True when `err` says the database file itself is damaged (or is no database at all). */
export function isCorruption(err: unknown): boolean {
  const seen = new Set<unknown>();
  for (let e: unknown = err; e && !seen.has(e); e = (e as { cause?: unknown }).cause) {
    seen.add(e);
    const code = sqliteCode(e);
    if (code?.startsWith("SQLITE_CORRUPT") || code?.startsWith("SQLITE_NOTADB")) return true;
  }
  return false;
}

export interface UnreadableEntity {
  kind: string;
  name: string;
  origin: string;
}

/**
 * Entities whose `data` is not a JSON object (written by a hand edit or a pack made elsewhere):
 * every answer that shows them fails. How many, and a few of them.
 */
export function unreadableEntities(db: Database, limit = 3): { count: number; examples: UnreadableEntity[] } {
  const bad = "NOT (CASE WHEN json_valid(data) THEN json_type(data) = 'object' ELSE 0 END)";
  const count = db.query<{ n: number }, []>(`SELECT count(*) AS n FROM entities WHERE ${bad}`).get()?.n ?? 0;
  const q = db.query<UnreadableEntity, [number]>(`SELECT kind, name, origin FROM entities WHERE ${bad} LIMIT ?`);
  const examples = count ? q.all(limit) : [];
  return { count, examples };
}

/** The files that make up the store at `path` (the database, its SQLite companions, the vector index). */
export function storeFiles(path: string): string[] {
  return ["", "-wal", "-shm", "-journal", ".usearch", ".usearch.json"].map((suffix) => `${path}${suffix}`);
}

/**
 * Rename the store's files to `<file>.damaged-<stamp>` (nothing is deleted). Returns [from, to]
 * for each file moved. The WAL files go along: they belong to that database and no other.
 */
export function moveStoreAside(path: string): Array<[string, string]> {
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const moved: Array<[string, string]> = [];
  for (const f of storeFiles(path)) {
    if (!existsSync(f)) continue;
    const to = `${path}.damaged-${stamp}${f.slice(path.length)}`;
    renameSync(f, to);
    moved.push([f, to]);
  }
  return moved;
}

/**
 * The homebrew files (OrcBrew, 5etools) imported into the database at `path`, as recorded in its documents table
 * (best effort: a damaged database may not say). Used to tell the user what to re-import.
 */
export function importedHomebrewFiles(path: string): string[] {
  let db: Database | undefined;
  try {
    db = new Database(path, { readonly: true });
    const rows = db
      .query<{ url: string | null }, []>(
        `SELECT DISTINCT url FROM documents WHERE source IN ${HOMEBREW_SQL} AND url LIKE 'file:%'`,
      )
      .all();
    return [...new Set(rows.flatMap((r) => (r.url ? [fileURLToPath(r.url)] : [])))].sort();
  } catch {
    return [];
  } finally {
    db?.close();
  }
}
