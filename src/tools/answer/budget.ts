/**
 * The response budget: an answer's JSON text must stay under `budgetChars`. Past it, oversized fields are cut
 * (reserved strings over 200 characters, lists over 50 items), then long text fields shortened (ever harder caps),
 * then the page ends at the first result that does not fit (`next_offset` points at it); a result too big for any
 * answer alone is left out and named. `truncated` and a short message say how to get the rest. Pure.
 *
 * Fast and exact: every result is serialized once; the size at a cap is computed from those lengths and the long
 * strings alone (replacing a string changes the JSON by exactly the difference of the two strings' JSON), so only
 * the cap that fits is built, and the text is assembled from the results' pieces (= JSON.stringify of the answer).
 */
import type { JsonValue } from "../../entities/types.ts";
import { type FlatResult, RESERVED, type SearchAnswer } from "./response.ts";

const CAPS = [16000, 8000, 4000, 2000, 1000, 500, 250, 120];
const MIN_CAP = CAPS[CAPS.length - 1]!;
const MARK = "… [truncated]";
/** Longest reserved string (name, document_name, source_url) kept whole when over budget; the `name` limit. */
export const RESERVED_CAP = 200;
/** Longest list kept whole when over budget; the rest is counted in a last item. */
const LIST_CAP = 50;
/** Longest `message` of a fitted answer. */
export const MESSAGE_CAP = 1500;
/** Identity fields never cut (a result whose identity alone is too big is left out instead). */
const IDENTITY = new Set(["key", "kind", "uri", "document_key", "document_source", "similarity_score"]);

export interface BudgetOptions {
  budgetChars: number;
  /** How to get one result's full entry (a valid call of this tool that leads to it); default: read its uri. */
  fullEntryHint?: (first: FlatResult) => string;
}

/** An answer fitted to the budget and its JSON text (what the text block carries). */
export interface FittedAnswer {
  answer: SearchAnswer;
  text: string;
}

function shortenString(s: string, cap: number): string {
  if (s.length <= cap) return s;
  const cut = s.slice(0, cap);
  const space = cut.lastIndexOf(" ");
  return `${space > cap * 0.7 ? cut.slice(0, space) : cut}${MARK}`;
}

/** `v` rebuilt with its strings and lists (each list before its items) passed through `str` and `list`. */
function mapJson(v: JsonValue, str: (s: string) => string, list = (a: JsonValue[]) => a): JsonValue {
  if (typeof v === "string") return str(v);
  if (Array.isArray(v)) return list(v).map((x) => mapJson(x, str, list));
  if (v && typeof v === "object") {
    const o: { [k: string]: JsonValue } = {};
    for (const [k, x] of Object.entries(v)) o[k] = mapJson(x, str, list);
    return o;
  }
  return v;
}

function shortenResult(r: FlatResult, cap: number): FlatResult {
  const out: FlatResult = {};
  for (const [k, v] of Object.entries(r)) out[k] = RESERVED.includes(k) ? v : mapJson(v, (s) => shortenString(s, cap));
  return out;
}

/**
 * A string a cap may cut, with what its JSON costs: JSON.stringify writes each character as one,
 * except `"`, `\\` and control characters (2 or 6) and lone surrogates (6). `at[i]` is the
 * position of the i-th such character, `extra[i]` the characters added by those before it.
 */
class LongString {
  readonly json: number;
  private readonly at: number[] = [];
  private readonly extra: number[] = [0];

  constructor(readonly s: string) {
    for (const m of s.matchAll(ESCAPED)) {
      this.at.push(m.index);
      this.extra.push(this.extra[this.extra.length - 1]! + (SHORT_ESCAPES.has(m[0]) ? 1 : 5));
    }
    this.json = s.length + 2 + this.extra[this.extra.length - 1]!;
  }

  /** JSON length of shortenString(s, cap), without building it. */
  jsonAt(cap: number): number {
    if (this.s.length <= cap) return this.json;
    const space = this.s.lastIndexOf(" ", cap - 1);
    const keep = space > cap * 0.7 ? space : cap;
    // Escapes before `keep`, plus a surrogate pair cut in two (its high half then stands alone).
    let lo = 0;
    let hi = this.at.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.at[mid]! < keep) lo = mid + 1;
      else hi = mid;
    }
    const last = this.s.charCodeAt(keep - 1);
    const split = last >= 0xd800 && last <= 0xdbff && !this.at.includes(keep - 1) ? 5 : 0;
    return keep + this.extra[lo]! + split + MARK.length + 2;
  }
}

