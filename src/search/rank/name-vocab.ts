/**
 * The vocabulary of entity names (`names_vocab`: name words and how many entities hold each) in
 * memory per store version, for typo corrections and completions: reading `names_vocab` makes FTS5
 * walk every doclist (a few ms per lookup in SQL); here a lookup is a binary search.
 */
import { CACHES } from "../../store/caches.ts";
import type { Database } from "bun:sqlite";
import { type VersionMemo, versionMemo } from "../../store/version-cache.ts";
import type { VocabTerm } from "./fuzzy.ts";

export class NameVocabulary {
  /** Sorted by term (UTF-16 order, the same as SQLite's for the letters and digits stored here). */
  private readonly terms: VocabTerm[];
  /** Characters (code points) of each term, by position in `terms`. */
  private readonly lengths: Uint16Array;

  constructor(terms: VocabTerm[]) {
    this.terms = [...terms].sort((a, b) => (a.term < b.term ? -1 : a.term > b.term ? 1 : 0));
    this.lengths = Uint16Array.from(this.terms, (t) => Math.min(65535, [...t.term].length));
  }

  /** Index of the first term ≥ `s`. */
  private lowerBound(s: string): number {
    let lo = 0;
    let hi = this.terms.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.terms[mid]!.term < s) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Terms that start with `prefix`, in term order (`prefix` itself included when stored). */
  *startingWith(prefix: string): Generator<VocabTerm> {
    for (let i = this.lowerBound(prefix); i < this.terms.length; i++) {
      const t = this.terms[i]!;
      if (!t.term.startsWith(prefix)) return;
      yield t;
    }
  }

  /** Whether some term starts with `prefix`. */
  hasPrefix(prefix: string): boolean {
    return this.terms[this.lowerBound(prefix)]?.term.startsWith(prefix) ?? false;
  }

  /** Terms of `min`..`max` characters, in term order. */
  ofLength(min: number, max: number): VocabTerm[] {
    const out: VocabTerm[] = [];
    for (let i = 0; i < this.terms.length; i++) {
      const n = this.lengths[i]!;
      if (n >= min && n <= max) out.push(this.terms[i]!);
    }
    return out;
  }
}

/** The name vocabulary of the store as it is now (`memo`: the caller's, when it has one). */
export function nameVocabulary(db: Database, memo: VersionMemo = versionMemo(db)): NameVocabulary {
  return CACHES.nameVocabulary.get(
    memo,
    () => new NameVocabulary(db.query<VocabTerm, []>("SELECT term, doc FROM names_vocab").all()),
  );
}
