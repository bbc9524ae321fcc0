/**
 * Loading a content pack (pack-file.ts) into a store: every origin the pack holds (a synced content
 * type, an imported OrcBrew pack) replaces that origin in the store, rows copied as the pack holds
 * them (store/pack-copy.ts: duplicates and preference ranks recomputed after), then the pack's
 * vectors for every entity whose content the copy kept, so nothing is embedded again when the
 * model matches. Origins the pack does not hold are left alone.
 *
 * The pack is checked first: a LoreKeeper store (migrated to this version's schema if older,
 * refused if newer), SQLite's quick_check, entities present, and its vectors made with the model
 * this installation uses (refused otherwise, unless the caller loads the content without vectors).
 */
import { openStore, type Store } from "../store/db.ts";
import { copyPackRows } from "../store/pack-copy.ts";
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

/**
 * Load the checked pack into `store`: its rows origin by origin (store/pack-copy.ts), its documents
 * and sync state, and the vectors of `vectorModel` (none: content only).
 */
export function loadPack(store: Store, pack: Store, vectorModel: { modelId: string; dim: number } | null, onOrigin?: (origin: string, done: number, total: number) => void): PackLoadResult {
  const result: PackLoadResult = { entities: 0, inserted: 0, updated: 0, unchanged: 0, deleted: 0, vectorsCopied: 0, origins: 0 };
  const db = store.db;
  if (vectorModel) {
    const mine = getEmbeddingMeta(db);
    if (!mine || mine.modelId !== vectorModel.modelId) setEmbeddingMeta(db, vectorModel);
  }
  db.exec(`ATTACH DATABASE '${pack.path.replaceAll("'", "''")}' AS pack`);
  try {
    db.transaction(() => {
      db.query(
        `INSERT INTO main.documents (source, key, name, publisher, license, url, description, updated_at)
         SELECT source, key, name, publisher, license, url, description, updated_at FROM pack.documents WHERE true
         ON CONFLICT (source, key) DO UPDATE SET name = excluded.name, publisher = COALESCE(excluded.publisher, documents.publisher),
           license = COALESCE(excluded.license, documents.license), url = COALESCE(excluded.url, documents.url),
           description = COALESCE(excluded.description, documents.description), updated_at = excluded.updated_at`,
      ).run();
    })();
    const copied = copyPackRows(db, "pack", vectorModel?.modelId ?? null, (c, done, total) => onOrigin?.(c.origin, done, total));
    for (const c of copied.origins) {
      result.entities += c.entities;
      result.inserted += c.inserted;
      result.updated += c.updated;
      result.unchanged += c.unchanged;
      result.deleted += c.deleted;
      result.origins++;
    }
    result.vectorsCopied = copied.vectors;
  } finally {
    db.exec("DETACH DATABASE pack");
  }
  db.transaction(() => {
    for (const s of listSyncState(pack.db)) if (s.status !== "running") putSyncState(db, s);
  })();
  return result;
}
