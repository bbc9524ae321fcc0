/**
 * After a sync or an import: embed new or changed entities and bring the vector index in line.
 * Never fails the ingest: without a model, semantic ranking is simply off (one warning).
 */
import { log } from "../log.ts";
import { downloadAllowed, noModelAdvice } from "../search/model/model-advice.ts";
import { loadConfig } from "../config.ts";
import type { Store } from "../store/db.ts";

function noModelSentence(note: string | undefined): string {
  const m = /^no embedding model, semantic search is off \((.*)\)$/.exec(note ?? "");
  if (note && !m) return `Not embedded: ${note}.`;
  const reason = m?.[1];
  const a = noModelAdvice(reason, { downloadAllowed: downloadAllowed(), modelName: loadConfig().embeddingModel });
  return `Not embedded: ${a.state}. ${a.fix}`;
}

export interface EmbedSummary {
  embedded: number;
  modelId: string | null;
  summary: string;
}

export async function embedAfterIngest(store: Store, say: (msg: string) => void = () => {}): Promise<EmbedSummary> {
  try {
    const { embedPending } = await import("./embed.ts");
    const { defaultEmbedderProvider } = await import("../search/model/embedder.ts");
    const t0 = Date.now();
    const r = await embedPending(store, defaultEmbedderProvider(), {
      onProgress: (done: number, total: number) => {
        if (done === total || done % 1024 === 0) say(`embedding: ${done}/${total}`);
      },
    });
    const ms = Date.now() - t0;
    const summary = r.modelId
      ? `Embedded ${r.embedded} new/changed entities with ${r.modelId} in ${(ms / 1000).toFixed(1)} s.`
      : noModelSentence(r.note);
    return { embedded: r.embedded, modelId: r.modelId ?? null, summary };
  } catch (err) {
    log.warn("embedding after ingest failed; lexical search still works", err);
    return { embedded: 0, modelId: null, summary: "Embedding failed (see log); lexical search still works." };
  }
}
