/**
 * Query embeddings without padding. fastembed pads every text to the model's token limit (256)
 * before running the model: for a query of a few words that is ~40 times the work it needs and a
 * 390 KB output tensor per query (garbage until the next GC). Here the query's own tokens are fed
 * instead: the ids, attention mask and type ids fastembed's tokenizer produces, cut where its
 * padding starts. The vector is then taken and normalized exactly as fastembed does (position 0
 * of `last_hidden_state`, L2). Padding is masked out by the models, so the vector is the same: bit
 * for bit with lorekeeper-static-384 (masked mean inside the graph; checked on the benchmark's 80
 * queries and the eval set) and the test model.
 *
 * This reads fastembed's private `tokenizer` and `session` (checked at run time): when anything
 * is missing or fails, embedder.ts falls back to fastembed's own `embed`.
 */
import type { FlagEmbedding } from "fastembed";

/**
 * The parts of fastembed's private tokenizer we use (checked at run time, never exported). It is
 * the pure-JS packages/tokenizers-js, which package.json maps `@anush008/tokenizers` to.
 */
export interface EncodingLike {
  getOverflowing(): unknown[];
  getAttentionMask(): number[];
  getIds(): number[];
  getTypeIds(): number[];
}
export interface TokenizerLike {
  encode(text: string): Promise<EncodingLike>;
  /** The same encoding synchronously; `pad: false` skips the padding (packages/tokenizers-js). */
  encodeSync?(text: string, addSpecialTokens?: boolean, pad?: boolean): EncodingLike;
}

/** One text's encoding, without padding when the tokenizer can skip it. */
export async function encodeUnpadded(tokenizer: TokenizerLike, text: string): Promise<EncodingLike> {
  return tokenizer.encodeSync ? tokenizer.encodeSync(text, true, false) : tokenizer.encode(text);
}

export function privateTokenizer(model: FlagEmbedding): TokenizerLike | undefined {
  const t: unknown = Reflect.get(model, "tokenizer");
  return t !== null && typeof t === "object" && typeof Reflect.get(t, "encode") === "function" ? (t as TokenizerLike) : undefined;
}

type Ort = typeof import("onnxruntime-node");
interface OutputLike {
  data: unknown;
  dims: readonly number[];
}
interface SessionLike {
  inputNames: readonly string[];
  run(feeds: Record<string, InstanceType<Ort["Tensor"]>>): Promise<Record<string, OutputLike | undefined>>;
}

function privateSession(model: FlagEmbedding): SessionLike | undefined {
  const s: unknown = Reflect.get(model, "session");
  if (s === null || typeof s !== "object") return undefined;
  const names: unknown = Reflect.get(s, "inputNames");
  return typeof Reflect.get(s, "run") === "function" && Array.isArray(names) ? (s as SessionLike) : undefined;
}

/** fastembed's normalize (same expressions, so the same float rounding). */
function normalize(v: Float32Array): Float32Array {
  const norm = Math.sqrt(v.reduce((acc, val) => acc + val * val, 0));
  const epsilon = 1e-12;
  return v.map((val) => val / Math.max(norm, epsilon));
}

export type QueryRunner = (input: string) => Promise<Float32Array>;

/**
 * A runner embedding one query with its own tokens, or undefined when fastembed's internals are
 * not as expected (the caller then uses fastembed's `embed`). The runner throws on any surprise.
 */
export async function unpaddedQueryRunner(model: FlagEmbedding, tokenizer: TokenizerLike | undefined): Promise<QueryRunner | undefined> {
  const session = privateSession(model);
  if (!session || !tokenizer) return undefined;
  let ort: Ort;
  try {
    ort = await import("onnxruntime-node");
  } catch {
    return undefined;
  }
  const tensor = (xs: readonly number[]) => new ort.Tensor("int64", BigInt64Array.from(xs, (x) => BigInt(x)), [1, xs.length]);
  return async (input) => {
    const enc = await encodeUnpadded(tokenizer, input);
    const mask = enc.getAttentionMask();
    let n = mask.length;
    while (n > 0 && mask[n - 1] === 0) n--;
    if (n === 0) throw new Error("the query has no tokens");
    const inputs: Record<string, readonly number[]> = {
      input_ids: enc.getIds().slice(0, n),
      attention_mask: mask.slice(0, n),
      token_type_ids: enc.getTypeIds().slice(0, n),
    };
    const feeds: Record<string, InstanceType<Ort["Tensor"]>> = {};
    for (const name of session.inputNames) {
      const values = inputs[name];
      if (!values) throw new Error(`the model wants an input ${name}`);
      feeds[name] = tensor(values);
    }
    const out = (await session.run(feeds)).last_hidden_state;
    if (!out || !(out.data instanceof Float32Array) || out.dims.length !== 3 || out.dims[0] !== 1) throw new Error("unexpected model output");
    return normalize(out.data.slice(0, out.dims[2]));
  };
}
