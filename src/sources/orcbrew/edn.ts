/**
 * A small, strict EDN reader with line:column errors, written for `.orcbrew` files.
 *
 * Why not `edn-data`: it keeps no source positions, returns `null` for truncated input instead of an
 * error, pairs `#_`-discarded forms into the surrounding map, accepts mismatched brackets, and has
 * no `##NaN`, namespaced maps or duplicate-key detection. This reader follows
 * clojure/tools.reader's EDN reader (what OrcPub uses): a leading BOM is skipped, `;` comments,
 * `#!` comments, `#_` discards and commas are whitespace, `#:ns{}` namespaced maps, `##NaN` /
 * `##Inf` / `##-Inf`, `#inst` / `#uuid`; duplicate map keys / set elements and any other tag are
 * errors. Only the first form is read; what follows it is reported, not parsed.
 * Below the reader: the values it produces (with source offsets), their equality keys (duplicate
 * detection) and their conversion to the plain JSON that the normalizers read.
 */
import { LoreKeeperError } from "../../errors.ts";
import type { JsonObject, JsonValue } from "../../json.ts";
import { own } from "../../entities/normalize/read.ts";

export class EdnSyntaxError extends LoreKeeperError {
  override name = "EdnSyntaxError";
  constructor(
    readonly reason: string,
    readonly line: number,
    readonly column: number,
  ) {
    super("edn_syntax", `line ${line}, column ${column}: ${reason}`);
  }
}

/** Offsets → 1-based line and column (a leading BOM does not count as a column). */
class LineIndex {
  private starts: number[] = [0];
  constructor(private readonly text: string) {
    for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) this.starts.push(i + 1);
  }
  locate(offset: number): { line: number; column: number } {
    let lo = 0;
    let hi = this.starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    const bom = lo === 0 && this.text.charCodeAt(0) === 0xfeff && offset > 0 ? 1 : 0;
    return { line: lo + 1, column: offset - this.starts[lo]! + 1 - bom };
  }
}

export interface ReadResult {
  value: EdnValue;
  lines: LineIndex;
  /** Offset of the first non-blank text after the first form, if any (ignored, as OrcPub does). */
  trailingOffset: number | null;
}

const MAX_DEPTH = 512;
const TERMINATORS = new Set(['"', ";", "^", "(", ")", "[", "]", "{", "}", "\\"]);
const CLOSERS: Record<string, string> = { "(": ")", "[": "]", "{": "}", "#{": "}" };
const COLL_NAMES: Record<string, string> = { "(": "list", "[": "vector", "{": "map", "#{": "set" };
const CHAR_NAMES: Record<string, string> = {
  newline: "\n",
  space: " ",
  tab: "\t",
  backspace: "\b",
  formfeed: "\f",
  return: "\r",
};
const SYMBOLIC: Record<string, number> = { NaN: NaN, Inf: Infinity, "-Inf": -Infinity };
const STRING_ESCAPES: Record<string, string> = { t: "\t", r: "\r", n: "\n", "\\": "\\", '"': '"', b: "\b", f: "\f" };
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const INST_RE = /^\d{4}(-\d{2}(-\d{2}(T\d{2}(:\d{2}(:\d{2}(\.\d+)?)?)?(Z|[-+]\d{2}:\d{2})?)?)?)?$/;

function isWhitespace(ch: string): boolean {
  if (ch === "," || ch === " " || ch === "\n" || ch === "\t" || ch === "\r") return true;
  // Unicode spaces, and the zero-width characters that pasted text carries between tokens
  return ch.charCodeAt(0) > 127 ? /[\s\u200b-\u200d\u2060\ufeff]/.test(ch) : ch === "\f" || ch === "\v";
}

/** Read the first EDN form of `text`. Throws EdnSyntaxError with line and column. */
export function readEdn(text: string): ReadResult {
  const r = new Reader(text);
  const value = r.readTop();
  return { value, lines: r.lines, trailingOffset: r.trailing() };
}

class Reader {
  readonly lines: LineIndex;
  private pos: number;
  /** Next backslash at or after the last search (cached: a file without escapes is scanned once). */
  private nextBackslash = -2;
  constructor(private readonly s: string) {
    this.lines = new LineIndex(s);
    this.pos = s.charCodeAt(0) === 0xfeff ? 1 : 0;
  }

  private fail(reason: string, offset: number = this.pos): never {
    const { line, column } = this.lines.locate(Math.min(offset, this.s.length));
    throw new EdnSyntaxError(reason, line, column);
  }

