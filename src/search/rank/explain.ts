/**
 * Why an answer is empty, in words a caller can act on:
 *   - a name nothing is called: the closest names ("did you mean Magic Missile?");
 *   - a filter value no entity of those kinds has (class_key "dragon", casting_time "whenever"):
 *     the nearest valid values;
 *   - known values that together match nothing: which filter emptied the set, and how many
 *     entries the others match.
 * Runs only for empty answers (a few COUNT queries).
 */
import type { Database } from "bun:sqlite";
import { FILTER_PARAMS, type TableParam } from "../../entities/filters.ts";
import type { EntityKind } from "../../entities/types.ts";
import { CACHES } from "../../store/caches.ts";
import { editDistance } from "./fuzzy.ts";
import { NameIndex, type NameRow, nameIndex } from "../filter/name-index.ts";
import { countOf } from "./page-order.ts";
import { andWhere, buildFilterWhere, castingTimeVariants, type SqlValue, type WhereClause } from "../filter/filters.ts";
import type { StructuredFilters } from "../types.ts";

const isList = (p: TableParam) => p.match === "has" || p.match === "has_all" || p.match === "namesake_has_words";

/** Filters whose free-text value is checked against the values the store holds (`key` and `dice` inputs). */
const FREE_TEXT: ReadonlyMap<string, TableParam> = new Map(
  FILTER_PARAMS.filter((p) => p.input.type === "key" || p.input.type === "dice").map((p) => [p.name, p]),
);

const count = (db: Database, where: WhereClause): number => countOf(db, where, false);

function kindWords(kinds: readonly EntityKind[]): string {
  return kinds.length === 1 ? kinds[0]!.replace(/_/g, " ") : "entry";
}

/**
 * The values a filter parameter's column holds over some kinds (by default its own), most common
 * first, with how many entities hold each (remembered until the store changes): the nearest valid
 * values of an empty answer, and what completion offers for the parameters read from stat blocks.
 */
export function storedFilterValues(
  db: Database,
  p: TableParam,
  kinds: readonly EntityKind[] = p.column.kinds,
): Array<{ v: string; n: number }> {
  const col = p.column.column;
  return CACHES.columnValues.get(db, `${col}\u0000${kinds.join(",")}`, () => {
    const rows = db
      .query<{ v: string; n: number }, string[]>(
        `SELECT ${col} AS v, COUNT(*) AS n FROM entities WHERE kind IN (${kinds.map(() => "?").join(",")}) ` +
          `AND ${col} IS NOT NULL GROUP BY ${col}`,
      )
      .all(...kinds);
    if (!isList(p)) return rows.map((r) => ({ v: String(r.v).toLowerCase(), n: r.n })).sort((a, b) => b.n - a.n);
    const m = new Map<string, number>();
    for (const r of rows) for (const x of String(r.v).split("|")) if (x) m.set(x, (m.get(x) ?? 0) + r.n);
    return [...m.entries()].map(([v, n]) => ({ v, n })).sort((a, b) => b.n - a.n);
  });
}

/** The values nearest to `raw`: containing it or within a few edits, else the most common; at most `max`. */
export function nearestValues(raw: string, values: ReadonlyArray<{ v: string; n: number }>, max = 6): string[] {
  const want = raw.trim().toLowerCase();
  const limit = Math.max(2, Math.floor(want.length / 3));
  const scored = values
    .map((x) => ({ ...x, d: x.v.includes(want) || want.includes(x.v) ? 0 : editDistance(want, x.v, limit) }))
    .filter((x) => x.d <= limit)
    .sort((a, b) => a.d - b.d || b.n - a.n);
  return (scored.length ? scored : values).slice(0, max).map((x) => x.v);
}

const show = (v: unknown): string => JSON.stringify(v);

export interface EmptyContext {
  kinds: readonly EntityKind[];
  filters: StructuredFilters;
  documentKeys: readonly string[] | null;
  /** The `name` the caller gave and its clause, when it matches something by itself. */
  name?: { text: string; clause: WhereClause };
}

