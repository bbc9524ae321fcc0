/**
 * What one FTS5 phrase of the lexical leg matches over the whole store: the rowids and bm25() of
 * each match, as compact typed arrays (no object per match).
 *
 * bm25() is most of the lexical leg's cost (FTS5 reads each match's column sizes, and common
 * words have thousands of matches), and it depends only on the phrase and the store,
 * not on the query's kinds or filters. So runSearch keeps recent phrases' hits until the store
 * changes, within a bound on the matches held (`PHRASE_CACHE_MATCHES`, 12 bytes each): words such
 * as "damage", "creature" or "fire" come back in query after query. `lexicalSearch` called
 * without `cache` (tests, the benchmark's floor) always asks FTS5.
 */
import { CACHES } from "../../store/caches.ts";
import type { Database } from "bun:sqlite";
import type { VersionMemo } from "../../store/version-cache.ts";

export const NAME_WEIGHT = 10.0;
export const TEXT_WEIGHT = 1.0;

/** Matches held by the phrase cache of one store by default (≈ 12 MB). */
export const PHRASE_CACHE_MATCHES = 1_000_000;
let cacheLimit = PHRASE_CACHE_MATCHES;

/** Change how many matches the phrase caches hold (0 = none): for tests and measurements. */
export function setPhraseCacheLimit(matches: number): void {
  cacheLimit = Math.max(0, Math.floor(matches));
}

export interface PhraseHits {
  /** Matching rowids, in FTS5's order (ascending). */
  ids: Int32Array;
  /** bm25() of each match as FTS5 reports it: negative, lower is better. */
  bm25: Float64Array;
}

const SQL =
  `SELECT rowid, bm25(entities_fts, ${NAME_WEIGHT}, ${TEXT_WEIGHT}) ` +
  `FROM entities_fts ` +
  `WHERE entities_fts MATCH ?`;

/** Ask FTS5. */
export function readPhraseHits(db: Database, phrase: string): PhraseHits {
  const rows = db.query<[number, number], [string]>(SQL).values(phrase) as Array<[number, number]>;
  const ids = new Int32Array(rows.length);
  const bm25 = new Float64Array(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!;
    ids[i] = r[0];
    bm25[i] = r[1];
  }
  return { ids, bm25 };
}

/** Least recently used phrases are dropped first once more than the limit of matches are held. */
class PhraseCache {
  private readonly entries = new Map<string, PhraseHits>();
  private held = 0;

  get(phrase: string): PhraseHits | undefined {
    const hit = this.entries.get(phrase);
    if (hit) {
      this.entries.delete(phrase);
      this.entries.set(phrase, hit);
    }
    return hit;
  }

  set(phrase: string, hits: PhraseHits, limit: number): void {
    if (hits.ids.length <= limit) {
      this.entries.set(phrase, hits);
      this.held += hits.ids.length;
    }
    for (const [p, h] of this.entries) {
      if (this.held <= limit) break;
      this.entries.delete(p);
      this.held -= h.ids.length;
    }
  }
}

/**
 * The hits of phrases: from the cache of recent phrases of the store's version in `memo`, or (no memo) straight from
 * FTS5.
 */
export function phraseSource(db: Database, memo: VersionMemo | undefined): (phrase: string) => PhraseHits {
  if (!memo) return (phrase) => readPhraseHits(db, phrase);
  const c = CACHES.phraseHits.get(memo, () => new PhraseCache());
  return (phrase) => {
    let hits = c.get(phrase);
    if (!hits) {
      hits = readPhraseHits(db, phrase);
      c.set(phrase, hits, cacheLimit);
    }
    return hits;
  };
}
