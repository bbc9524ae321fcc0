/**
 * The real path: a generated tiny ONNX model through fastembed → vectors in the store → exact
 * cosine or the USearch HNSW index → fusion with FTS5 → runSearch.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { createEmbedderProvider } from "../../src/search/model/embedder.ts";
import { runSearch } from "../../src/search/hybrid.ts";
import type { EmbedderProvider, SearchQuery } from "../../src/search/types.ts";
import { closeVectorIndex } from "../../src/search/index/vector-index.ts";
import { indexPaths } from "../../src/search/index/vector-index-file.ts";
import type { Store } from "../../src/store/db.ts";
import { makeStore } from "../support/entities.ts";
import { createTinyModel } from "../support/tiny-model.ts";
import { makeTempDir } from "../support/tmp.ts";
import { ctxOf, embedAll, names } from "./helpers.ts";

let tmp: ReturnType<typeof makeTempDir>;
let store: Store;
let cleanupStore: () => void;
let provider: EmbedderProvider;

beforeAll(async () => {
  tmp = makeTempDir();
  const dir = await createTinyModel(join(tmp.dir, "tiny"));
  provider = createEmbedderProvider({
    modelDir: dir,
    embeddedDir: null,
    allowDownload: false,
    cacheDir: join(tmp.dir, "cache"),
  });
  ({ store, cleanup: cleanupStore } = makeStore());
  const embedder = await provider.get();
  if (!embedder) throw new Error(`tiny model did not load: ${provider.reason()}`);
  expect(await embedAll(store.db, embedder)).toBeGreaterThan(30);
}, 60_000);

afterAll(() => {
  closeVectorIndex(store);
  cleanupStore();
  tmp.cleanup();
});

/** exactSearchMax 0 forces the HNSW index; the default ranks these few candidates exactly. */
const run = (q: Partial<SearchQuery>, viaIndex = false) =>
  runSearch(ctxOf(store, provider, viaIndex ? { exactSearchMax: 0 } : {}), { kinds: ["spell"], limit: 10, ...q });

describe("fastembed → vectors → fusion", () => {
  for (const viaIndex of [false, true]) {
    const how = viaIndex ? "HNSW" : "exact";
    test(`${how}: hybrid mode, scores in [0,1] and descending`, async () => {
      const r = await run({ search: "protect from fire" }, viaIndex);
      expect(r.mode).toBe("hybrid");
      expect(r.message).toBeUndefined();
      let prev = 1;
      for (const h of r.hits) {
        expect(h.similarity_score!).toBeGreaterThanOrEqual(0);
        expect(h.similarity_score!).toBeLessThanOrEqual(prev);
        prev = h.similarity_score!;
      }
    });

    test(`${how}: 'protect from fire' at level 4 ranks Fire Shield above Ice Storm`, async () => {
      const n = names(await run({ search: "protect from fire", filters: { level: 4 } }, viaIndex));
      expect(n[0]).toBe("Fire Shield");
      expect(n.indexOf("Ice Storm")).toBeGreaterThan(0);
    });

    test(`${how}: words in no text are found by meaning ('blaze inferno' → fire spells)`, async () => {
      const lexicalOnly = await runSearch(ctxOf(store), { kinds: ["spell"], limit: 10, search: "blaze inferno" });
      expect(lexicalOnly.hits).toEqual([]);
      const r = await run({ search: "blaze inferno", limit: 3 }, viaIndex);
      expect(r.mode).toBe("hybrid");
      expect(r.hits.length).toBe(3);
      for (const h of r.hits) expect(h.entity.filters.damage_types ?? []).toContain("fire");
    });

    test(`${how}: 'undead that drain life' → Vampire and Wraith first`, async () => {
      const n = names(await run({ kinds: ["creature"], search: "undead that drain life" }, viaIndex));
      expect(n.slice(0, 2).sort()).toEqual(["Vampire", "Wraith"]);
    });
  }

  test("the HNSW index file is written beside the database", async () => {
    await run({ search: "cold" }, true);
    const paths = indexPaths(store.path);
    expect(paths).toBeDefined();
    expect(existsSync(paths!.index)).toBe(true);
  });
});
