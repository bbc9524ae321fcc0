/**
 * Hardening: embed once per model content. Installing the same weights under a new name
 * re-embedded every entity (the model id carries the name), and two processes embedding with two
 * different models (the active model switched during a sync and an import) overwrote each other's
 * vectors batch after batch (several times the embeddings the rows need). Now the same model file under
 * another name keeps the vectors, and a run whose model is no longer the store's stops.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync } from "node:fs";
import { join } from "node:path";
import { embedPending } from "../../src/ingest/embed.ts";
import { createEmbedderProvider } from "../../src/search/model/embedder.ts";
import type { EmbedderProvider } from "../../src/search/types.ts";
import { closeVectorIndex } from "../../src/search/index/vector-index.ts";
import { openStore } from "../../src/store/db.ts";
import { replaceOrigin } from "../../src/store/entities.ts";
import { getEmbeddingMeta, setEmbeddingMeta } from "../../src/store/vectors.ts";
import { sampleEntities } from "../support/entities.ts";
import { createTinyModel } from "../support/tiny-model.ts";
import { makeTempDir } from "../support/tmp.ts";

const tmp = makeTempDir("lk-embed-once-");
let n = 0;

const provider = (dir: string) => createEmbedderProvider({ modelDir: dir, embeddedDir: null, allowDownload: false });

function freshStore() {
  const store = openStore({ path: join(tmp.dir, `s${++n}.db`) });
  replaceOrigin(store.db, "open5e_v2:spells", sampleEntities(), []);
  return store;
}

let modelA: string;
let modelB: string;

beforeAll(async () => {
  modelA = await createTinyModel(join(tmp.dir, "model-a"), { seed: 1 });
  modelB = await createTinyModel(join(tmp.dir, "model-b"), { seed: 2 });
});

afterAll(() => tmp.cleanup());

describe("embed once per model content", () => {
  test("the same weights under a new name keep the store's vectors: nothing is embedded again", async () => {
    const store = freshStore();
    try {
      const first = await embedPending(store, provider(modelA));
      expect(first.embedded).toBeGreaterThan(5);
      const renamed = join(tmp.dir, "same-weights-new-name");
      cpSync(modelA, renamed, { recursive: true });
      const again = await embedPending(store, provider(renamed));
      expect(again.modelId).not.toBe(first.modelId);
      expect(again.embedded).toBe(0);
      expect(again.remaining).toBe(0);
      expect(getEmbeddingMeta(store.db)?.modelId).toBe(again.modelId!);
      expect(
        store.db
          .query<{ n: number }, [string]>("SELECT count(*) AS n FROM vectors WHERE model_id = ?")
          .get(again.modelId!)!.n,
      ).toBe(first.embedded);
    } finally {
      closeVectorIndex(store);
      store.close();
    }
  });

  test("a run whose model stops being the store's (another process switched it) stops, not overwriting", async () => {
    const store = freshStore();
    const other = openStore({ path: store.path });
    try {
      const b = (await provider(modelB).get())!;
      const base = provider(modelA);
      let calls = 0;
      // Model A's run; after its first batch, another process starts embedding with model B.
      const switching: EmbedderProvider = {
        state: () => base.state(),
        reason: () => base.reason(),
        get: async () => {
          const e = (await base.get())!;
          return {
            ...e,
            id: e.id,
            dim: e.dim,
            embedQuery: (t: string) => e.embedQuery(t),
            embedPassages: async (texts: string[]) => {
              if (++calls === 2) setEmbeddingMeta(other.db, { modelId: b.id, dim: b.dim });
              return e.embedPassages(texts);
            },
          };
        },
      };
      const total = store.db.query<{ n: number }, []>("SELECT count(*) AS n FROM entities").get()!.n;
      const a = await embedPending(store, switching, { batchSize: 2 });
      expect(a.note).toContain("another process switched the store");
      expect(a.embedded).toBeLessThanOrEqual(4);
      const rest = await embedPending(other, provider(modelB), { batchSize: 2 });
      expect(rest.embedded).toBe(total);
      expect(rest.remaining).toBe(0);
      // Embeddings in all: model B's full set plus at most A's two batches, not twice the store.
      expect(a.embedded + rest.embedded).toBeLessThanOrEqual(total + 4);
    } finally {
      closeVectorIndex(store);
      closeVectorIndex(other);
      other.close();
      store.close();
    }
  });
});
