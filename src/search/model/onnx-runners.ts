/**
 * A model folder's embeddings on onnxruntime's and the tokenizer's public APIs, computed as
 * fastembed 2.1.0's `embed` does (position 0 of `last_hidden_state`, L2-normalized by the same
 * expressions) but without padding every text to the token limit (~40 times the work for a short
 * query): a query is fed its own tokens, passages sorted by length and each batch padded to its
 * longest. Padding is masked, so the vectors are fastembed's (test/search/model/onnx-runners.test.ts).
 */
import type { OrtSession } from "./onnx-session.ts";

type Ort = typeof import("onnxruntime-node");
type Tensor = InstanceType<Ort["Tensor"]>;

/** One encoded text (packages/tokenizers-js's Encoding, or the native addon's in check-tokenizer). */
interface EncodingLike {
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

interface Row {
  ids: number[];
  mask: number[];
  types: number[];
}

/** A text's tokens, cut where padding starts. */
async function rowOf(tokenizer: TokenizerLike, text: string): Promise<Row> {
  const e = await encodeUnpadded(tokenizer, text);
  const mask = e.getAttentionMask();
  let n = mask.length;
  while (n > 0 && mask[n - 1] === 0) n--;
  return { ids: e.getIds().slice(0, n), mask: mask.slice(0, n), types: e.getTypeIds().slice(0, n) };
}

/** fastembed's normalize (same expressions, so the same float rounding). */
function normalize(v: Float32Array): Float32Array {
  const norm = Math.sqrt(v.reduce((acc, val) => acc + val * val, 0));
  return v.map((val) => val / Math.max(norm, 1e-12));
}

export interface OnnxRunners {
  /** One text with its own tokens. Throws when it has none. */
  query(text: string): Promise<Float32Array>;
  /** Texts in batches of `batchSize`, each padded to its longest text; vectors in input order. */
  passages(texts: string[], batchSize: number): Promise<Float32Array[]>;
}

/** int64 feeds of token rows, each padded to the longest, for the inputs a session names. */
export function tokenFeeds(ort: Ort, inputNames: readonly string[], rows: Row[], padId = 0): Record<string, Tensor> {
  const width = Math.max(1, ...rows.map((r) => r.ids.length));
  const b = rows.length;
  const ids = new BigInt64Array(b * width).fill(BigInt(padId));
  const mask = new BigInt64Array(b * width);
  const types = new BigInt64Array(b * width);
  rows.forEach((r, i) => {
    for (let j = 0; j < r.ids.length; j++) {
      ids[i * width + j] = BigInt(r.ids[j]!);
      mask[i * width + j] = BigInt(r.mask[j]!);
      types[i * width + j] = BigInt(r.types[j]!);
    }
  });
  const all: Record<string, BigInt64Array> = { input_ids: ids, attention_mask: mask, token_type_ids: types };
  const feeds: Record<string, Tensor> = {};
  for (const name of inputNames) {
    const data = all[name];
    if (!data) throw new Error(`the model wants an input ${name}`);
    feeds[name] = new ort.Tensor("int64", data, [b, width]);
  }
  return feeds;
}

export function onnxRunners(ort: Ort, session: OrtSession, tokenizer: TokenizerLike, padId = 0): OnnxRunners {
  const run = async (rows: Row[]): Promise<Float32Array[]> => {
    const b = rows.length;
    const feeds = tokenFeeds(ort, session.inputNames, rows, padId);
    const out = (await session.run(feeds)).last_hidden_state;
    if (!out || !(out.data instanceof Float32Array) || out.dims.length !== 3 || out.dims[0] !== b)
      throw new Error("unexpected model output");
    const data = out.data;
    const [, seq, dim] = out.dims as [number, number, number];
    return rows.map((_, i) => normalize(data.slice(i * seq * dim, i * seq * dim + dim)));
  };
  return {
    async query(text) {
      const row = await rowOf(tokenizer, text);
      if (row.ids.length === 0) throw new Error("the query has no tokens");
      return (await run([row]))[0]!;
    },
    async passages(texts, batchSize) {
      // Fewest tokens first, so each batch holds texts of similar length; results go back in input order.
      const rows = await Promise.all(texts.map((t) => rowOf(tokenizer, t)));
      const order = rows.map((r, i) => ({ i, len: r.ids.length })).sort((a, b) => a.len - b.len);
      const out: Float32Array[] = new Array(texts.length);
      for (let k = 0; k < order.length; k += batchSize) {
        const chunk = order.slice(k, k + batchSize);
        const vs = await run(chunk.map((c) => rows[c.i]!));
        chunk.forEach((c, j) => {
          out[c.i] = vs[j]!;
        });
      }
      return out;
    },
  };
}
