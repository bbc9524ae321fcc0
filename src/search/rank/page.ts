/**
 * Pages of an answer: `total`, `offset`, and one canonical entry per thing (collapse.ts).
 * Structured: the page's groups (kind + name form: "Horse, Draft" = "Draft Horse") in the document
 * preference order of the version answering for each, then name (page-order.ts), then every version
 * of those groups among the matches. Ranked: the fused ranking grouped in rank order (a group ranks
 * where its best member does), sliced, each group showing its preferred version among all
 * candidates. Without collapsing: the matches themselves.
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
  sameFormRows,
  sameNameRows,
} from "./collapse.ts";
import { entitiesOf, type SqlValue, type WhereClause } from "../filter/filters.ts";
import { comparePreferred, type DocumentRank } from "../../entities/preference.ts";
import type { DocumentSource, Entity, EntityKind } from "../../entities/types.ts";
import type { OtherVersion, SearchHit } from "../types.ts";
import { countOf, exactNameGroups, groupNames, hasNameForms, leadOrder, type PageSpec } from "./page-order.ts";

export interface Page {
  hits: SearchHit[];
  total: number;
}

const version = (m: LightRow): OtherVersion => ({
  kind: m.kind,
  key: m.key,
  document_key: m.document_key,
  document_source: m.document_source,
});

/** A group's `members` in preference order, and the most preferred of `every` version when it is not among them. */
function versionsOf(
  members: LightRow[],
  every: ReadonlyMap<string, LightRow[]> | undefined,
  key: string,
  rank: DocumentRank,
): { members: LightRow[]; preferred?: LightRow } {
  const ordered = members.sort(comparePreferred(rank));
  const all = every?.get(key);
  if (!all) return { members: ordered };
  const best = [...all].sort(comparePreferred(rank))[0]!;
  const shown = ordered.some((m) => m.id === best.id) || rank(best) >= rank(ordered[0]!);
  return shown ? { members: ordered } : { members: ordered, preferred: best };
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

/** Load the entities of `picked` (in order) with scores and other versions; with compact bodies, only the rest. */
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
        : { entity, duplicates: (copies.get(entity.id) ?? []).flatMap((id) => entities.get(id) ?? []) };
    if (p.score !== undefined) hit.similarity_score = p.score;
    const o = p.members.slice(1).map(version);
    if (o.length) hit.others = o;
    if (p.preferred) hit.preferred_version = { ...version(p.preferred), name: p.preferred.name, because: "filters" };
    hits.push(hit);
  }
  return hits;
}

/** The ids among `rows` that satisfy `where` (by rowid: NOT INDEXED keeps SQLite from scanning a filter's index). */
function satisfying(db: Database, where: WhereClause, rows: readonly LightRow[]): Set<number> {
  if (rows.length === 0) return new Set();
  const sql = `SELECT e.id FROM entities e NOT INDEXED WHERE e.id ${ID_IN} AND (${where.sql})`;
  const ids = db.query<[number], SqlValue[]>(sql).values(idList(rows.map((r) => r.id)), ...where.params);
  return new Set(ids.map((r) => Number(r[0])));
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
  const picked = rows.map((r) => ({ members: [r] }));
  return { total, hits: load(db, picked, spec) };
}

/** A collapsed structured page (as the header says); in an old store without stored name forms, groups are names. */
function collapsedPage(db: Database, where: WhereClause, spec: PageSpec): Page {
  const forms = hasNameForms(db);
  // A lookup by exact name: its groups and their versions from one statement.
  const exact = forms && spec.exactName !== undefined ? exactNameGroups(db, where, spec, spec.exactName) : undefined;
  const { total, names } = exact ?? groupNames(db, where, spec);
  if (names.length === 0) return { total, hits: [] };
  // Every stored version of those groups (indexed), kept when it matches the filters too.
  const keyOf = forms ? formKey : exactNameKey;
  let all: LightRow[];
  let kept: LightRow[];
  if (forms) {
    // With whether each matches the filters, in the same read (the same index range).
    const groups = names.map((n) => ({ kind: n.kind, name_form: n.name_form ?? "" }));
    const rows = exact?.rows ?? sameFormRows(db, groups, where);
    all = rows;
    kept = rows.filter((r) => r.ok);
  } else {
    all = sameNameRows(db, () => true, names);
    const keep = satisfying(db, where, all);
    kept = all.filter((r) => keep.has(r.id));
  }
  const byGroup = Map.groupBy(kept, keyOf);
  const every = spec.noteFallback ? Map.groupBy(all, keyOf) : undefined;
  const picked = names.flatMap((n) => {
    const members = byGroup.get(keyOf(n));
    return members ? [versionsOf(members, every, keyOf(n), spec.rank)] : [];
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
  const ids = fused.map((f) => f.id);
  const light = new Map(lightRows(db, ids).map((r) => [r.id, r]));
  if (!spec.collapse) {
    const rankOf = (f: { id: number }) => {
      const r = light.get(f.id);
      return r ? spec.rank(r) : Number.MAX_SAFE_INTEGER;
    };
    const page = tiesPreferred(fused, (f) => f.score, rankOf).slice(spec.offset, spec.offset + spec.limit);
    const picked = page.flatMap((f) => {
      const r = light.get(f.id);
      return r ? [{ members: [r], score: f.score }] : [];
    });
    return { total: fused.length, hits: load(db, picked, spec) };
  }
  const score = new Map(fused.map((f) => [f.id, f.score]));
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
  const members = page.flatMap((g) => g.members);
  const byGroup = Map.groupBy(sameNameRows(db, isCandidate, members, true), groupKey);
  // Every stored version of those names, matching or not: is a more preferred one left out?
  const every = spec.noteFallback
    ? Map.groupBy(
        sameNameRows(db, () => true, members, true),
        groupKey,
      )
    : undefined;
  const picked = page.map((g) => {
    const key = groupKey(g.members[0]!);
    return { ...versionsOf(byGroup.get(key) ?? g.members, every, key, spec.rank), score: shown.get(g)! };
  });
  return { total: groups.length, hits: load(db, picked, spec) };
}