  private where(offset: number): string {
    const { line, column } = this.lines.locate(offset);
    return `line ${line}, column ${column}`;
  }

  readTop(): EdnValue {
    this.skipBlank();
    if (this.pos >= this.s.length) this.fail("the file is empty: no EDN data found");
    return this.readForm(0);
  }

  trailing(): number | null {
    this.skipBlank();
    return this.pos < this.s.length ? this.pos : null;
  }

  /** Skip whitespace, commas and comments (not discards). */
  private skipBlank(): void {
    const s = this.s;
    while (this.pos < s.length) {
      const ch = s[this.pos]!;
      if (isWhitespace(ch)) this.pos++;
      else if (ch === ";" || (ch === "#" && s[this.pos + 1] === "!")) {
        const nl = s.indexOf("\n", this.pos);
        this.pos = nl < 0 ? s.length : nl + 1;
      } else break;
    }
  }

  /**
   * Skip blanks and `#_ form` discards; returns at the next meaningful character (or EOF).
   * Iterative: `#_ #_ a b` discards a and b, and a chain of 200,000 `#_` uses no stack (a count of
   * forms still to discard); each discarded form is read one level deeper, under the depth limit.
   */
  private skipIgnorable(depth: number): void {
    let pending = 0;
    let firstAt = -1;
    for (;;) {
      this.skipBlank();
      if (this.s[this.pos] === "#" && this.s[this.pos + 1] === "_") {
        if (pending === 0) firstAt = this.pos;
        pending++;
        this.pos += 2;
        continue;
      }
      if (pending === 0) return;
      if (this.pos >= this.s.length || ")]}".includes(this.s[this.pos]!)) {
        this.fail(
          `#_ (discard) is not followed by a form to discard` +
            `${pending > 1 ? ` (${pending} discards are still waiting for one)` : ""}`,
          firstAt,
        );
      }
      this.readForm(depth + 1);
      pending--;
    }
  }

  private readForm(depth: number): EdnValue {
    if (depth > MAX_DEPTH) this.fail(`nesting deeper than ${MAX_DEPTH} levels`);
    this.skipIgnorable(depth);
    const start = this.pos;
    const ch = this.s[this.pos];
    if (ch === undefined) this.fail("unexpected end of file: a value is missing");
    switch (ch) {
      case '"':
        return this.readString();
      case "(":
      case "[":
      case "{":
        this.pos++;
        return this.readColl(ch, start, depth);
      case ")":
      case "]":
      case "}":
        return this.fail(`unexpected '${ch}': nothing is open here`);
      case "\\":
        return this.readChar();
      case ":":
        return this.readKeyword();
      case "#":
        return this.readDispatch(depth);
      case "^":
        this.fail("metadata (^) is not allowed in EDN");
    }
    const tok = this.readToken();
    if (/^[-+]?\d/.test(tok)) return this.parseNumber(tok, start);
    if (tok === "nil") return null;
    if (tok === "true") return true;
    if (tok === "false") return false;
    return named("symbol", tok, start);
  }

  /** A token: everything up to whitespace or a delimiter. */
  private readToken(): string {
    const from = this.pos;
    const s = this.s;
    while (this.pos < s.length && !isWhitespace(s[this.pos]!) && !TERMINATORS.has(s[this.pos]!)) this.pos++;
    return s.slice(from, this.pos);
  }

  private readString(): string {
    const open = this.pos;
    const s = this.s;
    let out = "";
    let i = open + 1;
    for (;;) {
      const q = s.indexOf('"', i);
      if (this.nextBackslash !== -1 && this.nextBackslash < i) this.nextBackslash = s.indexOf("\\", i);
      const b = this.nextBackslash;
      if (q < 0) this.fail("unterminated string: no closing '\"'", open);
      if (b < 0 || q < b) {
        out += s.slice(i, q);
        this.pos = q + 1;
        return out;
      }
      out += s.slice(i, b);
      const e = s[b + 1];
      if (e === undefined) this.fail("unterminated string: no closing '\"'", open);
      if (e in STRING_ESCAPES) {
        out += STRING_ESCAPES[e];
        i = b + 2;
      } else if (e === "u") {
        const hex = s.slice(b + 2, b + 6);
        if (!/^[0-9a-fA-F]{4}$/.test(hex))
          this.fail(`invalid unicode escape \\u${hex.replace(/[^0-9a-zA-Z]+$/, "")} in string`, b);
        out += String.fromCharCode(parseInt(hex, 16));
        i = b + 6;
      } else if (/[0-7]/.test(e)) {
        const oct = /^[0-7]{1,3}/.exec(s.slice(b + 1, b + 4))![0];
        const code = parseInt(oct, 8);
        if (code > 0o377) this.fail(`octal escape \\${oct} is out of range`, b);
        out += String.fromCharCode(code);
        i = b + 1 + oct.length;
      } else {
        this.fail(`unsupported escape \\${e} in string`, b);
      }
    }
  }