// `"`, `\`, control characters, and surrogates that are not part of a pair.
const ESCAPED = /["\\\u0000-\u001f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const SHORT_ESCAPES = new Set(['"', "\\", "\b", "\f", "\n", "\r", "\t"]);

/** A result serialized, and the strings a cap may cut in it (longer than the smallest cap). */
interface Sized {
  result: FlatResult;
  json: string;
  long: LongString[];
  longest: number;
}

function collectLong(v: JsonValue, out: LongString[]): void {
  if (typeof v === "string") {
    if (v.length > MIN_CAP) out.push(new LongString(v));
  } else if (Array.isArray(v)) for (const x of v) collectLong(x, out);
  else if (v && typeof v === "object") for (const k in v) collectLong(v[k]!, out);
}

function sized(result: FlatResult, json: string): Sized {
  const long: Sized["long"] = [];
  for (const k in result) if (!RESERVED.includes(k)) collectLong(result[k]!, long);
  return { result, json, long, longest: long.reduce((m, l) => Math.max(m, l.s.length), 0) };
}

/** JSON length of shortenResult(r, cap). */
function lengthAt(r: Sized, cap: number): number {
  let n = r.json.length;
  if (r.longest <= cap) return n;
  for (const l of r.long) if (l.s.length > cap) n += l.jsonAt(cap) - l.json;
  return n;
}

/** shortenResult(r, cap) and its JSON. */
function atCap(r: Sized, cap: number): { result: FlatResult; json: string } {
  if (r.longest <= cap) return r;
  const result = shortenResult(r.result, cap);
  return { result, json: JSON.stringify(result) };
}

const HEAD = '{"results":[';

/** The answer's JSON after its results (results must be its first key), or undefined. */
function tailOf(answer: SearchAnswer): string | undefined {
  const env = JSON.stringify({ ...answer, results: [] });
  return env.startsWith(`${HEAD}]`) ? env.slice(HEAD.length + 1) : undefined;
}

function textLength(resultChars: number, n: number, tail: string): number {
  return HEAD.length + resultChars + Math.max(0, n - 1) + 1 + tail.length;
}

/** `answer` (results left out) with the `built` results, and its text from their JSON and `tail`. */
function assemble(answer: SearchAnswer, built: ReadonlyArray<{ result: FlatResult; json: string }>, tail: string) {
  const text = `${HEAD}${built.map((b) => b.json).join(",")}]${tail}`;
  return { answer: { ...answer, results: built.map((b) => b.result) }, text };
}

function joinMessages(...parts: Array<string | undefined>): string | undefined {
  const m = parts.filter((p): p is string => !!p && p.trim().length > 0);
  if (!m.length) return undefined;
  const text = m.join(" ");
  return text.length > MESSAGE_CAP ? `${text.slice(0, MESSAGE_CAP - 1)}…` : text;
}

function cutList(v: JsonValue[]): JsonValue[] {
  return v.length > LIST_CAP ? [...v.slice(0, LIST_CAP), `… and ${v.length - LIST_CAP} more`] : v;
}

function hasOversized(v: JsonValue): boolean {
  if (Array.isArray(v)) return v.length > LIST_CAP || v.some(hasOversized);
  if (v && typeof v === "object") return Object.values(v).some(hasOversized);
  return false;
}

/** `r` with oversized reserved strings and long lists cut (the same object when nothing is). */
function cutOversized(r: FlatResult): FlatResult {
  let changed = false;
  const out: FlatResult = {};
  for (const [k, v] of Object.entries(r)) {
    if (RESERVED.includes(k)) {
      const cut = !IDENTITY.has(k) && typeof v === "string" && v.length > RESERVED_CAP;
      out[k] = cut ? shortenString(v, RESERVED_CAP) : v;
      changed ||= cut;
    } else if (hasOversized(v)) {
      out[k] = mapJson(v, (s) => s, cutList);
      changed = true;
    } else out[k] = v;
  }
  return changed ? out : r;
}

/** The "how to get the full entry" hint, from the first result shown; never suggests a name over the limit. */
function fullEntryHint(first: FlatResult | undefined, opts: BudgetOptions): string | undefined {
  if (!first) return undefined;
  const name = first.name;
  const nameOk = typeof name === "string" && name.length <= RESERVED_CAP && !name.endsWith(MARK);
  const uri = `For a full entry, read its \`uri\` resource (e.g. ${String(first.uri).slice(0, 300)})`;
  // Only a call the tool accepts and that leads to the same entry (the tool builds it); else the uri.
  const how = nameOk && opts.fullEntryHint ? opts.fullEntryHint(first) : `${uri}.`;
  return `Long fields were shortened to fit the response budget (${opts.budgetChars} characters). ${how}`;
}

/** Fit an answer in the budget (see the top of this file); its JSON text with it. */
export function fitAnswer(given: SearchAnswer, opts: BudgetOptions): FittedAnswer {
  let tail0 = tailOf(given);
  // `results` first, as the text is assembled that way (spreading keeps that key in front).
  const answer: SearchAnswer = tail0 === undefined ? Object.assign({ results: given.results }, given) : given;
  tail0 ??= tailOf(answer)!;
  const full = answer.results;
  const fullParts = full.map((r) => JSON.stringify(r));
  let chars = 0;
  for (const p of fullParts) chars += p.length;
  if (textLength(chars, full.length, tail0) <= opts.budgetChars)
    return { answer, text: `${HEAD}${fullParts.join(",")}]${tail0}` };

  const cut = full.map(cutOversized);
  const rs = cut.map((r, i) => sized(r, r === full[i] ? fullParts[i]! : JSON.stringify(r)));
  const shortened = {
    ...answer,
    results: [] as FlatResult[],
    truncated: true,
    message: joinMessages(answer.message, fullEntryHint(cut[0], opts)),
  };
  const tail = tailOf(shortened)!;
  for (const cap of CAPS) {
    const total = rs.reduce((t, r) => t + lengthAt(r, cap), 0);
    if (textLength(total, rs.length, tail) > opts.budgetChars) continue;
    const built = rs.map((r) => atCap(r, cap));
    return assemble(shortened, built, tail);
  }
  // Still too big at the smallest cap: keep results in order up to the first that does not fit; it
  // and the rest start the next page (`next_offset`), so paging skips nothing. A result too big for
  // any answer on its own is left out where it stands (it never pushes out the ones after it) and
  // named in the message with its uri, so it is never lost silently either.
  const withKept = (picked: readonly number[], consumed: number): SearchAnswer => {
    const kept = picked.length;
    const firstKept = kept ? atCap(rs[picked[0]!]!, MIN_CAP).result : undefined;
    const deferred = full.length - consumed;
    const more = answer.has_more || deferred > 0;
    const next = answer.offset + consumed;
    const gone = tooBigBefore(picked, consumed);
    const named = gone.slice(0, 5).map(describe).join("; ") + (gone.length > 5 ? `; and ${gone.length - 5} more` : "");
    const later = `; the other ${deferred} were left out: call again with offset=${next} for them, or lower \`limit\`.`;
    return {
      ...answer,
      results: [],
      count: kept,
      has_more: more,
      ...(more ? { next_offset: next } : {}),
      truncated: true,
      message: joinMessages(
        answer.message,
        `Only ${kept} of ${full.length} results fit the response budget (${opts.budgetChars} characters)` +
          (deferred > 0 ? later : "."),
        gone.length ? `Too large for any answer, so left out: ${named}.` : undefined,
        fullEntryHint(firstKept, opts),
      ),
    };
  };
  // Indices before `consumed` that are not kept: the results too big for any answer.
  const tooBigBefore = (picked: readonly number[], consumed: number): number[] =>
    [...Array(consumed).keys()].filter((i) => !picked.includes(i));
  const describe = (i: number): string => {
    const r = cut[i]!;
    const name = shortenString(String(r.name ?? r.key ?? ""), 80);
    const uri = String(r.uri ?? "");
    return uri.length <= 300 ? `${name} (${uri})` : name;
  };
  // The note is sized for the largest counts and for the results too big alone; the real one is checked below.
  const base = tailOf(withKept([], 0))!;
  const alone = rs.map((r) => textLength(lengthAt(r, MIN_CAP), 1, base) > opts.budgetChars);
  const fitting = rs.map((_, i) => i).filter((i) => !alone[i]);
  const deferredNote = base.length - tailOf(withKept([], full.length))!.length;
  const estimate = tailOf(withKept(fitting, full.length))!.length + Math.max(0, deferredNote);
  const picked: number[] = [];
  let used = 0;
  let consumed = full.length;
  for (let i = 0; i < rs.length; i++) {
    const len = lengthAt(rs[i]!, MIN_CAP);
    if (alone[i]) continue;
    if (HEAD.length + used + len + picked.length + 1 + estimate <= opts.budgetChars) {
      picked.push(i);
      used += len;
    } else {
      consumed = i;
      break;
    }
  }
  // The real note names the first kept result: if it is longer than estimated, move the last kept to the next page.
  while (picked.length > 0 && textLength(used, picked.length, tailOf(withKept(picked, consumed))!) > opts.budgetChars) {
    const j = picked.pop()!;
    used -= lengthAt(rs[j]!, MIN_CAP);
    consumed = j;
  }
  // Nothing kept and nothing left out for good would send the caller back to the same offset: leave the first out.
  if (picked.length === 0 && consumed < full.length && tooBigBefore(picked, consumed).length === 0) consumed += 1;
  const fitted = withKept(picked, consumed);
  const built = picked.map((i) => atCap(rs[i]!, MIN_CAP));
  return assemble(fitted, built, tailOf(fitted)!);
}
