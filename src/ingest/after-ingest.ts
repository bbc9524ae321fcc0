/**
 * After a sync or an import: embed new or changed entities and bring the vector index in line.
 * Never fails the ingest: without a model, semantic ranking is simply off (one warning).
 */
import type { Config } from "../config.ts";
import { log } from "../log.ts";
import { noModelAdvice } from "../search/model/model-advice.ts";
import type { EmbedderProvider } from "../search/types.ts";
import type { Store } from "../store/db.ts";

/** The model to embed with, and the Config that says how to get one when there is none. */
export interface IngestModel {
  embedder: EmbedderProvider;
  config: Config;
}

function noModelSentence(note: string | undefined, config: Config): string {
  const m = /^no embedding model, semantic search is off \((.*)\)$/.exec(note ?? "");
  if (note && !m) return `Not embedded: ${note}.`;
  const reason = m?.[1];
  const a = noModelAdvice(reason, { downloadAllowed: !config.offline, modelName: config.embeddingModel });
  return `Not embedded: ${a.state}. ${a.fix}`;
}

export interface EmbedSummary {
  embedded: number;
  modelId: string | null;
  /** Embedding throughput of this run (null when nothing was embedded). */
  entitiesPerSecond: number | null;
  summary: string;
}

export async function embedAfterIngest(store: Store, model: IngestModel, say: (msg: string) => void = () => {}): Promise<EmbedSummary> {
  try {
    const { embedPending } = await import("./embed.ts");
    const t0 = Date.now();
    const r = await embedPending(store, model.embedder, {
      onProgress: (done: number, total: number) => {
        if (done === total || done % 1024 === 0) say(`embedding: ${done}/${total}`);
      },
    });
    const ms = Date.now() - t0;
    const rate = r.embedded > 0 && ms > 0 ? Math.round((r.embedded / (ms / 1000)) * 10) / 10 : null;
    const summary = r.modelId
      ? `Embedded ${r.embedded} new/changed entities with ${r.modelId} in ${(ms / 1000).toFixed(1)} s${rate !== null ? ` (${rate} entities/s)` : ""}.`
      : noModelSentence(r.note, model.config);
    return { embedded: r.embedded, modelId: r.modelId ?? null, entitiesPerSecond: rate, summary };
  } catch (err) {
    log.warn("embedding after ingest failed; lexical search still works", err);
    return { embedded: 0, modelId: null, entitiesPerSecond: null, summary: "Embedding failed (see log); lexical search still works." };
  }
}