  private readChar(): EdnValue {
    const start = this.pos;
    this.pos++;
    if (this.pos >= this.s.length) this.fail("unexpected end of file after '\\'", start);
    const first = this.s[this.pos]!;
    this.pos++;
    const rest = TERMINATORS.has(first) || isWhitespace(first) ? "" : this.readToken();
    const tok = first + rest;
    const named = own(CHAR_NAMES, tok);
    if (named !== undefined) return { type: "char", value: named };
    if (/^u[0-9a-fA-F]{4}$/.test(tok)) return { type: "char", value: String.fromCharCode(parseInt(tok.slice(1), 16)) };
    if (/^o[0-7]{1,3}$/.test(tok) && parseInt(tok.slice(1), 8) <= 0o377)
      return { type: "char", value: String.fromCharCode(parseInt(tok.slice(1), 8)) };
    // One character, a surrogate pair (one astral character) too.
    if ([...tok].length === 1) return { type: "char", value: tok };
    this.fail(`unsupported character literal \\${tok}`, start);
  }

  private readKeyword(): EdnValue {
    const start = this.pos;
    this.pos++;
    const tok = this.readToken();
    if (tok === "") this.fail("a ':' must be followed by a keyword name", start);
    if (tok.startsWith(":")) this.fail(`auto-resolved keyword ::${tok.slice(1)} is not allowed in EDN`, start);
    if (tok[0] === "/" || tok.indexOf("/") === tok.length - 1) this.fail(`invalid keyword :${tok}`, start);
    return named("keyword", tok, start);
  }

  private readDispatch(depth: number): EdnValue {
    const start = this.pos;
    const next = this.s[this.pos + 1];
    if (next === "{") {
      this.pos += 2;
      return this.readColl("#{", start, depth);
    }
    if (next === "#") {
      this.pos += 2;
      const tok = this.readToken();
      const symbolic = own(SYMBOLIC, tok);
      if (symbolic !== undefined) return symbolic;
      this.fail(`unknown symbolic value ##${tok} (only ##NaN, ##Inf and ##-Inf exist)`, start);
    }
    if (next === ":") return this.readNamespacedMap(depth);
    if (next === '"') this.fail('regular expressions (#"...") are not allowed in EDN', start);
    if (next === undefined || isWhitespace(next) || TERMINATORS.has(next))
      this.fail("a '#' must be followed by a tag, '{', '_' or '#'", start);
    this.pos++;
    const tag = this.readToken();
    const val = this.readForm(depth + 1);
    if (tag === "inst") {
      if (typeof val !== "string" || !INST_RE.test(val) || Number.isNaN(Date.parse(val)))
        this.fail(`#inst needs an RFC 3339 timestamp string, got ${show(val)}`, start);
      return { type: "inst", value: val, offset: start };
    }
    if (tag === "uuid") {
      if (typeof val !== "string" || !UUID_RE.test(val))
        this.fail(`#uuid needs a UUID string, got ${show(val)}`, start);
      return { type: "uuid", value: val.toLowerCase(), offset: start };
    }
    this.fail(`unknown tag #${tag}: .orcbrew files may only use #inst and #uuid`, start);
  }

  private readNamespacedMap(depth: number): EdnValue {
    const start = this.pos;
    this.pos += 2;
    const ns = this.readToken();
    if (ns === "" || ns.startsWith(":"))
      this.fail("namespaced map needs a namespace after '#:' (auto-resolved #:: is not EDN)", start);
    this.skipBlank();
    if (this.s[this.pos] !== "{") this.fail(`namespaced map #:${ns} must be followed by '{'`, this.pos);
    const open = this.pos;
    this.pos++;
    return this.readColl("{", open, depth, ns);
  }

