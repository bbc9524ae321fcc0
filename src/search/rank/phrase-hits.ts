/**
 * What one FTS5 phrase of the lexical leg matches over the whole store: rowids and bm25() as typed
 * arrays. bm25() is most of the leg's cost (FTS5 reads each match's column sizes) and depends only
 * on the phrase and the store, so runSearch keeps recent phrases' hits until the store changes,
 * within a bound on the matches held (12 bytes each): "damage" or "fire" come back query after query.
 */
import { CACHES } from "../../store/caches.ts";
import type { Database } from "bun:sqlite";
import type { VersionMemo } from "../../store/version-cache.ts";

/** Matches held by the phrase cache of one store (≈ 12 MB by default). */
let cacheLimit = 1_000_000;

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

/** The name weighs 10× the text. */
const SQL = "SELECT rowid, bm25(entities_fts, 10, 1) FROM entities_fts WHERE entities_fts MATCH ?";

function readPhraseHits(db: Database, phrase: string): PhraseHits {
  const rows = db.query<[number, number], [string]>(SQL).values(phrase) as Array<[number, number]>;
  return { ids: Int32Array.from(rows, (r) => r[0]), bm25: Float64Array.from(rows, (r) => r[1]) };
}

/** Least recently used phrases are dropped first once more than the limit of matches are held. */
class PhraseCache {
  private readonly entries = new Map<string, PhraseHits>();
  private held = 0;

  hits(db: Database, phrase: string, limit: number): PhraseHits {
    const kept = this.entries.get(phrase);
    if (kept) {
      this.entries.delete(phrase);
      this.entries.set(phrase, kept);
      return kept;
    }
    const hits = readPhraseHits(db, phrase);
    if (hits.ids.length <= limit) {
      this.entries.set(phrase, hits);
      this.held += hits.ids.length;
    }
    for (const [p, h] of this.entries) {
      if (this.held <= limit) break;
      this.entries.delete(p);
      this.held -= h.ids.length;
    }
    return hits;
  }
}

/** The hits of phrases: cached for the store's version in `memo`, or (no memo) straight from FTS5. */
export function phraseSource(db: Database, memo: VersionMemo | undefined): (phrase: string) => PhraseHits {
  if (!memo) return (phrase) => readPhraseHits(db, phrase);
  const c = CACHES.phraseHits.get(memo, () => new PhraseCache());
  return (phrase) => c.hits(db, phrase, cacheLimit);
}
