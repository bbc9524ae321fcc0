/**
 * Passage embeddings padded to the longest text of their batch, not to the token limit.
 *
 * fastembed pads every text to `maxLength` (256). A transformer such as all-MiniLM-L6-v2 then
 * spends the same time on "Blinded" as on a 256-token stat block. Here the caller's texts are
 * sorted by their number of tokens, cut into batches, and each batch is padded only to its own longest text.
 * Padding is masked out by the model, so the vectors are fastembed's (checked against fastembed
 * on a probe batch before use, see embedder.ts). Uses fastembed's private tokenizer and session
 * through unpadded-query.ts's accessors; when they are not as expected the caller keeps fastembed.
 */
import type { FlagEmbedding } from "fastembed";
import { encodeUnpadded, type TokenizerLike } from "./unpadded-query.ts";

type Ort = typeof import("onnxruntime-node");
interface SessionLike {
  inputNames: readonly string[];
  run(feeds: Record<string, InstanceType<Ort["Tensor"]>>): Promise<Record<string, { data: unknown; dims: readonly number[] } | undefined>>;
}

export type BatchRunner = (texts: string[], batchSize: number) => Promise<Float32Array[]>;

function session(model: FlagEmbedding): SessionLike | undefined {
  const s: unknown = Reflect.get(model, "session");
  if (s === null || typeof s !== "object") return undefined;
  return typeof Reflect.get(s, "run") === "function" && Array.isArray(Reflect.get(s, "inputNames")) ? (s as SessionLike) : undefined;
}

/** fastembed's normalize (same expressions, so the same float rounding). */
function normalize(v: Float32Array): Float32Array {
  const norm = Math.sqrt(v.reduce((acc, val) => acc + val * val, 0));
  return v.map((val) => val / Math.max(norm, 1e-12));
}

export async function unpaddedBatchRunner(model: FlagEmbedding, tokenizer: TokenizerLike | undefined, padId: number): Promise<BatchRunner | undefined> {
  const s = session(model);
  if (!s || !tokenizer) return undefined;
  let ort: Ort;
  try {
    ort = await import("onnxruntime-node");
  } catch {
    return undefined;
  }
  interface Row {
    ids: number[];
    mask: number[];
    types: number[];
  }
  const rowOf = async (text: string): Promise<Row> => {
    const e = await encodeUnpadded(tokenizer, text);
    const mask = e.getAttentionMask();
    let n = mask.length;
    while (n > 0 && mask[n - 1] === 0) n--;
    return { ids: e.getIds().slice(0, n), mask: mask.slice(0, n), types: e.getTypeIds().slice(0, n) };
  };
  const run = async (rows: Row[]): Promise<Float32Array[]> => {
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
    const feeds: Record<string, InstanceType<Ort["Tensor"]>> = {};
    for (const name of s.inputNames) {
      const data = all[name];
      if (!data) throw new Error(`the model wants an input ${name}`);
      feeds[name] = new ort.Tensor("int64", data, [b, width]);
    }
    const out = (await s.run(feeds)).last_hidden_state;
    if (!out || !(out.data instanceof Float32Array) || out.dims.length !== 3 || out.dims[0] !== b) throw new Error("unexpected model output");
    const [, seq, dim] = out.dims as [number, number, number];
    return rows.map((_, i) => normalize(out.data instanceof Float32Array ? out.data.slice(i * seq * dim, i * seq * dim + dim) : new Float32Array(dim)));
  };
  return async (texts, batchSize) => {
    // Fewest tokens first, so each batch holds texts of similar length; results go back in input order.
    const rows = await Promise.all(texts.map(rowOf));
    const order = rows.map((r, i) => ({ i, len: r.ids.length })).sort((a, b) => a.len - b.len);
    const out: Float32Array[] = new Array(texts.length);
    for (let k = 0; k < order.length; k += batchSize) {
      const chunk = order.slice(k, k + batchSize);
      const vs = await run(chunk.map((c) => rows[c.i]!));
      chunk.forEach((c, j) => (out[c.i] = vs[j]!));
    }
    return out;
  };
}
