/**
 * Pages of an answer: `total`, `offset`, and one canonical entry per thing (collapse.ts).
 *
 *   structured: the page's groups (one per kind and stored name form: "Horse, Draft" and "Draft
 *               Horse" are one) straight from SQL, in the document preference order of the
 *               version that answers for each (the preferred SRD's entries first), then by name,
 *               LIMIT and OFFSET: it streams the (kind, doc_rank, name) index for one kind. Then
 *               every version of those names among the matches, in preference order. `total`
 *               counts the groups (remembered per clause until the store changes). Without
 *               collapsing (`all_versions`, `documents`): the matches ordered by name, then
 *               preference, then document and key.
 *   ranked:     the fused ranking, grouped by name form in rank order (a group ranks where its
 *               best member does; its score is that member's), sliced; each page group then shows
 *               its preferred version among all candidates of its names ("Horse, Draft" and
 *               "Draft Horse" are one entry; collapse.ts). Without collapsing, the
 *               fused list itself.
 */
import type { Database } from "bun:sqlite";
import { getEntitiesByIds } from "../../store/entities.ts";
import { ID_IN, idList } from "../../store/id-list.ts";
import { CACHES } from "../../store/caches.ts";
import { rankPreference } from "../../store/canonical.ts";
import { exactNameKey, formKey, type Group, type LightRow, groupKey, groupRows, LIGHT, lightRows, orderMembers, sameFormRows, sameNameRows } from "./collapse.ts";
import { andWhere, type SqlValue, type WhereClause } from "../filter/filters.ts";
import type { DocumentRank } from "./preference.ts";
import { nameForm } from "../../entities/name-form.ts";
import type { DocumentSource, Entity, EntityKind } from "../../entities/types.ts";
import type { OtherVersion, SearchHit } from "../types.ts";

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
}

export interface Page {
  hits: SearchHit[];
  total: number;
}

function others(members: readonly LightRow[]): OtherVersion[] {
  return members.slice(1).map(version);
}

const version = (m: LightRow): OtherVersion => ({ kind: m.kind, key: m.key, document_key: m.document_key, document_source: m.document_source });

/** The most preferred of every stored version of `members`' name, when it is not among them (it did not match). */
function preferredElsewhere(every: ReadonlyMap<string, LightRow[]>, members: readonly LightRow[], rank: DocumentRank, keyOf: (r: LightRow) => string): LightRow | undefined {
  const all = every.get(keyOf(members[0]!));
  if (!all) return undefined;
  const best = orderMembers([...all], rank)[0]!;
  return members.some((m) => m.id === best.id) || rank(best) >= rank(members[0]!) ? undefined : best;
}

function byGroupKey(rows: readonly LightRow[], keyOf: (r: LightRow) => string): Map<string, LightRow[]> {
  const out = new Map<string, LightRow[]>();
  for (const r of rows) {
    const k = keyOf(r);
    const list = out.get(k);
    if (list) list.push(r);
    else out.set(k, [r]);
  }
  return out;
}

/** A hit's entity when its compact row is made already: its identity, nothing read (SearchHit.compact). */
function identityOnly(r: LightRow): Entity & { id: number } {
  return { id: r.id, kind: r.kind as EntityKind, key: r.key, name: r.name, document_key: r.document_key, document_name: "", document_source: r.document_source as DocumentSource, source_url: "", text: "", filters: {}, data: {} };
}

/** Load the entities of `picked` (in order) and attach scores and other versions; with compact bodies, only the rest is read. */
function load(db: Database, picked: ReadonlyArray<{ members: readonly LightRow[]; score?: number; preferred?: LightRow }>, spec: Pick<PageSpec, "withText" | "compactBody">): SearchHit[] {
  const bodies = new Map<number, string>();
  if (spec.compactBody) {
    for (const p of picked) {
      const body = spec.compactBody(p.members[0]!.id);
      if (body !== undefined) bodies.set(p.members[0]!.id, body);
    }
  }
  const entities = getEntitiesByIds(
    db,
    picked.map((p) => p.members[0]!.id).filter((id) => !bodies.has(id)),
    spec.withText,
  );
  const hits: SearchHit[] = [];
  for (const p of picked) {
    const body = bodies.get(p.members[0]!.id);
    const entity = body !== undefined ? identityOnly(p.members[0]!) : entities.get(p.members[0]!.id);
    if (!entity) continue;
    const hit: SearchHit = body !== undefined ? { entity, compact: body } : { entity };
    if (p.score !== undefined) hit.similarity_score = p.score;
    const o = others(p.members);
    if (o.length) hit.others = o;
    if (p.preferred) hit.preferred_version = version(p.preferred);
    hits.push(hit);
  }
  return hits;
}

