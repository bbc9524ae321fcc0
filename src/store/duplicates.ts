/**
 * One entity per thing per document. When two sources carry the same entity of the same document
 * (SRD 5.1 "Cover" as an Open5e v2 rule and a D&D 5e API rule section; Fireball from Open5e v2 and
 * v1, both srd-2014), the one from the preferred source answers and the other is stored with
 * `dup_of` = its id: searches skip it, its URI still resolves, and the answer of the preferred one
 * fills its empty fields from it, saying which fields came from where (`merged_from`).
 *
 * Source preference: the order of `SOURCES` (src/sources/index.ts: Open5e v2, then the D&D 5e API,
 * then Open5e v1, then the homebrew). "The same entity" = same kind (rules and rule sections count
 * as one), same name (slug), and the other's document is its document or one whose wording it also
 * carries (`also_documents`).
 * Entities of one source are never folded into each other.
 */
import type { Database } from "bun:sqlite";
import { CACHES } from "./caches.ts";
import type { Entity, JsonObject, JsonValue } from "../entities/types.ts";
import { sourceRank as rank } from "../sources/index.ts";

/** Kinds that are one thing to a reader (a D&D 5e API rule section is an Open5e rule). */
function family(kind: string): string {
  return kind === "rule_section" ? "rule" : kind;
}

/** `kinds` with the other kinds of their family (what a change of `kinds` touches). */
export function familyKinds(kinds: Iterable<string>): string[] {
  const out = new Set<string>();
  for (const k of kinds) {
    out.add(k);
    if (k === "rule") out.add("rule_section");
    if (k === "rule_section") out.add("rule");
  }
  return [...out];
}

/** Is `c` a better primary for `r` than `best`: preferred source, then the same kind, then the older row. */
function better(c: DupRow, best: DupRow, r: DupRow): boolean {
  const d = rank(c.document_source) - rank(best.document_source);
  if (d !== 0) return d < 0;
  const k = Number(best.kind === r.kind) - Number(c.kind === r.kind);
  if (k !== 0) return k < 0;
  return c.id < best.id;
}

interface DupRow {
  id: number;
  kind: string;
  document_key: string;
  slug: string;
  document_source: string;
  also_documents: string | null;
  dup_of: number | null;
}

/**
 * Recompute `dup_of` for the entities of `kinds` (and their family). Call inside the transaction
 * that changed them. Returns how many rows changed.
 */
export function refreshDuplicates(db: Database, kinds: Iterable<string>): number {
  const ks = familyKinds(kinds);
  if (ks.length === 0) return 0;
  const rows = db
    .query<DupRow, string[]>(
      `SELECT id, kind, document_key, slug, document_source, also_documents, dup_of FROM entities WHERE kind IN ` +
        `(${ks.map(() => "?").join(",")})`,
    )
    .all(...ks);
  // (family, document, slug) → candidates that carry that document's entity
  const carried = rows.flatMap((r) => {
    const docs = new Set([r.document_key.toLowerCase(), ...(r.also_documents ?? "").split("|").filter((d) => d)]);
    return [...docs].map((d) => ({ key: `${family(r.kind)}\u0000${d}\u0000${r.slug}`, r }));
  });
  const carriers = Map.groupBy(carried, (c) => c.key);
  const setDup = db.query("UPDATE entities SET dup_of = ? WHERE id = ?");
  let changed = 0;
  for (const r of rows) {
    const list = carriers.get(`${family(r.kind)}\u0000${r.document_key.toLowerCase()}\u0000${r.slug}`) ?? [];
    let best: DupRow | null = null;
    for (const { r: c } of list) {
      // Only a preferred source's row, never one of the same source (nor the row itself).
      if (rank(c.document_source) < rank(r.document_source) && (!best || better(c, best, r))) best = c;
    }
    const want = best?.id ?? null;
    if (want !== r.dup_of) {
      setDup.run(want, r.id);
      changed++;
    }
  }
  return changed;
}

function empty(v: JsonValue | undefined): boolean {
  if (v === undefined || v === null || v === "") return true;
  if (Array.isArray(v)) return v.length === 0;
  if (typeof v === "object") return Object.keys(v).length === 0;
  return false;
}

export interface MergedFrom {
  source: string;
  key: string;
  kind: string;
  /** fields of the answer that came from this entity (the rest are the answering entity's own) */
  fields: string[];
}

/**
 * The answer of `primary` with the fields it lacks filled from its duplicates (best source first),
 * and `merged_from` naming each duplicate and the fields taken from it. Pure.
 */
export function mergeDuplicates(
  primary: Entity,
  dups: readonly Entity[],
): { data: JsonObject; merged_from: MergedFrom[] } {
  const data: JsonObject = { ...primary.data };
  const merged: MergedFrom[] = [];
  const ordered = [...dups].sort(
    (a, b) => rank(a.document_source) - rank(b.document_source) || a.key.localeCompare(b.key),
  );
  for (const d of ordered) {
    const fields: string[] = [];
    for (const [k, v] of Object.entries(d.data)) {
      if (empty(v) || !empty(data[k])) continue;
      data[k] = v;
      fields.push(k);
    }
    merged.push({ source: d.document_source, key: d.key, kind: d.kind, fields });
  }
  return { data, merged_from: merged };
}

/**
 * Every duplicate's id by the id it duplicates (ascending), read once per store version: the
 * partial dup_of index, once for the whole store. A name lookup then asks no statement.
 */
function duplicateIds(db: Database): ReadonlyMap<number, readonly { id: number }[]> {
  return CACHES.duplicates.get(db, () => {
    const q = db.query<{ id: number; dup_of: number }, []>(
      "SELECT id, dup_of FROM entities WHERE dup_of IS NOT NULL ORDER BY dup_of, id",
    );
    return Map.groupBy(q.all(), (r) => r.dup_of);
  });
}

/** Ids of the duplicates of each of `ids` (entities whose dup_of is one of them), ascending. */
export function duplicatesOf(db: Database, ids: readonly number[]): Map<number, number[]> {
  const out = new Map<number, number[]>();
  if (ids.length === 0) return out;
  const all = duplicateIds(db);
  for (const id of ids) {
    const dups = all.get(id);
    if (dups)
      out.set(
        id,
        dups.map((d) => d.id),
      );
  }
  return out;
}
