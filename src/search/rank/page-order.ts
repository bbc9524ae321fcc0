/**
 * The order and count of a structured page (page.ts): which groups (kind + name form) it holds, in
 * the preference order of the version answering for each, then name; read by walking the (kind,
 * doc_rank, name) index, letting SQLite sort, or (few matches) sorting here. Totals are remembered.
 */
import type { Database } from "bun:sqlite";
import { CACHES } from "../../store/caches.ts";
import { hasIndex } from "../../store/db.ts";
import { rankPreference } from "../../store/canonical.ts";
import { andWhere, entitiesOf, nocase, type SqlValue, TRUE_CLAUSE, type WhereClause } from "../filter/filters.ts";
import { nameForm } from "../../entities/name-form.ts";
import { type FormRow, formRowsOfName } from "./collapse.ts";
import type { DocumentRank } from "../../entities/preference.ts";
import type { Fusion, SearchQuery } from "../types.ts";

export interface PageSpec {
  offset: number;
  limit: number;
  collapse: boolean;
  rank: DocumentRank;
  withText: boolean;
  /** Mark hits whose most preferred version does not match (collapsed, no documents filter). */
  noteFallback?: boolean;
  /** The kinds searched (how many rows a walk in order passes, leadOrder); every row when absent. */
  kinds?: readonly string[];
  spread?: Fusion["spread"];
  compactBody?: SearchQuery["compactBody"];
  /** The clause narrows by `name`: its few matches are read through the name's index (orderedHere). */
  named?: boolean;
  /** The name step is `name = ?` with this name: one statement gives the groups and rows (exactNameGroups). */
  exactName?: string;
}

/** Whether the store keeps name forms (an older store opened read-only does not): lists group by them, else by name. */
export function hasNameForms(db: Database): boolean {
  return hasIndex(db, "entities_by_form");
}

/** How many rows (or, collapsed, distinct kind + name form groups) match `where`; remembered per clause. */
export function countOf(db: Database, where: WhereClause, groups: boolean): number {
  return CACHES.totals.get(db, JSON.stringify([groups, where.sql, where.params]), () => {
    const sql = groups
      ? `SELECT COUNT(*) AS n FROM (SELECT 1 FROM ${entitiesOf(where)} WHERE ${where.sql} GROUP BY ` +
        `e.kind, ${hasNameForms(db) ? "e.name_form" : "e.name"})`
      : `SELECT COUNT(*) AS n FROM ${entitiesOf(where)} WHERE ${where.sql}`;
    return db.query<{ n: number }, SqlValue[]>(sql).get(...where.params)?.n ?? 0;
  });
}

/** The same clause over another alias of `entities` (filters write every column as `e.<col>`). */
export function overAlias(where: WhereClause, alias: string): WhereClause {
  return { sql: where.sql.replace(/(?<![\w.])e\./g, `${alias}.`), params: where.params };
}

/**
 * Rows of `where` that answer for their group (store/canonical.ts): the canonical one, or one that
 * no better-ranked matching row of its kind and name form outranks (a covering index lookup).
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

/**
 * What sorting a match costs against walking past one, measured over 293 pages of the real store
 * (docs/benchmark.md, "Figures behind the code"): 10 read 7 % more than each page's cheaper plan,
 * 3 read 26 %, 16 read 4 % but walks more of the wide order index, which a cold cache reads from disk.
 */
const SORT_WEIGHT = 10;

/**
 * `column` to order a page by first: as it is (SQLite walks the (kind, column) index and stops after
 * the page: cheap for dense matches) or `+column` (no index: the matches are read through the
 * filters' index and sorted: cheap when few). Walking reads about (offset + limit) × the kinds'
 * rows ÷ total, sorting `total` at SORT_WEIGHT each.
 */
export function leadOrder(db: Database, total: number, spec: PageSpec, column: string): string {
  const kinds = spec.kinds ?? [];
  const all = kinds.length ? { sql: `e.kind IN (${kinds.map(() => "?").join(",")})`, params: [...kinds] } : TRUE_CLAUSE;
  const rows = countOf(db, all, false);
  return (spec.offset + spec.limit) * rows < SORT_WEIGHT * total * total ? column : `+${column}`;
}

/**
 * At most this many matches are ordered here rather than by SQL: ordering by `doc_rank`, SQLite
 * (without statistics) prefers an index holding it over the (kind, name) index a name lookup needs,
 * and reads every spell to find "Fireball" (docs/benchmark.md, "Figures behind the code").
 */