const nameForms = new WeakMap<Database, boolean>();

/** Whether the store keeps each entity's name form (migration 8; an older store opened read-only does not): lists then group by it, else by the name (NOCASE). */
function hasNameForms(db: Database): boolean {
  let has = nameForms.get(db);
  if (has === undefined) {
    has = db.query<{ x: number }, []>("SELECT 1 AS x FROM sqlite_master WHERE type = 'index' AND name = 'entities_by_form'").get() !== null;
    nameForms.set(db, has);
  }
  return has;
}

/** The column a list groups by within a kind: the stored name form, or (old stores) the name. */
function groupColumn(db: Database): string {
  return hasNameForms(db) ? "e.name_form" : "e.name";
}

/** How many rows (or, collapsed, distinct kind + name form groups) match `where`; remembered per clause. */
function countOf(db: Database, where: WhereClause, groups: boolean): number {
  const sql = groups
    ? `SELECT COUNT(*) AS n FROM (SELECT 1 FROM entities e WHERE ${where.sql} GROUP BY e.kind, ${groupColumn(db)})`
    : `SELECT COUNT(*) AS n FROM entities e WHERE ${where.sql}`;
  return CACHES.totals.get(db, JSON.stringify([groups, where.sql, where.params]), () => db.query<{ n: number }, SqlValue[]>(sql).get(...where.params)?.n ?? 0);
}

/** The ids among `ids` that satisfy `where` (by rowid: NOT INDEXED keeps SQLite from scanning a filter's index instead). */
function satisfying(db: Database, where: WhereClause, ids: readonly number[]): Set<number> {
  if (ids.length === 0) return new Set();
  const rows = db
    .query<[number], SqlValue[]>(`SELECT e.id FROM entities e NOT INDEXED WHERE e.id ${ID_IN} AND (${where.sql})`)
    .values(idList(ids), ...where.params);
  return new Set(rows.map((r) => Number(r[0])));
}

const listingIndex = new WeakMap<Database, boolean>();

/** Whether the store has the covering listing index (migration 6; an older store opened read-only has not). */
function hasListingIndex(db: Database): boolean {
  let has = listingIndex.get(db);
  if (has === undefined) {
    has = db.query<{ x: number }, []>("SELECT 1 AS x FROM sqlite_master WHERE type = 'index' AND name = 'entities_listing'").get() !== null;
    listingIndex.set(db, has);
  }
  return has;
}

/**
 * The versions of the page's names that satisfy `where`, from the covering listing index: one seek
 * per name, no row read. By id the rows themselves are read, and the columns added after `text` and
 * `data` (dup_of, group_rank, derived filters) sit past those long values: SQLite walks their
 * overflow pages for each row (most of a new filter's first page, read from disk).
 */
