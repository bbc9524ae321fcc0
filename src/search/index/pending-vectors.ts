/**
 * Entities without a current vector (an embedding run killed midway, an import with --no-embed):
 * filled in the background after a server's first meaning question (ingest/fill-pending.ts);
 * meanwhile hybrid answers say the ranking is partial (`withPendingNote`).
 */
import type { Database } from "bun:sqlite";
import { countPendingVectors, getEmbeddingMeta } from "../../store/vectors.ts";
import { CACHES } from "../../store/caches.ts";
import { otherEmbedder } from "../../store/embed-lease.ts";
import type { SearchResponse } from "../types.ts";

export interface PendingVectors {
  modelId: string;
  pending: number;
  total: number;
}

/** Entities without a current vector of the store's embedding model; undefined before any embedding run. */
export function pendingVectors(db: Database): PendingVectors | undefined {
  return CACHES.pendingVectors.get(db, (): PendingVectors | undefined => {
    const meta = getEmbeddingMeta(db);
    if (!meta) return undefined;
    // The entries, as `documents` counts them (copies of another source's entry get no vector).
    const total = db.query<{ n: number }, []>("SELECT count(*) AS n FROM entities WHERE dup_of IS NULL").get()?.n ?? 0;
    return { modelId: meta.modelId, pending: countPendingVectors(db, meta.modelId), total };
  });
}

const filling = new WeakSet<Database>();

/** Say (or stop saying) that the missing vectors of `db` are being computed. */
export function markFilling(db: Database, on: boolean): void {
  if (on) filling.add(db);
  else filling.delete(db);
}

/** `res` with a note when it was ranked by meaning while some entities have no vector yet. */
export function withPendingNote(res: SearchResponse, db: Database): SearchResponse {
  if (res.mode !== "hybrid") return res;
  const p = pendingVectors(db);
  if (!p || p.pending === 0) return res;
  // One sentence that stays true from one answer to the next: computed while this server fills
  // them in (from before its model loads) or another process holds the embedding lease (a `sync`
  // beside it); else nothing computes them and the fix is said.
  const computing = filling.has(db) || otherEmbedder(db) !== undefined;
  const how = computing
    ? "they are being computed in the background"
    : "run `lorekeeper doctor --repair` to compute them";
  const note =
    `Semantic ranking is partial: ${p.pending} of ${p.total} entries have no embedding yet (${how}); those are ` +
    `ranked by keywords only.`;
  return { ...res, message: res.message ? `${res.message} ${note}` : note };
}