  private readColl(opener: string, start: number, depth: number, mapNs?: string): EdnValue {
    const closer = CLOSERS[opener]!;
    const name = COLL_NAMES[opener]!;
    const items: EdnValue[] = [];
    const offsets: number[] = [];
    for (;;) {
      this.skipIgnorable(depth);
      const ch = this.s[this.pos];
      if (ch === undefined)
        this.fail(
          `unexpected end of file: the ${name} opened at ${this.where(start)} is not closed (missing '${closer}')`,
        );
      if (ch === closer) {
        this.pos++;
        break;
      }
      if (ch === ")" || ch === "]" || ch === "}")
        this.fail(
          `unexpected '${ch}': the ${name} opened at ${this.where(start)} must be closed with '${closer}' first`,
        );
      offsets.push(this.pos);
      items.push(this.readForm(depth + 1));
    }
    if (name === "map") return this.buildMap(items, offsets, start, mapNs);
    if (name === "set") this.unique(items, offsets, (it) => `set element ${show(it)}`);
    return { type: name as EdnColl["type"], items, offset: start };
  }

  private buildMap(items: EdnValue[], offsets: number[], start: number, ns?: string): EdnMap {
    if (items.length % 2 === 1) {
      const last = items.length - 1;
      this.fail(
        `the map opened at ${this.where(start)} has an odd number of forms: the key ${show(items[last]!)} has no value`,
        offsets[last],
      );
    }
    const entries: EdnMapEntry[] = [];
    for (let i = 0; i < items.length; i += 2) {
      let key = items[i]!;
      if (
        ns !== undefined &&
        typeof key === "object" &&
        key !== null &&
        (key.type === "keyword" || key.type === "symbol")
      ) {
        if (key.ns === null) key = { ...key, ns };
        else if (key.ns === "_") key = { ...key, ns: null };
      }
      entries.push({ key, value: items[i + 1]!, offset: offsets[i]! });
    }
    const keys = entries.map((e) => e.key);
    this.unique(
      keys,
      entries.map((e) => e.offset),
      (k) => `key ${show(k)} in a map`,
    );
    return { type: "map", entries, offset: start };
  }

  /** Refuse the second of two equal values (set elements, map keys), at its place; `what` names it. */
  private unique(values: EdnValue[], offsets: number[], what: (v: EdnValue) => string): void {
    const seen = new Map<string, number>();
    values.forEach((v, i) => {
      const k = equalityKey(v);
      const first = seen.get(k);
      if (first !== undefined) this.fail(`duplicate ${what(v)} (first at ${this.where(first)})`, offsets[i]);
      seen.set(k, offsets[i]!);
    });
  }

  private parseNumber(tok: string, start: number): number {
    let m: RegExpExecArray | null;
    if ((m = /^([-+]?)(\d+)N?$/.exec(tok))) return Number(`${m[1]}${m[2]}`);
    if ((m = /^([-+]?)0[xX]([0-9a-fA-F]+)N?$/.exec(tok))) return (m[1] === "-" ? -1 : 1) * parseInt(m[2]!, 16);
    if (/^[-+]?\d+(\.\d*)?([eE][-+]?\d+)?M?$/.test(tok)) return Number(tok.replace(/M$/, ""));
    if ((m = /^([-+]?\d+)\/(\d+)$/.exec(tok))) {
      const d = Number(m[2]);
      if (d === 0) this.fail(`ratio ${tok} divides by zero`, start);
      return Number(m[1]) / d;
    }
    if ((m = /^([-+]?)(\d{1,2})[rR]([0-9a-zA-Z]+)$/.exec(tok))) {
      const radix = Number(m[2]);
      const n = radix >= 2 && radix <= 36 ? parseInt(m[3]!, radix) : NaN;
      if (!Number.isNaN(n) && n.toString(radix) === m[3]!.toLowerCase().replace(/^0+(?=.)/, ""))
        return m[1] === "-" ? -n : n;
    }
    this.fail(`invalid number ${tok}`, start);
  }
}

/** `ns/name` or `name`: a `/` first or last separates nothing. */
function named(type: EdnName["type"], tok: string, offset: number): EdnName {
  const slash = tok.indexOf("/");
  const split = slash > 0 && slash < tok.length - 1;
  return { type, ns: split ? tok.slice(0, slash) : null, name: split ? tok.slice(slash + 1) : tok, offset };
}

