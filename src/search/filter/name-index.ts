/**
 * Every answering entity's name, slug and key in memory (one read per store version), for what a
 * name that matches nothing costs otherwise: each fallback step of names.ts probed in SQL (the
 * `key` and `partial` steps read every row of the kinds asked for) and "did you mean" computing
 * the edit distance to every name. Here:
 *   - `keyIds`, `partialIds`: which entities of some kinds satisfy the `key` and `partial` steps,
 *     whatever the filters (a step none can satisfy is not probed; a match becomes an id list).
 *     Same folding as SQLite (NOCASE and LIKE fold ASCII letters only).
 *   - `closest`: the names within a few edits, from the names sharing enough trigrams with the
 *     input (q-gram count filter), edit distance on those only, and only where their characters
 *     do not already rule it out (letterBits).
 */
import type { Database } from "bun:sqlite";
import { CACHES } from "../../store/caches.ts";
import { nocase } from "./filters.ts";

/** Edit distance of a and b, or more than `max` once it must exceed it (rank/fuzzy.ts). */
export type EditDistance = (a: string, b: string, max: number) => number;

/** Names and slugs of one kind, folded, each line "\n<text>", for substring search over them all at once. */
interface KindNames {
  names: string;
  slugs: string;
  /** Where each entity's line starts in `names` / `slugs`, and its id, by position. */
  nameStarts: number[];
  slugStarts: number[];
  ids: number[];
  /** Ids by folded key. */
  keys: Map<string, number[]>;
  /** The names, folded (`name = ?`, NOCASE). */
  folded: Set<string>;
}

/** One distinct lower-cased name ("did you mean" candidates). */
interface Entry {
  /** The name as stored (first seen). */
  name: string;
  lower: string;
  /** Bit per kind (kindBit) holding the name. */
  kinds: number;
  /** The characters of `lower` as a set of 32 bits (letterBits). */
  letters: number;
}

const GRAM = 3;

/**
 * The characters of `s` as 32 bits: one per letter a–z, the rest shared by six. Two strings whose
 * sets differ in b bits are at least ⌈b ÷ 2⌉ edits apart: a substitution changes two bits at most,
 * an insertion or deletion one, a swap none (characters sharing a bit only make b smaller). Pure.
 */
export function letterBits(s: string): number {
  let bits = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    bits |= c >= 97 && c <= 122 ? 1 << (c - 97) : 1 << (26 + (c % 6));
  }
  return bits;
}

