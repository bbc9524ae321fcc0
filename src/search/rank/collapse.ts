/**
 * One canonical entry per thing: entities of one kind with the same name (case-insensitive) from
 * several documents are one group; the group shows its preferred document's entity and names the
 * others. Which document is preferred is the document preference (preference.ts).
 *
 * A structured query's groups come from SQL (page.ts); a ranked query's follow the ranking (a
 * group ranks where its best member does).
 */
import type { Database } from "bun:sqlite";
import { comparePreferred, type DocumentRank } from "./preference.ts";

export { comparePreferred };

/** The identity of one stored entity, enough to group and rank it. */
export interface LightRow {
  id: number;
  kind: string;
  name: string;
  document_key: string;
  document_source: string;
  key: string;
}

/** One canonical entry: the preferred member first, then the other versions in preference order. */
export interface Group {
  members: LightRow[];
}

export const LIGHT = "e.id, e.kind, e.name, e.document_key, e.document_source, e.key";

/** Kind and name as SQLite's NOCASE compares them (ASCII letters folded), so SQL and JS group alike. */
export function groupKey(r: { kind: string; name: string }): string {
  return `${r.kind}\u0000${r.name.replace(/[A-Z]+/g, (m) => m.toLowerCase())}`;
}

/** Sort members in preference order. */
export function orderMembers(members: LightRow[], rank: DocumentRank): LightRow[] {
  return members.sort(comparePreferred(rank));
}

/** Group rows (in their given order: a group sits where its first row does). Pure. */
export function groupRows(rows: readonly LightRow[], rank: DocumentRank): Group[] {
  const byKey = new Map<string, LightRow[]>();
  for (const r of rows) {
    const k = groupKey(r);
    const g = byKey.get(k);
    if (g) g.push(r);
    else byKey.set(k, [r]);
  }
  return [...byKey.values()].map((members) => ({ members: orderMembers(members, rank) }));
}

/** The light rows of some ids (any order). */
export function lightRows(db: Database, ids: readonly number[]): LightRow[] {
  const out: LightRow[] = [];
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    out.push(...db.query<LightRow, number[]>(`SELECT ${LIGHT} FROM entities e WHERE e.id IN (${chunk.map(() => "?").join(",")})`).all(...chunk));
  }
  return out;
}

/**
 * Every candidate with one of the groups' kind and name (the versions a ranked page's groups
 * hold): one indexed lookup per group (kind, name), kept by the candidate set.
 */
export function sameNameRows(db: Database, isCandidate: (id: number) => boolean, groups: ReadonlyArray<{ kind: string; name: string }>): LightRow[] {
  const q = db.query<LightRow, [string, string]>(`SELECT ${LIGHT} FROM entities e WHERE e.kind = ? AND e.name = ?`);
  const out: LightRow[] = [];
  for (const g of groups) for (const r of q.all(g.kind, g.name)) if (isCandidate(r.id)) out.push(r);
  return out;
}
