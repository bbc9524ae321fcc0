/**
 * A model folder's tokenizer and session are fastembed's, made without importing fastembed
 * (onnx-session.ts): the tokenizer encodes as fastembed's loadTokenizer sets it up, and a load,
 * a query and a passage never import fastembed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { FlagEmbedding } from "fastembed";
import { loadTokenizer } from "../../../src/search/model/onnx-session.ts";
import { createTinyModel } from "../../support/tiny-model.ts";
import { makeTempDir } from "../../support/tmp.ts";

let tmp: ReturnType<typeof makeTempDir>;
let modelDir: string;

beforeAll(async () => {
  tmp = makeTempDir();
  modelDir = await createTinyModel(join(tmp.dir, "tiny"));
});
afterAll(() => tmp.cleanup());

interface Enc {
  getIds(): number[];
  getTypeIds(): number[];
  getAttentionMask(): number[];
  getOverflowing(): unknown[];
}
type Encoder = { encode(text: string): Promise<Enc> };

describe("a model folder without fastembed's module", () => {
  test("tokenizer encodes as fastembed's loadTokenizer sets it up (truncation, padding, special tokens)", async () => {
    const ours = loadTokenizer(modelDir, 16) as unknown as Encoder;
    const theirs = (Reflect.get(FlagEmbedding, "loadTokenizer") as (dir: string, max: number) => Encoder).call(
      FlagEmbedding,
      modelDir,
      16,
    );
    for (const text of ["fire", "undead that drain life", "dragon ".repeat(30).trim(), "[CLS] odd [SEP] input", ""]) {
      const [a, b] = [await ours.encode(text), await theirs.encode(text)];
      expect(a.getIds()).toEqual(b.getIds());
      expect(a.getTypeIds()).toEqual(b.getTypeIds());
      expect(a.getAttentionMask()).toEqual(b.getAttentionMask());
      expect(a.getOverflowing().length).toBe(b.getOverflowing().length);
    }
  });

  test("loading, a query and a passage import no fastembed; the query and the passage get the same vector", () => {
    const child = Bun.spawnSync(
      [process.execPath, join(import.meta.dir, "no-fastembed-child.ts"), modelDir, join(tmp.dir, "graphs")],
      { stderr: "pipe" },
    );
    const out = child.stdout.toString();
    if (child.exitCode !== 0) throw new Error(`child failed: ${child.stderr.toString().slice(-2000)}`);
    expect(JSON.parse(out)).toEqual({ afterQuery: false, afterPassages: false, same: true });
  });
});
