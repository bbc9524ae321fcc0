/**
 * `runSearch`: the single entry point of the search layer (MCP tools and the CLI call it).
 * Filters (filter/) narrow the candidates; without `search` the matches are listed in document
 * preference order (rank/page.ts); with it the lexical and vector legs are fused by the calling
 * tool's constants (rank/fusion.ts), whole-name matches first. An empty answer says why (explain.ts).
 * `ranking: "lexical" | "vector"` (evaluation only) ranks by one leg alone, without the name boost.
 */
import type { Database } from "bun:sqlite";
import { log } from "../log.ts";
import { documentKeys } from "../store/documents.ts";
import { isCorruption } from "../store/repair.ts";
import { CACHES } from "../store/caches.ts";
import { pinVersion } from "../store/version-cache.ts";
import { ID_IN, idList } from "../store/id-list.ts";
import { type CandidateSet, candidateSet } from "./filter/candidates.ts";
import { LIGHT, type LightRow } from "./rank/collapse.ts";
import { type Page, rankedPage as pageOfRanking, structuredPage } from "./rank/page.ts";
import type { PageSpec } from "./rank/page-order.ts";
import { comparePreferred, type DocumentRank, documentRank, OFFICIAL_SRDS } from "../entities/preference.ts";
import type { SearchContext } from "./context.ts";
import { resolveDocuments } from "./filter/documents-filter.ts";
import { andWhere, buildFilterWhere, nocase, type SqlValue, type WhereClause } from "./filter/filters.ts";
import { type EntityKind, HOMEBREW_SQL } from "../entities/types.ts";
import { analyzeQuery, lexicalSearch, semanticText, type LexicalHit } from "./rank/lexical.ts";
import { explainFilters, explainName } from "./rank/explain.ts";
import { resolveName } from "./filter/names.ts";
import { presentHits } from "./rank/present.ts";
import { semanticLeg } from "./rank/semantic-leg.ts";
import { preferCounterparts } from "./rank/counterparts.ts";
import { DEFAULT_FUSION, fusionFor } from "./rank/fusion.ts";
import type { FusionMethod, SearchHit, SearchMode, SearchQuery, SearchResponse, StructuredFilters } from "./types.ts";

/** How deep each leg looks: enough for fusion to matter (a hit one leg ranks 80th still counts), bounded for speed. */
export function legDepth(limit: number): number {
  return Math.min(1000, Math.max(100, limit * 3));
}

/**
 * Fuse ranked id lists by `method` (FusionMethod; convex reads `scores`, higher is better), pure.
 * `exact` ids (whole-query name matches) come first with score 1. A list's weight counts towards the
 * best possible score only if the list is non-empty, so a result ranked first by every leg that found
 * anything scores 1. Scores never increase down the list; ties keep the better single-leg rank, then the smaller id.
 */
export function fuseRankings(
  lists: ReadonlyArray<{ ids: readonly number[]; weight: number; scores?: readonly number[] }>,
  exact: readonly number[] = [],
  k = DEFAULT_FUSION.k,
  /** Multiplier of an id's fused score (the core prior: official SRD entries); 1 when absent. */
  prior?: (id: number) => number,
  method: FusionMethod = "rrf",
): Array<{ id: number; score: number }> {
  const fused = new Map<number, { rrf: number; best: number }>();
  let maxPossible = 0;
  for (const { ids, weight, scores } of lists) {
    if (ids.length === 0 || weight <= 0) continue;
    const convex = method === "convex" && scores !== undefined && scores.length === ids.length;
    const lo = convex ? Math.min(...scores) : 0;
    const hi = convex ? Math.max(...scores) : 0;
    maxPossible += convex ? weight : weight / (k + 1);
    ids.forEach((id, i) => {
      const cur = fused.get(id) ?? { rrf: 0, best: Number.POSITIVE_INFINITY };
      cur.rrf += convex ? weight * (hi > lo ? (scores[i]! - lo) / (hi - lo) : 1) : weight / (k + i + 1);
      cur.best = Math.min(cur.best, i + 1);
      fused.set(id, cur);
    });
  }
  if (prior) {
    // The best possible score is a first place in every leg with the highest prior present.
    let top = 1;
    for (const [id, f] of fused) {
      const p = prior(id);
      f.rrf *= p;
      top = Math.max(top, p);
    }
    maxPossible *= top;
  }
  const exactSet = new Set(exact);
  const ranked = [...fused.entries()].filter(([id]) => !exactSet.has(id));
  ranked.sort(([ia, a], [ib, b]) => b.rrf - a.rrf || a.best - b.best || ia - ib);
  const exactFirst = [...exactSet].sort((a, b) => (fused.get(b)?.rrf ?? 0) - (fused.get(a)?.rrf ?? 0) || a - b);
  const out = exactFirst.map((id) => ({ id, score: 1 }));
  let prev = 1;
  for (const [id, f] of ranked) {
    const s = Math.min(prev, maxPossible > 0 ? Math.min(1, f.rrf / maxPossible) : 0);
    const rounded = Math.round(s * 10_000) / 10_000;
    out.push({ id, score: rounded });
    prev = rounded;
  }
  return out;
}

