/**
 * The fastembed-backed Embedder (queries cached, prefixes per model profile) and the checks that
 * decide whether the faster runners may replace fastembed's own padded embed: each is used only if
 * it reproduces fastembed's vectors on a probe. Loading and choosing a model is embedder.ts.
 */
import type { FlagEmbedding } from "fastembed";
import { log } from "../../log.ts";
import type { Embedder } from "../types.ts";
import type { ModelProfile } from "./model-source.ts";
import { unpaddedBatchRunner, type BatchRunner } from "./unpadded-batch.ts";
import { encodeUnpadded, type QueryRunner, type TokenizerLike, unpaddedQueryRunner } from "./unpadded-query.ts";

const QUERY_CACHE_SIZE = 64;

function toF32(v: ArrayLike<number>): Float32Array {
  return v instanceof Float32Array ? v : Float32Array.from(v);
}

export class FastembedEmbedder implements Embedder {
  private readonly queryCache = new Map<string, Float32Array>();

  constructor(
    readonly id: string,
    readonly dim: number,
    private readonly model: FlagEmbedding,
    private readonly profile: ModelProfile,
    readonly maxTokens: number,
    private readonly innerBatch: number,
    private readonly tokenizer: TokenizerLike | undefined,
    /** Queries with their own tokens, not padded to maxTokens (unpadded-query.ts); undefined = fastembed's embed. */
    private runner: QueryRunner | undefined,
    /** Makes the per-batch padded passage runner (unpadded-batch.ts) on the first passage call, so a query-only process never pays for its check. */
    private batchRunnerInit?: () => Promise<BatchRunner | undefined>,
    /** Compares `runner` with fastembed's padded embedding; run once, after the first query is answered (see unpaddedRunnerWithProbe). */
    private verifyRunner?: () => Promise<boolean>,
  ) {}

  private batchRunner: BatchRunner | undefined;

  async embedPassages(texts: string[]): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const out: Float32Array[] = [];
    const input = this.profile.passagePrefix ? texts.map((t) => this.profile.passagePrefix + t) : texts;
    if (this.batchRunnerInit) {
      const init = this.batchRunnerInit;
      this.batchRunnerInit = undefined;
      this.batchRunner = await init();
    }
    if (this.batchRunner) {
      try {
        return (await this.batchRunner(input, this.innerBatch)).map((v) => this.checked(v));
      } catch (err) {
        log.debug("passage embedding padded per batch failed; fastembed's padded embedding is used from now on", err);
        this.batchRunner = undefined;
      }
    }
    for await (const batch of this.model.embed(input, this.innerBatch)) for (const v of batch) out.push(this.checked(v));
    if (out.length !== texts.length) throw new Error(`the model returned ${out.length} vectors for ${texts.length} texts`);
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
    const v = await this.embedOne(input);
    this.verifyLater();
    this.queryCache.set(q, v);
    if (this.queryCache.size > QUERY_CACHE_SIZE) {
      const oldest = this.queryCache.keys().next().value;
      if (oldest !== undefined) this.queryCache.delete(oldest);
    }
    return v;
  }

  private async embedOne(input: string): Promise<Float32Array> {
    if (this.runner) {
      try {
        return this.checked(await this.runner(input));
      } catch (err) {
        log.debug("query embedding without padding failed; fastembed's padded embedding is used from now on", err);
        this.runner = undefined;
      }
    }
    const first = await this.model.embed([input], 1).next();
    if (first.done || !first.value[0]) throw new Error("the model returned no vector for the query");
    return this.checked(first.value[0]);
  }

  /** After the first answer: the unpadded runner must give fastembed's vector, else it is dropped (and what it cached). */
  private verifyLater(): void {
    const verify = this.verifyRunner;
    if (!verify) return;
    this.verifyRunner = undefined;
    const drop = (why: string, err?: unknown) => {
      log.debug(`query embedding without padding ${why}; fastembed's padded embedding is used from now on`, err);
      this.runner = undefined;
      this.queryCache.clear();
    };
    const t = setTimeout(() => {
      verify().then(
        (same) => (same ? undefined : drop("differs from fastembed's for this model")),
        (err) => drop("could not be checked", err),
      );
    }, 0);
    t.unref?.();
  }

  private checked(v: ArrayLike<number>): Float32Array {
    const f = toF32(v);
    if (f.length !== this.dim) throw new Error(`the model returned a ${f.length}-dimensional vector, expected ${this.dim}`);
    return f;
  }

  /** Log when the query does not fit in maxTokens (the tokenizer then drops the rest). */
  private async warnIfTruncated(input: string, query: string): Promise<void> {
    // Every WordPiece token covers at least one character, plus [CLS] and [SEP].
    if (input.length + 2 <= this.maxTokens) return;
    const prefixLen = input.length - query.length;
    let kept: number | undefined;
    const tokenizer = this.tokenizer;
    if (tokenizer) {
      try {
        const fits = async (s: string) => (await encodeUnpadded(tokenizer, s)).getOverflowing().length === 0;
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
    }
    if (kept === undefined) {
      const approx = this.maxTokens * 4;
      if (input.length <= approx) return;
      kept = Math.max(0, approx - prefixLen);
    }
    log.warn(
      `Search query is longer than the embedding model's limit of ${this.maxTokens} tokens: only its first ~${kept} of ${query.length} characters are used for semantic ranking.`,
    );
  }
}

