/**
 * The lexical leg: FTS5 over name + text, restricted to the filtered candidates, ranked by BM25
 * with the name weighted 10× the text. User input never reaches FTS5 syntax: it is cut into
 * letter/digit tokens, each quoted; English stop words ("what", "when", "I", "of"...) are dropped
 * when other words remain; tokens are ORed (more matching terms rank higher), tokens of 3+ letters
 * also match as prefixes ("fire" → "fireball").
 *
 * IDF over the candidates: FTS5's bm25() weighs a term by how rare it is in the whole store, but
 * the store mixes every kind — "hit points" is in every creature (IDF ≈ 0) yet picks one rule out
 * of 374. So each term is scored on its own (bm25() ÷ FTS5's own IDF = the term-frequency part,
 * length-normalized) and weighted by its IDF among the candidates of this query (the kinds and
 * filters asked for), then summed per entity: BM25 as if the candidates were the whole collection.
 *
 * Typo tolerance: a token that is not the start of any name word and is (nearly) absent from all
 * texts is expanded with the closest name words within 1–2 edits ("magik missle" → magic, missile).
 */
import type { Database } from "bun:sqlite";
import { andWhere, type SqlValue, type WhereClause } from "./filters.ts";
import { closestTerms, type VocabTerm } from "./fuzzy.ts";

export const NAME_WEIGHT = 10.0;
export const TEXT_WEIGHT = 1.0;
const MAX_TOKENS = 32;
/** Fewer hits than this over all texts (and no name word starting with it) → try corrections. */
const RARE_HITS = 3;

/**
 * English stop words (the NLTK list): not searched when other words remain ("what happens when I
 * fall" → fall, happens), never used as prefixes, never corrected or completed.
 */
export const STOPWORDS: ReadonlySet<string> = new Set(
  (
    "i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself it its itself " +
    "they them their theirs themselves what which who whom this that these those am is are was were be been being have has had " +
    "having do does did doing a an the and but if or because as until while of at by for with about against between into through " +
    "during before after above below to from up down in out on off over under again further then once here there when where why " +
    "how all any both each few more most other some such no nor not only own same so than too very s t can will just don should now"
  ).split(" "),
);

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
 * The FTS5 phrases of a query: each group = a token and its corrections; every alternative both
 * as a whole word and (3+ letters, not a stop word) as a prefix, so "fire" ranks "Fire Bolt"
 * above "Fireball" (a whole-word match scores on both phrases) but still finds both.
 */
export function ftsPhrases(groups: readonly (readonly string[])[]): string[] {
  const out = new Set<string>();
  for (const g of groups) {
    for (const t of g) {
      out.add(ftsTerm(t, false));
      if (usePrefix(t)) out.add(ftsTerm(t, true));
    }
  }
  return [...out];
}

/** The phrases ORed: the FTS5 query an entity must match to be ranked at all. */
export function buildFtsQuery(groups: readonly (readonly string[])[]): string {
  return ftsPhrases(groups).join(" OR ");
}

/** The tokens searched by keyword: the query's tokens without stop words (all of them when only stop words remain). */
export function contentTokens(tokens: readonly string[]): string[] {
  const content = tokens.filter((t) => !STOPWORDS.has(t));
  return content.length > 0 ? content : [...tokens];
}

function hasNameWordStartingWith(db: Database, token: string): boolean {
  return db.query("SELECT 1 FROM names_vocab WHERE term >= ? AND term < ? LIMIT 1").get(token, `${token}\uffff`) !== null;
}

/** Texts holding the word itself (stemmed, not as a prefix: "wonds" must not count "wondrous"), up to RARE_HITS. */
function textHits(db: Database, token: string): number {
  const row = db
    .query<{ n: number }, [string, number]>("SELECT count(*) AS n FROM (SELECT 1 FROM entities_fts WHERE entities_fts MATCH ? LIMIT ?)")
    .get(ftsTerm(token, false), RARE_HITS);
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
  /** The BM25 score negated, as FTS5 reports bm25(): lower (more negative) is better. */
  bm25: number;
}

/** FTS5's IDF of a phrase over the whole table (fts5_aux.c: negative values become 1e-6). */
function storeIdf(rows: number, hits: number): number {
  const idf = Math.log((rows - hits + 0.5) / (hits + 0.5));
  return idf > 0 ? idf : 1e-6;
}

/** IDF among the candidates, always positive (the "+1" form used by Lucene). */
export function candidateIdf(candidates: number, hits: number): number {
  return Math.log(1 + (candidates - hits + 0.5) / (hits + 0.5));
}

/** Best `depth` candidates (rows of `entities e` satisfying `where`) for the query, best first. */
export function lexicalSearch(db: Database, where: WhereClause, query: QueryAnalysis | string, depth: number): LexicalHit[] {
  const a = typeof query === "string" ? analyzeQuery(db, query) : query;
  if (a.tokens.length === 0 || depth <= 0) return [];
  const phrases = ftsPhrases(contentTokens(a.tokens).map((t) => [t, ...(a.corrected.get(t) ?? [])]));
  const w = andWhere(where);
  // The candidates as a set, and each phrase's matches over the whole table (FTS5 alone, no
  // join): that count is FTS5's own hit count, and filtering in JS is cheaper than joining
  // every match with `entities` (4 ms instead of 16 ms for a word in 6,000 entities).
  const candidates = new Set(
    db
      .query<{ id: number }, SqlValue[]>(`SELECT e.id AS id FROM entities e WHERE ${w.sql}`)
      .all(...w.params)
      .map((r) => r.id),
  );
  if (candidates.size === 0) return [];
  const rows = db.query<{ n: number }, []>("SELECT count(*) AS n FROM entities").get()?.n ?? 0;
  const perPhrase = db.query<LexicalHit, [string]>(`SELECT rowid AS id, bm25(entities_fts, ${NAME_WEIGHT}, ${TEXT_WEIGHT}) AS bm25 FROM entities_fts WHERE entities_fts MATCH ?`);
  const score = new Map<number, number>();
  for (const phrase of phrases) {
    const all = perPhrase.all(phrase);
    const matched = all.filter((m) => candidates.has(m.id));
    if (matched.length === 0) continue;
    // bm25() of a one-phrase query = -(store IDF × weighted term-frequency part).
    const weight = candidateIdf(candidates.size, matched.length) / storeIdf(rows, all.length);
    for (const m of matched) score.set(m.id, (score.get(m.id) ?? 0) - m.bm25 * weight);
  }
  return [...score.entries()]
    .sort(([ia, sa], [ib, sb]) => sb - sa || ia - ib)
    .slice(0, Math.floor(depth))
    .map(([id, s]) => ({ id, bm25: -s }));
}
