/**
 * The order and count of a structured page (page.ts): which groups (kind + name form) a page holds,
 * in the document preference order of the version answering for each, then name; and how a page is
 * read in that order: walking the (kind, doc_rank, name) index, letting SQLite sort the matches, or
 * (a few matches) sorting them here. `total`s are remembered per clause until the store changes.
 */
import type { Database } from "bun:sqlite";
import { CACHES } from "../../store/caches.ts";
import { hasIndex } from "../../store/db.ts";
import { rankPreference } from "../../store/canonical.ts";
import { andWhere, entitiesOf, nocase, type SqlValue, type WhereClause } from "../filter/filters.ts";
import { nameForm } from "../../entities/name-form.ts";
import { type FormRow, formRowsOfName } from "./collapse.ts";
import type { DocumentRank } from "./preference.ts";

export interface PageSpec {
  offset: number;
  limit: number;
  collapse: boolean;
  rank: DocumentRank;
  withText: boolean;
  /** mark hits whose most preferred version (in any document) does not match (collapsed, no documents filter) */
  noteFallback?: boolean;
  /** The kinds searched (how many rows a walk in order passes, leadOrder); every row when absent. */
  kinds?: readonly string[];
  /** Kinds spread over the first places of a ranked answer (Fusion.spread, search_all); none when absent. */
  spread?: { top: number; perKind: number } | undefined;
  /** Compact row bodies made already (SearchQuery.compactBody): those hits come without their data. */
  compactBody?: (id: number) => string | undefined;
  /**
   * The clause narrows by `name` (filter/names.ts): its few matches are read through the name's index (orderedHere).
   */
  named?: boolean;
  /**
   * The name step is `name = ?` with this name (names.ts "exact"): one statement gives the groups and their rows
   * (exactNameGroups).
   */
  exactName?: string;
}

/**
 * Whether the store keeps each entity's name form (migration 8; an older store opened read-only does not): lists then
 * group by it, else by the name (NOCASE).
 */
export function hasNameForms(db: Database): boolean {
  return hasIndex(db, "entities_by_form");
}

/** The column a list groups by within a kind: the stored name form, or (old stores) the name. */
function groupColumn(db: Database): string {
  return hasNameForms(db) ? "e.name_form" : "e.name";
}

/** How many rows (or, collapsed, distinct kind + name form groups) match `where`; remembered per clause. */
export function countOf(db: Database, where: WhereClause, groups: boolean): number {
  // The statement is written only when the total is not remembered (every repeated list and name lookup).
  return CACHES.totals.get(db, JSON.stringify([groups, where.sql, where.params]), () => {
    const sql = groups
      ? `SELECT COUNT(*) AS n FROM (SELECT 1 FROM ${entitiesOf(where)} WHERE ${where.sql} GROUP BY ` +
        `e.kind, ${groupColumn(db)})`
      : `SELECT COUNT(*) AS n FROM ${entitiesOf(where)} WHERE ${where.sql}`;
    return db.query<{ n: number }, SqlValue[]>(sql).get(...where.params)?.n ?? 0;
  });
}

/** The same clause over another alias of `entities` (filters.ts and names.ts write every column as `e.<col>`). */
export function overAlias(where: WhereClause, alias: string): WhereClause {
  return { sql: where.sql.replace(/(?<![\w.])e\./g, `${alias}.`), params: where.params };
}

/**
 * Rows of `where` that answer for their group (store/canonical.ts): the canonical one, or one no
 * better-ranked row of the same kind and name form matching `where` too outranks (for non-canonical
 * rows only: a lookup in the covering (kind, name_form, …filters) index, no row read).
 */
export function firstOfGroup(where: WhereClause): WhereClause {
  const o = overAlias(where, "o");
  return {
    sql:
      `e.group_rank = 0 OR NOT EXISTS (SELECT 1 FROM entities o INDEXED BY entities_by_form WHERE o.kind = ` +
      `e.kind AND o.name_form = e.name_form AND o.group_rank < e.group_rank AND (${o.sql}))`,
    params: o.params,
  };
}

/** Rows of the query's kinds (every row when not given), remembered per store version. */
function kindRows(db: Database, kinds: readonly string[] | undefined): number {
  if (!kinds?.length) return countOf(db, { sql: "1", params: [] }, false);
  return countOf(db, { sql: `e.kind IN (${kinds.map(() => "?").join(",")})`, params: [...kinds] }, false);
}

