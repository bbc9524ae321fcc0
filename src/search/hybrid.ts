/**
 * `runSearch`: the single entry point of the search layer (MCP tools and the CLI call it).
 *
 *   1. documents → stored keys (decision 3); structured filters → WHERE over `entities e`;
 *      `name` (exact → key → slug → … see names.ts) narrows the candidates further.
 *   2. No `search` (empty/whitespace): the final page straight from SQL, ordered by name, then
 *      document_key, then key; exactly `limit` rows; no score. Mode "structured".
 *   3. With `search`: the lexical leg (FTS5/BM25, typo-tolerant) and the vector leg (query
 *      embedding with a timeout; exact cosine or HNSW) run over the same candidates and are fused
 *      by reciprocal rank fusion; candidates whose name equals the whole query (or, failing that,
 *      the query with typos corrected / cut-off words completed: "magik missle") go on top.
 *      `similarity_score` = fused score / best possible fused score (0..1), best first; exactly
 *      `limit` hits; `data` is loaded for those rows only. Mode "hybrid", or "lexical" (with a
 *      message saying why) when the vector leg cannot run.
 *   4. `ranking: "lexical" | "vector"` (evaluation only, `bun run eval`): one leg alone over the
 *      same candidates, without the name boost; scores as above over that one list.
 */
import type { Database } from "bun:sqlite";
import { log } from "../log.ts";
import { documentKeys } from "../store/documents.ts";
import { entitySelect, getEntitiesByIds, rowToEntity, type EntityRow } from "../store/entities.ts";
import { isCorruption } from "../store/repair.ts";
import { CACHES } from "../store/caches.ts";
import { type CandidateSet, candidateSet } from "./candidates.ts";
import type { SearchContext, Neighbor } from "./context.ts";
import { resolveDocuments } from "./documents-filter.ts";
import { andWhere, buildFilterWhere, type SqlValue, type WhereClause } from "./filters.ts";
import type { EntityKind } from "../entities/types.ts";
import { analyzeQuery, lexicalSearch, semanticText, type LexicalHit } from "./lexical.ts";
import { resolveName } from "./names.ts";
import { semanticLeg } from "./semantic-leg.ts";
import type { RankingMode, SearchHit, SearchMode, SearchQuery, SearchResponse } from "./types.ts";

export type { SearchContext } from "./context.ts";

/**
 * Reciprocal rank fusion constant: score = Σ weight / (RRF_K + rank). 20 rather than the usual
 * 60 lets a leg's first few places count more than a middling place in both legs; measured over
 * the real corpus with `bun run eval` (docs/eval.md): 15–25 rank alike, 60 pulls up "consensus"
 * hits that neither leg rates.
 */
export const RRF_K = 20;
export const LEXICAL_WEIGHT = 1.0;
export const VECTOR_WEIGHT = 1.0;

/**
 * How deep each leg looks: enough for fusion to matter (a hit one leg ranks 80th still counts),
 * bounded for speed.
 */
export function legDepth(limit: number): number {
  return Math.min(1000, Math.max(100, limit * 3));
}

export interface FusedHit {
  id: number;
  score: number;
}

/**
 * Fuse ranked id lists (pure). `exact` ids (whole-query name matches) come first with score 1.
 * Each list's weight counts towards the best possible score only if the list is non-empty, so a
 * result ranked first by every leg that found anything scores 1. Scores never increase down the
 * list; ties keep the better single-leg rank, then the smaller id.
 */
export function fuseRankings(lists: ReadonlyArray<{ ids: readonly number[]; weight: number }>, exact: readonly number[] = [], k = RRF_K): FusedHit[] {
  const fused = new Map<number, { rrf: number; best: number }>();
  let maxPossible = 0;
  for (const { ids, weight } of lists) {
    if (ids.length === 0 || weight <= 0) continue;
    maxPossible += weight / (k + 1);
    ids.forEach((id, i) => {
      const cur = fused.get(id) ?? { rrf: 0, best: Number.POSITIVE_INFINITY };
      cur.rrf += weight / (k + i + 1);
      cur.best = Math.min(cur.best, i + 1);
      fused.set(id, cur);
    });
  }
  const exactSet = new Set(exact);
  const ranked = [...fused.entries()].filter(([id]) => !exactSet.has(id));
  ranked.sort(([ia, a], [ib, b]) => b.rrf - a.rrf || a.best - b.best || ia - ib);
  const exactFirst = [...exactSet].sort((a, b) => (fused.get(b)?.rrf ?? 0) - (fused.get(a)?.rrf ?? 0) || a - b);
  const out: FusedHit[] = exactFirst.map((id) => ({ id, score: 1 }));
  let prev = 1;
  for (const [id, f] of ranked) {
    const s = Math.min(prev, maxPossible > 0 ? Math.min(1, f.rrf / maxPossible) : 0);
    const rounded = Math.round(s * 10_000) / 10_000;
    out.push({ id, score: rounded });
    prev = rounded;
  }
  return out;
}

function respond(hits: SearchHit[], mode: SearchMode, messages: string[]): SearchResponse {
  const message = [...new Set(messages)].join(" ");
  return message ? { hits, mode, message } : { hits, mode };
}

