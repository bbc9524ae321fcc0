/**
 * Loading a content pack (pack-file.ts) into a store: every origin the pack holds (a synced content
 * type, an imported OrcBrew pack) replaces that origin in the store, rows copied as the pack holds
 * them (store/pack-copy.ts: duplicates and preference ranks recomputed after), then the pack's
 * vectors for every entity whose content the copy kept, so nothing is embedded again when the
 * model matches. Origins the pack does not hold are left alone.
 *
 * The pack is checked whole first (pack-check.ts: its schema, every row, the vectors to be taken;
 * migrated to this version's schema if older, refused if newer), and its vectors must be made with
 * the model this installation uses (refused otherwise, unless the caller loads the content without
 * vectors). Then everything is written in one transaction: a refusal, a failure or a kill leaves
 * the store exactly as it was.
 */
import type { Database } from "bun:sqlite";
import { openStore, sqliteCode, type Store, StoreError } from "../store/db.ts";
import { upsertDocuments } from "../store/documents.ts";
import { refreshTraits } from "../store/entities.ts";
import { copyPackRows } from "../store/pack-copy.ts";
import { listSyncState, putSyncState } from "../store/sync-state.ts";
import { getEmbeddingMeta, setEmbeddingMeta } from "../store/vectors.ts";
import { checkPackFile, checkPackVectors, packDocuments } from "./pack-check.ts";
import { PackError } from "./pack-file.ts";

export interface PackSummary {
  entities: number;
  documents: number;
  origins: number;
  vectors: number;
  /** Model ids of the pack's vectors with their counts. */
  models: Array<{ modelId: string; count: number; dim: number }>;
}

/** The columns of `table` (name → declared type, upper case). */
function columnTypes(db: Database, table: string): Map<string, string> {
  const q = db.query<{ name: string; type: string }, [string]>("SELECT name, type FROM pragma_table_info(?)");
  const cols = q.all(table);
  return new Map(cols.map((c) => [c.name, c.type.toUpperCase()]));
}

/** Every column this build writes, with its type, in each table a pack is read from. */
function checkColumns(pack: Database, store: Database): void {
  for (const table of ["entities", "documents", "vectors", "sync_state", "meta"]) {
    const theirs = columnTypes(pack, table);
    for (const [name, type] of columnTypes(store, table)) {
      const t = theirs.get(name);
      let why = "";
      if (t === undefined) why = `its ${table} table has no \`${name}\` column`;
      else if (t !== type) why = `its ${table}.${name} column is ${t || "untyped"}, not ${type}`;
      const hint = "Make the pack again with this version of LoreKeeper.";
      if (why) throw new PackError(`The content pack cannot be loaded: ${why}; nothing was written.`, hint);
    }
  }
}

/**
 * Check the unpacked pack at `path` against `store` (pack-check.ts), open it (migrating an older
 * schema), check its columns, and describe it.
 */
export function openPack(path: string, store: Store): { pack: Store; summary: PackSummary } {
  checkPackFile(path, store.db);
  let pack: Store;
  try {
    pack = openStore({ path, busyTimeoutMs: 0 });
  } catch (err) {
    // Its disk filling up while the copy is migrated is not the pack's fault: say what it is.
    const code = sqliteCode((err as { cause?: unknown }).cause ?? err) ?? "";
    if (err instanceof StoreError && /^SQLITE_(FULL|IOERR)/.test(code)) {
      throw new PackError(`The content pack could not be opened: ${err.message}`, err.hint, { cause: err });
    }
    throw new PackError(
      `The content pack is not a usable LoreKeeper store: ${(err as Error).message}`,
      "Download the pack again, or make one with `lorekeeper sync --db-path FILE`.",
      { cause: err },
    );
  }
  try {
    checkColumns(pack.db, store.db);
    const n = (q: string) => pack.db.query<{ n: number }, []>(q).get()?.n ?? 0;
    const entities = n("SELECT count(*) AS n FROM entities");
    const meta = getEmbeddingMeta(pack.db);
    const models = pack.db
      .query<{ modelId: string; count: number; bytes: number }, []>(
        "SELECT model_id AS modelId, count(*) AS count, MAX(length(vector)) AS bytes FROM vectors GROUP BY model_id " +
          "ORDER BY count DESC",
      )
      .all()
      .map((m) => ({
        modelId: m.modelId,
        count: m.count,
        dim: meta?.modelId === m.modelId ? meta.dim : Math.floor(m.bytes / 4),
      }));
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
      `The content pack's vectors were made with ${theirs.join(", ")}, but this installation embeds with ` +
        `${activeModelId}.`,
      `Use the pack's model (\`lorekeeper model install\` / \`model use\` it), or load the content alone with ` +
        `--no-vectors and let LoreKeeper embed it with ${activeModelId}.`,
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
export function loadPack(
  store: Store,
  pack: Store,
  vectorModel: { modelId: string; dim: number } | null,
  onOrigin?: (origin: string, done: number, total: number) => void,
): PackLoadResult {
  const result: PackLoadResult = {
    entities: 0,
    inserted: 0,
    updated: 0,
    unchanged: 0,
    deleted: 0,
    vectorsCopied: 0,
    origins: 0,
  };
  const db = store.db;
  if (vectorModel) checkPackVectors(pack.db, vectorModel.modelId, vectorModel.dim);
  const { docs, documentNames } = packDocuments(pack.db, db);
  const syncState = listSyncState(pack.db).filter((s) => s.status !== "running");
  db.exec(`ATTACH DATABASE '${pack.path.replaceAll("'", "''")}' AS pack`);
  try {
    // One transaction for all of it (the copy's own transactions become savepoints).
    db.transaction(() => {
      if (vectorModel) {
        const mine = getEmbeddingMeta(db);
        if (!mine || mine.modelId !== vectorModel.modelId) setEmbeddingMeta(db, vectorModel);
      }
      upsertDocuments(db, docs);
      const onCopied = (c: { origin: string }, done: number, total: number) => onOrigin?.(c.origin, done, total);
      const copied = copyPackRows(db, "pack", vectorModel?.modelId ?? null, onCopied);
      for (const c of copied.origins) {
        result.entities += c.entities;
        result.inserted += c.inserted;
        result.updated += c.updated;
        result.unchanged += c.unchanged;
        result.deleted += c.deleted;
        result.origins++;
      }
      result.vectorsCopied = copied.vectors;
      // Rows carry their document's name as the import rules give it (homebrew labelled and
      // cleaned, an official document's own name), as a sync writes it.
      const rename = db.query(
        "UPDATE entities SET document_name = ?1 " +
          "WHERE document_source = ?2 AND lower(document_key) = ?3 AND document_name <> ?1",
      );
      let renamed = 0;
      for (const [id, name] of documentNames) {
        const [source, key] = id.split("\u0000") as [string, string];
        renamed += rename.run(name, source, key).changes;
      }
      if (renamed > 0) refreshTraits(db);
      for (const s of syncState) putSyncState(db, s);
    }).immediate();
  } finally {
    db.exec("DETACH DATABASE pack");
  }
  return result;
}
