/**
 * onnxruntime's optimised graph, saved once (src/search/model/optimized-graph.ts), and the rest of
 * what makes the first meaning answer fast: the model's sha256 remembered; and a server that loads
 * the model only when asked.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createEmbedderProvider } from "../../src/search/model/embedder.ts";
import { findOptimizedGraph, modelFileSha256, prepareOptimizedGraph } from "../../src/search/model/optimized-graph.ts";
import { loadConfig } from "../../src/config.ts";
import { createServeDeps } from "../../src/server/deps.ts";
import { openStore } from "../../src/store/db.ts";
import { makePackStore } from "../binary/pack-fixture.ts";
import { createTinyModel } from "../support/tiny-model.ts";
import { makeTempDir } from "../support/tmp.ts";

let tmp: ReturnType<typeof makeTempDir>;
let model: string;

beforeAll(async () => {
  tmp = makeTempDir("lk-graph-");
  model = await createTinyModel(join(tmp.dir, "tiny"), { perToken: true });
});
afterAll(() => tmp.cleanup());

const provider = (graphCache: string | null, extra: Parameters<typeof createEmbedderProvider>[0] = {}) =>
  createEmbedderProvider({
    modelDir: model,
    embeddedDir: null,
    allowDownload: false,
    cacheDir: join(tmp.dir, "cache"),
    graphCache,
    ...extra,
  });

const graphDirs = (root: string) => readdirSync(root).filter((f) => !f.endsWith(".json"));

describe("the optimised graph", () => {
  test("is saved once, found again, and gives the model's vectors under the model's own id", async () => {
    const root = join(tmp.dir, "graphs-a");
    const first = await prepareOptimizedGraph(join(model, "model.onnx"), root);
    expect(first.detail).toStartWith("saved in ");
    expect(first.saved).toBe(true);
    expect((await prepareOptimizedGraph(join(model, "model.onnx"), root)).detail).toStartWith("already saved in ");
    expect(graphDirs(root)).toHaveLength(1);

    const plain = provider(null);
    const fast = provider(root);
    const [a, b] = [(await plain.get())!, (await fast.get())!];
    expect(plain.info()!.graph).toBeNull();
    expect(fast.info()!.graph).toBe(findOptimizedGraph(join(root, graphDirs(root)[0]!))!);
    expect(b.id).toBe(a.id);
    const q = "a burning blaze of heat";
    const [va, vb] = [await a.embedQuery(q), await b.embedQuery(q)];
    expect(Math.max(...va.map((x, i) => Math.abs(x - vb[i]!)))).toBeLessThan(1e-5);
    const [pa, pb] = [(await a.embedPassages([q]))[0]!, (await b.embedPassages([q]))[0]!];
    expect(Math.max(...pa.map((x, i) => Math.abs(x - pb[i]!)))).toBeLessThan(1e-5);
  });

  test("a load without one saves it in the background for the next start", async () => {
    const root = join(tmp.dir, "graphs-b");
    const p = provider(root, { graphSaveDelayMs: 0 });
    await p.get();
    expect(p.info()!.graph).toBeNull();
    for (let i = 0; i < 100 && !(graphDirs(root).length && findOptimizedGraph(join(root, graphDirs(root)[0]!))); i++)
      await Bun.sleep(50);
    const next = provider(root);
    await next.get();
    expect(next.info()!.graph).toEndWith("model.onnx");
  });

  test("an incomplete or damaged graph is never used: the model file is used instead", async () => {
    const root = join(tmp.dir, "graphs-c");
    await prepareOptimizedGraph(join(model, "model.onnx"), root);
    const dir = join(root, graphDirs(root)[0]!);
    const graph = join(dir, "model.onnx");
    // wrong size: not found at all
    writeFileSync(join(dir, "model.onnx.data"), "short");
    expect(findOptimizedGraph(dir)).toBeUndefined();
    await prepareOptimizedGraph(join(model, "model.onnx"), join(tmp.dir, "graphs-c2"));
    // right size, garbage inside: found, fails to load, is removed; the model still loads
    const size = statSync(graph).size;
    const marker = JSON.parse(readFileSync(join(dir, "complete.json"), "utf8")) as { files: Record<string, number> };
    writeFileSync(graph, Buffer.alloc(size, 7));
    writeFileSync(join(dir, "model.onnx.data"), Buffer.alloc(marker.files["model.onnx.data"] ?? 0, 1));
    expect(findOptimizedGraph(dir)).toBe(graph);
    const p = provider(root, { graphSaveDelayMs: 60_000 });
    const e = await p.get();
    expect(e).not.toBeNull();
    expect(p.info()!.graph).toBeNull();
    expect(findOptimizedGraph(dir)).toBeUndefined();
  });

  test("a model file's sha256 is remembered by path, size and mtime", async () => {
    const root = join(tmp.dir, "sha");
    const f = join(tmp.dir, "blob.bin");
    writeFileSync(f, "one");
    const real = await modelFileSha256(f, root);
    expect(real).toBe(new Bun.CryptoHasher("sha256").update("one").digest("hex"));
    // the remembered value is used while the file looks unchanged…
    const cache = JSON.parse(readFileSync(join(root, "sha256.json"), "utf8")) as Record<string, { sha256: string }>;
    for (const v of Object.values(cache)) v.sha256 = "0".repeat(64);
    writeFileSync(join(root, "sha256.json"), JSON.stringify(cache));
    expect(await modelFileSha256(f, root)).toBe("0".repeat(64));
    // …and computed again when it changed
    utimesSync(f, new Date(), new Date(Date.now() + 5000));
    expect(await modelFileSha256(f, root)).toBe(real);
  });
});

describe("server start", () => {
  test(
    "a store with vectors loads no model and no index at start; its " +
      "first meaning question loads both, then fills missing vectors",
    async () => {
      const pack = await makePackStore(join(tmp.dir, "lazy.db"), model);
      rmSync(`${pack.path}.usearch`, { force: true });
      const pending = () => {
        const s = openStore({ path: pack.path, readonly: true });
        try {
          return s.db
            .query<{ n: number }, []>(
              "SELECT count(*) AS n FROM entities WHERE id NOT IN (SELECT entity_id FROM vectors)",
            )
            .get()!.n;
        } finally {
          s.close();
        }
      };
      const w = openStore({ path: pack.path });
      w.db.exec("DELETE FROM vectors WHERE entity_id IN (SELECT entity_id FROM vectors LIMIT 2)");
      w.close();
      expect(pending()).toBe(2);
      const p = provider(null);
      const served = await createServeDeps({
        config: { ...loadConfig(), offline: true },
        embedder: p,
        dbPath: pack.path,
      });
      try {
        await Bun.sleep(700);
        expect(p.state()).toBe("unloaded");
        expect(pending()).toBe(2);
        const res = await served.deps.search({ kinds: ["spell"], search: "fire", limit: 3 });
        expect(p.state()).toBe("ready");
        expect(res.hits.length).toBeGreaterThan(0);
        for (let i = 0; i < 100 && pending() > 0; i++) await Bun.sleep(25);
        expect(pending()).toBe(0);
      } finally {
        served.close();
      }
    },
  );
});
