/**
 * The embedding model, loaded lazily with fastembed (ONNX Runtime) on first use.
 *
 * - Sources, in order: LOREKEEPER_MODEL_DIR → embedded model (setEmbeddedModelDir) → fastembed named
 *   model (LOREKEEPER_EMBEDDING_MODEL) from `<cacheDir()>/models`, downloaded once when online.
 * - Nothing loads until `get()`; concurrent calls share one load. If nothing loads, the provider is
 *   "unavailable", logs ONE warning saying why and how to fix it, and `get()` resolves to null.
 * - Identity: `<name>@<first 12 hex of sha256(onnx file)>`; `dim` from the first output.
 * - Conventions: `embed()` for everything; BGE gets its instruction on queries only; static models
 *   (lorekeeper-static-384, the tiny test model) and MiniLM get no prefix. Known limit: fastembed
 *   pools with the first token (CLS) — right for BGE and static models, approximate for MiniLM.
 * - Queries longer than `maxTokens` are truncated by the tokenizer; we detect it with the tokenizer
 *   (exact token count, falling back to ~4 characters per token) and log a warning.
 * fastembed is imported dynamically so that the binary bootstrap can preload libonnxruntime first.
 */
import { LoreKeeperError } from "../errors.ts";
import type { EmbeddingModel, FlagEmbedding } from "fastembed";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { cacheDir, loadConfig } from "../config.ts";
import { log } from "../log.ts";
import type { Embedder, EmbedderProvider, ModelState } from "./types.ts";
import {
  describeSource,
  dirModelName,
  fastembedOnnxFile,
  FASTEMBED_MODEL_NAMES,
  fileSha256,
  getEmbeddedModelDir,
  inspectModelDir,
  isFastembedModelName,
  modelMaxLength,
  modelProfile,
  planModelSources,
  type ModelProfile,
  type ModelSource,
} from "./model-source.ts";
import { activeModelDir, readManifest } from "./model-manifest.ts";
import { unpaddedBatchRunner, type BatchRunner } from "./unpadded-batch.ts";
import { privateTokenizer, type QueryRunner, type TokenizerLike, unpaddedQueryRunner } from "./unpadded-query.ts";

export { setEmbeddedModelDir, getEmbeddedModelDir } from "./model-source.ts";
export { TimeoutError, withTimeout } from "./timeout.ts";

export const DEFAULT_MAX_TOKENS = 256;
const DEFAULT_INNER_BATCH = 16;
const QUERY_CACHE_SIZE = 64;
const FIX_HINT =
  "Set LOREKEEPER_MODEL_DIR to a folder holding an ONNX model (model.onnx) with tokenizer.json, config.json, tokenizer_config.json and special_tokens_map.json.";

export interface EmbedderProviderOptions {
  /** Model folder; default LOREKEEPER_MODEL_DIR. null = ignore the environment. */
  modelDir?: string | null;
  /** Installed model folder; default the one `lorekeeper model use` chose in `<cacheDir>/models`. null = none. */
  installedDir?: string | null;
  /** Embedded model folder; default the one set by setEmbeddedModelDir. null = none. */
  embeddedDir?: string | null;
  /** fastembed model name; default LOREKEEPER_EMBEDDING_MODEL (fast-bge-small-en-v1.5). */
  modelName?: string;
  /** Absolute folder for fastembed's named models; default `<cacheDir()>/models`. */
  cacheDir?: string;
  /** Allow fastembed to download a named model that is not cached (default true). */
  allowDownload?: boolean;
  /** Tokens per text (fastembed pads every text to this; capped by the model). Default 256. */
  maxTokens?: number;
  /** Texts per ONNX run inside embedPassages (default 16). */
  innerBatchSize?: number;
}

/** What was loaded, for status output. */
export interface EmbedderInfo {
  id: string;
  dim: number;
  name: string;
  source: "LOREKEEPER_MODEL_DIR" | "installed" | "embedded" | "cache" | "download";
  dir: string;
  onnxFile: string;
  sha256: string;
  maxTokens: number;
  family: ModelProfile["family"];
  loadMs: number;
}

class ModelLoadError extends LoreKeeperError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("model_load", message, undefined, options);
  }
}

function toF32(v: ArrayLike<number>): Float32Array {
  return v instanceof Float32Array ? v : Float32Array.from(v);
}

