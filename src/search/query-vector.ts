/**
 * Query vectors for the search layer, bounded in time: `withTimeout` (LOREKEEPER_EMBEDDING_TIMEOUT_MS)
 * and `queryVector`, which turns every failure (no model, still loading, timeout, error, no known
 * word) into a reason string so the caller can rank by keywords instead.
 */
import { loadConfig } from "../config.ts";
import { log } from "../log.ts";
import type { EmbedderProvider } from "./types.ts";

function firstLine(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  const line = msg.split("\n").find((l) => l.trim().length > 0) ?? msg;
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

export class TimeoutError extends Error {
  override readonly name = "TimeoutError";
}

/** `p`, or a TimeoutError after `ms` (ms ≤ 0 or not finite: no limit). `p` keeps running. */
export function withTimeout<T>(p: Promise<T>, ms: number, what = "operation"): Promise<T> {
  if (!Number.isFinite(ms) || ms <= 0) return p;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(`${what} took longer than ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/** True when every component is 0 (e.g. a static model that knows none of the query's words). */
export function isZeroVector(v: Float32Array): boolean {
  for (let i = 0; i < v.length; i++) if (v[i] !== 0) return false;
  return true;
}

export type QueryVector = { ok: true; vector: Float32Array; modelId: string; dim: number } | { ok: false; reason: string };

/**
 * The query vector for the search layer, or why there is none (model unavailable or still loading,
 * timeout — LOREKEEPER_EMBEDDING_TIMEOUT_MS covers loading and embedding together —, error, or no
 * known word). Never throws; logs a warning on timeout or error.
 */
export async function queryVector(provider: EmbedderProvider, text: string, timeoutMs: number = loadConfig().embeddingTimeoutMs): Promise<QueryVector> {
  const started = performance.now();
  try {
    const embedder = await withTimeout(provider.get(), timeoutMs, "loading the embedding model");
    if (!embedder) return { ok: false, reason: `semantic ranking is off: ${provider.reason() ?? "no embedding model"}` };
    const left = Number.isFinite(timeoutMs) && timeoutMs > 0 ? Math.max(1, timeoutMs - (performance.now() - started)) : 0;
    const vector = await withTimeout(embedder.embedQuery(text), left, "embedding the query");
    if (isZeroVector(vector)) return { ok: false, reason: "the embedding model knows none of the query's words" };
    return { ok: true, vector, modelId: embedder.id, dim: embedder.dim };
  } catch (err) {
    const reason = err instanceof TimeoutError ? `${err.message}; ranked by keywords only` : `embedding the query failed (${firstLine(err)})`;
    log.warn(`semantic search skipped: ${reason}`);
    return { ok: false, reason };
  }
}
