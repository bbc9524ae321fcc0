/**
 * The lexical leg: FTS5 BM25 over name (×10) + text, restricted to the candidates. User input never
 * reaches FTS5 syntax: it is cut into quoted letter/digit tokens, ORed, stop words dropped when
 * other words remain, 3+ letters also as prefixes ("fire" → "fireball").
 *
 * IDF over the candidates: FTS5 weighs a term by its rarity in the whole store, which mixes every
 * kind ("hit points" is in every creature yet picks one rule out of 374). So each term's bm25() ÷
 * FTS5's own IDF (the length-normalized term frequency) is weighted by its IDF among this query's
 * candidates, then summed per entity.
 *
 * Typo tolerance: a token that starts no name word and is (nearly) absent from all texts also
 * searches the closest name words within 1–2 edits ("magik missle" → magic, missile).
 */
import { CACHES } from "../../store/caches.ts";
import type { Database } from "bun:sqlite";
import { type VersionMemo, versionMemo } from "../../store/version-cache.ts";
import { type CandidateSet, candidateSet } from "../filter/candidates.ts";
import type { WhereClause } from "../filter/filters.ts";
import { closestTerms } from "./fuzzy.ts";
import { type NameVocabulary, nameVocabulary } from "./name-vocab.ts";
import { phraseSource } from "./phrase-hits.ts";

const MAX_TOKENS = 32;
/** Fewer hits than this over all texts (and no name word starting with it) → try corrections. */
const RARE_HITS = 3;

/**
 * English stop words (the NLTK list): not searched when other words remain ("what happens when I
 * fall" → fall, happens), never used as prefixes, never corrected or completed.
 */
export const STOPWORDS: ReadonlySet<string> = new Set(
  (
    "i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers " +
    "herself it its itself they them their theirs themselves what which who whom this that these those am is " +
    "are was were be been being have has had having do does did doing a an the and but if or because as " +
    "until while of at by for with about against between into through during before after above below to " +
    "from up down in out on off over under again further then once here there when where why how all any " +
    "both each few more most other some such no nor not only own same so than too very s t can will just don " +
    "should now"
  ).split(" "),
);

/** Lower-case, diacritics folded, letter/digit runs only, unique, at most 32. */
export function queryTokens(query: string): string[] {
  const folded = query
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase();
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
      if ([...t].length >= 3 && !STOPWORDS.has(t)) out.add(ftsTerm(t, true));
    }
  }
  return [...out];
}

/** The tokens searched by keyword: the query's tokens without stop words (all of them when only stop words remain). */
export function contentTokens(tokens: readonly string[]): string[] {
  const content = tokens.filter((t) => !STOPWORDS.has(t));
  return content.length > 0 ? content : [...tokens];
}

/**
 * Texts holding the word itself (stemmed, not as a prefix: "wonds" must not count "wondrous"), up
 * to RARE_HITS; remembered for the store's version (a few thousand words).
 */
