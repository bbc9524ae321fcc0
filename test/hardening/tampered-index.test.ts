/**
 * Hardening: a vector index file replaced by random vectors, with its sidecar rewritten to
 * match (size, hash, checksum), was trusted: searches ranked by the random vectors and `doctor`
 * said OK. Now loading samples the file's vectors against the store's (each must find itself), so
 * such a file is rebuilt from the store, and `doctor` names it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { Index } from "usearch";
import { embedPending } from "../../src/ingest/embed.ts";
import { createEmbedderProvider } from "../../src/search/model/embedder.ts";
import { indexPaths, readSidecar, saveIndexFiles } from "../../src/search/index/vector-index-file.ts";
import {
  closeVectorIndex,
  HNSW_CONFIG,
  loadOrBuildIndex,
  savedIndexProblem,
  syncIndex,
} from "../../src/search/index/vector-index.ts";
import { openStore, type Store } from "../../src/store/db.ts";
import { replaceOrigin } from "../../src/store/entities.ts";
import { getEmbeddingMeta, readVectorRows } from "../../src/store/vectors.ts";
import { sampleEntities } from "../support/entities.ts";
import { createTinyModel } from "../support/tiny-model.ts";
import { makeTempDir } from "../support/tmp.ts";
import { cliEnv, runCli } from "./store-health.ts";

const tmp = makeTempDir("lk-tampered-index-");
const dbPath = join(tmp.dir, "lk.db");
const modelDir = join(tmp.dir, "tiny");
let store: Store;

/** Replace the saved index by one holding random vectors under the same keys, its sidecar rewritten to match. */
function forgeIndex(): void {
  const paths = indexPaths(dbPath)!;
  const sidecar = readSidecar(paths);
  if ("problem" in sidecar) throw new Error(sidecar.problem);
  const forged = new Index({ dimensions: sidecar.dim, ...HNSW_CONFIG });
  let seed = 7;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32) * 2 - 1;
  for (const [id] of sidecar.entries) forged.add(BigInt(id), Float32Array.from({ length: sidecar.dim }, rnd));
  const { format: _f, fileBytes: _b, fileHash: _h, count: _c, checksum: _s, ...meta } = sidecar;
  saveIndexFiles(forged, paths, meta);
}

beforeAll(async () => {
  await createTinyModel(modelDir);
  store = openStore({ path: dbPath });
  replaceOrigin(store.db, "open5e_v2:spells", sampleEntities(), []);
  const provider = createEmbedderProvider({ modelDir, embeddedDir: null, allowDownload: false });
  await embedPending(store, provider);
  syncIndex(store);
  closeVectorIndex(store);
});

afterAll(() => {
  closeVectorIndex(store);
  store.close();
  tmp.cleanup();
});

describe("a vector index file with random vectors and a matching sidecar", () => {
  test("the intact file passes the sampled check; the forged one does not", () => {
    const meta = getEmbeddingMeta(store.db)!;
    expect(savedIndexProblem(store, meta.modelId, meta.dim)).toBeUndefined();
    forgeIndex();
    expect(savedIndexProblem(store, meta.modelId, meta.dim)).toMatch(
      /sampled vectors in the index file differ from the store's/,
    );
  });

  test("a search rebuilds it from the store instead of trusting it: every stored vector finds itself", () => {
    forgeIndex();
    const meta = getEmbeddingMeta(store.db)!;
    closeVectorIndex(store);
    const idx = loadOrBuildIndex(store, meta.modelId, meta.dim);
    const rows = [...readVectorRows(store.db, meta.modelId, undefined, meta.dim)];
    expect(rows.length).toBeGreaterThan(5);
    for (const [, row] of rows) expect(idx.search(row.vector, 1)[0]!.similarity).toBeGreaterThan(0.99);
    closeVectorIndex(store);
  });

  test("doctor names it (WARN vector index), where it said OK", async () => {
    syncIndex(store);
    closeVectorIndex(store);
    forgeIndex();
    const r = await runCli(
      ["doctor", "--offline", "--json", "--db-path", dbPath],
      cliEnv(join(tmp.dir, "home"), { LOREKEEPER_MODEL_DIR: modelDir }),
    );
    const report = JSON.parse(r.stdout) as {
      checks: Array<{ name: string; status: string; summary: string; fix?: string }>;
    };
    const check = report.checks.find((c) => c.name === "vector index")!;
    expect(check.status).toBe("warn");
    expect(check.summary).toContain("differ from the store's");
    expect(check.fix).toContain("doctor --repair");
  }, 30_000);
});