const ORDER_HERE = 64;

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** A match of a few-matches page, with its stored doc_rank (filters alone) or its document (a name lookup). */
type Match = { name: string; kind: string; doc_rank?: number | null; document_key?: string; document_source?: string };

/**
 * The matches of `w` (at most `atMost`), read from covering indexes only: filters alone with the
 * stored `doc_rank`; a name lookup with its document (entities_listing lacks doc_rank, and asking
 * for it makes SQLite walk the whole kind).
 */
function matches(db: Database, w: WhereClause, spec: PageSpec, atMost: number): Match[] {
  const cols = spec.named
    ? "e.name AS name, e.kind AS kind, e.document_key AS document_key, e.document_source AS document_source"
    : "e.name AS name, e.kind AS kind, e.doc_rank AS doc_rank";
  const sql = `SELECT ${cols} FROM ${entitiesOf(w)} WHERE ${w.sql} LIMIT ${Math.floor(atMost)}`;
  return db.query<Match, SqlValue[]>(sql).all(...w.params);
}

/**
 * The page of `rows` in (document rank, name, kind) order, sorted here: the stored doc_rank (filters
 * alone) or the rank under the query's preference (a name lookup). Undefined (SQL orders it) when a
 * name holds a NUL (NOCASE stops there) or a character beyond U+FFFF (UTF-16 surrogates do not sort
 * in the code point order of NOCASE's UTF-8 bytes).
 */
function orderedHere(spec: PageSpec, rows: readonly Match[]): GroupName[] | undefined {
  if (rows.some((r) => /[\uD800-\uDFFF\u0000]/.test(r.name))) return undefined;
  // Every row has its rank (refreshGroupRanks); a NULL would come first, as SQL orders it.
  const rankOf = (r: Match) =>
    spec.named
      ? spec.rank({ document_key: r.document_key ?? "", document_source: r.document_source ?? "" })
      : (r.doc_rank ?? -1);
  return (
    rows
      .map((r) => ({ r, rank: rankOf(r), name: nocase(r.name) }))
      .sort((a, b) => a.rank - b.rank || cmp(a.name, b.name) || cmp(a.r.kind, b.r.kind))
      .slice(spec.offset, spec.offset + spec.limit)
      // The stored name_form is nameForm(name): computed, not read past the row's data.
      .map(({ r }) => ({ name: r.name, kind: r.kind, name_form: nameForm(r.name) }))
  );
}

/** One group of a page: kind, name of the version that answers for it, and name form. */
export type GroupName = { name: string; kind: string; name_form: string | null };

/**
 * groupNames for a lookup by exact name, with every stored version of its groups, from one
 * statement (the name's matches all have its name form). Undefined where groupNames must decide:
 * the stored ranks follow another preference, or orderedHere leaves the order to SQL.
 */
export function exactNameGroups(
  db: Database,
  where: WhereClause,
  spec: PageSpec,
  name: string,
): { total: number; names: GroupName[]; rows: FormRow[] } | undefined {
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
  const names = spec.offset >= first.length ? [] : orderedHere(spec, first);
  return names ? { total: first.length, names, rows } : undefined;
}

export function groupNames(db: Database, where: WhereClause, spec: PageSpec): { total: number; names: GroupName[] } {
  if (rankPreference(db) === spec.rank.id) {
    const w = andWhere(where, firstOfGroup(where));
    // A clause's first use reads up to ORDER_HERE + 1 matches: when that is all, they are the total
    // and every page's rows (no COUNT), kept for the store version.
    const few = CACHES.fewMatches.get(db, JSON.stringify([spec.named === true, w.sql, w.params]), () => {
      const rows = matches(db, w, spec, ORDER_HERE + 1);
      return rows.length > ORDER_HERE ? null : rows;
    });
    const total = few ? few.length : countOf(db, w, false);
    if (spec.offset >= total) return { total, names: [] };
    const here = few ? orderedHere(spec, few) : undefined;
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
  const form = hasNameForms(db) ? "e.name_form" : "e.name";
  const names = db
    .query<GroupName, SqlValue[]>(
      `SELECT e.name AS name, e.kind AS kind, ${form === "e.name" ? "NULL" : form} AS name_form, ` +
        `MIN(${spec.rank.sql}) AS r FROM ${entitiesOf(where)} WHERE ${where.sql} GROUP BY ${form}, e.kind ORDER ` +
        `BY r, e.name, e.kind LIMIT ? OFFSET ?`,
    )
    .all(...where.params, spec.limit, spec.offset);
  return { total, names };
}
