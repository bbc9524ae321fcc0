/**
 * `lorekeeper sync --pack FILE|URL` and `lorekeeper import FILE.db.gz`: bring a content pack in
 * (pack-file.ts), check it whole (pack-check.ts: its schema, every row, the vectors to be taken;
 * migrated to this version's schema if older, refused if newer; its vectors must be made with the
 * model this installation uses unless the content is loaded alone), then write it in one
 * transaction: a refusal, a failure or a kill leaves the store exactly as it was. Every origin the
 * pack holds (a synced content type, an imported OrcBrew pack) replaces that origin in the store
 * (store/pack-copy.ts), then the pack's vectors for every entity whose content the copy kept, so
 * nothing is embedded again when the model matches; origins the pack does not hold are left alone.
 * The caller then runs embedAfterIngest, which only brings the vector index in line then.
 */
import { rmSync } from "node:fs";
import type { EmbedderProvider } from "../search/types.ts";
import { openStore, sqliteCode, type Store, StoreError } from "../store/db.ts";
import { upsertDocuments } from "../store/documents.ts";
import { refreshTraits, type ReplaceResult } from "../store/entities.ts";
import { copyPackRows } from "../store/pack-copy.ts";
import { storeFiles } from "../store/repair.ts";
import { listSyncState, putSyncState } from "../store/sync-state.ts";
import { type EmbeddingMeta, getEmbeddingMeta, setEmbeddingMeta } from "../store/vectors.ts";
import { checkPackColumns, checkPackFile, checkPackVectors, packDocuments } from "./pack-check.ts";
import { type FetchedPack, fetchPack, PackError, removePackLeftovers, unpackedPath, unpackPack } from "./pack-file.ts";

export interface PackOptions {
  /** Expected SHA-256 (else the `.sha256` file beside the pack, when there is one). */
  sha256?: string;
  /** false: load the content without the pack's vectors. Default true. */
  withVectors?: boolean;
  say?: (msg: string) => void;
}

export interface PackSummary {
  entities: number;
  documents: number;
  origins: number;
  vectors: number;
  /** Model ids of the pack's vectors with their counts. */
  models: Array<{ modelId: string; count: number; dim: number }>;
}

export interface PackLoadResult extends ReplaceResult {
  entities: number;
  vectorsCopied: number;
  origins: number;
}

export interface PackReport {
  source: string;
  sha256: string;
  checkedAgainst: FetchedPack["checkedAgainst"];
  summary: PackSummary;
  load: PackLoadResult;
  /** The model whose vectors were copied, or null. */
  vectorModel: string | null;
  durationMs: number;
}

export async function loadPackInto(
  store: Store,
  src: string,
  provider: EmbedderProvider,
  opts: PackOptions = {},
): Promise<PackReport> {
  const t0 = performance.now();
  const say = opts.say ?? (() => {});
  const withVectors = opts.withVectors ?? true;
  // What an earlier load killed midway left behind goes first (doctor reports it too).
  for (const f of removePackLeftovers(store.path)) say(`removed ${f}, left by an interrupted pack load`);
  const fetched = await fetchPack(src, store.path, opts.sha256);
  const unpacked = unpackedPath(store.path);
  try {
    say(
      fetched.checkedAgainst === "none"
        ? `content pack ${src}: no checksum to check against (no ${src}.sha256, no --sha256); relying on gzip's CRC ` +
            `and SQLite's checks`
        : `content pack ${src}: checksum ok (sha256 ${fetched.sha256.slice(0, 16)}…)`,
    );
    await unpackPack(fetched, unpacked);
    const { pack, summary } = openPack(unpacked, store);
    try {
      const active = withVectors && summary.vectors > 0 ? await provider.get() : null;
      checkPackModel(summary, active?.id ?? null, withVectors);
      const top = summary.models[0];
      let vectorModel: EmbeddingMeta | null = null;
      if (withVectors && top) vectorModel = active ? { modelId: active.id, dim: active.dim } : top;
      say(
        `content pack: ${summary.entities} entities in ${summary.documents} documents, ${summary.vectors} vectors` +
          `${top ? ` (${summary.models.map((m) => m.modelId).join(", ")})` : ""}`,
      );
      const load = loadPack(store, pack, vectorModel, (origin, done, total) => {
        if (done === total || done % 10 === 0) say(`content pack: ${done}/${total} content types loaded (${origin})`);
      });
      return {
        source: src,
        sha256: fetched.sha256,
        checkedAgainst: fetched.checkedAgainst,
        summary,
        load,
        vectorModel: vectorModel?.modelId ?? null,
        durationMs: Math.round(performance.now() - t0),
      };
    } finally {
      pack.close();
    }
  } finally {
    for (const f of storeFiles(unpacked)) rmSync(f, { force: true });
    fetched.cleanup();
  }
}

/**
 * Check the unpacked pack at `path` against `store` (pack-check.ts), open it (migrating an older
 * schema), check its columns, and describe it.
 */
function openPack(path: string, store: Store): { pack: Store; summary: PackSummary } {
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
    checkPackColumns(pack.db, store.db);
    const n = (q: string) => pack.db.query<{ n: number }, []>(q).get()?.n ?? 0;
    const meta = getEmbeddingMeta(pack.db);
    const models = pack.db
      .query<{ modelId: string; count: number; bytes: number }, []>(
        "SELECT model_id AS modelId, count(*) AS count, MAX(length(vector)) AS bytes FROM vectors GROUP BY model_id " +
          "ORDER BY count DESC",
      )
      .all()
      .map(({ modelId, count, bytes }) => ({
        modelId,
        count,
        dim: meta?.modelId === modelId ? meta.dim : Math.floor(bytes / 4),
      }));
    const summary: PackSummary = {
      entities: n("SELECT count(*) AS n FROM entities"),
      documents: n("SELECT count(*) AS n FROM documents"),
      origins: n("SELECT count(DISTINCT origin) AS n FROM entities"),
      vectors: models.reduce((a, m) => a + m.count, 0),
      models,
    };
    return { pack, summary };
  } catch (err) {
    pack.close();
    throw err;
  }
}

/**
 * Refuse a pack whose vectors were made with another model than `activeModelId` (when a model is
 * active); `withVectors` false loads the content alone (its vectors are then left behind).
 */
function checkPackModel(summary: PackSummary, activeModelId: string | null, withVectors: boolean): void {
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

/**
 * Load the checked pack into `store`: its rows origin by origin (store/pack-copy.ts), its documents
 * and sync state, and the vectors of `vectorModel` (none: content only).
 */
function loadPack(
  store: Store,
  pack: Store,
  vectorModel: EmbeddingMeta | null,
  onOrigin: (origin: string, done: number, total: number) => void,
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
      if (vectorModel && getEmbeddingMeta(db)?.modelId !== vectorModel.modelId) setEmbeddingMeta(db, vectorModel);
      upsertDocuments(db, docs);
      const copied = copyPackRows(db, "pack", vectorModel?.modelId ?? null, (c, done, total) =>
        onOrigin(c.origin, done, total),
      );
      for (const c of copied.origins) {
        for (const k of ["entities", "inserted", "updated", "unchanged", "deleted"] as const) result[k] += c[k];
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
