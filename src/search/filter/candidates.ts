/**
 * The candidates of a ranked search: the entity ids satisfying its WHERE clause, shared by both
 * legs; membership is a bitmap lookup. Remembered per clause until the store changes (the same tool
 * searches the same kinds again and again).
 */
import { CACHES } from "../../store/caches.ts";
import type { Database } from "bun:sqlite";
import { type VersionMemo, versionMemo } from "../../store/version-cache.ts";
import { entitiesOf, type SqlValue, type WhereClause } from "./filters.ts";

export class CandidateSet {
  /** 1 at index id when the entity is a candidate. */
  private readonly bits: Uint8Array;

  constructor(
    /** Candidate ids, ascending. */
    readonly ids: Int32Array,
  ) {
    this.bits = new Uint8Array(ids.length ? ids[ids.length - 1]! + 1 : 0);
    for (const id of ids) this.bits[id] = 1;
  }

  get size(): number {
    return this.ids.length;
  }

  has(id: number): boolean {
    return this.bits[id] === 1;
  }
}

/** The rows of `entities e` satisfying `where` (read from the store, or remembered). */
export function candidateSet(db: Database, where: WhereClause, memo: VersionMemo = versionMemo(db)): CandidateSet {
  const key = JSON.stringify([where.sql, where.params]);
  return CACHES.candidates.get(memo, key, () => {
    const rows = db
      .query<[number], SqlValue[]>(`SELECT e.id FROM ${entitiesOf(where)} WHERE ${where.sql} ORDER BY e.id`)
      .values(...where.params);
    const ids = new Int32Array(rows.length);
    for (let i = 0; i < rows.length; i++) ids[i] = Number(rows[i]![0]);
    return new CandidateSet(ids);
  });
}
