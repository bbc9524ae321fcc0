/**
 * What one FTS5 phrase of the lexical leg matches over the whole store: the rowids and bm25() of
 * each match, as compact typed arrays (no object per match).
 */
import type { Database } from "bun:sqlite";

export const NAME_WEIGHT = 10.0;
export const TEXT_WEIGHT = 1.0;

export interface PhraseHits {
  /** Matching rowids, in FTS5's order (ascending). */
  ids: Int32Array;
  /** bm25() of each match as FTS5 reports it: negative, lower is better. */
  bm25: Float64Array;
}

const SQL = `SELECT rowid, bm25(entities_fts, ${NAME_WEIGHT}, ${TEXT_WEIGHT}) FROM entities_fts WHERE entities_fts MATCH ?`;

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

