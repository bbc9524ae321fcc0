/**
 * Embedding vectors in the store: one row per entity (`vectors`, Float32 little-endian BLOB), tagged
 * with the model id and the entity's content_hash at embedding time. A vector is current when its
 * model id is the active model's and its content_hash equals the entity's; anything else is pending.
 * `meta` records the active model (embedding_model_id, embedding_dim). This table is the truth:
 * the HNSW index file is always rebuilt from it.
 */
import type { Database } from "bun:sqlite";
import { ID_IN, idList } from "./id-list.ts";
import { getMeta, getMetaJson, setMeta } from "./schema.ts";

const META_EMBEDDING_MODEL_ID = "embedding_model_id";
const META_EMBEDDING_DIM = "embedding_dim";

export interface EmbeddingMeta {
  modelId: string;
  dim: number;
}

/** The model the stored vectors are meant for (undefined before the first embedding run). */
export function getEmbeddingMeta(db: Database): EmbeddingMeta | undefined {
  const modelId = getMeta(db, META_EMBEDDING_MODEL_ID);
  const dim = Number(getMeta(db, META_EMBEDDING_DIM));
  if (!modelId || !Number.isInteger(dim) || dim <= 0) return undefined;
  return { modelId, dim };
}

export function setEmbeddingMeta(db: Database, meta: EmbeddingMeta): void {
  db.transaction(() => {
    setMeta(db, META_EMBEDDING_MODEL_ID, meta.modelId);
    setMeta(db, META_EMBEDDING_DIM, String(meta.dim));
  })();
}

/** Float32Array → BLOB bytes (a copy, little-endian as on every supported platform). */
function encodeVector(v: Float32Array): Uint8Array {
  return new Uint8Array(v.buffer.slice(v.byteOffset, v.byteOffset + v.byteLength));
}

/**
 * BLOB bytes → Float32Array. bun:sqlite gives each BLOB its own buffer: a whole, aligned one is
 * viewed as floats without a copy (half the bytes allocated while a search reads its candidates'
 * vectors); anything else is copied, so alignment never matters.
 */
function decodeVector(blob: Uint8Array): Float32Array {
  const whole = blob.byteOffset === 0 && blob.byteLength === blob.buffer.byteLength;
  if (whole && blob.byteLength % 4 === 0) return new Float32Array(blob.buffer);
  const copy = new Uint8Array(blob.byteLength - (blob.byteLength % 4));
  copy.set(blob.subarray(0, copy.byteLength));
  return new Float32Array(copy.buffer);
}

export interface PendingEntity {
  id: number;
  text: string;
  content_hash: string;
}

/**
 * A copy another source's entity answers for (`dup_of`: SRD 5.1 from Open5e v2 and the D&D 5e API)
 * is never searched, so it gets no vector: what is embedded is what `documents` counts, the entries.
 * A copy whose original goes away loses its `dup_of` and is pending then.
 */
const PENDING_WHERE =
  "e.dup_of IS NULL AND (v.entity_id IS NULL OR v.model_id <> ?1 OR v.content_hash <> e.content_hash)";

/** Entries (not copies) whose vector is missing, from another model, or older than their content. */
export function countPendingVectors(db: Database, modelId: string): number {
  const row = db
    .query<{ n: number }, [string]>(
      `SELECT COUNT(*) AS n FROM entities e LEFT JOIN vectors v ON v.entity_id = e.id WHERE ${PENDING_WHERE}`,
    )
    .get(modelId);
  return row?.n ?? 0;
}

/**
 * One page of pending entities, by id (keyset paging: pass the last id seen as `afterId`); `text` is
 * what to embed (the entity's search text). `kind`: only entities of that kind.
 */
export function listPendingVectors(
  db: Database,
  modelId: string,
  limit: number,
  afterId = 0,
  only?: { kind?: string; share?: [number, number] },
): PendingEntity[] {
  let where = "";
  if (only?.kind !== undefined) where += " AND e.kind = ?4";
  if (only?.share)
    where += ` AND e.id % ${Math.max(1, Math.floor(only.share[1]))} = ${Math.max(0, Math.floor(only.share[0]))}`;
  return db
    .query<PendingEntity, [string, number, number, ...string[]]>(
      `SELECT e.id AS id, e.text AS text, e.content_hash AS content_hash
       FROM entities e LEFT JOIN vectors v ON v.entity_id = e.id
       WHERE ${PENDING_WHERE} AND e.id > ?2${where} ORDER BY e.id LIMIT ?3`,
    )
    .all(modelId, afterId, Math.max(1, Math.floor(limit)), ...(only?.kind !== undefined ? [only.kind] : []));
}

export interface VectorWrite {
  id: number;
  /** The entity's content_hash the vector was computed from. */
  contentHash: string;
  vector: Float32Array;
}

/**
 * Write vectors in one transaction. A row is written only if its entity still exists with the same
 * content_hash (an entity changed or deleted meanwhile stays pending). Returns the number written.
 */
