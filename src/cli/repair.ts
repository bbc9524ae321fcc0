/**
 * `lorekeeper doctor --repair`: make the store usable again.
 *
 * - A healthy store: the full-text tables and indexes are rebuilt from the entities, the vector
 *   index is rebuilt from the stored vectors, leftovers of interrupted saves are removed, and the
 *   WAL is checkpointed. Nothing is downloaded; no entity changes.
 * - A damaged store (SQLite cannot read it, or it is still inconsistent after the rebuild): its
 *   files are renamed to `<db>.damaged-<time>…` (never deleted) and the report says how to fill a
 *   new one: `lorekeeper sync`, and `lorekeeper import` of the homebrew files (OrcBrew, 5etools) it had imported.
 */
import type { EmbedderProvider } from "../search/types.ts";
import { existsSync } from "node:fs";
import { indexPaths, removeIndexFiles, removeStaleTempFiles } from "../search/index/vector-index-file.ts";
import { closeVectorIndex, syncIndex } from "../search/index/vector-index.ts";
import { pendingVectors } from "../search/index/pending-vectors.ts";
import { Database } from "bun:sqlite";
import { openStore, schemaVersionProblem, type Store, storeFailure } from "../store/db.ts";
import { getEmbeddingMeta, unusableVectors } from "../store/vectors.ts";
import { removePackLeftovers } from "../ingest/pack-file.ts";
import { HOMEBREW_FILES } from "../sources/index.ts";
import {
  checkSearchTables,
  checkStore,
  importedHomebrewFiles,
  isCorruption,
  moveStoreAside,
  rebuildSearchTables,
} from "../store/repair.ts";

export type RepairOutcome = "repaired" | "moved-aside" | "no-store" | "failed";

export interface RepairReport {
  path: string;
  outcome: RepairOutcome;
  /** What was found and done, in order. */
  steps: string[];
  /** Commands the user should run next. */
  next: string[];
}

function quote(p: string): string {
  return /^[\w@%+=:,./-]+$/.test(p) ? p : `"${p.replace(/(["\\$`])/g, "\\$1")}"`;
}

function moveAside(path: string, why: string, steps: string[]): RepairReport {
  const files = importedHomebrewFiles(path);
  steps.push(`the store is damaged: ${why}`);
  for (const [from, to] of moveStoreAside(path)) steps.push(`moved ${from} → ${to}`);
  const db = ` --db-path ${quote(path)}`;
  return {
    path,
    outcome: "moved-aside",
    steps,
    next: [
      `lorekeeper sync${db}   (downloads the Open5e / D&D 5e API content into a new store)`,
      files.length > 0
        ? `lorekeeper import${db} ${files.map(quote).join(" ")}   (the homebrew it held)`
        : `lorekeeper import ${HOMEBREW_FILES}   (again, for any homebrew you had imported)`,
      "restart any LoreKeeper server that is running (it still has the old file open)",
    ],
  };
}

function rebuildVectorIndex(store: Store, steps: string[]): void {
  const paths = indexPaths(store.path);
  if (!paths) return;
  const stale = removeStaleTempFiles(paths);
  if (stale > 0) steps.push(`removed ${stale} temporary file(s) left by an interrupted index save`);
  removeIndexFiles(paths);
  closeVectorIndex(store);
  const r = syncIndex(store);
  steps.push(
    r.modelId
      ? `rebuilt the vector index from the ${r.size} stored vectors of ${r.modelId}` +
          `${r.saved ? "" : " (in memory only: it could not be saved)"}`
      : "no embeddings stored yet, so no vector index to rebuild",
  );
}

/**
 * Compute the vectors the store lacks for its embedding model (a run killed midway). One step line;
 * never throws (without the model, it says so).
 */
export async function repairVectors(path: string, provider: EmbedderProvider): Promise<string> {
  let store: Store | undefined;
  try {
    store = openStore({ path });
    const p = pendingVectors(store.db);
    if (!p || p.pending === 0)
      return p ? `all ${p.total} entities have a vector of ${p.modelId}` : "no embeddings stored yet, none to complete";
    const { embedPending } = await import("../ingest/embed.ts");
    const embedder = await provider.get();
    if (!embedder)
      return (
        `${p.pending} entities have no vector, but no embedding model is available to compute them ` +
        `(${provider.reason() ?? "unknown reason"})`
      );
    if (embedder.id !== p.modelId)
      return (
        `${p.pending} entities have no vector of ${p.modelId}, but the model here is ${embedder.id}: run ` +
        `\`lorekeeper sync\` to embed the store with it`
      );
    const r = await embedPending(store, provider);
    return (
      `computed the ${r.embedded} missing vectors with ${p.modelId}` +
      `${r.remaining ? ` (${r.remaining} still missing)` : ""}`
    );
  } catch (err) {
    return `computing the missing vectors failed: ${(err as Error).message}`;
  } finally {
    if (store) {
      closeVectorIndex(store);
      store.close();
    }
  }
}

