/**
 * Migration 4 added columns derived from each entity's canonical data and `dup_of`. Rows stored
 * before it get them here, once, right after the migration (a later sync would keep them as they
 * are when their content did not change).
 */
import type { Database } from "bun:sqlite";
import type { Entity, EntityKind, JsonObject } from "../entities/types.ts";
import { refreshDuplicates } from "./duplicates.ts";
import { DERIVED_COLUMNS, derivedColumnValues } from "./entities.ts";

export function backfillDerived(db: Database): number {
  const rows = db.query<{ id: number; kind: string; name: string; data: string }, []>("SELECT id, kind, name, data FROM entities").all();
  const set = db.query(`UPDATE entities SET ${DERIVED_COLUMNS.map((c) => `${c} = ?`).join(", ")} WHERE id = ?`);
  for (const r of rows) {
    let data: JsonObject;
    try {
      data = JSON.parse(r.data) as JsonObject;
    } catch {
      continue;
    }
    const v = derivedColumnValues({ kind: r.kind as EntityKind, name: r.name, data } satisfies Pick<Entity, "kind" | "name" | "data">);
    set.run(...DERIVED_COLUMNS.map((c) => v[c]), r.id);
  }
  const kinds = db.query<{ kind: string }, []>("SELECT DISTINCT kind FROM entities").all().map((k) => k.kind);
  refreshDuplicates(db, kinds);
  return rows.length;
}
