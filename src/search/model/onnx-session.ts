/**
 * A model folder's tokenizer and ONNX Runtime session, made as fastembed 2.1.0's `FlagEmbedding.init`
 * makes them (its `loadTokenizer` line for line, on packages/tokenizers-js) without importing
 * fastembed, whose download code (node:https, tar, @huggingface/hub) costs CPU at every start.
 *
 * One setting differs: onnxruntime's worker threads do not spin while waiting. A spinning pool burns
 * its cores between the ~100 small operators of a one-query run, which on a busy machine delays the
 * run itself (docs/benchmark.md, "Figures behind the code").
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { AddedToken, Tokenizer } from "../../../packages/tokenizers-js/index.ts";

type Ort = typeof import("onnxruntime-node");
export type OrtSession = Awaited<ReturnType<Ort["InferenceSession"]["create"]>>;

/** A model session with the options every LoreKeeper model session uses (see the file comment). */
export async function createSession(ort: Ort, onnxPath: string): Promise<OrtSession> {
  return ort.InferenceSession.create(onnxPath, {
    executionProviders: ["cpu"],
    graphOptimizationLevel: "all",
    extra: { session: { "intra_op.allow_spinning": "0" } },
  });
}

const readJson = (dir: string, file: string): Record<string, unknown> =>
  JSON.parse(readFileSync(join(dir, file), "utf8")) as Record<string, unknown>;

/** What fastembed's tokenizer set-up calls: `@anush008/tokenizers`' API (the native addon or tokenizers-js). */
interface TokenizerSetup {
  setTruncation(maxLength: number): void;
  setPadding(options: { maxLength?: number; padId?: number; padToken?: string }): void;
  addSpecialTokens(tokens: string[]): unknown;
  addAddedTokens(tokens: never[]): unknown;
}

type AddedTokenOptions = { singleWord: boolean; leftStrip: boolean; rightStrip: boolean; normalized: boolean };

/**
 * fastembed's `FlagEmbedding.loadTokenizer` (truncation and padding at min(maxLength,
 * model_max_length), the special tokens added), line for line, on the given classes: the product's
 * pure-JS ones (loadTokenizer), or the native addon beside them in `bun run check-tokenizer`.
 */
export function loadTokenizerWith<T extends TokenizerSetup, A>(
  Tok: { fromFile(path: string): T },
  Added: new (content: string, special: boolean, options: AddedTokenOptions) => A,
  dir: string,
  maxLength: number,
): T {
  const config = readJson(dir, "config.json");
  const tokenizerConfig = readJson(dir, "tokenizer_config.json");
  const max = Math.min(maxLength, Number(tokenizerConfig.model_max_length));
  const tokensMap = readJson(dir, "special_tokens_map.json");
  const tok = Tok.fromFile(join(dir, "tokenizer.json"));
  tok.setTruncation(max);
  tok.setPadding({
    maxLength: max,
    padId: config.pad_token_id as number,
    padToken: tokenizerConfig.pad_token as string,
  });
  for (const token of Object.values(tokensMap)) {
    if (typeof token === "string") tok.addSpecialTokens([token]);
    else if (token && typeof token === "object" && "content" in token) {
      const t = token as Record<string, unknown>;
      const options = {
        singleWord: t.single_word as boolean,
        leftStrip: t.lstrip as boolean,
        rightStrip: t.rstrip as boolean,
        normalized: t.normalized as boolean,
      };
      tok.addAddedTokens([new Added(String(t.content), true, options)] as never[]);
    }
  }
  return tok;
}

/** The product's tokenizer of a model folder: fastembed's set-up on packages/tokenizers-js. */
export function loadTokenizer(dir: string, maxLength: number): Tokenizer {
  return loadTokenizerWith(Tokenizer, AddedToken, dir, maxLength);
}
