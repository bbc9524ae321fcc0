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
 *               (The groups, their order and `total`: page-order.ts.)
 *   ranked:     the fused ranking, grouped by name form in rank order (a group ranks where its
 *               best member does; its score is that member's), sliced; each page group then shows
 *               its preferred version among all candidates of its names ("Horse, Draft" and
 *               "Draft Horse" are one entry; collapse.ts). Without collapsing, the
 *               fused list itself.
 */
import type { Database } from "bun:sqlite";
import { duplicatesOf } from "../../store/duplicates.ts";
import { getEntitiesByIds } from "../../store/entities.ts";
import { ID_IN, idList } from "../../store/id-list.ts";
import {
  exactNameKey,
  formKey,
  type Group,
  type LightRow,
  groupKey,
  groupRows,
  LIGHT,
  lightRows,
  orderMembers,
  sameFormRows,
  sameNameRows,
} from "./collapse.ts";
import { entitiesOf, type SqlValue, type WhereClause } from "../filter/filters.ts";
import type { DocumentRank } from "./preference.ts";
import type { DocumentSource, Entity, EntityKind } from "../../entities/types.ts";
import type { OtherVersion, SearchHit } from "../types.ts";
import { countOf, exactNameGroups, groupNames, hasNameForms, leadOrder, type PageSpec } from "./page-order.ts";
import { hasIndex } from "../../store/db.ts";

export type { PageSpec } from "./page-order.ts";

export interface Page {
  hits: SearchHit[];
  total: number;
}

function others(members: readonly LightRow[]): OtherVersion[] {
  return members.slice(1).map(version);
}

const version = (m: LightRow): OtherVersion => ({
  kind: m.kind,
  key: m.key,
  document_key: m.document_key,
  document_source: m.document_source,
});

/** The most preferred of every stored version of `members`' name, when it is not among them (it did not match). */
function preferredElsewhere(
  every: ReadonlyMap<string, LightRow[]>,
  members: readonly LightRow[],
  rank: DocumentRank,
  keyOf: (r: LightRow) => string,
): LightRow | undefined {
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
  return {
    id: r.id,
    kind: r.kind as EntityKind,
    key: r.key,
    name: r.name,
    document_key: r.document_key,
    document_name: "",
    document_source: r.document_source as DocumentSource,
    source_url: "",
    text: "",
    filters: {},
    data: {},
  };
}

/** The entities of a hit's copies (ids from duplicatesOf), as read. */
function copiesOf(
  ids: readonly number[] | undefined,
  entities: ReadonlyMap<number, Entity & { id: number }>,
): Array<Entity & { id: number }> {
  const out: Array<Entity & { id: number }> = [];
  for (const id of ids ?? []) {
    const e = entities.get(id);
    if (e) out.push(e);
  }
  return out;
}

/**
 * Load the entities of `picked` (in order) and attach scores and other versions; with compact bodies, only the rest is
 * read.
 */
function load(
  db: Database,
  picked: ReadonlyArray<{ members: readonly LightRow[]; score?: number; preferred?: LightRow }>,
  spec: Pick<PageSpec, "withText" | "compactBody">,
): SearchHit[] {
  const bodies = new Map<number, string>();
  if (spec.compactBody) {
    for (const p of picked) {
      const body = spec.compactBody(p.members[0]!.id);
      if (body !== undefined) bodies.set(p.members[0]!.id, body);
    }
  }
  // The entries to read, and their same-document copies (presentHits merges them) in the same statement.
  const ids = picked.map((p) => p.members[0]!.id).filter((id) => !bodies.has(id));
  const copies = duplicatesOf(db, ids);
  const entities = getEntitiesByIds(db, copies.size ? [...ids, ...[...copies.values()].flat()] : ids, spec.withText);
  const hits: SearchHit[] = [];
  for (const p of picked) {
    const body = bodies.get(p.members[0]!.id);
    const entity = body !== undefined ? identityOnly(p.members[0]!) : entities.get(p.members[0]!.id);
    if (!entity) continue;
    const hit: SearchHit =
      body !== undefined
        ? { entity, compact: body }
        : { entity, duplicates: copiesOf(copies.get(entity.id), entities) };
    if (p.score !== undefined) hit.similarity_score = p.score;
    const o = others(p.members);
    if (o.length) hit.others = o;
    if (p.preferred) hit.preferred_version = { ...version(p.preferred), name: p.preferred.name, because: "filters" };
    hits.push(hit);
  }
  return hits;
}

/**
 * The ids among `ids` that satisfy `where` (by rowid: NOT INDEXED keeps SQLite from scanning a filter's index instead).
 */
function satisfying(db: Database, where: WhereClause, ids: readonly number[]): Set<number> {
  if (ids.length === 0) return new Set();
  const rows = db
    .query<[number], SqlValue[]>(`SELECT e.id FROM entities e NOT INDEXED WHERE e.id ${ID_IN} AND (${where.sql})`)
    .values(idList(ids), ...where.params);
  return new Set(rows.map((r) => Number(r[0])));
}

/**
 * The versions of the page's names that satisfy `where`, in a store without stored name forms:
 * from the covering listing index, one seek per name, no row read. By id the rows themselves are
 * read, and the columns added after `text` and `data` (dup_of, group_rank, derived filters) sit
 * past those long values: SQLite walks their overflow pages for each row (most of a new filter's
 * first page, read from disk).
 */
function satisfyingOfNames(
  db: Database,
  where: WhereClause,
  names: ReadonlyArray<{ kind: string; name: string }>,
  all: readonly LightRow[],
): Set<number> {
  if (!hasIndex(db, "entities_listing"))
    return satisfying(
      db,
      where,
      all.map((r) => r.id),
    );
  const q = db.query<[number], SqlValue[]>(
    `SELECT e.id FROM entities e INDEXED BY entities_listing WHERE e.kind = ? AND e.name = ? AND (${where.sql})`,
  );
  const out = new Set<number>();
  for (const n of names) for (const r of q.values(n.kind, n.name, ...where.params)) out.add(Number(r[0]));
  return out;
}

/**
 * A page of a structured (unranked) query. Uncollapsed, in name, preference, document and key
 * order, then kind and id: one document can file the same key under two kinds (the SRD's
 * "Acolyte" background and creature), and their order must not depend on how SQLite reads the
 * rows (by id or along an index).
 */
export function structuredPage(db: Database, where: WhereClause, spec: PageSpec): Page {
  if (spec.collapse) return collapsedPage(db, where, spec);
  const total = countOf(db, where, false);
  if (spec.offset >= total) return { total, hits: [] };
  const rows = db
    .query<LightRow, SqlValue[]>(
      `SELECT ${LIGHT} FROM ${entitiesOf(where)} WHERE ${where.sql} ORDER ` +
        `BY ${leadOrder(db, total, spec, "e.name")}, ${spec.rank.sql}, lower(e.document_key), e.key, e.kind, ` +
        `e.id LIMIT ? OFFSET ?`,
    )
    .all(...where.params, spec.limit, spec.offset);
  return {
    total,
    hits: load(
      db,
      rows.map((r) => ({ members: [r] })),
      spec,
    ),
  };
}

/**
 * A collapsed page: the page's groups, then every version of those groups among the matches, in
 * preference order. A group is one kind and name form ("Horse, Draft" and "Draft Horse" are one
 * entry), or, in an old store without stored name forms, one kind and name.
 */
function collapsedPage(db: Database, where: WhereClause, spec: PageSpec): Page {
  const forms = hasNameForms(db);
  // A lookup by exact name: its groups and their versions from one statement.
  const exact = forms && spec.exactName !== undefined ? exactNameGroups(db, where, spec, spec.exactName) : undefined;
  const { total, names } = exact ?? groupNames(db, where, spec);
  if (names.length === 0) return { total, hits: [] };
  // Every stored version of those groups (indexed), kept when it matches the filters too.
  const keyOf: (r: { kind: string; name: string; name_form?: string | null }) => string = forms
    ? formKey
    : exactNameKey;
  let all: LightRow[];
  let keep: Set<number>;
  if (forms) {
    // With whether each matches the filters, in the same read (the same index range).
    const rows =
      exact?.rows ??
      sameFormRows(
        db,
        names.map((n) => ({ kind: n.kind, name_form: n.name_form ?? "" })),
        where,
      );
    all = rows;
    keep = new Set(rows.filter((r) => r.ok).map((r) => r.id));
  } else {
    all = sameNameRows(db, () => true, names);
    keep = satisfyingOfNames(db, where, names, all);
  }
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
export function spreadKinds<T>(
  xs: readonly T[],
  spread: { top: number; perKind: number },
  kindOf: (x: T) => string,
): T[] {
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
export function rankedPage(
  db: Database,
  isCandidate: (id: number) => boolean,
  fused: ReadonlyArray<{ id: number; score: number }>,
  spec: PageSpec,
): Page {
  if (!spec.collapse) {
    const lightAll = new Map(
      lightRows(
        db,
        fused.map((f) => f.id),
      ).map((r) => [r.id, r]),
    );
    const page = tiesPreferred(
      fused,
      (f) => f.score,
      (f) => (lightAll.has(f.id) ? spec.rank(lightAll.get(f.id)!) : Number.MAX_SAFE_INTEGER),
    ).slice(spec.offset, spec.offset + spec.limit);
    const light = lightAll;
    const picked = page.flatMap((f) => {
      const r = light.get(f.id);
      return r ? [{ members: [r], score: f.score }] : [];
    });
    return { total: fused.length, hits: load(db, picked, spec) };
  }
  const score = new Map(fused.map((f) => [f.id, f.score]));
  const light = new Map(
    lightRows(
      db,
      fused.map((f) => f.id),
    ).map((r) => [r.id, r]),
  );
  const ordered = fused.flatMap((f) => light.get(f.id) ?? []);
  // Grouping in rank order keeps each group where its best-ranked member is.
  const firstScore = (g: Group) => Math.max(...g.members.map((m) => score.get(m.id) ?? 0));
  const ranked = tiesPreferred(groupRows(ordered, spec.rank), firstScore, (g) =>
    Math.min(...g.members.map((m) => spec.rank(m))),
  );
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
  const every = spec.noteFallback
    ? byGroupKey(
        sameNameRows(
          db,
          () => true,
          page.flatMap((g) => g.members),
          true,
        ),
        groupKey,
      )
    : undefined;
  const picked = page.map((g) => {
    const members = byGroup.get(groupKey(g.members[0]!));
    const ordered = members ? orderMembers(members, spec.rank) : g.members;
    const preferred = every ? preferredElsewhere(every, ordered, spec.rank, groupKey) : undefined;
    return { members: ordered, score: shown.get(g)!, ...(preferred ? { preferred } : {}) };
  });
  return { total: groups.length, hits: load(db, picked, spec) };
}
