/**
 * Loading a content pack (pack-file.ts) into a store: every origin the pack holds (a synced content
 * type, an imported OrcBrew pack) replaces that origin in the store through the same write path a
 * sync uses (so derived columns, duplicates and document preference come out as after a sync),
 * then the pack's vectors are copied for every entity whose content is unchanged, so nothing is
 * embedded again when the model matches. Origins the pack does not hold are left alone.
 *
 * The pack is checked first: a LoreKeeper store (migrated to this version's schema if older,
 * refused if newer), SQLite's quick_check, entities present, and its vectors made with the model
 * this installation uses (refused otherwise, unless the caller loads the content without vectors).
 */
import type { Database } from "bun:sqlite";
import type { DocumentInfo, DocumentSource } from "../entities/types.ts";
import { openStore, type Store } from "../store/db.ts";
import { replaceOrigin, rowToEntity, type EntityRow } from "../store/entities.ts";
import { listSyncState, putSyncState } from "../store/sync-state.ts";
import { getEmbeddingMeta, setEmbeddingMeta } from "../store/vectors.ts";
import { PackError } from "./pack-file.ts";

export interface PackSummary {
  entities: number;
  documents: number;
  origins: number;
  vectors: number;
  /** Model ids of the pack's vectors with their counts. */
  models: Array<{ modelId: string; count: number; dim: number }>;
}

/** Open the unpacked pack at `path` (migrating an older schema), check it, and describe it. */
export function openPack(path: string): { pack: Store; summary: PackSummary } {
  let pack: Store;
  try {
    pack = openStore({ path, busyTimeoutMs: 0 });
  } catch (err) {
    throw new PackError(`The content pack is not a usable LoreKeeper store: ${(err as Error).message}`, "Download the pack again, or make one with `lorekeeper sync --db-path FILE`.", { cause: err });
  }
  try {
    const check = pack.db.query<{ quick_check: string }, []>("PRAGMA quick_check").all();
    if (check.length !== 1 || check[0]?.quick_check !== "ok") {
      throw new PackError(`The content pack's database is damaged (${check[0]?.quick_check ?? "quick_check failed"}).`, "Download the pack again.");
    }
    const n = (q: string) => pack.db.query<{ n: number }, []>(q).get()?.n ?? 0;
    const entities = n("SELECT count(*) AS n FROM entities");
    if (entities === 0) throw new PackError("The content pack holds no entities.", "Make it from a synced store (`lorekeeper sync --db-path FILE`).");
    const meta = getEmbeddingMeta(pack.db);
    const models = pack.db
      .query<{ modelId: string; count: number; bytes: number }, []>("SELECT model_id AS modelId, count(*) AS count, MAX(length(vector)) AS bytes FROM vectors GROUP BY model_id ORDER BY count DESC")
      .all()
      .map((m) => ({ modelId: m.modelId, count: m.count, dim: meta?.modelId === m.modelId ? meta.dim : Math.floor(m.bytes / 4) }));
    return {
      pack,
      summary: {
        entities,
        documents: n("SELECT count(*) AS n FROM documents"),
        origins: n("SELECT count(DISTINCT origin) AS n FROM entities"),
        vectors: models.reduce((a, m) => a + m.count, 0),
        models,
      },
    };
  } catch (err) {
    pack.close();
    throw err;
  }
}

/**
 * Refuse a pack whose vectors were made with another model than `activeModelId` (when a model is
 * active); `withVectors` false loads the content alone (its vectors are then left behind).
 */
export function checkPackModel(summary: PackSummary, activeModelId: string | null, withVectors: boolean): void {
  if (!withVectors || !activeModelId || summary.vectors === 0) return;
  const theirs = summary.models.map((m) => m.modelId);
  if (!theirs.includes(activeModelId)) {
    throw new PackError(
      `The content pack's vectors were made with ${theirs.join(", ")}, but this installation embeds with ${activeModelId}.`,
      `Use the pack's model (\`lorekeeper model install\` / \`model use\` it), or load the content alone with --no-vectors and let LoreKeeper embed it with ${activeModelId}.`,
    );
  }
}

