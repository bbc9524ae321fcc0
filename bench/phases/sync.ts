/**
 * Phase 1: sync the real corpus through the fake upstream into a fresh store, embed it, build the
 * vector index; then, in the same run, raw fastembed over the same texts with the same settings
 * (the ceiling the embedding pipeline is compared with).
 */
import { EmbeddingModel, FlagEmbedding } from "fastembed";
import { loadConfig } from "../../src/config.ts";
import { embedPending } from "../../src/ingest/embed.ts";
import { runSync, type SyncSource } from "../../src/ingest/sync.ts";
import { createEmbedderProvider } from "../../src/search/model/embedder.ts";
import { DEFAULT_MAX_TOKENS } from "../../src/search/model/load-model.ts";
import { syncIndex } from "../../src/search/index/vector-index.ts";
import type { Store } from "../../src/store/db.ts";
import { now, ratio, round } from "../lib/stats.ts";

/** Texts per ONNX run in the embedder (src/search/model/model-embedder.ts INNER_BATCH). */
export const EMBEDDER_INNER_BATCH = 16;

export interface SyncPhaseResult {
  sources: readonly SyncSource[];
  status: string;
  records: number;
  requests: number;
  syncMs: number;
  recordsPerSecond: number;
  modelId: string;
  dim: number;
  modelLoadMs: number;
  embedded: number;
  embedMs: number;
  embeddingsPerSecond: number;
  indexBuildMs: number;
  indexSize: number;
  raw: { texts: number; ms: number; embeddingsPerSecond: number; batch: number; maxTokens: number };
  /** Pipeline embeddings/s ÷ raw fastembed embeddings/s. */
  embeddingRatio: number;
}

export interface SyncPhaseOptions {
  store: Store;
  upstreamUrl: string;
  modelDir: string;
  sources: readonly SyncSource[];
  /** Embed about this many texts in the raw run, every n-th of the corpus (all when undefined). */
  rawLimit?: number;
  say: (msg: string) => void;
}

export async function runSyncPhase(o: SyncPhaseOptions): Promise<SyncPhaseResult> {
  const config = { ...loadConfig(), open5eBaseUrl: o.upstreamUrl, dnd5eApiBaseUrl: o.upstreamUrl };
  o.say(`sync: ${o.sources.join(", ")} from ${o.upstreamUrl}`);
  const t0 = now();
  const report = await runSync(o.store, { sources: o.sources, config, force: true });
  const syncMs = now() - t0;
  const failed = report.results.filter((r) => r.status === "failed");
  if (failed.length)
    o.say(
      `sync: ${failed.length} content types failed: ${failed.map((r) => `${r.contentType} (${r.error})`).join("; ")}`,
    );
  o.say(`sync: ${report.records} records, ${report.requests} requests in ${(syncMs / 1000).toFixed(1)} s`);

  const provider = createEmbedderProvider({ modelDir: o.modelDir, embeddedDir: null, allowDownload: false });
  const tl = now();
  const embedder = await provider.get();
  const modelLoadMs = now() - tl;
  if (!embedder) throw new Error(`the embedding model in ${o.modelDir} did not load: ${provider.reason()}`);

  // Raw fastembed: the same texts, same maxLength, same batch size, no store, no checks. Half of
  // the sample right before the pipeline and half right after, so that both see the same load.
  let texts = o.store.db
    .query<{ text: string }, []>("SELECT text FROM entities ORDER BY id")
    .all()
    .map((r) => r.text);
  if (o.rawLimit !== undefined && texts.length > o.rawLimit) {
    const stride = Math.ceil(texts.length / o.rawLimit);
    texts = texts.filter((_, i) => i % stride === 0);
  }
  const model = await FlagEmbedding.init({
    model: EmbeddingModel.CUSTOM,
    modelAbsoluteDirPath: o.modelDir,
    modelName: "model.onnx",
    maxLength: DEFAULT_MAX_TOKENS,
    showDownloadProgress: false,
  });
  for await (const _ of model.embed(texts.slice(0, 32), EMBEDDER_INNER_BATCH)) void _; // warm-up
  let n = 0;
  let rawMs = 0;
  const rawRun = async (part: string[]) => {
    const t0 = now();
    for await (const batch of model.embed(part, EMBEDDER_INNER_BATCH)) n += batch.length;
    rawMs += now() - t0;
  };
  o.say(`raw fastembed over ${texts.length} texts (half before, half after the pipeline)…`);
  await rawRun(texts.filter((_, i) => i % 2 === 0));

  o.say(`embedding ${report.records} entities with ${embedder.id}…`);
  const te = now();
  const emb = await embedPending(o.store, provider, { updateIndex: false });
  const embedMs = now() - te;
  await rawRun(texts.filter((_, i) => i % 2 === 1));
  const ti = now();
  const idx = syncIndex(o.store, { modelId: embedder.id, dim: embedder.dim });
  const indexBuildMs = now() - ti;
  o.say(
    `embedding: ${emb.embedded} vectors in ${(embedMs / 1000).toFixed(1)} ` +
      `s; index ${idx.size} vectors in ${Math.round(indexBuildMs)} ms`,
  );
  const rawRate = (n / rawMs) * 1000;
  const embRate = emb.embedded > 0 ? (emb.embedded / embedMs) * 1000 : Number.NaN;

  return {
    sources: o.sources,
    status: report.status,
    records: report.records,
    requests: report.requests,
    syncMs: round(syncMs),
    recordsPerSecond: round((report.records / syncMs) * 1000, 1),
    modelId: embedder.id,
    dim: embedder.dim,
    modelLoadMs: round(modelLoadMs),
    embedded: emb.embedded,
    embedMs: round(embedMs),
    embeddingsPerSecond: round(embRate, 1),
    indexBuildMs: round(indexBuildMs),
    indexSize: idx.size,
    raw: {
      texts: n,
      ms: round(rawMs),
      embeddingsPerSecond: round(rawRate, 1),
      batch: EMBEDDER_INNER_BATCH,
      maxTokens: DEFAULT_MAX_TOKENS,
    },
    embeddingRatio: ratio(embRate, rawRate),
  };
}
