/**
 * The Embedder over a loaded model's runs (onnx-runners.ts): queries cached, prefixes per model
 * profile, a warning for an over-long query.
 */
import { log } from "../../log.ts";
import type { Embedder } from "../types.ts";
import type { ModelProfile } from "./model-source.ts";
import { encodeUnpadded, type OnnxRunners, type TokenizerLike } from "./onnx-runners.ts";

const QUERY_CACHE_SIZE = 64;
/** Texts per ONNX run when embedding passages. */
const INNER_BATCH = 16;

export class ModelEmbedder implements Embedder {
  private readonly queryCache = new Map<string, Float32Array>();

  constructor(
    readonly id: string,
    readonly dim: number,
    private readonly runs: OnnxRunners,
    private readonly profile: ModelProfile,
    readonly maxTokens: number,
    /** The model's tokenizer, to count a long query's tokens (estimated by characters when that fails). */
    private readonly tokenizer: TokenizerLike,
  ) {}

  async embedPassages(texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const input = this.profile.passagePrefix ? texts.map((t) => this.profile.passagePrefix + t) : texts;
    const out = (await this.runs.passages(input, INNER_BATCH)).map((v) => this.checked(v));
    if (out.length !== texts.length)
      throw new Error(`the model returned ${out.length} vectors for ${texts.length} texts`);
    return out;
  }

  async embedQuery(text: string): Promise<Float32Array> {
    const q = text.trim();
    const cached = this.queryCache.get(q);
    if (cached) {
      this.queryCache.delete(q);
      this.queryCache.set(q, cached);
      return cached;
    }
    const input = this.profile.queryPrefix + q;
    await this.warnIfTruncated(input, q);
    const v = this.checked(await this.runs.query(input));
    this.queryCache.set(q, v);
    if (this.queryCache.size > QUERY_CACHE_SIZE) {
      const oldest = this.queryCache.keys().next().value;
      if (oldest !== undefined) this.queryCache.delete(oldest);
    }
    return v;
  }

  private checked(v: Float32Array): Float32Array {
    if (v.length !== this.dim)
      throw new Error(`the model returned a ${v.length}-dimensional vector, expected ${this.dim}`);
    return v;
  }

  /** Log when the query does not fit in maxTokens (the tokenizer then drops the rest). */
  private async warnIfTruncated(input: string, query: string): Promise<void> {
    // Every WordPiece token covers at least one character, plus [CLS] and [SEP].
    if (input.length + 2 <= this.maxTokens) return;
    const prefixLen = input.length - query.length;
    let kept: number | undefined;
    try {
      const fits = async (s: string) => (await encodeUnpadded(this.tokenizer, s)).getOverflowing().length === 0;
      if (await fits(input)) return;
      // The longest prefix that still fits (a handful of encodings, only for an over-long query).
      let lo = prefixLen;
      let hi = input.length;
      while (hi - lo > 1) {
        const mid = (lo + hi) >> 1;
        if (await fits(input.slice(0, mid))) lo = mid;
        else hi = mid;
      }
      kept = lo - prefixLen;
    } catch (err) {
      log.debug("token count for truncation check failed; estimating by characters", err);
    }
    if (kept === undefined) {
      const approx = this.maxTokens * 4;
      if (input.length <= approx) return;
      kept = Math.max(0, approx - prefixLen);
    }
    log.warn(
      `Search query is longer than the embedding model's limit of ${this.maxTokens} tokens: only its first ` +
        `~${kept} of ${query.length} characters are used for semantic ranking.`,
    );
  }
}
