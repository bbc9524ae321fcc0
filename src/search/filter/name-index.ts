/**
 * Every answering entity's name, slug and key in memory (one read per store version), for what a
 * name that matches nothing costs otherwise: the `key` and `partial` steps of names.ts read every
 * row of the kinds in SQL, and "did you mean" would measure the distance to every name. `keyIds`
 * and `partialIds` fold as SQLite does; `closest` measures only names sharing enough trigrams
 * whose characters (letterBits) do not already rule them out.
 */
import type { Database } from "bun:sqlite";
import { CACHES } from "../../store/caches.ts";
import { nocase } from "./filters.ts";

export type NameRow = { id: number; kind: string; name: string; slug: string; key: string };

/** Edit distance of a and b, or more than `max` once it must exceed it (rank/fuzzy.ts). */
export type EditDistance = (a: string, b: string, max: number) => number;

/** Texts of one kind, folded, each line "\n<text>", and where each line starts: substring search over all. */
interface Lines {
  text: string;
  starts: number[];
}

function linesOf(parts: readonly string[]): Lines {
  const starts: number[] = [];
  let at = 0;
  for (const p of parts) {
    starts.push(at);
    at += p.length + 1;
  }
  return { text: nocase(`\n${parts.join("\n")}`), starts };
}

/** Names and slugs of one kind; `ids` by line. */
interface KindNames {
  names: Lines;
  slugs: Lines;
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

/** Ids of the lines containing `needle`. */
function linesWith({ text, starts }: Lines, ids: readonly number[], needle: string, out: Set<number>): void {
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

  constructor(rows: readonly NameRow[]) {
    for (const [kind, list] of Map.groupBy(rows, (r) => r.kind)) {
      this.kindBits.set(kind, 2 ** Math.min(this.kindBits.size, 30));
      const keys = Map.groupBy(list, (r) => nocase(r.key));
      this.byKind.set(kind, {
        names: linesOf(list.map((r) => r.name)),
        slugs: linesOf(list.map((r) => r.slug)),
        ids: list.map((r) => r.id),
        keys: new Map([...keys].map(([k, same]) => [k, same.map((r) => r.id)])),
        folded: new Set(list.map((r) => nocase(r.name))),
      });
    }
    const byLower = new Map<string, Entry>();
    for (const r of rows) {
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
      linesWith(k.names, k.ids, t, out);
      if (s !== undefined) linesWith(k.slugs, k.ids, s, out);
    }
    return out;
  }

  /**
   * Names of `kinds` within `limit` edits of `want` (lower-cased), closest first, then by name; at
   * most `max`. Candidates: names sharing at least |grams| − 4·limit trigrams with `want` (an edit
   * touches at most four), or, when that bound says nothing, every name of a length within `limit`.
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
      // Trigrams shared, counted in a reused array (a Map cost more than the distances). Likeliest
      // first: a name sharing s trigrams is at least ⌈(|grams| − s) ÷ 4⌉ edits away, so once `max`
      // names are found within d edits, those farther are passed over unmeasured.
      let order: Array<{ e: Entry; s: number }>;
      const shared = (this.counts ??= new Uint32Array(this.entries.length));
      for (const x of g) {
        for (const i of this.postings.get(x) ?? []) {
          if (shared[i] === 0) this.touched.push(i);
          shared[i]! += 1;
        }
      }
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
}

/** The `n`-th smallest distance among `found` (1-based). */
function nthSmallest(found: ReadonlyArray<{ d: number }>, n: number): number {
  return found.map((f) => f.d).sort((a, b) => a - b)[n - 1]!;
}

/** The name index of the store as it is now (built at its first use after each change). */
export function nameIndex(db: Database): NameIndex {
  return CACHES.nameIndex.get(
    db,
    () =>
      new NameIndex(
        db.query<NameRow, []>("SELECT id, kind, name, slug, key FROM entities WHERE dup_of IS NULL ORDER BY id").all(),
      ),
  );
}
