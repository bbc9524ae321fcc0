import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { EmbeddingModel, FlagEmbedding } from "fastembed";
import { withMeanPooling } from "../../../src/search/model/onnx-pooling.ts";
import { unpaddedBatchRunner } from "../../../src/search/model/unpadded-batch.ts";
import { privateTokenizer } from "../../../src/search/model/unpadded-query.ts";
import { createTinyModel } from "../../support/tiny-model.ts";
import { makeTempDir } from "../../support/tmp.ts";

let tmp: ReturnType<typeof makeTempDir>;
let dir: string;

beforeAll(async () => {
  tmp = makeTempDir("lk-unpadded-batch-");
  dir = await createTinyModel(join(tmp.dir, "m"), { perToken: true });
  // Mean pooling over the attention mask: the output depends on the padding being masked.
  writeFileSync(join(dir, "model.onnx"), withMeanPooling(readFileSync(join(dir, "model.onnx"))));
});

afterAll(() => tmp.cleanup());

test("passages padded per batch (sorted by length, results in input order) equal fastembed's padded-to-the-limit vectors", async () => {
  const model = await FlagEmbedding.init({ model: EmbeddingModel.CUSTOM, modelAbsoluteDirPath: dir, modelName: "model.onnx", maxLength: 64, showDownloadProgress: false });
  const runner = await unpaddedBatchRunner(model, privateTokenizer(model), 0);
  expect(runner).toBeDefined();
  const texts = [
    "the red dragon breathes fire and flame and heat over the burning ground while the wizard casts a frost spell",
    "cold",
    "undead drain life",
    "heal wounds and restore hit points to a creature you touch",
    "fire",
  ];
  const got = await runner!(texts, 2);
  const want: number[][] = [];
  for await (const b of model.embed(texts, 8)) want.push(...b);
  expect(got.length).toBe(texts.length);
  for (let i = 0; i < texts.length; i++) {
    for (let j = 0; j < want[i]!.length; j++) expect(Math.abs(got[i]![j]! - want[i]![j]!)).toBeLessThan(1e-6);
  }
  // Not all the same vector: the order really was restored.
  expect(Math.abs(got[0]![0]! - got[1]![0]!) + Math.abs(got[1]![1]! - got[2]![1]!)).toBeGreaterThan(1e-3);
});
