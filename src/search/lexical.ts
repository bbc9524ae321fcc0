/**
 * The lexical leg: FTS5 over name + text, restricted to the filtered candidates, ranked by BM25
 * with the name weighted 10× the text. User input never reaches FTS5 syntax: it is cut into
 * letter/digit tokens, each quoted; tokens are ORed (more matching terms rank higher), tokens of
 * 3+ letters match as prefixes ("fire" → "fireball"). Typo tolerance: a token that is not the
 * start of any name word and is (nearly) absent from all texts is expanded with the closest name
 * words within 1–2 edits ("magik missle" → magic, missile).
 */
import type { Database } from "bun:sqlite";
import { andWhere, type SqlValue, type WhereClause } from "./filters.ts";
import { closestTerms, type VocabTerm } from "./fuzzy.ts";

export const NAME_WEIGHT = 10.0;
export const TEXT_WEIGHT = 1.0;
const MAX_TOKENS = 32;
/** Fewer hits than this over all texts (and no name word starting with it) → try corrections. */
const RARE_HITS = 3;

/** Short function words: kept as terms (they still count in BM25) but never used as prefixes. */
const STOPWORDS = new Set(["a", "an", "and", "are", "as", "at", "be", "by", "can", "for", "from", "has", "how", "in", "is", "it", "its", "of", "on", "or", "that", "the", "their", "them", "they", "this", "to", "was", "what", "when", "where", "which", "who", "with", "you", "your"]);

/** Lower-case, diacritics folded, letter/digit runs only, unique, at most 32. */
export function queryTokens(query: string): string[] {
  const folded = query.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase();
  const out: string[] = [];
  for (const m of folded.matchAll(/[\p{L}\p{N}]+/gu)) {
    if (!out.includes(m[0])) out.push(m[0]);
    if (out.length >= MAX_TOKENS) break;
  }
  return out;
}

/** One FTS5 string term: always double-quoted (so NEAR/AND/OR/NOT/`-`/`*` are plain text). */
export function ftsTerm(token: string, prefix: boolean): string {
  return `"${token.replace(/"/g, '""')}"${prefix ? "*" : ""}`;
}

function usePrefix(token: string): boolean {
  return [...token].length >= 3 && !STOPWORDS.has(token);
}

/**
 * Each group = a token and its corrections; every alternative of every group ORed, each both as a
 * whole word and (3+ letters, not a stopword) as a prefix, so "fire" ranks "Fire Bolt" above
 * "Fireball" but still finds both.
 */
export function buildFtsQuery(groups: readonly (readonly string[])[]): string {
  const terms: string[] = [];
  for (const g of groups) {
    for (const t of g) {
      // The whole word and the word as a prefix: a full-word match scores on both terms.
      terms.push(ftsTerm(t, false));
      if (usePrefix(t)) terms.push(ftsTerm(t, true));
    }
  }
  return terms.join(" OR ");
}

function hasNameWordStartingWith(db: Database, token: string): boolean {
  return db.query("SELECT 1 FROM names_vocab WHERE term >= ? AND term < ? LIMIT 1").get(token, `${token}\uffff`) !== null;
}

function textHits(db: Database, token: string): number {
  const row = db
    .query<{ n: number }, [string, number]>("SELECT count(*) AS n FROM (SELECT 1 FROM entities_fts WHERE entities_fts MATCH ? LIMIT ?)")
    .get(ftsTerm(token, usePrefix(token)), RARE_HITS);
  return row?.n ?? 0;
}

function vocabAround(db: Database, len: number, edits: number): VocabTerm[] {
  return db
    .query<VocabTerm, [number, number]>("SELECT term, doc FROM names_vocab WHERE length(term) BETWEEN ? AND ?")
    .all(Math.max(1, len - edits), len + edits);
}

/** token → closest name words, for the tokens that look misspelled. */
export function corrections(db: Database, tokens: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const t of tokens) {
    if (/\d/.test(t) || [...t].length < 4 || STOPWORDS.has(t)) continue;
    if (hasNameWordStartingWith(db, t)) continue;
    if (textHits(db, t) >= RARE_HITS) continue;
    const fixes = closestTerms(t, vocabAround(db, [...t].length, 2));
    if (fixes.length) out.set(t, fixes);
  }
  return out;
}

/** What the search layer makes of a query before ranking it. */
export interface QueryAnalysis {
  query: string;
  tokens: string[];
  /** Misspelled token → the closest name words (searched as well). */
  corrected: Map<string, string[]>;
  /** Token that is only the start of name words ("firebal") → the most common such word. */
  completed: Map<string, string>;
}

function completion(db: Database, token: string): string | undefined {
  if ([...token].length < 3 || STOPWORDS.has(token) || /\d/.test(token)) return undefined;
  if (db.query("SELECT 1 FROM names_vocab WHERE term = ?").get(token) !== null) return undefined;
  const row = db
    .query<{ term: string }, [string, string]>("SELECT term FROM names_vocab WHERE term > ? AND term < ? ORDER BY doc DESC, length(term), term LIMIT 1")
    .get(token, `${token}\uffff`);
  return row?.term;
}

/** Tokens, typo corrections and completions of `query` (a few cheap vocabulary lookups). */
export function analyzeQuery(db: Database, query: string): QueryAnalysis {
  const tokens = queryTokens(query);
  const corrected = corrections(db, tokens);
  const completed = new Map<string, string>();
  for (const t of tokens) {
    if (corrected.has(t)) continue;
    const c = completion(db, t);
    if (c) completed.set(t, c);
  }
  return { query, tokens, corrected, completed };
}

/**
 * The text to embed: the query itself, or — when words were misspelled or cut off — its tokens
 * with the best correction / completion ("magik missle" → "magic missile", "firebal" → "fireball"),
 * so the model sees words it knows.
 */
export function semanticText(a: QueryAnalysis): string {
  if (a.corrected.size === 0 && a.completed.size === 0) return a.query;
  return a.tokens.map((t) => a.corrected.get(t)?.[0] ?? a.completed.get(t) ?? t).join(" ");
}

export interface LexicalHit {
  id: number;
  /** BM25 as FTS5 reports it: lower (more negative) is better. */
  bm25: number;
}

/** Best `depth` candidates (rows of `entities e` satisfying `where`) for the query, best first. */
export function lexicalSearch(db: Database, where: WhereClause, query: QueryAnalysis | string, depth: number): LexicalHit[] {
  const a = typeof query === "string" ? analyzeQuery(db, query) : query;
  if (a.tokens.length === 0 || depth <= 0) return [];
  const match = buildFtsQuery(a.tokens.map((t) => [t, ...(a.corrected.get(t) ?? [])]));
  const w = andWhere(where);
  // CROSS JOIN keeps the FTS5 scan as the outer loop. With a plain JOIN and a range filter
  // (level_max, cr_max) SQLite drives from the entities index and re-runs the MATCH for every
  // candidate row: 0.7–2.4 s instead of ~10 ms on the full corpus (bench/, docs/benchmark.md).
  return db
    .query<LexicalHit, SqlValue[]>(
      `SELECT e.id AS id, bm25(entities_fts, ${NAME_WEIGHT}, ${TEXT_WEIGHT}) AS bm25
       FROM entities_fts CROSS JOIN entities e ON e.id = entities_fts.rowid
       WHERE entities_fts MATCH ? AND (${w.sql})
       ORDER BY bm25, e.id LIMIT ?`,
    )
    .all(match, ...w.params, Math.floor(depth));
}