function textHits(db: Database, memo: VersionMemo, token: string): number {
  return CACHES.textHits.get(
    memo,
    token,
    () =>
      db
        .query<{ n: number }, [string, number]>(
          "SELECT count(*) AS n FROM (SELECT 1 FROM entities_fts WHERE entities_fts MATCH ? LIMIT ?)",
        )
        .get(ftsTerm(token, false), RARE_HITS)?.n ?? 0,
  );
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

/** The most common name word that `token` is the start of (ties: shorter, then alphabetical). */
function completion(vocab: NameVocabulary, token: string): string | undefined {
  let best: { term: string; doc: number; len: number } | undefined;
  // In term order: the token itself (a whole name word, not completed) comes first, and of equally
  // common words of one length the alphabetical first is met first.
  for (const v of vocab.startingWith(token)) {
    if (v.term === token) return undefined;
    const len = [...v.term].length;
    if (!best || v.doc > best.doc || (v.doc === best.doc && len < best.len)) best = { ...v, len };
  }
  return best?.term;
}

/**
 * Tokens, typo corrections (of 4+ letters) and completions of `query`; numbers, stop words and
 * words under 3 letters stay as typed. A word the texts hold whole is a word, not the start of one:
 * "get rid of a curse" must not be read (and embedded) as "getting riding of a curse".
 */
export function analyzeQuery(db: Database, query: string): QueryAnalysis {
  const tokens = queryTokens(query);
  const memo = versionMemo(db);
  const corrected = new Map<string, string[]>();
  const completed = new Map<string, string>();
  for (const t of tokens) {
    const len = [...t].length;
    if (/\d/.test(t) || len < 3 || STOPWORDS.has(t)) continue;
    const vocab = nameVocabulary(db, memo);
    if (len >= 4 && !vocab.hasPrefix(t) && textHits(db, memo, t) < RARE_HITS) {
      const fixes = closestTerms(t, vocab.ofLength(Math.max(1, len - 2), len + 2));
      if (fixes.length) {
        corrected.set(t, fixes);
        continue;
      }
    }
    const c = completion(vocab, t);
    if (c && textHits(db, memo, t) < RARE_HITS) completed.set(t, c);
  }
  return { query, tokens, corrected, completed };
}

/** The text to embed: the query, or its tokens corrected / completed ("magik missle" → "magic missile"). */
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

export interface LexicalOptions {
  /** The candidates of `where`, when the caller has them already (runSearch shares them with the vector leg). */
  candidates?: CandidateSet;
  /** Keep and reuse each phrase's FTS5 hits until the store changes (phrase-hits.ts); runSearch sets it. */
  cache?: boolean;
}

function entityCount(db: Database, memo: VersionMemo): number {
  return CACHES.entityCount.get(
    memo,
    () => db.query<{ n: number }, []>("SELECT count(*) AS n FROM entities").get()?.n ?? 0,
  );
}

/** Best `depth` candidates (rows satisfying `where`) for the query, best first; scores summed in typed arrays. */
export function lexicalSearch(
  db: Database,
  where: WhereClause,
  query: QueryAnalysis | string,
  depth: number,
  opts: LexicalOptions = {},
): LexicalHit[] {
  const a = typeof query === "string" ? analyzeQuery(db, query) : query;
  if (a.tokens.length === 0 || depth <= 0) return [];
  const phrases = ftsPhrases(contentTokens(a.tokens).map((t) => [t, ...(a.corrected.get(t) ?? [])]));
  // Each phrase's matches over the whole table (FTS5 alone, no join): that count is FTS5's own
  // hit count, and keeping the candidates by bitmap is cheaper than joining every match with
  // `entities` (a quarter of the time: docs/benchmark.md, "Figures behind the code").
  const memo = versionMemo(db);
  const candidates = opts.candidates ?? candidateSet(db, where, memo);
  if (candidates.size === 0) return [];
  const rows = entityCount(db, memo);
  const hitsOf = phraseSource(db, opts.cache ? memo : undefined);
  const { score, seen } = scratchFor(candidates.ids[candidates.size - 1]! + 1);
  const touched: number[] = [];
  try {
    for (const phrase of phrases) {
      const { ids, bm25 } = hitsOf(phrase);
      let matched = 0;
      for (let i = 0; i < ids.length; i++) if (candidates.has(ids[i]!)) matched++;
      if (matched === 0) continue;
      // bm25() of a one-phrase query = -(store IDF × weighted term-frequency part).
      const weight = candidateIdf(candidates.size, matched) / storeIdf(rows, ids.length);
      for (let i = 0; i < ids.length; i++) {
        const id = ids[i]!;
        if (!candidates.has(id)) continue;
        if (!seen[id]) {
          seen[id] = 1;
          touched.push(id);
        }
        score[id] = score[id]! - bm25[i]! * weight;
      }
    }
    return bestScored(touched, score, Math.floor(depth)).map((id) => ({ id, bm25: -score[id]! }));
  } finally {
    for (const id of touched) {
      score[id] = 0;
      seen[id] = 0;
    }
  }
}

/** Per-id score and seen flags, reused by every search (zeroed again after each): no 160 KB of garbage per query. */
let scratch: { score: Float64Array; seen: Uint8Array } | undefined;

function scratchFor(size: number): { score: Float64Array; seen: Uint8Array } {
  if (!scratch || scratch.score.length < size) scratch = { score: new Float64Array(size), seen: new Uint8Array(size) };
  return scratch;
}

/** The `k` ids of highest score (ties: smaller id first), best first. */
function bestScored(ids: readonly number[], score: Float64Array, k: number): number[] {
  let keep = ids;
  if (ids.length > k) {
    // The k-th best score, by a native numeric sort, then only those at or above it are ordered.
    const s = Float64Array.from(ids, (id) => score[id]!).sort();
    const threshold = s[s.length - k]!;
    keep = ids.filter((id) => score[id]! >= threshold);
  }
  return [...keep].sort((x, y) => score[y]! - score[x]! || x - y).slice(0, k);
}