/**
 * What sorting a match costs against walking past one, measured on the real store: a sorted match
 * is read through a filter index, checked for being first of its group and put in a temporary
 * b-tree, a walked one is read in the covering order index and skipped or kept. Over 293 pages of
 * the real store (69 filters of spells, creatures and magic items; limits 5, 10, 20; offsets 0 and
 * 20), choosing by 10 read 7 % more than the cheaper plan of each page, by 3 (the weight measured
 * before lists checked groups) 26 %, by 16 4 %; 10 walks less of the wide order index, which a
 * cold page cache reads from disk. A list of every version (no groups) costs within 2 % either way.
 */
const SORT_WEIGHT = 10;

/**
 * `column` to order a page by first: as it is (SQLite may then walk the index that starts (kind,
 * column) and stop after the page: cheap when matches are dense) or as `+column` (same order, no
 * index: SQLite reads the matches through the filters' index and sorts them: cheap when they are
 * few). Walking reads about (offset + limit) × the kinds' rows ÷ total matches, sorting reads
 * `total` matches at SORT_WEIGHT each (creatures of CR 1: docs/benchmark.md, "Figures behind the code").
 */
export function leadOrder(db: Database, total: number, spec: PageSpec, column: string): string {
  const rows = kindRows(db, spec.kinds);
  return (spec.offset + spec.limit) * rows < SORT_WEIGHT * total * total ? column : `+${column}`;
}

/**
 * At most this many matches are put in order here rather than by SQL. Ordered by `doc_rank`, SQL
 * wants an index holding it, and with no statistics it takes one that does over the (kind, name)
 * index a name lookup needs: every spell read to find "Fireball" (docs/benchmark.md, "Figures behind
 * the code"). The few matches are sorted here by the rank the store keeps as doc_rank
 * (store/canonical.ts; the caller comes here only when the stored ranks follow the query's
 * preference).
 */
const ORDER_HERE = 64;

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

type Ranked = { name: string; kind: string; rank: number };

/**
 * A match of a few-matches page: name and kind, with the stored doc_rank (filters alone) or its document (a name
 * lookup).
 */
type Match = { name: string; kind: string; doc_rank?: number | null; document_key?: string; document_source?: string };

/**
 * The matches of `w` (at most `atMost`). Filters alone: with the stored `doc_rank` (the filter
 * indexes hold it, so no row is read). A name lookup: with its document,
 * which the name's covering index holds (entities_listing: kind, name, …, document_key,
 * document_source), as it does not hold doc_rank: asking for that makes SQLite prefer a covering
 * walk of the whole kind.
 */
function matches(db: Database, w: WhereClause, spec: PageSpec, atMost: number): Match[] {
  const cols = spec.named
    ? "e.name AS name, e.kind AS kind, e.document_key AS document_key, e.document_source AS document_source"
    : "e.name AS name, e.kind AS kind, e.doc_rank AS doc_rank";
  const sql = `SELECT ${cols} FROM ${entitiesOf(w)} WHERE ${w.sql} LIMIT ${Math.floor(atMost)}`;
  return db.query<Match, SqlValue[]>(sql).all(...w.params);
}

/**
 * `rows` (from matches) with their document's rank: the stored one, or (a name lookup) their document's under the
 * query's preference.
 */
function withRanks(spec: PageSpec, rows: readonly Match[]): Ranked[] {
  // Every row has its rank (refreshGroupRanks); a NULL would come first, as SQL orders it.
  if (!spec.named) return rows.map((r) => ({ name: r.name, kind: r.kind, rank: r.doc_rank ?? -1 }));
  return rows.map((r) => ({
    name: r.name,
    kind: r.kind,
    rank: spec.rank({ document_key: r.document_key ?? "", document_source: r.document_source ?? "" }),
  }));
}

/**
 * The page of a clause's ranked matches `rows` in (doc_rank, name, kind) order, sorted here; undefined when a name
 * holds a character beyond U+FFFF or a NUL. SQLite's NOCASE compares UTF-8 bytes (ASCII letters
 * folded), which is code point order, and so is JavaScript's comparison of UTF-16 units, except
 * for the surrogate pairs that code those characters; and NOCASE stops at a NUL. SQL orders those
 * pages. (Curly apostrophes and accents are within U+FFFF: "Kareef’s Entreaty" made every
 * first-level abjuration page a second query.)
 */
