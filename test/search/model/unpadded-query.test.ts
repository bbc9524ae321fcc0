/**
 * Query embeddings without padding (unpadded-query.ts) give fastembed's padded vector bit for bit,
 * and fall back to fastembed when the runner cannot be used.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { EmbeddingModel, FlagEmbedding } from "fastembed";
import { createEmbedderProvider } from "../../../src/search/model/embedder.ts";
import { privateTokenizer, unpaddedQueryRunner } from "../../../src/search/model/unpadded-query.ts";
import { createTinyModel } from "../../support/tiny-model.ts";
import { makeTempDir } from "../../support/tmp.ts";

let tmp: ReturnType<typeof makeTempDir>;
let modelDir: string;
let raw: FlagEmbedding;

beforeAll(async () => {
  tmp = makeTempDir();
  modelDir = await createTinyModel(join(tmp.dir, "tiny"));
  raw = await FlagEmbedding.init({ model: EmbeddingModel.CUSTOM, modelAbsoluteDirPath: modelDir, modelName: "model.onnx", maxLength: 256, showDownloadProgress: false });
});
afterAll(() => tmp.cleanup());

const QUERIES = ["fire", "undead that drain life", "protect allies from fire and cold", "what happens when I fall", "zzz unknown words", "dragon ".repeat(40).trim()];

async function padded(text: string): Promise<Float32Array> {
  const r = await raw.embed([text], 1).next();
  if (r.done || !r.value[0]) throw new Error("no vector");
  return Float32Array.from(r.value[0]);
}

describe("unpadded query embedding", () => {
  test("the runner gives fastembed's padded vector, bit for bit", async () => {
    const runner = await unpaddedQueryRunner(raw, privateTokenizer(raw));
    expect(runner).toBeDefined();
    for (const q of QUERIES) expect(Array.from(await runner!(q))).toEqual(Array.from(await padded(q)));
  });

  test("the embedder's query vectors are fastembed's", async () => {
    const e = (await createEmbedderProvider({ modelDir, embeddedDir: null, allowDownload: false, cacheDir: join(tmp.dir, "cache") }).get())!;
    for (const q of QUERIES) expect(Array.from(await e.embedQuery(q))).toEqual(Array.from(await padded(q)));
  });

  test("without fastembed's internals there is no runner (the embedder then pads as fastembed does)", async () => {
    expect(await unpaddedQueryRunner(raw, undefined)).toBeUndefined();
    const fake = Object.create(raw) as FlagEmbedding;
    Reflect.set(fake, "session", null);
    expect(await unpaddedQueryRunner(fake, privateTokenizer(raw))).toBeUndefined();
  });
});