/** A missing or unreadable schema version (opening the store for writing records it again). */
function peekSchemaProblem(path: string): string | undefined {
  let db: Database | undefined;
  try {
    db = new Database(path, { readonly: true });
    return schemaVersionProblem(db)?.problem;
  } catch {
    return undefined; // opening it for the repair says what is wrong
  } finally {
    db?.close();
  }
}

/** Check and repair the store at `path` (see the file comment). */
export function repairStore(path: string): RepairReport {
  const steps: string[] = [];
  for (const f of removePackLeftovers(path)) steps.push(`removed ${f}, left by an interrupted content pack load`);
  if (!existsSync(path)) {
    steps.push(`there is no store at ${path}`);
    return { path, outcome: "no-store", steps, next: [`lorekeeper sync   (or lorekeeper import ${HOMEBREW_FILES})`] };
  }
  const schema = peekSchemaProblem(path);
  let store: Store;
  try {
    store = openStore({ path });
    if (schema) steps.push(`found: ${schema}; recorded it again`);
  } catch (err) {
    const cause = (err as { cause?: unknown }).cause;
    if (isCorruption(err))
      return moveAside(
        path,
        `it cannot be opened (${cause instanceof Error ? cause.message : (err as Error).message})`,
        steps,
      );
    const e = err as { message?: string; hint?: string };
    return {
      path,
      outcome: "failed",
      steps: [`cannot open it for repair: ${e.message ?? String(err)}`],
      next: e.hint ? [e.hint] : [],
    };
  }
  // Closing twice is harmless: the early close lets a damaged store's files be moved aside.
  const close = () => {
    closeVectorIndex(store);
    store.close();
  };
  try {
    const found = [...checkStore(store.db, { full: true }), ...checkSearchTables(store.db)];
    steps.push(
      found.length ? `found: ${found.join("; ")}` : "integrity check passed; the search tables match the entities",
    );
    rebuildSearchTables(store.db);
    const after = [...checkStore(store.db, { full: true }), ...checkSearchTables(store.db)];
    if (after.length > 0) {
      close();
      return moveAside(path, `still inconsistent after rebuilding its search tables (${after.join("; ")})`, steps);
    }
    const n = store.db.query<{ n: number }, []>("SELECT count(*) AS n FROM entities").get()?.n ?? 0;
    steps.push(`rebuilt the full-text search tables and indexes over ${n} entities`);
    const meta = getEmbeddingMeta(store.db);
    const unusable = meta ? unusableVectors(store.db, meta, true) : 0;
    if (unusable > 0) {
      const what = `${unusable} unusable vectors (not ${meta!.dim} numbers long, or all zeros)`;
      steps.push(`removed ${what}; they are computed again`);
    }
    rebuildVectorIndex(store, steps);
    store.db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    return { path, outcome: "repaired", steps, next: n === 0 ? ["lorekeeper sync   (the store is empty)"] : [] };
  } catch (err) {
    if (isCorruption(err)) {
      close();
      return moveAside(path, (err as Error).message, steps);
    }
    const e = (storeFailure(err, path) ?? err) as { message?: string; hint?: string };
    steps.push(`repair failed: ${e.message ?? String(err)}`);
    return { path, outcome: "failed", steps, next: e.hint ? [e.hint] : [] };
  } finally {
    close();
  }
}

export function renderRepair(r: RepairReport): string {
  const head: Record<RepairOutcome, string> = {
    repaired: "REPAIRED",
    "moved-aside": "MOVED ASIDE",
    "no-store": "NOTHING TO REPAIR",
    failed: "REPAIR FAILED",
  };
  const lines = [`${head[r.outcome]}: ${r.path}`, ...r.steps.map((s) => `  - ${s}`)];
  if (r.next.length) lines.push("Next:", ...r.next.map((n) => `  ${n}`));
  return lines.join("\n");
}
