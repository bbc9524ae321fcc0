/**
 * The filter table's columns in a store written before them. A column of the table
 * (src/entities/filters.ts) that `entities` lacks is added when the store opens, and a derived
 * one is back-filled from each row's canonical data in the same transaction, so a new filter is
 * one table entry and needs no migration of its own. Migration 4's derived columns and `dup_of`
 * are back-filled the same way when a store older than it is opened. A column the normalizers fill
 * gets its values at the next sync (the entity's content hash covers its filters).
 */
import type { Database } from "bun:sqlite";
import { FILTER_TABLE, type DerivedColumn, type FilterColumn } from "../entities/filters.ts";
import type { EntityKind, JsonObject } from "../entities/types.ts";
import { refreshDuplicates } from "./duplicates.ts";
import { derivedColumnValues } from "./entities.ts";
import { getMetaJson, setMeta, tableColumns } from "./schema.ts";

/** The table's columns that `entities` lacks (all of them when there is no `entities` table yet). */
export function missingFilterColumns(db: Database): string[] {
  const have = tableColumns(db, "entities");
  if (have.size === 0) return [];
  return FILTER_TABLE.map((f) => f.column).filter((c) => !have.has(c));
}

/** Add the missing filter columns (inside the caller's transaction); returns their names. */
export function addFilterColumns(db: Database): string[] {
  const missing = missingFilterColumns(db);
  for (const f of FILTER_TABLE)
    if (missing.includes(f.column)) db.exec(`ALTER TABLE entities ADD COLUMN ${f.column} ${f.sqlType}`);
  return missing;
}

const REVISIONS_KEY = "derived_revisions";

/** The revision each derived column's stored values were derived by (meta `derived_revisions`; 1 when not recorded). */
function recordedRevisions(db: Database): Record<string, number> {
  const parsed = getMetaJson(db, REVISIONS_KEY);
  return typeof parsed === "object" ? (parsed as Record<string, number>) : {};
}

/** The derived columns whose `revision` is above the one recorded. */
type Revised = FilterColumn & { revision: number };
function newerRevisions(recorded: Record<string, number>): Revised[] {
  return FILTER_TABLE.filter((f): f is Revised => !!f.derive && (f.revision ?? 1) > (Number(recorded[f.column]) || 1));
}

/** Derived columns this build derives by a later revision than the store's values were (see FilterColumn.revision). */
export function staleDerivedColumns(db: Database): DerivedColumn[] {
  return newerRevisions(recordedRevisions(db)).map((f) => f.column as DerivedColumn);
}

/** Record this build's derivation revisions (inside the caller's transaction), keeping a newer build's higher ones. */
export function recordRevisions(db: Database): void {
  const recorded = recordedRevisions(db);
  for (const f of newerRevisions(recorded)) recorded[f.column] = f.revision;
  setMeta(db, REVISIONS_KEY, JSON.stringify(recorded));
}

/** Fill derived `columns` of every stored row from its data; recompute `dup_of` too when `duplicates`. */
export function backfillDerived(db: Database, columns: readonly DerivedColumn[], duplicates: boolean): void {
  if (columns.length === 0 && !duplicates) return;
  const rows = db
    .query<{ id: number; kind: string; name: string; data: string }, []>("SELECT id, kind, name, data FROM entities")
    .all();
  if (columns.length > 0) {
    const set = db.query(`UPDATE entities SET ${columns.map((c) => `${c} = ?`).join(", ")} WHERE id = ?`);
    for (const r of rows) {
      let data: JsonObject;
      try {
        data = JSON.parse(r.data) as JsonObject;
      } catch {
        continue;
      }
      const v = derivedColumnValues({ kind: r.kind as EntityKind, name: r.name, data });
      set.run(...columns.map((c) => v[c]), r.id);
    }
  }
  if (duplicates) {
    const kinds = db
      .query<{ kind: string }, []>("SELECT DISTINCT kind FROM entities")
      .all()
      .map((k) => k.kind);
    refreshDuplicates(db, kinds);
  }
}