function firstLine(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  const line = msg.split("\n").find((l) => l.trim().length > 0) ?? msg;
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

class FastembedEmbedder implements Embedder {
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
    if (this.tokenizer) {
      try {
        const enc = await this.tokenizer.encode(input);
        if (enc.getOverflowing().length === 0) return;
        const offsets = enc.getOffsets();
        const special = enc.getSpecialTokensMask();
        const mask = enc.getAttentionMask();
        let end = 0;
        for (let i = 0; i < offsets.length; i++) if (mask[i] === 1 && special[i] === 0) end = Math.max(end, offsets[i]?.[1] ?? 0);
        kept = Math.max(0, end - prefixLen);
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

type FastembedModule = typeof import("fastembed");

async function importFastembed(): Promise<FastembedModule> {
  try {
    return await import("fastembed");
  } catch (err) {
    throw new ModelLoadError(`the ONNX runtime could not be loaded (${firstLine(err)})`);
  }
}

interface Resolved {
  sources: ModelSource[];
  maxTokens: number;
  innerBatch: number;
}

/** EmbedderProvider over fastembed. Create one per process (see defaultEmbedderProvider). */
export class LazyEmbedderProvider implements EmbedderProvider {
  private current: ModelState = "unloaded";
  private loading: Promise<Embedder | null> | undefined;
  private why: string | undefined;
  private loaded: EmbedderInfo | undefined;

  constructor(private readonly opts: EmbedderProviderOptions = {}) {}

  state(): ModelState {
    return this.current;
  }

  reason(): string | undefined {
    return this.why;
  }

  /** Details of the loaded model (undefined until ready). */
  info(): EmbedderInfo | undefined {
    return this.loaded;
  }

  get(): Promise<Embedder | null> {
    if (!this.loading) {
      this.current = "loading";
      this.loading = this.load();
    }
    return this.loading;
  }

  private resolve(): Resolved {
    const cfg = loadConfig();
    const modelDir = this.opts.modelDir === null ? undefined : (this.opts.modelDir ?? cfg.modelDir);
    const embeddedDir = this.opts.embeddedDir === null ? undefined : (this.opts.embeddedDir ?? getEmbeddedModelDir());
    const modelsDir = this.opts.cacheDir ?? join(cacheDir(), "models");
    const installedDir = this.opts.installedDir === null ? undefined : (this.opts.installedDir ?? activeModelDir(modelsDir));
    const sources = planModelSources({
      modelDir,
      installedDir,
      embeddedDir,
      modelName: this.opts.modelName ?? cfg.embeddingModel,
      cacheDir: modelsDir,
      allowDownload: this.opts.allowDownload ?? !["1", "true", "yes"].includes((process.env.LOREKEEPER_OFFLINE ?? "").toLowerCase()),
    });
    return {
      sources,
      maxTokens: Math.max(8, Math.floor(this.opts.maxTokens ?? DEFAULT_MAX_TOKENS)),
      innerBatch: Math.max(1, Math.floor(this.opts.innerBatchSize ?? DEFAULT_INNER_BATCH)),
    };
  }

  private async load(): Promise<Embedder | null> {
    const started = performance.now();
    const problems: string[] = [];
    let r: Resolved;
    try {
      r = this.resolve();
    } catch (err) {
      return this.fail([firstLine(err)]);
    }
    for (const source of r.sources) {
      try {
        const { embedder, info } = await loadSource(source, r);
        this.loaded = { ...info, loadMs: Math.round(performance.now() - started) };
        this.current = "ready";
        log.info(`embedding model ready: ${embedder.id} (dim ${embedder.dim}, from ${describeSource(source)}, ${this.loaded.loadMs} ms)`);
        if (problems.length) log.warn(`using ${describeSource(source)} because ${problems.join("; ")}`);
        return embedder;
      } catch (err) {
        const msg = err instanceof ModelLoadError ? err.message : `could not load it (${firstLine(err)})`;
        problems.push(`${describeSource(source)}: ${msg}`);
      }
    }
    return this.fail(problems);
  }

  private fail(problems: string[]): null {
    this.current = "unavailable";
    this.why = problems.join("; ");
    log.warnOnce(
      `embedding-model-unavailable:${this.why}`,
      `Semantic search is off: no embedding model could be loaded — ${this.why}. Keyword search still answers. ${FIX_HINT}`,
    );
    return null;
  }
}

async function loadSource(source: ModelSource, r: Resolved): Promise<{ embedder: FastembedEmbedder; info: Omit<EmbedderInfo, "loadMs"> }> {
  if (source.kind === "dir") {
    const check = inspectModelDir(source.dir);
    if (!check.ok) throw new ModelLoadError(check.problem);
    const fe = await importFastembed();
    const model = await fe.FlagEmbedding.init({
      model: fe.EmbeddingModel.CUSTOM,
      modelAbsoluteDirPath: source.dir,
      modelName: check.onnxFile,
      maxLength: r.maxTokens,
      showDownloadProgress: false,
    });
    const name = dirModelName(source.dir);
    // An installed model's manifest says its prefixes (model-manifest.ts); otherwise they are guessed from the name.
    const manifest = readManifest(source.dir);
    const profile = manifest ? { family: modelProfile(name, check.config).family, queryPrefix: manifest.query_prefix, passagePrefix: manifest.passage_prefix } : modelProfile(name, check.config);
    return finish(model, r, { name, source: source.origin, dir: source.dir, onnxFile: check.onnxFile, profile });
  }

  if (!isFastembedModelName(source.name)) {
    throw new ModelLoadError(`"${source.name}" (LOREKEEPER_EMBEDDING_MODEL) is not a fastembed model name; known: ${FASTEMBED_MODEL_NAMES.join(", ")}`);
  }
  const modelDir = join(source.cacheDir, source.name);
  const tarball = join(source.cacheDir, `${source.name}.tar.gz`);
  const cached = existsSync(modelDir);
  if (cached) {
    const check = inspectModelDir(modelDir);
    if (!check.ok) throw new ModelLoadError(`the cached copy is incomplete (${check.problem}); delete ${modelDir} to download it again`);
  } else if (!source.allowDownload) {
    throw new ModelLoadError(`it is not in ${source.cacheDir} and downloading is off`);
  }
  const fe = await importFastembed();
  const enumValue = Object.values(fe.EmbeddingModel).find(
    (v): v is Exclude<EmbeddingModel, EmbeddingModel.CUSTOM> => v === source.name && v !== fe.EmbeddingModel.CUSTOM,
  );
  if (!enumValue) throw new ModelLoadError(`this fastembed version does not know "${source.name}"`);
  let model: FlagEmbedding;
  try {
    mkdirSync(source.cacheDir, { recursive: true });
    if (!cached) {
      rmSync(tarball, { force: true }); // a leftover partial download would be taken as complete
      log.info(`downloading embedding model ${source.name} into ${source.cacheDir} (one time)…`);
    }
    model = await fe.FlagEmbedding.init({ model: enumValue, cacheDir: source.cacheDir, maxLength: r.maxTokens, showDownloadProgress: false });
  } catch (err) {
    if (!cached) {
      rmSync(tarball, { force: true });
      rmSync(modelDir, { recursive: true, force: true });
      throw new ModelLoadError(`it is not cached and could not be downloaded (${firstLine(err)}); offline machines need LOREKEEPER_MODEL_DIR`);
    }
    throw err;
  }
  const check = inspectModelDir(modelDir);
  const config = check.ok ? check.config : undefined;
  return finish(model, r, {
    name: source.name,
    source: cached ? "cache" : "download",
    dir: modelDir,
    onnxFile: fastembedOnnxFile(source.name),
    profile: modelProfile(source.name, config),
  });
}

async function finish(
  model: FlagEmbedding,
  r: Resolved,
  m: { name: string; source: EmbedderInfo["source"]; dir: string; onnxFile: string; profile: ModelProfile },
): Promise<{ embedder: FastembedEmbedder; info: Omit<EmbedderInfo, "loadMs"> }> {
  const sha256 = await fileSha256(join(m.dir, m.onnxFile));
  const id = `${m.name}@${sha256.slice(0, 12)}`;
  const maxTokens = Math.min(r.maxTokens, modelMaxLength(m.dir) ?? r.maxTokens);
  const probe = await model.embed(["dimension probe"], 1).next();
  const first = probe.done ? undefined : probe.value[0];
  if (!first || first.length === 0) throw new ModelLoadError("the model produced no output vector");
  const dim = first.length;
  for (let i = 0; i < dim; i++) if (!Number.isFinite(first[i])) throw new ModelLoadError("the model produced non-finite values");
  const tokenizer = privateTokenizer(model);
  const embedder = new FastembedEmbedder(
    id,
    dim,
    model,
    m.profile,
    maxTokens,
    r.innerBatch,
    tokenizer,
    await checkedRunner(model, tokenizer, first),
    () => checkedBatchRunner(model, tokenizer),
  );
  return { embedder, info: { id, dim, name: m.name, source: m.source, dir: m.dir, onnxFile: m.onnxFile, sha256, maxTokens, family: m.profile.family } };
}

/**
 * The unpadded query runner, if it gives fastembed's vector for the probe text (bit for bit with
 * static models; within float noise with attention models, whose padding is masked out too).
 */
async function checkedRunner(model: FlagEmbedding, tokenizer: TokenizerLike | undefined, probe: ArrayLike<number>): Promise<QueryRunner | undefined> {
  try {
    const runner = await unpaddedQueryRunner(model, tokenizer);
    const v = runner ? await runner("dimension probe") : undefined;
    if (!runner || !v) return undefined;
    if (v.length !== probe.length || v.some((x, i) => Math.abs(x - probe[i]!) > 1e-5)) {
      log.debug("query embedding without padding differs from fastembed's for this model; queries are padded");
      return undefined;
    }
    return runner;
  } catch (err) {
    log.debug("query embedding without padding is unavailable; queries are padded", err);
    return undefined;
  }
}

const BATCH_PROBE = ["dimension probe", "A longer probe text, so that the batch needs padding: the red dragon breathes fire in a cone."];

/** The per-batch padded passage runner, if it gives fastembed's vectors for a probe batch (within 1e-4: float noise of other shapes). */
async function checkedBatchRunner(model: FlagEmbedding, tokenizer: TokenizerLike | undefined): Promise<BatchRunner | undefined> {
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

/** A provider with these options (resolved from the environment on first get()). */
export function createEmbedderProvider(opts: EmbedderProviderOptions = {}): LazyEmbedderProvider {
  return new LazyEmbedderProvider(opts);
}

let shared: LazyEmbedderProvider | undefined;

/** The process-wide provider (server, CLI): one model load per process. */
export function defaultEmbedderProvider(): LazyEmbedderProvider {
  shared ??= createEmbedderProvider();
  return shared;
}