/** The page of a structured query: stable order by name, document_key, key; SQL LIMIT. */
function structuredPage(db: Database, where: WhereClause, limit: number, withText: boolean): SearchHit[] {
  return db
    .query<EntityRow, SqlValue[]>(`SELECT ${entitySelect(withText)} FROM entities e WHERE ${where.sql} ORDER BY e.name COLLATE NOCASE, e.document_key, e.key LIMIT ?`)
    .all(...where.params, limit)
    .map((row) => ({ entity: rowToEntity(row) }));
}

/** SQLite's NOCASE: ASCII letters folded, nothing else. */
function nocase(s: string): string {
  return s.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}

/**
 * Candidates whose name equals `query` (case-insensitively), ordered by document_key, then key,
 * at most 50: read through the (kind, name, document_key, key) index, then kept by the candidate
 * bitmap, so that a range filter cannot make SQLite walk its own index instead.
 */
function exactNameIds(db: Database, kinds: readonly EntityKind[], candidates: CandidateSet, query: string): number[] {
  const rows = db
    .query<[number, string, string], SqlValue[]>(`SELECT e.id, e.document_key, e.key FROM entities e WHERE e.kind IN (${kinds.map(() => "?").join(",")}) AND e.name = ?`)
    .values(...kinds, query) as Array<[number, string, string]>;
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return rows
    .filter((r) => candidates.has(r[0]))
    .map(([id, doc, key]) => ({ id, doc: nocase(doc), key }))
    .sort((a, b) => cmp(a.doc, b.doc) || cmp(a.key, b.key) || a.id - b.id)
    .slice(0, 50)
    .map((r) => r.id);
}

async function rankedPage(
  ctx: SearchContext,
  q: { where: WhereClause; kinds: readonly EntityKind[]; omitText?: boolean },
  search: string,
  limit: number,
  ranking: RankingMode,
  messages: string[],
): Promise<SearchResponse> {
  const db = ctx.store.db;
  const { where, kinds } = q;
  const depth = legDepth(limit);
  const analysis = analyzeQuery(db, search);
  if (analysis.corrected.size || analysis.completed.size) {
    log.debug("search: query words fixed", { corrected: Object.fromEntries(analysis.corrected), completed: Object.fromEntries(analysis.completed) });
  }
  // The candidates once, for both legs and the name boost.
  const candidates = candidateSet(db, where);
  const semantic = ranking === "lexical" ? null : semanticLeg(ctx, where, semanticText(analysis), depth, candidates);
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
  let exact: number[] = [];
  if (ranking === "hybrid") {
    exact = exactNameIds(db, kinds, candidates, search);
    const fixed = semanticText(analysis);
    if (exact.length === 0 && fixed !== search) exact = exactNameIds(db, kinds, candidates, fixed);
  }
  const sem = semantic ? await semantic : null;
  let vector: Neighbor[] = [];
  let mode: SearchMode = ranking === "lexical" ? "lexical" : "hybrid";
  if (sem?.ok) vector = sem.neighbors;
  else if (sem) {
    mode = "lexical";
    messages.push(`Semantic ranking is off (${sem.reason}); results are ranked by keyword match only.`);
  }
  const fused = fuseRankings(
    [
      { ids: lexical.map((h) => h.id), weight: LEXICAL_WEIGHT },
      { ids: vector.map((n) => n.id), weight: VECTOR_WEIGHT },
    ],
    exact,
  ).slice(0, limit);
  const entities = getEntitiesByIds(
    db,
    fused.map((f) => f.id),
    !q.omitText,
  );
  const hits: SearchHit[] = [];
  for (const f of fused) {
    const entity = entities.get(f.id);
    if (entity) hits.push({ entity, similarity_score: f.score });
  }
  return respond(hits, mode, messages);
}

/** Run one search. Never throws for bad input: impossible filters give an empty result + message. */
export async function runSearch(ctx: SearchContext, q: SearchQuery): Promise<SearchResponse> {
  const db = ctx.store.db;
  const search = (q.search ?? "").trim();
  const messages: string[] = [];
  const emptyMode: SearchMode = search ? "lexical" : "structured";
  const empty = (msg?: string): SearchResponse => respond([], emptyMode, msg ? [...messages, msg] : messages);

  const limit = Math.floor(q.limit);
  if (!Number.isFinite(limit) || limit < 1) return empty(`limit must be a whole number of at least 1 (got ${q.limit}).`);
  if (q.kinds.length === 0) return empty("No content types were selected, so nothing can match.");

  const docs = resolveDocuments(q.documents, q.documents ? CACHES.documentKeys.get(db, () => documentKeys(db)) : []);
  if (docs.message) messages.push(docs.message);
  if (docs.keys !== null && docs.keys.length === 0) return empty();

  const filtered = buildFilterWhere(q.kinds, q.filters, docs.keys);
  if (!filtered.ok) return empty(filtered.message);
  let where = filtered.where;

  if (q.name !== undefined && q.name.trim() !== "") {
    const step = resolveName(db, where, q.name);
    if (!step) return empty();
    where = andWhere(where, step.clause);
  }

  if (!search) return respond(structuredPage(db, where, limit, !q.omitText), "structured", messages);
  return rankedPage(ctx, { where, kinds: q.kinds, omitText: q.omitText }, search, limit, q.ranking ?? "hybrid", messages);
}
