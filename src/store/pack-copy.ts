/**
 * Copying a content pack's rows into a store (src/ingest/pack.ts decides what and when). Rows
 * are copied as they are, content hash included, so the pack's vectors stay current for them: a
 * pack is a store made by `lorekeeper sync` with the same normalizers, and re-deriving its entities
 * here would only risk a different hash for the same content (and a needless re-embed). Per origin
 * (a synced content type, an imported OrcBrew pack): rows the pack does not hold are removed,
 * changed rows replaced, new rows added; then duplicates and preference ranks are recomputed for the
 * kinds touched, as after any write. Origins the pack does not hold are left alone. The trait
 * reference rows are derived again from the creatures the store then holds (by its own document
 * preference; the same rows as the pack's when the preference is the same, so their vectors apply).
 */
import type { Database } from "bun:sqlite";
import { refreshGroupRanks } from "./canonical.ts";
import { refreshDuplicates } from "./duplicates.ts";
import { type ReplaceResult, refreshTraits } from "./entities.ts";
import { tableColumns } from "./schema.ts";

/** What the copy did to one origin. */
export interface OriginCopy extends ReplaceResult {
  origin: string;
  entities: number;
}

/**
 * Copy every origin of the attached database `schema` into main, one transaction per origin, and
 * the vectors of `modelId` whose content the copy kept. Returns per-origin counts and vectors copied.
 */
export function copyPackRows(
  db: Database,
  schema: string,
  modelId: string | null,
  onOrigin?: (c: OriginCopy, done: number, total: number) => void,
): { origins: OriginCopy[]; vectors: number } {
  const theirs = tableColumns(db, "entities", schema);
  // Ids are the store's own; dup_of points at ids, so it is recomputed rather than copied.
  const cols = [...tableColumns(db, "entities").keys()].filter((c) => theirs.has(c) && c !== "id" && c !== "dup_of");
  const quoted = cols.map((c) => `"${c}"`).join(", ");
  const sets = cols
    .filter((c) => !["document_source", "kind", "key"].includes(c))
    .map((c) => `"${c}" = excluded."${c}"`)
    .join(", ");
  const origins = db
    .query<{ origin: string }, []>(`SELECT DISTINCT origin FROM ${schema}.entities ORDER BY origin`)
    .all()
    .map((r) => r.origin);
  const out: OriginCopy[] = [];
  const same = `m.document_source = p.document_source AND m.kind = p.kind AND m.key = p.key`;
  const joined = `FROM ${schema}.entities p JOIN main.entities m ON ${same} WHERE p.origin = ?1`;
  for (const [i, origin] of origins.entries()) {
    const c = db
      .transaction((): OriginCopy => {
        const n = (sql: string) => db.query<{ n: number }, [string]>(sql).get(origin)?.n ?? 0;
        const entities = n(`SELECT count(*) AS n FROM ${schema}.entities p WHERE p.origin = ?1`);
        const unchanged = n(
          `SELECT count(*) AS n ${joined} AND m.content_hash = p.content_hash AND m.origin = p.origin`,
        );
        const existing = n(`SELECT count(*) AS n ${joined}`);
        const kinds = db
          .query<{ kind: string }, [string]>(
            `SELECT DISTINCT kind FROM main.entities WHERE origin = ?1 UNION SELECT DISTINCT kind FROM ` +
              `${schema}.entities WHERE origin = ?1`,
          )
          .all(origin)
          .map((r) => r.kind);
        const deleted = db
          .query(
            `DELETE FROM main.entities WHERE origin = ?1 AND NOT EXISTS (SELECT 1 FROM ${schema}.entities p WHERE ` +
              `p.origin = ?1 AND p.document_source = main.entities.document_source AND p.kind = main.entities.kind ` +
              `AND p.key = main.entities.key)`,
          )
          .run(origin).changes;
        db.query(
          `INSERT INTO main.entities (${quoted}) SELECT ${quoted} FROM ${schema}.entities WHERE origin = ?1 ORDER BY id
         ON CONFLICT (document_source, kind, key) DO UPDATE SET ${sets}
         WHERE main.entities.content_hash <> excluded.content_hash OR main.entities.origin <> excluded.origin`,
        ).run(origin);
        refreshDuplicates(db, kinds);
        refreshGroupRanks(db, kinds);
        return { origin, entities, inserted: entities - existing, updated: existing - unchanged, unchanged, deleted };
      })
      .immediate();
    out.push(c);
    onOrigin?.(c, i + 1, origins.length);
  }
  db.transaction(() => refreshTraits(db)).immediate();
  let vectors = 0;
  if (modelId) {
    vectors = db
      .transaction(
        () =>
          db
            .query(
              `INSERT OR REPLACE INTO main.vectors (entity_id, model_id, content_hash, vector)
           SELECT m.id, pv.model_id, pv.content_hash, pv.vector
           FROM ${schema}.vectors pv
           JOIN ${schema}.entities p ON p.id = pv.entity_id AND p.content_hash = pv.content_hash
           JOIN main.entities m ON ${same} AND m.content_hash = p.content_hash
           WHERE pv.model_id = ?1`,
            )
            .run(modelId).changes,
      )
      .immediate();
  }
  return { origins: out, vectors };
}
