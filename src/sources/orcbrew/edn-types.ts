/**
 * The values the EDN reader produces, with source offsets on everything that can carry a location
 * (collections, keywords, map entries), plus equality keys (for duplicate detection) and the
 * conversion to plain JSON that the normalizers read.
 */
import type { JsonObject, JsonValue } from "../../json.ts";

export interface EdnKeyword {
  type: "keyword";
  ns: string | null;
  name: string;
  offset: number;
}
export interface EdnSymbol {
  type: "symbol";
  ns: string | null;
  name: string;
  offset: number;
}
export interface EdnChar {
  type: "char";
  value: string;
}
/** `#inst` (value: the ISO-8601 text) and `#uuid` (value: the lower-cased uuid). */
export interface EdnTagged {
  type: "inst" | "uuid";
  value: string;
  offset: number;
}
export interface EdnMapEntry {
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
export interface EdnColl {
  type: "vector" | "list" | "set";
  items: EdnValue[];
  offset: number;
}
/** Numbers include NaN / ±Infinity (`##NaN`, `##Inf`, `##-Inf`). */
export type EdnValue =
  | null
  | boolean
  | number
  | string
  | EdnKeyword
  | EdnSymbol
  | EdnChar
  | EdnTagged
  | EdnMap
  | EdnColl;

export function isMap(v: EdnValue): v is EdnMap {
  return typeof v === "object" && v !== null && v.type === "map";
}
export function isKeyword(v: EdnValue): v is EdnKeyword {
  return typeof v === "object" && v !== null && v.type === "keyword";
}

/** What a value is, for messages: "a map", "a vector", "nil", "the string \"x\"". */
export function describe(v: EdnValue): string {
  if (v === null) return "nil";
  if (typeof v === "boolean") return String(v);
  if (typeof v === "number") return `the number ${Number.isNaN(v) ? "##NaN" : v}`;
  if (typeof v === "string") return `the string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}`;
  switch (v.type) {
    case "keyword":
      return `the keyword ${kwText(v)}`;
    case "symbol":
      return `the symbol ${v.ns ? `${v.ns}/` : ""}${v.name}`;
    case "char":
      return "a character";
    case "inst":
      return "an #inst";
    case "uuid":
      return "a #uuid";
    case "map":
      return "a map";
    default:
      return `a ${v.type}`;
  }
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
  switch (v.type) {
    case "keyword":
      return `k${v.ns ?? ""}/${v.name}`;
    case "symbol":
      return `y${v.ns ?? ""}/${v.name}`;
    case "char":
      return `c${v.value}`;
    case "inst":
    case "uuid":
      return `${v.type}${v.value}`;
    case "map":
      return `{${v.entries
        .map((e) => `${equalityKey(e.key)} ${equalityKey(e.value)}`)
        .sort()
        .join(",")}}`;
    case "set":
      return `#{${v.items.map(equalityKey).sort().join(",")}}`;
    default:
      return `[${v.items.map(equalityKey).join(",")}]`;
  }
}

/** A map key as a plain-object key: keywords lose their namespace (`:orcpub.dnd.e5.character/str` → "str"). */
function plainKey(k: EdnValue): string | undefined {
  if (k === null) return undefined;
  if (typeof k === "string") return k;
  if (typeof k === "number") return Number.isFinite(k) ? String(k) : undefined;
  if (typeof k === "boolean") return String(k);
  if (k.type === "keyword" || k.type === "symbol") return k.name;
  if (k.type === "char" || k.type === "inst" || k.type === "uuid") return k.value;
  return undefined;
}

/**
 * EDN → plain JSON for the normalizers: keywords and symbols become their name (namespace dropped),
 * sets and lists become arrays, `nil` keys (the `{nil nil}` cruft) and composite keys are dropped,
 * non-finite numbers (`##NaN`) become null.
 */
export function toPlain(v: EdnValue): JsonValue {
  if (v === null || typeof v === "boolean" || typeof v === "string") return v;
  if (typeof v === "number") return Number.isFinite(v) ? v : null;
  switch (v.type) {
    case "keyword":
    case "symbol":
      return v.name;
    case "char":
    case "inst":
    case "uuid":
      return v.value;
    case "map": {
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
    default:
      return v.items.map(toPlain);
  }
}