function respond(page: Page, mode: SearchMode, messages: string[]): SearchResponse {
  const message = [...new Set(messages)].join(" ");
  return { hits: page.hits, total: page.total, mode, ...(message ? { message } : {}) };
}

/**
 * Candidates whose name equals `query` (case-insensitively), in document preference order,
 * at most 50: read through the (kind, name, document_key, key) index, then kept by the candidate
 * bitmap, so that a range filter cannot make SQLite walk its own index instead.
 */
function exactNameIds(
  db: Database,
  kinds: readonly EntityKind[],
  candidates: CandidateSet,
  query: string,
  rank: DocumentRank,
): number[] {
  const rows = db
    .query<LightRow, SqlValue[]>(
      `SELECT ${LIGHT} FROM entities e WHERE e.kind IN (${kinds.map(() => "?").join(",")}) AND e.name = ?`,
    )
    .all(...kinds, query);
  return rows
    .filter((r) => candidates.has(r.id))
    .map((r) => ({ ...r, document_key: nocase(r.document_key) }))
    .sort(comparePreferred(rank))
    .slice(0, 50)
    .map((r) => r.id);
}

/**
 * The core prior: the entries of the official SRDs, of any document the server prefers, and the
 * user's own imports (OrcBrew) get their fused score × (1 + boost), so the SRD's Cyclops ranks above
 * a look-alike from another published book that the legs rate about the same, while a homebrew
 * spell the user asks for is not pushed down by SRD spells. Undefined when the boost is 0.
 */
function corePrior(
  db: Database,
  lists: ReadonlyArray<{ ids: readonly number[] }>,
  rank: DocumentRank,
  boost: number,
  editionBoost = 0,
): ((id: number) => number) | undefined {
  if (!(boost > 0) && !(editionBoost > 0)) return undefined;
  const ids = [...new Set(lists.flatMap((l) => l.ids))];
  const docs = [...new Set([...rank.preferred, ...OFFICIAL_SRDS])];
  const edition = preferredSrd(rank);
  const rows = db
    .query<[number, string], SqlValue[]>(
      `SELECT e.id, lower(e.document_key) FROM entities e WHERE e.id ${ID_IN}` +
        ` AND (lower(e.document_key) IN (${docs.map(() => "?").join(",")}) OR e.document_source IN ${HOMEBREW_SQL})`,
    )
    .values(idList(ids), ...docs);
  const core = 1 + Math.max(0, boost);
  const prior = new Map(
    rows.map(([id, doc]) => [Number(id), core * (doc === edition ? 1 + Math.max(0, editionBoost) : 1)]),
  );
  return (id) => prior.get(id) ?? 1;
}

/**
 * Why each hit's preferred version is not shown: another name (a lookup by the other edition's
 * name), else the filters; with neither (no filter given, same name) there is nothing to say.
 */