/** Why filters match nothing (undefined when they do match something, or none were given). */
export function explainFilters(db: Database, c: EmptyContext): string | undefined {
  const given = Object.entries(c.filters).filter(([, v]) => v !== undefined) as Array<
    [keyof StructuredFilters, unknown]
  >;
  if (given.length === 0) return undefined;
  const what = `${kindWords(c.kinds)}${c.name ? ` named ${show(c.name.text)}` : ""}`;
  const withName = (w: WhereClause) => (c.name ? andWhere(w, c.name.clause) : w);
  // A free-text value no entity of these kinds holds at all.
  for (const [k, v] of given) {
    const p = FREE_TEXT.get(k);
    if (!p || typeof v !== "string") continue;
    const alone = buildFilterWhere(c.kinds, { [k]: v } as StructuredFilters, null);
    if (alone.ok && count(db, alone.where) === 0) {
      const probe = k === "casting_time" ? (castingTimeVariants(v)[0] ?? v) : v;
      const near = nearestValues(probe, storedFilterValues(db, p, c.kinds));
      return (
        `No ${kindWords(c.kinds)} ` +
        `has ${k} ${show(v)}.${near.length ? ` Nearest valid values: ${near.map(show).join(", ")}.` : ""}`
      );
    }
  }
  // Add the filters one at a time: the one that empties the set is the answer.
  const base = buildFilterWhere(c.kinds, {}, c.documentKeys);
  if (!base.ok) return undefined;
  let before = count(db, withName(base.where));
  if (before === 0) return undefined;
  let acc: StructuredFilters = {};
  for (const [k, v] of given) {
    const next = { ...acc, [k]: v } as StructuredFilters;
    const w = buildFilterWhere(c.kinds, next, c.documentKeys);
    if (!w.ok) return undefined;
    const n = count(db, withName(w.where));
    if (n === 0) {
      const kept = Object.entries(acc)
        .map(([a, b]) => `${a}=${show(b)}`)
        .join(", ");
      return (
        `No ${what} matches ${k}=${show(v)}${kept ? ` together with ${kept}` : ""} (${before} ` +
        `match${before === 1 ? "" : "es"} without it). Drop or change ${k}.`
      );
    }
    acc = next;
    before = n;
  }
  return undefined;
}

/** The name index of some kinds' answering entities in some documents (remembered). */
function documentsNameIndex(db: Database, kinds: readonly EntityKind[], documentKeys: readonly string[]): NameIndex {
  return CACHES.kindNames.get(db, `${kinds.join(",")}\u0000${documentKeys.join(",")}`, () => {
    const w = buildFilterWhere(kinds, {}, documentKeys);
    if (!w.ok) return new NameIndex([]);
    const sql = `SELECT e.id, e.kind, e.name, e.slug, e.key FROM entities e WHERE ${w.where.sql} ORDER BY e.id`;
    return new NameIndex(db.query<NameRow, SqlValue[]>(sql).all(...w.where.params));
  });
}

/** The names closest to `name` (a few edits), best first, at most `max`. */
export function closestNames(
  db: Database,
  kinds: readonly EntityKind[],
  documentKeys: readonly string[] | null,
  name: string,
  max = 3,
): string[] {
  const want = name.trim().toLowerCase().replace(/[*%]/g, "");
  if (want.length < 3) return [];
  const limit = Math.max(2, Math.floor(want.length / 4));
  // From an in-memory name index, without computing a distance to every name.
  const index = documentKeys === null ? nameIndex(db) : documentsNameIndex(db, kinds, documentKeys);
  return index.closest(kinds, want, limit, max, editDistance);
}

/** Why a name matched nothing (closest names, when any). */
export function explainName(db: Database, c: EmptyContext, name: string): string {
  const near = closestNames(db, c.kinds, c.documentKeys, name);
  const base = `No ${kindWords(c.kinds)} is named ${show(name)}.`;
  if (near.length === 0) return `${base} Try \`search\` with the words you remember.`;
  return `${base} Did you mean ${near.map(show).join(" or ")}?`;
}