/**
 * Indexes for the filter table's later columns. The wide covering indexes (migrations 10 and 11)
 * hold the filter columns of their day; a column added since sits past each row's text and data,
 * so a list filtered by it read every row of the kind (docs/benchmark.md, "Figures behind the
 * code"). The first two hold those columns, walked in preference order or sought by name; the
 * third, partial (rows with a CR), serves such a list with a CR range, and only a query bounding
 * `cr` can use it. Kept like the columns: made when a store opens without them or the table
 * gained a column they lack.
 */
interface LateIndex {
  name: string;
  lead: readonly string[];
  /** A partial index's condition (`CREATE INDEX … WHERE`), as SQLite keeps it in the index's SQL. */
  where?: string;
}

const LATE_INDEXES: readonly LateIndex[] = [
  { name: "entities_late_by_preference", lead: ["kind", "doc_rank", "name", "dup_of", "group_rank", "name_form"] },
  { name: "entities_late_by_name", lead: ["kind", "name"] },
  {
    name: "entities_late_by_cr",
    lead: ["kind", "cr", "dup_of", "group_rank", "name", "doc_rank", "name_form"],
    where: "cr IS NOT NULL",
  },
];

/** The columns of `index`, in order (none when it does not exist). */
export function indexColumns(db: Database, index: string): string[] {
  return db
    .query<{ name: string }, [string]>("SELECT name FROM pragma_index_info(?) ORDER BY seqno")
    .all(index)
    .map((r) => r.name);
}

/** The filter table's columns that the wide covering index (entities_by_preference) lacks. */
export function lateFilterColumns(db: Database): string[] {
  const covered = new Set(indexColumns(db, "entities_by_preference"));
  if (covered.size === 0) return [];
  return FILTER_TABLE.map((f) => f.column).filter((c) => !covered.has(c));
}

/**
 * What is to be done to one late-column index, as SQL: nothing (undefined), make it (missing,
 * lacking a column the table has now, or not partial as wanted), or drop it (every filter column
 * is covered by the wide index). An index holding more columns than this build knows (made by a
 * newer one, whose filter table is longer) is kept as it is: builds sharing a store never undo each
 * other's indexes. So a partial index's condition is fixed for its name: a build that wants another
 * one names another index (else builds sharing a store would make it again on each open).
 */
function lateIndexSql(db: Database, index: LateIndex, late: readonly string[]): string | undefined {
  const have = indexColumns(db, index.name);
  const drop = `DROP INDEX IF EXISTS ${index.name}`;
  if (late.length === 0) return have.length > 0 ? drop : undefined;
  const leads = index.lead.every((c, i) => have[i] === c);
  const rest = new Set(have.slice(index.lead.length));
  if (leads && late.every((c) => rest.has(c)) && partialCondition(db, index.name) === (index.where ?? null)) return;
  const where = index.where ? ` WHERE ${index.where}` : "";
  return `${drop}; CREATE INDEX ${index.name} ON entities(${[...index.lead, ...late].join(", ")})${where}`;
}

/** The condition of a partial index as made here (`… WHERE <condition>`), or null for a full index (or none). */
function partialCondition(db: Database, index: string): string | null {
  const sql =
    db
      .query<{ sql: string | null }, [string]>("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?")
      .get(index)?.sql ?? "";
  const at = sql.lastIndexOf(") WHERE ");
  return at < 0 ? null : sql.slice(at + ") WHERE ".length).trim();
}

/** The late-column indexes that are not as the filter table wants them, each with the SQL that makes it so. */
export function lateIndexChanges(db: Database): Array<{ name: string; sql: string }> {
  const late = lateFilterColumns(db);
  return LATE_INDEXES.flatMap((i) => {
    const sql = lateIndexSql(db, i, late);
    return sql ? [{ name: i.name, sql }] : [];
  });
}

/**
 * Migration 12: the stored trait names of a store written before it, with straight apostrophes as
 * blockNames (entities/derived.ts) now makes them. Only the rows holding another apostrophe are
 * written (a few dozen creatures of third-party books), not every row.
 */
export function straightenTraitNames(db: Database): number {
  if (!tableColumns(db, "entities").has("traits")) return 0;
  return db
    .query(
      "UPDATE entities SET traits = replace(replace(replace(traits, '’', ''''), '‘', ''''), '`', '''') " +
        "WHERE traits LIKE '%’%' OR traits LIKE '%‘%' OR traits LIKE '%`%'",
    )
    .run().changes;
}
