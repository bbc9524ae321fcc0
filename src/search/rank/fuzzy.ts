/**
 * Typo tolerance, pure: edit distance (optimal string alignment: insert, delete, substitute,
 * swap two neighbours) and picking the closest vocabulary terms for a misspelled word.
 */

/** Three DP rows, reused by every call (no garbage per comparison: "did you mean" runs thousands). */
let rows = [new Int32Array(64), new Int32Array(64), new Int32Array(64)];

/** Edit distance between a and b, or max + 1 as soon as it must exceed `max`. */
export function editDistance(a: string, b: string, max: number): number {
  if (a === b) return 0;
  const n = a.length;
  const m = b.length;
  if (Math.abs(n - m) > max) return max + 1;
  if (rows[0]!.length < m + 1) rows = [new Int32Array(m + 1), new Int32Array(m + 1), new Int32Array(m + 1)];
  let [prev2, prev, cur] = rows as [Int32Array, Int32Array, Int32Array];
  for (let j = 0; j <= m; j++) prev[j] = j;
  for (let i = 1; i <= n; i++) {
    cur[0] = i;
    let rowMin = i;
    const ai = a.charCodeAt(i - 1);
    const aPrev = i > 1 ? a.charCodeAt(i - 2) : -1;
    for (let j = 1; j <= m; j++) {
      const bj = b.charCodeAt(j - 1);
      let v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (ai === bj ? 0 : 1));
      if (i > 1 && j > 1 && ai === b.charCodeAt(j - 2) && aPrev === bj) v = Math.min(v, prev2[j - 2]! + 1);
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > max) return max + 1;
    [prev2, prev, cur] = [prev, cur, prev2];
  }
  return prev[m]!;
}

/** How many edits a word of this length may carry: none under 4 letters, 1 up to 6, then 2. */
export function allowedEdits(word: string): number {
  const n = [...word].length;
  if (n < 4) return 0;
  if (n <= 6) return 1;
  return 2;
}

export interface VocabTerm {
  term: string;
  /** How many entities hold the term (tie-break: more common first). */
  doc: number;
}

/**
 * The closest terms to `word` within its allowed edits: those at the smallest distance found,
 * most common first, at most `max`. Empty when the word is too short or nothing is close.
 */
export function closestTerms(word: string, vocab: Iterable<VocabTerm>, max = 3): string[] {
  const limit = allowedEdits(word);
  if (limit === 0) return [];
  let best = limit + 1;
  let found: VocabTerm[] = [];
  for (const v of vocab) {
    if (v.term === word) continue;
    const d = editDistance(word, v.term, Math.min(limit, best));
    if (d < best) {
      best = d;
      found = [v];
    } else if (d === best && d <= limit) {
      found.push(v);
    }
  }
  if (best > limit) return [];
  return found
    .sort((a, b) => b.doc - a.doc || a.term.localeCompare(b.term))
    .slice(0, max)
    .map((v) => v.term);
}
