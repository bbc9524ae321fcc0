/**
 * The embedding model provider: which model to load (model-source.ts has the order), loaded lazily
 * on the first `get()`, concurrent calls sharing one load. A named catalog model is taken from
 * `<cacheDir()>/models/<name>`, installed there first when online as `lorekeeper model install
 * <name>` does; another fastembed name is fastembed's own download. If nothing loads, the provider
 * is "unavailable", logs ONE warning saying why and how to fix it, and `get()` resolves to null.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../../config.ts";
import { log } from "../../log.ts";
import type { Embedder, EmbedderProvider, ModelState } from "../types.ts";
import { describeSource, planModelSources, type ModelSource } from "./model-source.ts";
import { activeModelDir, DEFAULT_MODEL, findCatalogModel, MANIFEST_FILE } from "./model-manifest.ts";
import { installByName } from "./model-fetch.ts";
import {
  DEFAULT_MAX_TOKENS,
  firstLine,
  loadFastembedModel,
  loadSource,
  MAX_TOKENS_CAP,
  ModelLoadError,
  type EmbedderInfo,
  type LoadSettings,
} from "./load-model.ts";

const FIX_HINT =
  "Set LOREKEEPER_MODEL_DIR to a folder holding an ONNX model (model.onnx) with tokenizer.json, config.json, " +
  "tokenizer_config.json and special_tokens_map.json.";

/**
 * Where to look for a model. A field left out comes from `config` (without it: no installed,
 * embedded or named model unless given); null = none.
 */
interface EmbedderProviderOptions {
  config?: Config;
  modelDir?: string | null;
  /** Default: the one `lorekeeper model use` chose in the model cache. */
  installedDir?: string | null;
  embeddedDir?: string | null;
  /** Catalog model name or alias, or a fastembed model name; default DEFAULT_MODEL. */
  modelName?: string;
  /** The model cache (installed and named models). */
  cacheDir?: string;
  /** Default: unless Config `offline`. */
  allowDownload?: boolean;
  /** Tokens per text (capped by the model), default 256. */
  maxTokens?: number;
  /** Saved optimised graphs (optimized-graph.ts), default `<cacheDir()>/onnx-optimized`. */
  graphCache?: string | null;
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
    const given = (v: string | null | undefined, fallback: string | undefined) =>
      v === null ? undefined : (v ?? fallback);
    const modelsDir = this.opts.cacheDir ?? cfg?.modelsDir;
    const sources = planModelSources({
      modelDir: given(this.opts.modelDir, cfg?.modelDir),
      installedDir: given(this.opts.installedDir, modelsDir ? activeModelDir(modelsDir) : undefined),
      embeddedDir: given(this.opts.embeddedDir, cfg?.embeddedModelDir),
      modelName: this.opts.modelName ?? cfg?.embeddingModel ?? DEFAULT_MODEL,
      cacheDir: modelsDir,
      allowDownload: this.opts.allowDownload ?? !(cfg?.offline ?? true),
    });
    return {
      sources,
      pip: cfg?.pip,
      maxTokens: Math.min(MAX_TOKENS_CAP, Math.max(8, Math.floor(this.opts.maxTokens ?? DEFAULT_MAX_TOKENS))),
      graphCache:
        this.opts.graphCache !== undefined || !cfg ? this.opts.graphCache : join(cfg.cacheDir, "onnx-optimized"),
      graphSaveDelayMs: this.opts.graphSaveDelayMs,
    };
  }

  private async load(): Promise<Embedder | null> {
    const started = performance.now();
    const problems: string[] = [];
    const r = this.resolve();
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
  if (!known) return loadFastembedModel(source, r);
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
      await installByName(known.name, { modelsDir: source.cacheDir, use: false, pip: r.pip, log: (l) => log.info(l) });
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
