/**
 * The document preference: which document's version of a thing comes first when several
 * documents hold it (collapsing, exact-name lookups, ties). A server setting
 * (`lorekeeper serve --prefer-documents`, env LOREKEEPER_PREFER_DOCUMENTS): the listed documents
 * first, in the order given; then the official SRDs, newer edition first (srd-2024, srd-2014);
 * then other open content; homebrew (OrcBrew, 5etools) last; within a tier by document key. Pure.
 */
import { resolveDocumentKey } from "./normalize/documents.ts";
import { HOMEBREW_SQL, isHomebrewSource } from "./types.ts";

export const OFFICIAL_SRDS = ["srd-2024", "srd-2014"] as const;

export interface DocumentRank {
  (row: { document_key: string; document_source: string }): number;
  /** Identity of the preference (cache keys). */
  readonly id: string;
  /** The explicitly preferred documents, canonical keys, in order. */
  readonly preferred: readonly string[];
  /** The same rank as an SQL expression over `entities e`. */
  readonly sql: string;
}

const quoteSql = (s: string) => `'${s.replace(/'/g, "''")}'`;

const cache = new Map<string, DocumentRank>();

/** Canonical keys of a preference list ("srd-5e" → "srd-2014"), duplicates dropped. */
export function normalizePreference(keys: readonly string[] | undefined): string[] {
  const out: string[] = [];
  for (const k of keys ?? []) {
    const c = resolveDocumentKey(k.trim().toLowerCase());
    if (c && !out.includes(c)) out.push(c);
  }
  return out;
}

/**
 * A rank function: lower comes first. Explicit keys 0..n-1, official SRDs next, then other
 * documents, homebrew last. Callers order equal ranks by document key, then entity key.
 */
export function documentRank(preferred: readonly string[] = []): DocumentRank {
  const keys = normalizePreference(preferred);
  const id = keys.join(",");
  const hit = cache.get(id);
  if (hit) return hit;
  const order = [...keys, ...OFFICIAL_SRDS.filter((k) => !keys.includes(k))];
  const fixed = new Map(order.map((k, i) => [k, i]));
  const fn = ((row: { document_key: string; document_source: string }) => {
    const f = fixed.get(row.document_key.toLowerCase());
    if (f !== undefined) return f;
    // Other open content, then homebrew; within a tier the caller orders by document key.
    return order.length + (isHomebrewSource(row.document_source) ? 1 : 0);
  }) as DocumentRank;
  const whens = order.map((k, i) => `WHEN ${quoteSql(k)} THEN ${i}`).join(" ");
  const sql = `(CASE lower(e.document_key) ${whens} ELSE ${order.length} + (e.document_source IN ${HOMEBREW_SQL}) END)`;
  Object.defineProperties(fn, { id: { value: id }, preferred: { value: keys }, sql: { value: sql } });
  cache.set(id, fn);
  return fn;
}

/** What the preference order compares: one stored entity's document and key. */
export interface Ranked {
  id: number;
  key: string;
  document_key: string;
  document_source: string;
}

/** Code-unit order of two strings (not the locale's). */
export const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Compare two rows by preference: preferred document first, then document key, then key, then id (a total order). */
export function comparePreferred(rank: DocumentRank): (a: Ranked, b: Ranked) => number {
  return (a, b) =>
    rank(a) - rank(b) ||
    cmp(a.document_key.toLowerCase(), b.document_key.toLowerCase()) ||
    cmp(a.key, b.key) ||
    a.id - b.id;
}
