/**
 * After a sync or an import: embed new or changed entities and bring the vector index in line.
 * Never fails the ingest: without a model, semantic ranking is simply off (one warning).
 */
import { log } from "../log.ts";
import type { Store } from "../store/db.ts";

export interface EmbedSummary {
  embedded: number;
  modelId: string | null;
  summary: string;
}

export async function embedAfterIngest(store: Store, say: (msg: string) => void = () => {}): Promise<EmbedSummary> {
  try {
    const { embedPending } = await import("./embed.ts");
    const { defaultEmbedderProvider } = await import("../search/embedder.ts");
    const t0 = Date.now();
    const r = await embedPending(store, defaultEmbedderProvider(), {
      onProgress: (done: number, total: number) => {
        if (done === total || done % 1024 === 0) say(`embedding: ${done}/${total}`);
      },
    });
    const ms = Date.now() - t0;
    const summary = r.modelId
      ? `Embedded ${r.embedded} new/changed entities with ${r.modelId} in ${(ms / 1000).toFixed(1)} s.`
      : "Semantic search is off (no embedding model available; set LOREKEEPER_MODEL_DIR).";
    return { embedded: r.embedded, modelId: r.modelId ?? null, summary };
  } catch (err) {
    log.warn("embedding after ingest failed; lexical search still works", err);
    return { embedded: 0, modelId: null, summary: "Embedding failed (see log); lexical search still works." };
  }
}
