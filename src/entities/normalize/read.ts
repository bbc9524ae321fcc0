/**
 * Lenient readers over untyped upstream and homebrew JSON: each returns a clean value or null, never throws.
 * Valibot checks the identity fields at the boundary; everything else goes through these.
 */
import type { JsonObject, JsonValue } from "../../json.ts";

export type Rec = { [k: string]: unknown };

/**
 * `table[key]` when it is the table's own entry: a key from outside input ("constructor",
 * "toString") never reads a property every object inherits.
 */
export function own<V>(table: Readonly<Record<string, V>>, key: string): V | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

export function isRec(x: unknown): x is Rec {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

export function rec(x: JsonValue | undefined): JsonObject | null;
export function rec(x: unknown): Rec | null;
export function rec(x: unknown): Rec | null {
  return isRec(x) ? x : null;
}

/** Trimmed non-empty string; numbers become strings. */
export function str(x: unknown): string | null {
  if (typeof x === "string") {
    const s = x.trim();
    return s.length > 0 ? s : null;
  }
  if (typeof x === "number" && Number.isFinite(x)) return String(x);
  return null;
}

/** A number, or a string holding one ("3.000", "15", "+2"). */
export function num(x: unknown): number | null {
  if (typeof x === "number") return Number.isFinite(x) ? x : null;
  if (typeof x === "string" && /^\s*[-+]?\d+(\.\d+)?\s*$/.test(x)) return Number(x);
  return null;
}

export function int(x: unknown): number | null {
  const n = num(x);
  return n === null ? null : Math.trunc(n);
}

/** true/false, "yes"/"no", "true"/"false"; anything else null. */
export function bool(x: unknown): boolean | null {
  if (typeof x === "boolean") return x;
  if (typeof x === "string") {
    const s = x.trim().toLowerCase();
    if (s === "yes" || s === "true") return true;
    if (s === "no" || s === "false") return false;
  }
  return null;
}

export function arr(x: JsonValue | undefined): JsonValue[];
export function arr(x: unknown): unknown[];
export function arr(x: unknown): unknown[] {
  return Array.isArray(x) ? x : [];
}

export function recs(x: JsonValue | undefined): JsonObject[];
export function recs(x: unknown): Rec[];
export function recs(x: unknown): Rec[] {
  return arr(x).filter(isRec);
}

/** A string, or a list of strings joined by blank lines (dnd5eapi `desc: string[]`). */
export function textOf(x: unknown): string | null {
  if (Array.isArray(x)) {
    const parts = x.map(str).filter((s): s is string => s !== null);
    return parts.length ? parts.join("\n\n") : null;
  }
  return str(x);
}

/** Last non-empty path segment of a URL ("https://x/v2/documents/srd-2014/" → "srd-2014"). */
export function lastSegment(url: string): string {
  const path = url.replace(/[?#].*$/, "");
  const parts = path.split("/").filter((p) => p.length > 0);
  return parts.length ? parts[parts.length - 1]! : url;
}

/**
 * Key of a reference that may be an object ({key}|{index}|{slug}|{url}), a bare key, or a URL.
 */
export function refKey(x: unknown): string | null {
  if (isRec(x)) {
    const k = str(x.key) ?? str(x.index) ?? str(x.slug);
    if (k) return k;
    const u = str(x.url);
    return u ? lastSegment(u) : null;
  }
  const s = str(x);
  if (!s) return null;
  return /^https?:\/\/|^\//.test(s) ? lastSegment(s) : s;
}

/** Display name of an object reference ({name}), else null. */
export function refName(x: unknown): string | null {
  return isRec(x) ? str(x.name) : null;
}

/** Names of a list of references (objects with name, or strings). */
export function names(x: unknown): string[] {
  return arr(x)
    .map((r) => (isRec(r) ? str(r.name) : str(r)))
    .filter((s): s is string => s !== null);
}

export function uniq<T>(xs: T[]): T[] {
  return [...new Set(xs)];
}

/** Items by each of their keys, in item order: an item is listed once under each key it has. */
export function groupByKeys<T>(items: readonly T[], keysOf: (t: T) => string[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const t of items) {
    for (const k of new Set(keysOf(t))) out.set(k, [...(out.get(k) ?? []), t]);
  }
  return out;
}