/** Set bits of a 32-bit number. */
function bitCount(x: number): number {
  let v = x - ((x >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** The distinct trigrams of " s " (UTF-16 units, as numbers). */
function grams(s: string): number[] {
  const p = ` ${s} `;
  const out = new Set<number>();
  for (let i = 0; i + GRAM <= p.length; i++)
    out.add(p.charCodeAt(i) * 4294967296 + p.charCodeAt(i + 1) * 65536 + p.charCodeAt(i + 2));
  return [...out];
}

/** Position of the line holding offset `at`, by binary search over line starts. */
function lineOf(starts: readonly number[], at: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (starts[mid]! <= at) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** Ids of the lines of `text` (lines starting at `starts`) containing `needle`. */
function linesWith(
  text: string,
  starts: readonly number[],
  ids: readonly number[],
  needle: string,
  out: Set<number>,
): void {
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) {
    const line = lineOf(starts, at);
    out.add(ids[line]!);
    // Next line: one id per line is enough.
    at = (starts[line + 1] ?? text.length) - 1;
  }
}

export class NameIndex {
  private readonly byKind = new Map<string, KindNames>();
  private readonly kindBits = new Map<string, number>();
  private readonly entries: Entry[] = [];
  /** Entries by length of `lower` (short inputs, where trigrams cannot narrow). */
  private readonly byLength: Entry[][] = [];
  private readonly postings = new Map<number, number[]>();
  /** closest's scratch: trigram counts per entry (all zero between calls) and the entries counted. */
  private counts?: Uint32Array;
  private readonly touched: number[] = [];

  constructor(rows: Iterable<{ id: number; kind: string; name: string; slug: string; key: string }>) {
    const byLower = new Map<string, Entry>();
    const parts = new Map<string, { names: string[]; slugs: string[] }>();
    for (const r of rows) {
      let k = this.byKind.get(r.kind);
      let p = parts.get(r.kind);
      if (!k || !p) {
        this.byKind.set(
          r.kind,
          (k = { names: "", slugs: "", nameStarts: [], slugStarts: [], ids: [], keys: new Map(), folded: new Set() }),
        );
        parts.set(r.kind, (p = { names: [], slugs: [] }));
        this.kindBits.set(r.kind, 2 ** Math.min(this.kindBits.size, 30));
      }
      p.names.push(r.name);
      p.slugs.push(r.slug);
      k.folded.add(nocase(r.name));
      k.ids.push(r.id);
      const folded = nocase(r.key);
      const same = k.keys.get(folded);
      if (same) same.push(r.id);
      else k.keys.set(folded, [r.id]);
      const bit = this.kindBits.get(r.kind)!;
      const lower = r.name.toLowerCase();
      const seen = byLower.get(lower);
      if (seen) {
        seen.kinds |= bit;
        continue;
      }
      const e: Entry = { name: r.name, lower, kinds: bit, letters: letterBits(lower) };
      byLower.set(lower, e);
      const at = this.entries.length;
      this.entries.push(e);
      (this.byLength[lower.length] ??= []).push(e);
      for (const g of grams(lower)) {
        const list = this.postings.get(g);
        if (list) list.push(at);
        else this.postings.set(g, [at]);
      }
    }
    for (const [kind, p] of parts) {
      const k = this.byKind.get(kind)!;
      k.names = nocase(`\n${p.names.join("\n")}`);
      k.slugs = nocase(`\n${p.slugs.join("\n")}`);
      let at = 0;
      for (const n of p.names) {
        k.nameStarts.push(at);
        at += n.length + 1;
      }
      at = 0;
      for (const n of p.slugs) {
        k.slugStarts.push(at);
        at += n.length + 1;
      }
    }
  }

  /**
   * Whether an entity of `kinds` is named `name` (`name = ?`: NOCASE), or undefined when the name
   * holds a NUL or a lone surrogate (SQLite compares bytes the JavaScript string does not hold: the
   * caller asks SQL).
   */
  hasName(kinds: readonly string[], name: string): boolean | undefined {
    if (/[\u0000\uD800-\uDFFF]/.test(name)) return undefined;
    const f = nocase(name);
    return kinds.some((kind) => this.byKind.get(kind)?.folded.has(f) === true);
  }

  /** Ids of the entities of `kinds` with this key (`key = ? COLLATE NOCASE`), ascending. */
  keyIds(kinds: readonly string[], key: string): number[] {
    const k = nocase(key);
    return kinds.flatMap((kind) => this.byKind.get(kind)?.keys.get(k) ?? []).sort((a, b) => a - b);
  }

  /**
   * Ids of the entities of `kinds` whose name contains `text` or whose slug contains `slug`
   * (`name LIKE '%text%' OR slug LIKE '%slug%'`), or undefined when the input holds a line break
   * (it would match across entries here: the caller asks SQL).
   */
  partialIds(kinds: readonly string[], text: string, slug: string | undefined): Set<number> | undefined {
    if (text.includes("\n") || slug?.includes("\n")) return undefined;
    const t = nocase(text);
    const s = slug === undefined ? undefined : nocase(slug);
    const out = new Set<number>();
    for (const kind of kinds) {
      const k = this.byKind.get(kind);
      if (!k) continue;
      linesWith(k.names, k.nameStarts, k.ids, t, out);
      if (s !== undefined) linesWith(k.slugs, k.slugStarts, k.ids, s, out);
    }
    return out;
  }

  /**
   * Names of `kinds` within `limit` edits of `want` (lower-cased), closest first, then by name; at
   * most `max`, by `editDistance`. Candidates: names sharing at least |grams| − 4·limit trigrams with `want` (an
   * edit touches at most three, swapping two neighbours four), or, when that bound says nothing,
   * every name of a length within `limit`; a distance is computed only for those whose characters
   * (letterBits) are close enough.
   */
  closest(kinds: readonly string[], want: string, limit: number, max: number, editDistance: EditDistance): string[] {
    let mask = 0;
    for (const k of kinds) mask |= this.kindBits.get(k) ?? 0;
    const g = grams(want);
    const need = g.length - (GRAM + 1) * limit;
    const found: Array<{ name: string; d: number }> = [];
    let bound = limit;
    const letters = letterBits(want);
    const consider = (e: Entry) => {
      // Characters apart (letterBits): farther than the bound, with no distance computed.
      if (bitCount(e.letters ^ letters) > 2 * bound) return;
      const d = editDistance(want, e.lower, bound);
      if (d > bound) return;
      found.push({ name: e.name, d });
      if (found.length >= max) bound = Math.min(bound, nthSmallest(found, max));
    };
    if (need < 1) {
      // Too few trigrams to rule a name out: every name of a length within `limit`.
      for (let n = Math.max(0, want.length - limit); n <= want.length + limit; n++)
        for (const e of this.byLength[n] ?? []) if (e.kinds & mask) consider(e);
    } else {
      // The trigrams each name shares with `want`, counted in a reused array (counting in a Map
      // cost more than the distances when common trigrams have long postings). Likeliest first
      // (most trigrams shared): once `max` names are found within d edits, only names within d
      // can still make the list, and a name sharing s trigrams is at least ⌈(|grams| − s) ÷ 4⌉
      // edits away (an edit touches at most four), so those farther are passed over unmeasured.
      let order: Array<{ e: Entry; s: number }>;
      const shared = this.sharedCounts(g);
      try {
        order = this.touched
          .filter(
            (i) =>
              shared[i]! >= need &&
              this.entries[i]!.kinds & mask &&
              Math.abs(this.entries[i]!.lower.length - want.length) <= limit,
          )
          .map((i) => ({ e: this.entries[i]!, s: shared[i]! }))
          .sort((a, b) => b.s - a.s);
      } finally {
        for (const i of this.touched) shared[i] = 0;
        this.touched.length = 0;
      }
      // In order of trigrams shared, and the bound only falls: the first one too far ends the list.
      for (const { e, s } of order) {
        if (Math.ceil((g.length - s) / (GRAM + 1)) > bound) break;
        consider(e);
      }
    }
    return found
      .sort((a, b) => a.d - b.d || a.name.localeCompare(b.name))
      .slice(0, max)
      .map((f) => f.name);
  }

  /** Per entry, how many of `g` its name holds (this.touched: the entries counted, first-seen order). */
  private sharedCounts(g: readonly number[]): Uint32Array {
    const counts = (this.counts ??= new Uint32Array(this.entries.length));
    const touched = this.touched;
    for (const x of g) {
      for (const i of this.postings.get(x) ?? []) {
        if (counts[i] === 0) touched.push(i);
        counts[i]! += 1;
      }
    }
    return counts;
  }
}

/** The `n`-th smallest distance among `found` (1-based). */
function nthSmallest(found: ReadonlyArray<{ d: number }>, n: number): number {
  return found.map((f) => f.d).sort((a, b) => a - b)[n - 1]!;
}

/** The name index of the store as it is now, when it is built already (nothing is read). */
export function builtNameIndex(db: Database): NameIndex | undefined {
  return CACHES.nameIndex.peek(db);
}

/** The name index of the store as it is now (built at its first use after each change). */
export function nameIndex(db: Database): NameIndex {
  return CACHES.nameIndex.get(
    db,
    () =>
      new NameIndex(
        db
          .query<{ id: number; kind: string; name: string; slug: string; key: string }, []>(
            "SELECT id, kind, name, slug, key FROM entities WHERE dup_of IS NULL ORDER BY id",
          )
          .all(),
      ),
  );
}
