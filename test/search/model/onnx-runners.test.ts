/**
 * A model folder's embeddings on onnxruntime's and the tokenizer's public APIs (onnx-runners.ts)
 * are fastembed's: a query with its own tokens gives fastembed's padded vector bit for bit, and
 * passages padded per batch (sorted by length, results in input order) give fastembed's
 * padded-to-the-limit vectors, also with a mean-pooled graph whose output depends on the mask.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as ort from "onnxruntime-node";
import { EmbeddingModel, FlagEmbedding } from "fastembed";
import { createEmbedderProvider } from "../../../src/search/model/embedder.ts";
import { withMeanPooling } from "../../../src/search/model/onnx-pooling.ts";
import { onnxRunners } from "../../../src/search/model/onnx-runners.ts";
import { createSession, loadTokenizer } from "../../../src/search/model/onnx-session.ts";
import { createTinyModel } from "../../support/tiny-model.ts";
import { makeTempDir } from "../../support/tmp.ts";

let tmp: ReturnType<typeof makeTempDir>;
let modelDir: string;
let pooledDir: string;

const fastembed = (dir: string, maxLength: number) =>
  FlagEmbedding.init({
    model: EmbeddingModel.CUSTOM,
    modelAbsoluteDirPath: dir,
    modelName: "model.onnx",
    maxLength,
    showDownloadProgress: false,
  });
const runnersOf = async (dir: string, maxLength: number) =>
  onnxRunners(ort, await createSession(ort, join(dir, "model.onnx")), loadTokenizer(dir, maxLength));

beforeAll(async () => {
  tmp = makeTempDir("lk-onnx-runners-");
  modelDir = await createTinyModel(join(tmp.dir, "tiny"));
  pooledDir = await createTinyModel(join(tmp.dir, "pooled"), { perToken: true });
  // Mean pooling over the attention mask: the output depends on the padding being masked.
  writeFileSync(join(pooledDir, "model.onnx"), withMeanPooling(readFileSync(join(pooledDir, "model.onnx"))));
});
afterAll(() => tmp.cleanup());

const QUERIES = [
  "fire",
  "undead that drain life",
  "protect allies from fire and cold",
  "what happens when I fall",
  "zzz unknown words",
  "dragon ".repeat(40).trim(),
];

describe("queries with their own tokens", () => {
  test("give fastembed's padded vector, bit for bit (the runner and the embedder)", async () => {
    const raw = await fastembed(modelDir, 256);
    const runners = await runnersOf(modelDir, 256);
    const e = (await createEmbedderProvider({
      modelDir,
      embeddedDir: null,
      allowDownload: false,
      cacheDir: join(tmp.dir, "cache"),
    }).get())!;
    for (const q of QUERIES) {
      const r = await raw.embed([q], 1).next();
      const want = Array.from(r.done ? [] : r.value[0]!);
      expect(Array.from(await runners.query(q))).toEqual(want);
      expect(Array.from(await e.embedQuery(q))).toEqual(want);
    }
  });
});

describe("passages padded per batch", () => {
  test("equal fastembed's padded-to-the-limit vectors, in input order", async () => {
    const raw = await fastembed(pooledDir, 64);
    const runners = await runnersOf(pooledDir, 64);
    const texts = [
      "the red dragon breathes fire and flame and heat over the burning ground while the wizard casts a frost spell",
      "cold",
      "undead drain life",
      "heal wounds and restore hit points to a creature you touch",
      "fire",
    ];
    const got = await runners.passages(texts, 2);
    const want: number[][] = [];
    for await (const b of raw.embed(texts, 8)) want.push(...b);
    expect(got.length).toBe(texts.length);
    for (let i = 0; i < texts.length; i++) {
      for (let j = 0; j < want[i]!.length; j++) expect(Math.abs(got[i]![j]! - want[i]![j]!)).toBeLessThan(1e-6);
    }
    // Not all the same vector: the order really was restored.
    expect(Math.abs(got[0]![0]! - got[1]![0]!) + Math.abs(got[1]![1]! - got[2]![1]!)).toBeGreaterThan(1e-3);
  });
});