function explainPreferred(hits: SearchHit[], filters: StructuredFilters | undefined): SearchHit[] {
  const filtered = Object.values(filters ?? {}).some((v) => v !== undefined && v !== null);
  for (const h of hits) {
    const p = h.preferred_version;
    if (!p) continue;
    if (p.name.toLowerCase() !== h.entity.name.toLowerCase()) p.because = "name";
    else if (filtered) p.because = "filters";
    else delete h.preferred_version;
  }
  return hits;
}

/** The SRD of the preferred edition: the first SRD the preference names, else the newest. */
function preferredSrd(rank: DocumentRank): string {
  return rank.preferred.find((d) => (OFFICIAL_SRDS as readonly string[]).includes(d)) ?? OFFICIAL_SRDS[0];
}

async function rankedPage(
  ctx: SearchContext,
  q: SearchQuery,
  where: WhereClause,
  spec: PageSpec,
  search: string,
  messages: string[],
  /** What the caller does to the page (presentHits), in the same synchronous step as the page itself. */
  finish: (r: SearchResponse) => SearchResponse,
): Promise<SearchResponse> {
  const db = ctx.store.db;
  const ranking = q.ranking ?? "hybrid";
  const hybrid = ranking === "hybrid";
  const depth = legDepth(spec.limit);
  // The store's version is read once for each synchronous half, before the query embedding (the pin
  // of runSearch, which this step runs in) and after it (below).
  const analysis = analyzeQuery(db, search);
  if (analysis.corrected.size || analysis.completed.size) {
    log.debug("search: query words fixed", {
      corrected: Object.fromEntries(analysis.corrected),
      completed: Object.fromEntries(analysis.completed),
    });
  }
  // The candidates once, for both legs and the name boost.
  const candidates = candidateSet(db, where);
  const fixed = semanticText(analysis);
  const semantic = ranking === "lexical" ? null : semanticLeg(ctx, fixed, depth, candidates);
  let lexical: LexicalHit[] = [];
  if (ranking !== "vector") {
    try {
      lexical = lexicalSearch(db, where, analysis, depth, { candidates, cache: true });
    } catch (err) {
      // Damaged search tables must surface (doctor --repair fixes them), never a silent empty answer.
      if (isCorruption(err)) throw err;
      log.warn("lexical search failed", err);
      messages.push("Keyword ranking failed for this query (see the server log); results are ranked by meaning only.");
    }
  }
  const nameIds = (text: string) => (hybrid ? exactNameIds(db, q.kinds, candidates, text, spec.rank) : []);
  let exact = nameIds(search);
  if (exact.length === 0 && fixed !== search) exact = nameIds(fixed);
  const sem = semantic ? await semantic : null;
  const vector = sem?.ok ? sem.neighbors : [];
  const off = sem?.ok === false ? sem.reason : undefined;
  if (off !== undefined) messages.push(`Semantic ranking is off (${off}); results are ranked by keyword match only.`);
  const mode: SearchMode = ranking === "lexical" || off !== undefined ? "lexical" : "hybrid";
  const fusion = fusionFor(q.profile, ctx.fusion);
  const lists = [
    { ids: lexical.map((h) => h.id), weight: fusion.lexicalWeight, scores: lexical.map((h) => -h.bm25) },
    { ids: vector.map((n) => n.id), weight: fusion.vectorWeight, scores: vector.map((n) => n.similarity) },
  ];
  return pinVersion(db, () => {
    const prior = hybrid ? corePrior(db, lists, spec.rank, fusion.coreBoost, fusion.editionBoost) : undefined;
    let fused = fuseRankings(lists, exact, fusion.k, prior, hybrid ? fusion.method : "rrf");
    // The tools with an edition prior (search_rule) also put the preferred edition's counterpart first.
    if (hybrid && (fusion.editionBoost ?? 0) > 0) {
      fused = preferCounterparts(db, fused, preferredSrd(spec.rank), OFFICIAL_SRDS);
    }
    const spread = hybrid ? fusion.spread : undefined;
    const page = pageOfRanking(db, (id) => candidates.has(id), fused, spread ? { ...spec, spread } : spec);
    return finish(respond(page, mode, messages));
  });
}