interface EdnName {
  type: "keyword" | "symbol";
  ns: string | null;
  name: string;
  offset: number;
}
interface EdnChar {
  type: "char";
  value: string;
}
/** `#inst` (value: the ISO-8601 text) and `#uuid` (value: the lower-cased uuid). */
interface EdnTagged {
  type: "inst" | "uuid";
  value: string;
  offset: number;
}
interface EdnMapEntry {
  key: EdnValue;
  value: EdnValue;
  /** Offset of the key. */
  offset: number;
}
export interface EdnMap {
  type: "map";
  entries: EdnMapEntry[];
  offset: number;
}
interface EdnColl {
  type: "vector" | "list" | "set";
  items: EdnValue[];
  offset: number;
}
/** Numbers include NaN / ±Infinity (`##NaN`, `##Inf`, `##-Inf`). */
export type EdnValue = null | boolean | number | string | EdnName | EdnChar | EdnTagged | EdnMap | EdnColl;

export function isMap(v: EdnValue): v is EdnMap {
  return typeof v === "object" && v !== null && v.type === "map";
}
export function isKeyword(v: EdnValue): v is EdnName {
  return typeof v === "object" && v !== null && v.type === "keyword";
}

/** What a value is, for messages: "a map", "a vector", "nil", "the string \"x\"". */
export function describe(v: EdnValue): string {
  if (v === null) return "nil";
  if (typeof v === "boolean") return String(v);
  if (typeof v === "number") return `the number ${Number.isNaN(v) ? "##NaN" : v}`;
  if (typeof v === "string") return `the string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}`;
  if (v.type === "keyword") return `the keyword ${kwText(v)}`;
  if (v.type === "symbol") return `the symbol ${v.ns ? `${v.ns}/` : ""}${v.name}`;
  return { char: "a character", inst: "an #inst", uuid: "a #uuid" }[v.type as string] ?? `a ${v.type}`;
}

export function kwText(k: { ns: string | null; name: string }): string {
  return `:${k.ns ? `${k.ns}/` : ""}${k.name}`;
}

/** A value as it would be printed, short: for naming map keys in messages. */
export function show(v: EdnValue): string {
  if (v === null) return "nil";
  if (typeof v === "string") return JSON.stringify(v);
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (v.type === "keyword") return kwText(v);
  if (v.type === "symbol") return `${v.ns ? `${v.ns}/` : ""}${v.name}`;
  return describe(v);
}

/**
 * Equality key: two values are equal in EDN (as ClojureScript compares them) iff their keys are
 * equal. Vectors and lists with the same items are equal; sets and maps ignore order.
 */
export function equalityKey(v: EdnValue): string {
  if (v === null) return "nil";
  if (typeof v === "boolean") return v ? "true" : "false";
  if (typeof v === "number") return `n${v}`;
  if (typeof v === "string") return `s${JSON.stringify(v)}`;
  if (v.type === "map")
    return `{${v.entries
      .map((e) => `${equalityKey(e.key)} ${equalityKey(e.value)}`)
      .sort()
      .join(",")}}`;
  if ("items" in v)
    return v.type === "set"
      ? `#{${v.items.map(equalityKey).sort().join(",")}}`
      : `[${v.items.map(equalityKey).join(",")}]`;
  if ("name" in v) return `${v.type === "keyword" ? "k" : "y"}${v.ns ?? ""}/${v.name}`;
  return v.type === "char" ? `c${v.value}` : `${v.type}${v.value}`;
}

/** A map key as a plain-object key: keywords lose their namespace (`:orcpub.dnd.e5.character/str` → "str"). */
function plainKey(k: EdnValue): string | undefined {
  const p = toPlain(k);
  return typeof p === "string" || typeof p === "number" || typeof p === "boolean" ? String(p) : undefined;
}

/**
 * EDN → plain JSON for the normalizers: keywords and symbols become their name (namespace dropped),
 * sets and lists become arrays, `nil` keys (the `{nil nil}` cruft) and composite keys are dropped,
 * non-finite numbers (`##NaN`) become null.
 */
export function toPlain(v: EdnValue): JsonValue {
  if (v === null || typeof v === "boolean" || typeof v === "string") return v;
  if (typeof v === "number") return Number.isFinite(v) ? v : null;
  if ("name" in v) return v.name;
  if ("value" in v) return v.value;
  if (v.type !== "map") return v.items.map(toPlain);
  const out: JsonObject = {};
  for (const e of v.entries) {
    const k = plainKey(e.key);
    if (k === undefined) continue;
    const val = toPlain(e.value);
    // `{:str 2 :orcpub.dnd.e5.character/str nil}`: a later nil never hides an earlier value
    if (val === null && out[k] !== undefined) continue;
    out[k] = val;
  }
  return out;
}