function orderedHere(spec: PageSpec, rows: readonly Ranked[]): GroupName[] | undefined {
  if (rows.some((r) => /[\uD800-\uDFFF\u0000]/.test(r.name))) return undefined;
  return (
    rows
      .map((r) => ({ r, name: nocase(r.name) }))
      .sort((a, b) => a.r.rank - b.r.rank || cmp(a.name, b.name) || cmp(a.r.kind, b.r.kind))
      .slice(spec.offset, spec.offset + spec.limit)
      // The stored name_form is nameForm(name) (store/canonical.ts): computed here, not read past the
      // row's data. (Only stores with stored ranks come here, and those have name forms: rankPreference.)
      .map(({ r }) => ({ name: r.name, kind: r.kind, name_form: nameForm(r.name) }))
  );
}

/**
 * The page's groups: kind and name of each, in the preference order of the version that answers
 * for the group, then name (stored ranks when they follow this preference, else GROUP BY).
 */
export type GroupName = { name: string; kind: string; name_form: string | null };

/**
 * groupNames for a lookup by exact name, and every stored version of its groups (sameFormRows),
 * from one statement: the name's matches all have its name form, so the rows of that form in the
 * kinds asked hold both. A group answers with its first matching row (firstOfGroup: group rank 0,
 * or no matching row of the group ranks lower); groups go in orderedHere's order. Undefined where
 * groupNames must decide: the stored ranks follow another preference, or a name holds a character
 * orderedHere leaves to SQL.
 */
export function exactNameGroups(
  db: Database,
  where: WhereClause,
  spec: PageSpec,
  name: string,
): { total: number; names: GroupName[]; rows: Array<FormRow & { ok: number | null }> } | undefined {
  if (rankPreference(db) !== spec.rank.id || !spec.kinds?.length) return undefined;
  const rows = formRowsOfName(db, spec.kinds, nameForm(name), where);
  const ok = rows.filter((r) => r.ok);
  const first = ok.filter(
    (e) =>
      e.group_rank === 0 ||
      !ok.some(
        (o) => o.kind === e.kind && o.group_rank !== null && e.group_rank !== null && o.group_rank < e.group_rank,
      ),
  );
  const ranked = withRanks(spec, first);
  const names = spec.offset >= ranked.length ? [] : orderedHere(spec, ranked);
  return names ? { total: ranked.length, names, rows } : undefined;
}

export function groupNames(db: Database, where: WhereClause, spec: PageSpec): { total: number; names: GroupName[] } {
  if (rankPreference(db) === spec.rank.id) {
    const w = andWhere(where, firstOfGroup(where));
    // A clause's first use reads up to ORDER_HERE + 1 of its matches: when that is all of them, they
    // are the total and every page's rows (no COUNT for a new filter or name), kept
    // for the store version, so that its other pages and repeats read none of them again.
    const few = CACHES.fewMatches.get(db, JSON.stringify([spec.named === true, w.sql, w.params]), () => {
      const rows = matches(db, w, spec, ORDER_HERE + 1);
      return rows.length > ORDER_HERE ? null : rows;
    });
    const total = few ? few.length : countOf(db, w, false);
    if (spec.offset >= total) return { total, names: [] };
    const here = few ? orderedHere(spec, withRanks(spec, few)) : undefined;
    if (here) return { total, names: here };
    const names = db
      .query<GroupName, SqlValue[]>(
        `SELECT e.name AS name, e.kind AS kind, e.name_form AS name_form FROM ${entitiesOf(w)} ` +
          `WHERE ${w.sql} ORDER BY ${leadOrder(db, total, spec, "e.doc_rank")}, e.name, e.kind LIMIT ? OFFSET ?`,
      )
      .all(...w.params, spec.limit, spec.offset);
    return { total, names };
  }
  const total = countOf(db, where, true);
  if (spec.offset >= total) return { total, names: [] };
  // SQLite takes the bare columns of a group from the row of its MIN(): the preferred version's name.
  const form = groupColumn(db);
  const names = db
    .query<GroupName, SqlValue[]>(
      `SELECT e.name AS name, e.kind AS kind, ${form === "e.name" ? "NULL" : form} AS name_form, ` +
        `MIN(${spec.rank.sql}) AS r FROM ${entitiesOf(where)} WHERE ${where.sql} GROUP BY ${form}, e.kind ORDER ` +
        `BY r, e.name, e.kind LIMIT ? OFFSET ?`,
    )
    .all(...where.params, spec.limit, spec.offset);
  return { total, names };
}