/** Run one search. Never throws for bad input: impossible filters give an empty result + message. */
export async function runSearch(ctx: SearchContext, q: SearchQuery): Promise<SearchResponse> {
  // All of a structured search, and a ranked one up to its query embedding, with the store's version read once.
  return pinVersion(ctx.store.db, () => planSearch(ctx, q));
}

/** runSearch's work: the answer, or (with `search`) the ranking, which waits for the query embedding. */
function planSearch(ctx: SearchContext, q: SearchQuery): SearchResponse | Promise<SearchResponse> {
  const db = ctx.store.db;
  const search = (q.search ?? "").trim();
  const messages: string[] = [];
  const emptyMode: SearchMode = search ? "lexical" : "structured";
  const empty = (msg?: string): SearchResponse =>
    respond({ hits: [], total: 0 }, emptyMode, msg ? [...messages, msg] : messages);

  const limit = Math.floor(q.limit);
  if (!Number.isFinite(limit) || limit < 1)
    return empty(`limit must be a whole number of at least 1 (got ${q.limit}).`);
  if (q.kinds.length === 0) return empty("No content types were selected, so nothing can match.");

  const docs = resolveDocuments(q.documents, q.documents ? CACHES.documentKeys.get(db, () => documentKeys(db)) : []);
  if (docs.message) messages.push(docs.message);
  if (docs.keys !== null && docs.keys.length === 0) return empty();

  const filtered = buildFilterWhere(q.kinds, q.filters, docs.keys);
  if (!filtered.ok) return empty(filtered.message);
  let where = filtered.where;

  const name = q.name?.trim() ? q.name : undefined;
  let exactName: string | undefined;
  if (name !== undefined) {
    const step = resolveName(db, where, name, q.kinds);
    if (!step) {
      // Did the name or the filters empty it?
      const unfiltered = buildFilterWhere(q.kinds, undefined, docs.keys);
      // Without filters (no clause of their own) it is the same question again: the same (empty) answer.
      const same = unfiltered.ok && unfiltered.where.sql === where.sql;
      const alone = unfiltered.ok && !same ? resolveName(db, unfiltered.where, name, q.kinds) : null;
      const why = alone
        ? explainFilters(db, {
            kinds: q.kinds,
            filters: q.filters ?? {},
            documentKeys: docs.keys,
            name: { text: name, clause: alone.clause },
          })
        : explainName(db, { kinds: q.kinds, filters: {}, documentKeys: docs.keys }, name);
      return empty(why);
    }
    where = andWhere(where, step.clause);
    exactName = step.literal;
  }

  // Without a documents filter, a thing shown from a less preferred document says so (rows: edition_note).
  const noDocuments = q.documents === undefined || q.documents === null;
  const page: PageSpec = {
    offset: Math.max(0, Math.floor(q.offset ?? 0)) || 0,
    limit,
    collapse: q.collapse ?? false,
    rank: documentRank(q.prefer),
    kinds: q.kinds,
    withText: !q.omitText,
    noteFallback: q.collapse === true && noDocuments,
    named: name !== undefined,
    ...(exactName !== undefined ? { exactName } : {}),
    // Bodies are made as tool answers present rows (one wording: omitText).
    ...(q.compactBody && noDocuments && q.omitText ? { compactBody: q.compactBody } : {}),
  };
  // What each hit answers with: its same-document copies' extra fields, one wording (present.ts).
  const present = { documents: docs.keys, prefer: q.prefer, compact: q.omitText === true };
  const shown = (r: SearchResponse): SearchResponse => ({
    ...r,
    hits: explainPreferred(presentHits(db, r.hits, present), q.filters),
  });
  // Filters that leave nothing: which one emptied the set.
  const explainEmpty = (filters: StructuredFilters) => {
    const why = explainFilters(db, { kinds: q.kinds, filters, documentKeys: docs.keys });
    if (why) messages.push(why);
  };
  if (!search) {
    const res = structuredPage(db, where, page);
    if (res.total === 0 && q.filters) explainEmpty(q.filters);
    return shown(respond(res, "structured", messages));
  }
  if (q.filters && candidateSet(db, where).size === 0) explainEmpty(q.filters);
  return rankedPage(ctx, q, where, page, search, messages, shown);
}