export function writeVectors(db: Database, modelId: string, rows: readonly VectorWrite[]): number {
  if (rows.length === 0) return 0;
  const q = db.query(
    `INSERT INTO vectors (entity_id, model_id, content_hash, vector)
     SELECT ?1, ?2, ?3, ?4 WHERE EXISTS (SELECT 1 FROM entities WHERE id = ?1 AND content_hash = ?3)
     ON CONFLICT(entity_id) DO UPDATE SET model_id = excluded.model_id, content_hash = excluded.content_hash, ` +
      `vector = excluded.vector`,
  );
  let written = 0;
  db.transaction(() => {
    for (const r of rows) written += q.run(r.id, modelId, r.contentHash, encodeVector(r.vector)).changes;
    const blank = rows.filter((r) => r.vector.every((x) => x === 0)).map((r) => r.contentHash);
    if (blank.length > 0)
      setMeta(db, blankKey(modelId), JSON.stringify([...new Set([...modelBlanks(db, modelId), ...blank])]));
  }).immediate();
  return written;
}

/**
 * A word-vector model maps a text with none of its words to zeros; the content hashes it did so
 * for are remembered, so that doctor tells those vectors (the model's own answer) from zeroed ones
 * (a pack or an edit), which it removes to compute again.
 */
const blankKey = (modelId: string) => `model_blank:${modelId}`;

function modelBlanks(db: Database, modelId: string): string[] {
  const v = getMetaJson(db, blankKey(modelId));
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

/** (id, content_hash) of every vector of `modelId`, by id: what an index must contain. */
export function listVectorStamps(db: Database, modelId: string): Array<{ id: number; content_hash: string }> {
  return db
    .query<{ id: number; content_hash: string }, [string]>(
      "SELECT entity_id AS id, content_hash FROM vectors WHERE model_id = ? ORDER BY entity_id",
    )
    .all(modelId);
}

export interface StoredVector {
  /** The content_hash the vector was computed from. */
  contentHash: string;
  vector: Float32Array;
}

/**
 * Vectors of `modelId` (all of them, or those of `ids`), read together with their content_hash.
 * Rows whose BLOB does not hold `dim` floats (when `dim` is given) are left out.
 */
export function readVectorRows(
  db: Database,
  modelId: string,
  ids?: Iterable<number>,
  dim?: number,
): Map<number, StoredVector> {
  type Row = { id: number; content_hash: string; vector: Uint8Array };
  const sql = "SELECT entity_id AS id, content_hash, vector FROM vectors WHERE model_id = ?";
  // Given ids: one statement over them as a JSON array, not one per chunk of bound parameters.
  const rows =
    ids === undefined
      ? db.query<Row, [string]>(sql).all(modelId)
      : db.query<Row, [string, string]>(`${sql} AND entity_id ${ID_IN}`).all(modelId, idList([...new Set(ids)]));
  const out = new Map<number, StoredVector>();
  for (const r of rows) {
    if (dim !== undefined && r.vector.byteLength !== dim * 4) continue;
    out.set(r.id, { contentHash: r.content_hash, vector: decodeVector(r.vector) });
  }
  return out;
}

/** Number of stored vectors (of one model, or all). */
export function countVectors(db: Database, modelId?: string): number {
  const sql = "SELECT COUNT(*) AS n FROM vectors WHERE model_id = coalesce(?, model_id)";
  return db.query<{ n: number }, [string | null]>(sql).get(modelId ?? null)?.n ?? 0;
}

/**
 * Stored vectors of `meta`'s model that can never rank anything: not `meta.dim` floats long, or all
 * zeros where the model did not write them so (a pack made elsewhere, a hand edit). Counted, or deleted
 * with `remove` (they are then pending, and embedded again).
 */
export function unusableVectors(db: Database, meta: EmbeddingMeta, remove = false): number {
  const where =
    "model_id = ?1 AND (typeof(vector) <> 'blob' OR length(vector) <> ?2 OR " +
    "(vector = zeroblob(length(vector)) AND content_hash NOT IN (SELECT value FROM json_each(?3))))";
  const blanks = JSON.stringify(modelBlanks(db, meta.modelId));
  if (remove) return db.query(`DELETE FROM vectors WHERE ${where}`).run(meta.modelId, meta.dim * 4, blanks).changes;
  const q = db.query<{ n: number }, [string, number, string]>(`SELECT count(*) AS n FROM vectors WHERE ${where}`);
  return q.get(meta.modelId, meta.dim * 4, blanks)?.n ?? 0;
}

/**
 * Two model ids (`<name>@<first 12 hex of the ONNX file's sha256>`) of the same model file: the
 * same weights installed under another name make the same vectors.
 */
export function sameModelContent(a: string, b: string): boolean {
  const content = (id: string) => (id.lastIndexOf("@") >= 0 ? id.slice(id.lastIndexOf("@") + 1) : "");
  return content(a).length >= 12 && content(a) === content(b);
}

/** Hand the vectors of `from` to `to` (the same model file under another name) and make `to` the store's model. */
export function adoptVectors(db: Database, from: string, to: EmbeddingMeta): number {
  return db
    .transaction(() => {
      const n = db.query("UPDATE vectors SET model_id = ? WHERE model_id = ?").run(to.modelId, from).changes;
      setEmbeddingMeta(db, to);
      return n;
    })
    .immediate();
}

/** Delete all vectors of one model (e.g. its dimension changed). */
export function deleteVectorsOfModel(db: Database, modelId: string): number {
  return db.query("DELETE FROM vectors WHERE model_id = ?").run(modelId).changes;
}