function satisfyingOfNames(db: Database, where: WhereClause, names: ReadonlyArray<{ kind: string; name: string; name_form: string | null }>, all: readonly LightRow[]): Set<number> {
  if (hasNameForms(db)) {
    // By name form: one seek per page group in the (kind, name_form, …filters) index.
    const q = db.query<[number], SqlValue[]>(`SELECT e.id FROM entities e INDEXED BY entities_by_form WHERE e.kind = ? AND e.name_form = ? AND (${where.sql})`);
    const out = new Set<number>();
    for (const n of names) for (const r of q.values(n.kind, n.name_form ?? "", ...where.params)) out.add(Number(r[0]));
    return out;
  }
  if (!hasListingIndex(db)) return satisfying(db, where, all.map((r) => r.id));
  const q = db.query<[number], SqlValue[]>(`SELECT e.id FROM entities e INDEXED BY entities_listing WHERE e.kind = ? AND e.name = ? AND (${where.sql})`);
  const out = new Set<number>();
  for (const n of names) for (const r of q.values(n.kind, n.name, ...where.params)) out.add(Number(r[0]));
  return out;
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
    sql: `e.group_rank = 0 OR NOT EXISTS (SELECT 1 FROM entities o INDEXED BY entities_by_form WHERE o.kind = e.kind AND o.name_form = e.name_form AND o.group_rank < e.group_rank AND (${o.sql}))`,
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
 * is read through a filter index, checked and put in a temporary b-tree (~0.6 µs), a walked one is
 * read in the covering order index and skipped or kept (~0.17 µs).
 */
const SORT_WEIGHT = 3;

/**
 * `column` to order a page by first: as it is (SQLite may then walk the index that starts (kind,
 * column) and stop after the page: cheap when matches are dense) or as `+column` (same order, no
 * index: SQLite reads the matches through the filters' index and sorts them: cheap when they are
 * few). Walking reads about (offset + limit) × the kinds' rows ÷ total matches, sorting reads
 * `total` matches at SORT_WEIGHT each (creatures of CR 1, 175 of 3,300: walked 0.03 ms, sorted 0.11).
 */
function leadOrder(db: Database, total: number, spec: PageSpec, column: string): string {
  const rows = kindRows(db, spec.kinds);
  return (spec.offset + spec.limit) * rows < SORT_WEIGHT * total * total ? column : `+${column}`;
}

/**
 * At most this many matches are put in order here rather than by SQL. Ordered by `doc_rank`, SQL
 * wants an index holding it, and with no statistics it takes one that does over the (kind, name)
 * index a name lookup needs: every spell read to find "Fireball" (0.14 ms against 0.012). The few
 * matches are read through the index the filters pick (id, name and kind: every filter index
 * holds them), their documents by id (early columns of the row), and sorted by the same rank the
 * store keeps as doc_rank (store/canonical.ts).
 */
const ORDER_HERE = 64;

/** SQLite's NOCASE: ASCII letters folded, nothing else. */
const nocase = (s: string) => s.replace(/[A-Z]+/g, (m) => m.toLowerCase());
const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The page of `w`'s matches in (doc_rank, name, kind) order, sorted here; undefined when a name is
 * not ASCII (SQLite compares UTF-8 bytes, JavaScript UTF-16 units: SQL orders those).
 */
function orderedHere(db: Database, w: WhereClause, spec: PageSpec): GroupName[] | undefined {
  const forms = hasNameForms(db);
  const rows = db.query<{ id: number; name: string; kind: string }, SqlValue[]>(`SELECT e.id AS id, e.name AS name, e.kind AS kind FROM entities e WHERE ${w.sql}`).all(...w.params);
  if (rows.some((r) => /[^\x00-\x7f]/.test(r.name))) return undefined;
  const docs = new Map(
    db
      .query<{ id: number; document_key: string; document_source: string }, [string]>(`SELECT id, document_key, document_source FROM entities WHERE id ${ID_IN}`)
      .all(idList(rows.map((r) => r.id)))
      .map((d) => [d.id, d]),
  );
  return rows
    .map((r) => ({ r, rank: spec.rank(docs.get(r.id) ?? { document_key: "", document_source: "" }), name: nocase(r.name) }))
    .sort((a, b) => a.rank - b.rank || cmp(a.name, b.name) || cmp(a.r.kind, b.r.kind))
    .slice(spec.offset, spec.offset + spec.limit)
    // The stored name_form is nameForm(name) (store/canonical.ts): computed here, not read past the row's data.
    .map(({ r }) => ({ name: r.name, kind: r.kind, name_form: forms ? nameForm(r.name) : null }));
}

/**
 * The page's groups: kind and name of each, in the preference order of the version that answers
 * for the group, then name (stored ranks when they follow this preference, else GROUP BY).
 */
type GroupName = { name: string; kind: string; name_form: string | null };

function groupNames(db: Database, where: WhereClause, spec: PageSpec): { total: number; names: GroupName[] } {
  if (rankPreference(db) === spec.rank.id) {
    const w = andWhere(where, firstOfGroup(where));
    const total = countOf(db, w, false);
    if (spec.offset >= total) return { total, names: [] };
    const here = total <= ORDER_HERE ? orderedHere(db, w, spec) : undefined;
    if (here) return { total, names: here };
    const names = db
      .query<GroupName, SqlValue[]>(`SELECT e.name AS name, e.kind AS kind, e.name_form AS name_form FROM entities e WHERE ${w.sql} ORDER BY ${leadOrder(db, total, spec, "e.doc_rank")}, e.name, e.kind LIMIT ? OFFSET ?`)
      .all(...w.params, spec.limit, spec.offset);
    return { total, names };
  }
  const total = countOf(db, where, true);
  if (spec.offset >= total) return { total, names: [] };
  // SQLite takes the bare columns of a group from the row of its MIN(): the preferred version's name.
  const form = groupColumn(db);
  const names = db
    .query<GroupName, SqlValue[]>(
      `SELECT e.name AS name, e.kind AS kind, ${form === "e.name" ? "NULL" : form} AS name_form, MIN(${spec.rank.sql}) AS r FROM entities e WHERE ${where.sql} GROUP BY ${form}, e.kind ORDER BY r, e.name, e.kind LIMIT ? OFFSET ?`,
    )
    .all(...where.params, spec.limit, spec.offset);
  return { total, names };
}

/** A page of a structured (unranked) query. */
export function structuredPage(db: Database, where: WhereClause, spec: PageSpec): Page {
  if (spec.collapse) return collapsedPage(db, where, spec);
  const total = countOf(db, where, false);
  if (spec.offset >= total) return { total, hits: [] };
  const rows = db
    .query<LightRow, SqlValue[]>(`SELECT ${LIGHT} FROM entities e WHERE ${where.sql} ORDER BY ${leadOrder(db, total, spec, "e.name")}, ${spec.rank.sql}, lower(e.document_key), e.key LIMIT ? OFFSET ?`)
    .all(...where.params, spec.limit, spec.offset);
  return { total, hits: load(db, rows.map((r) => ({ members: [r] })), spec) };
}

/**
 * A collapsed page: the page's groups, then every version of those groups among the matches, in
 * preference order. A group is one kind and name form ("Horse, Draft" and "Draft Horse" are one
 * entry), or, in an old store without stored name forms, one kind and name.
 */
function collapsedPage(db: Database, where: WhereClause, spec: PageSpec): Page {
  const { total, names } = groupNames(db, where, spec);
  if (names.length === 0) return { total, hits: [] };
  // Every stored version of those groups (indexed), kept when it matches the filters too.
  const forms = hasNameForms(db);
  const keyOf: (r: { kind: string; name: string; name_form?: string | null }) => string = forms ? formKey : exactNameKey;
  const all: LightRow[] = forms ? sameFormRows(db, names.map((n) => ({ kind: n.kind, name_form: n.name_form ?? "" }))) : sameNameRows(db, () => true, names);
  const keep = satisfyingOfNames(db, where, names, all);
  const byGroup = new Map<string, LightRow[]>();
  for (const r of all) {
    if (!keep.has(r.id)) continue;
    const k = keyOf(r);
    const list = byGroup.get(k);
    if (list) list.push(r);
    else byGroup.set(k, [r]);
  }
  const every = spec.noteFallback ? byGroupKey(all, keyOf) : undefined;
  const picked = names.flatMap((n) => {
    const members = byGroup.get(keyOf(n));
    if (!members) return [];
    const ordered = orderMembers(members, spec.rank);
    const preferred = every ? preferredElsewhere(every, ordered, spec.rank, keyOf) : undefined;
    return [{ members: ordered, ...(preferred ? { preferred } : {}) }];
  });
  return { total, hits: load(db, picked, spec) };
}

/**
 * Equal scores in the preferred documents' order (the core SRD thing above a look-alike from
 * another book with the same score); the rest of the order is kept, and so are the score-1 hits
 * (whole-name matches, already in preference order). `xs` is best first.
 */
export function tiesPreferred<T>(xs: readonly T[], scoreOf: (x: T) => number, rankOf: (x: T) => number): T[] {
  return xs
    .map((x, i) => ({ x, i, s: scoreOf(x), r: rankOf(x) }))
    .sort((a, b) => b.s - a.s || (a.s >= 1 ? 0 : a.r - b.r) || a.i - b.i)
    .map((e) => e.x);
}

/**
 * At most `perKind` entries of one kind among the first `top` (Fusion.spread): an entry of a kind
 * already that often there waits, and the next entries of other kinds move up; then everything
 * else in rank order. An answer of one kind is left as it is. Pure.
 */
export function spreadKinds<T>(xs: readonly T[], spread: { top: number; perKind: number }, kindOf: (x: T) => string): T[] {
  if (new Set(xs.slice(0, 4 * spread.top).map(kindOf)).size < 2) return [...xs];
  const first: T[] = [];
  const rest: T[] = [];
  const count = new Map<string, number>();
  for (const x of xs) {
    const k = kindOf(x);
    if (first.length < spread.top && (count.get(k) ?? 0) < spread.perKind) {
      first.push(x);
      count.set(k, (count.get(k) ?? 0) + 1);
    } else rest.push(x);
  }
  return [...first, ...rest];
}

/** A page of a ranked query from its fused ranking (best first; search_all spreads kinds over the first places). */
export function rankedPage(db: Database, isCandidate: (id: number) => boolean, fused: ReadonlyArray<{ id: number; score: number }>, spec: PageSpec): Page {
  if (!spec.collapse) {
    const lightAll = new Map(lightRows(db, fused.map((f) => f.id)).map((r) => [r.id, r]));
    const page = tiesPreferred(fused, (f) => f.score, (f) => (lightAll.has(f.id) ? spec.rank(lightAll.get(f.id)!) : Number.MAX_SAFE_INTEGER)).slice(spec.offset, spec.offset + spec.limit);
    const light = lightAll;
    const picked = page.flatMap((f) => {
      const r = light.get(f.id);
      return r ? [{ members: [r], score: f.score }] : [];
    });
    return { total: fused.length, hits: load(db, picked, spec) };
  }
  const score = new Map(fused.map((f) => [f.id, f.score]));
  const light = new Map(lightRows(db, fused.map((f) => f.id)).map((r) => [r.id, r]));
  const ordered = fused.flatMap((f) => light.get(f.id) ?? []);
  // Grouping in rank order keeps each group where its best-ranked member is.
  const firstScore = (g: Group) => Math.max(...g.members.map((m) => score.get(m.id) ?? 0));
  const ranked = tiesPreferred(groupRows(ordered, spec.rank), firstScore, (g) => Math.min(...g.members.map((m) => spec.rank(m))));
  const groups = spec.spread ? spreadKinds(ranked, spec.spread, (g) => g.members[0]!.kind) : ranked;
  // Scores never increase down the list (as fused): an entry the spread moved down shows at most the score before it.
  const shown = new Map<Group, number>();
  let prev = Number.POSITIVE_INFINITY;
  for (const g of groups) {
    prev = Math.min(prev, firstScore(g));
    shown.set(g, prev);
  }
  const page = groups.slice(spec.offset, spec.offset + spec.limit);
  // Every version of the page's names among the candidates (some ranked too deep to be in `fused`):
  // every name form a group holds, in every kind of its family.
  const all = sameNameRows(
    db,
    isCandidate,
    page.flatMap((g) => g.members),
    true,
  );
  const byGroup = new Map<string, LightRow[]>();
  for (const r of all) {
    const k = groupKey(r);
    const list = byGroup.get(k);
    if (list) list.push(r);
    else byGroup.set(k, [r]);
  }
  // Every stored version of those names, matching or not: is a more preferred one left out?
  const every = spec.noteFallback ? byGroupKey(sameNameRows(db, () => true, page.flatMap((g) => g.members), true), groupKey) : undefined;
  const picked = page.map((g) => {
    const members = byGroup.get(groupKey(g.members[0]!));
    const ordered = members ? orderMembers(members, spec.rank) : g.members;
    const preferred = every ? preferredElsewhere(every, ordered, spec.rank, groupKey) : undefined;
    return { members: ordered, score: shown.get(g)!, ...(preferred ? { preferred } : {}) };
  });
  return { total: groups.length, hits: load(db, picked, spec) };
}
