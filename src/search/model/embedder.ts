/**
 * The embedding model, loaded lazily with fastembed (ONNX Runtime) on first use.
 *
 * - Sources, in order: LOREKEEPER_MODEL_DIR → embedded model (setEmbeddedModelDir) → fastembed named
 *   model (LOREKEEPER_EMBEDDING_MODEL) from `<cacheDir()>/models`, downloaded once when online.
 * - Nothing loads until `get()`; concurrent calls share one load. If nothing loads, the provider is
 *   "unavailable", logs ONE warning saying why and how to fix it, and `get()` resolves to null.
 * - Identity: `<name>@<first 12 hex of sha256(onnx file)>`; `dim` from the first output.
 * - Conventions: `embed()` for everything; BGE gets its instruction on queries only; static models
 *   (lorekeeper-static-384, the tiny test model) and MiniLM get no prefix. fastembed pools with the
 *   first token (CLS), right for BGE and static models; mean-pooled models (MiniLM) get their mean
 *   added to the graph when `lorekeeper model install` installs them (onnx-pooling.ts).
 * - The Embedder itself and the faster runners' checks are in fastembed-embedder.ts.
 * - Queries longer than `maxTokens` are truncated by the tokenizer; we detect it with the tokenizer
 *   (exact token count, falling back to ~4 characters per token) and log a warning.
 * fastembed is imported dynamically so that the binary bootstrap can preload libonnxruntime first.
 */
import { LoreKeeperError } from "../../errors.ts";
import type { EmbeddingModel, FlagEmbedding } from "fastembed";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { cacheDir, loadConfig } from "../../config.ts";
import { log } from "../../log.ts";
import type { Embedder, EmbedderProvider, ModelState } from "../types.ts";
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
import { downloadAllowed } from "./model-advice.ts";
import { checkedBatchRunner, checkedRunner, FastembedEmbedder } from "./fastembed-embedder.ts";
import { privateTokenizer } from "./unpadded-query.ts";

export { setEmbeddedModelDir, getEmbeddedModelDir } from "./model-source.ts";
export { TimeoutError, withTimeout } from "./timeout.ts";

export const DEFAULT_MAX_TOKENS = 256;
const DEFAULT_INNER_BATCH = 16;
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

function firstLine(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  const line = msg.split("\n").find((l) => l.trim().length > 0) ?? msg;
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
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
      allowDownload: this.opts.allowDownload ?? downloadAllowed(),
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