export interface PackLoadResult {
  entities: number;
  inserted: number;
  updated: number;
  unchanged: number;
  deleted: number;
  vectorsCopied: number;
  origins: number;
}

function originsOf(db: Database): string[] {
  return db.query<{ origin: string }, []>("SELECT DISTINCT origin FROM entities ORDER BY origin").all().map((r) => r.origin);
}

function documentsOf(db: Database): Map<string, DocumentInfo> {
  const rows = db
    .query<DocumentInfo & { source: DocumentSource }, []>("SELECT source, key, name, publisher, license, url, description FROM documents")
    .all();
  return new Map(rows.map((d) => [`${d.source}\u0000${d.key.toLowerCase()}`, { ...d, publisher: d.publisher ?? undefined, license: d.license ?? undefined, url: d.url ?? undefined, description: d.description ?? undefined }]));
}

/** Copy the pack's vectors of `modelId` onto the store's entities with the same content. */
function copyVectors(store: Store, packPath: string, modelId: string): number {
  const db = store.db;
  db.exec(`ATTACH DATABASE '${packPath.replaceAll("'", "''")}' AS pack`);
  try {
    return db.transaction(() =>
      db
        .query(
          `INSERT OR REPLACE INTO main.vectors (entity_id, model_id, content_hash, vector)
           SELECT m.id, pv.model_id, pv.content_hash, pv.vector
           FROM pack.vectors pv
           JOIN pack.entities pe ON pe.id = pv.entity_id AND pe.content_hash = pv.content_hash
           JOIN main.entities m ON m.document_source = pe.document_source AND m.kind = pe.kind AND m.key = pe.key
             AND m.content_hash = pe.content_hash
           WHERE pv.model_id = ?`,
        )
        .run(modelId).changes,
    ).immediate();
  } finally {
    db.exec("DETACH DATABASE pack");
  }
}

/**
 * Load the checked pack into `store`. `vectorModel` is the model whose vectors are copied (none:
 * content only). Each origin is replaced in its own transaction, as a sync replaces a content type.
 */
export function loadPack(store: Store, pack: Store, vectorModel: { modelId: string; dim: number } | null, onOrigin?: (origin: string, done: number, total: number) => void): PackLoadResult {
  const result: PackLoadResult = { entities: 0, inserted: 0, updated: 0, unchanged: 0, deleted: 0, vectorsCopied: 0, origins: 0 };
  const docs = documentsOf(pack.db);
  const origins = originsOf(pack.db);
  const rowsOf = pack.db.query<EntityRow, [string]>("SELECT * FROM entities WHERE origin = ? ORDER BY id");
  for (const [i, origin] of origins.entries()) {
    const entities = rowsOf.all(origin).map((r) => {
      const { id: _id, ...e } = rowToEntity(r);
      return e;
    });
    const documents = new Map<string, DocumentInfo>();
    for (const e of entities) {
      const k = `${e.document_source}\u0000${e.document_key.toLowerCase()}`;
      const d = docs.get(k);
      if (d) documents.set(k, d);
    }
    const r = replaceOrigin(store.db, origin, entities, [...documents.values()]);
    result.entities += entities.length;
    result.inserted += r.inserted;
    result.updated += r.updated;
    result.unchanged += r.unchanged;
    result.deleted += r.deleted;
    result.origins++;
    onOrigin?.(origin, i + 1, origins.length);
  }
  store.db.transaction(() => {
    for (const s of listSyncState(pack.db)) if (s.status !== "running") putSyncState(store.db, s);
  })();
  if (vectorModel) {
    const mine = getEmbeddingMeta(store.db);
    if (!mine || mine.modelId !== vectorModel.modelId) setEmbeddingMeta(store.db, vectorModel);
    result.vectorsCopied = copyVectors(store, pack.path, vectorModel.modelId);
  }
  return result;
}