const PROBE = "dimension probe";

/**
 * The unpadded query runner with its vector for a probe text (the model's dimension), or undefined
 * when fastembed's internals are not as expected. `verify` compares that vector with fastembed's
 * own padded embedding (bit for bit with static models; within float noise with attention models,
 * whose padding is masked out too). It costs a full-length run (256 tokens), so the embedder runs
 * it after its first answer instead of at every start.
 */
export async function unpaddedRunnerWithProbe(
  model: FlagEmbedding,
  tokenizer: TokenizerLike | undefined,
): Promise<{ runner: QueryRunner; probe: Float32Array; verify: () => Promise<boolean> } | undefined> {
  try {
    const runner = await unpaddedQueryRunner(model, tokenizer);
    if (!runner) return undefined;
    const probe = await runner(PROBE);
    const verify = async () => {
      const first = await model.embed([PROBE], 1).next();
      const want = first.done ? undefined : first.value[0];
      return !!want && want.length === probe.length && want.every((x, i) => Math.abs(x - probe[i]!) <= 1e-5);
    };
    return { runner, probe, verify };
  } catch (err) {
    log.debug("query embedding without padding is unavailable; queries are padded", err);
    return undefined;
  }
}

const BATCH_PROBE = ["dimension probe", "A longer probe text, so that the batch needs padding: the red dragon breathes fire in a cone."];

/** The per-batch padded passage runner, if it gives fastembed's vectors for a probe batch (within 1e-4: float noise of other shapes). */
export async function checkedBatchRunner(model: FlagEmbedding, tokenizer: TokenizerLike | undefined): Promise<BatchRunner | undefined> {
  try {
    const runner = await unpaddedBatchRunner(model, tokenizer, 0);
    if (!runner) return undefined;
    const got = await runner(BATCH_PROBE, BATCH_PROBE.length);
    const want: number[][] = [];
    for await (const batch of model.embed(BATCH_PROBE, BATCH_PROBE.length)) want.push(...batch);
    const same = want.length === got.length && want.every((w, i) => w.length === got[i]!.length && w.every((x, j) => Math.abs(x - got[i]![j]!) <= 1e-4));
    if (!same) log.debug("passage embedding padded per batch differs from fastembed's for this model; passages are padded to the limit");
    return same ? runner : undefined;
  } catch (err) {
    log.debug("passage embedding padded per batch is unavailable", err);
    return undefined;
  }
}
