/**
 * Loading a model folder into an Embedder (its manifest, if installed, says its prefixes) on its own
 * tokenizer and onnxruntime session (onnx-session.ts, onnx-runners.ts); one of fastembed's named
 * models is its folder, downloaded once by fastembed when allowed. Both runtimes are imported
 * dynamically so that the binary bootstrap can preload libonnxruntime first.
 * The id is `<name>@<first 12 hex of sha256(onnx)>`, the dimension that of a probe.
 */
import { LoreKeeperError } from "../../errors.ts";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { log } from "../../log.ts";
import {
  defaultGraphCache,
  findOptimizedGraph,
  modelFileSha256,
  optimizedGraphDir,
  ortVersion,
  saveGraphInBackground,
} from "./optimized-graph.ts";
import { dirModelName, FASTEMBED_ONNX, inspectModelDir, modelProfile, type ModelSource } from "./model-source.ts";
import { MODEL_CATALOG, readManifest } from "./model-manifest.ts";
import { ModelEmbedder } from "./model-embedder.ts";
import { onnxRunners } from "./onnx-runners.ts";
import { createSession, loadTokenizer, type OrtSession } from "./onnx-session.ts";

/** How a model is run: tokens per text (capped by the model). */
export interface LoadSettings {
  maxTokens: number;
  /** Where optimised graphs are kept (optimized-graph.ts); default `<cacheDir>/onnx-optimized`, null = never. */
  graphCache?: string | null;
  graphSaveDelayMs?: number;
}

export const DEFAULT_MAX_TOKENS = 256;
/** No text is ever padded beyond this many tokens, whatever a caller or a model file says. */
export const MAX_TOKENS_CAP = 8192;

/** What was loaded, for status output. */
export type EmbedderInfo = Awaited<ReturnType<typeof loadSource>>["info"] & { loadMs: number };
type LoadedFrom = Extract<ModelSource, { kind: "dir" }>["origin"] | "cache" | "download";

export class ModelLoadError extends LoreKeeperError {
  constructor(message: string) {
    super("model_load", message);
  }
}

export function firstLine(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  const line = msg.split("\n").find((l) => l.trim().length > 0) ?? msg;
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

async function importRuntime<T>(what: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (err) {
    throw new ModelLoadError(`${what} could not be loaded (${firstLine(err)})`);
  }
}

export async function loadSource(
  source: Extract<ModelSource, { kind: "dir" }>,
  r: LoadSettings,
  name = dirModelName(source.dir),
) {
  const check = inspectModelDir(source.dir);
  if (!check.ok) throw new ModelLoadError(check.problem);
  const onnxPath = join(source.dir, check.onnxFile);
  const graphRoot = r.graphCache === undefined ? defaultGraphCache() : (r.graphCache ?? undefined);
  const sha256 = await modelFileSha256(onnxPath, graphRoot);
  const ort = await importRuntime("the ONNX runtime", () => import("onnxruntime-node"));
  const graphDir = graphRoot ? optimizedGraphDir(graphRoot, sha256, ortVersion(ort)) : undefined;
  // The graph onnxruntime optimised once (optimized-graph.ts) instead of optimising it again.
  let graph = graphDir ? findOptimizedGraph(graphDir) : undefined;
  // fastembed's tokenizer and session, made without importing fastembed (onnx-session.ts).
  const tokenizer = loadTokenizer(source.dir, r.maxTokens);
  let session: OrtSession;
  try {
    session = await createSession(ort, graph ?? onnxPath);
  } catch (err) {
    if (!graph) throw err;
    log.debug(`the saved optimised graph ${graph} did not load; the model file is used and the graph saved again`, err);
    rmSync(graphDir!, { recursive: true, force: true });
    graph = undefined;
    session = await createSession(ort, onnxPath);
  }
  const runs = onnxRunners(ort, session, tokenizer);
  // An installed model's manifest says its prefixes; otherwise they are guessed from the name.
  const manifest = readManifest(source.dir);
  const profile = modelProfile(name, check.config);
  if (manifest) Object.assign(profile, { queryPrefix: manifest.query_prefix, passagePrefix: manifest.passage_prefix });
  const id = `${name}@${sha256.slice(0, 12)}`;
  const maxTokens = Math.min(r.maxTokens, check.maxLength);
  const first = await runs.query("dimension probe");
  if (first.length === 0) throw new ModelLoadError("the model produced no output vector");
  const dim = first.length;
  for (let i = 0; i < dim; i++)
    if (!Number.isFinite(first[i])) throw new ModelLoadError("the model produced non-finite values");
  const embedder = new ModelEmbedder(id, dim, runs, profile, maxTokens, tokenizer);
  if (!graph && graphDir) saveGraphInBackground(ort, onnxPath, sha256, graphDir, r.graphSaveDelayMs);
  // graph: the optimised graph onnxruntime loaded instead of optimising the model file (null: it optimised it).
  const info = {
    name,
    source: source.origin as LoadedFrom,
    dir: source.dir,
    onnxFile: check.onnxFile,
    sha256,
    graph: graph ?? null,
  };
  return { embedder, info: { ...info, id, dim, maxTokens, family: profile.family } };
}

/** fastembed's own download of one of its named models into `<dir>/<name>` (the model it loads is dropped). */
export async function downloadWithFastembed(name: string, dir: string): Promise<string> {
  const fe = await importRuntime("fastembed", () => import("fastembed"));
  const value = Object.values(fe.EmbeddingModel).find((v) => v === name && v !== fe.EmbeddingModel.CUSTOM);
  if (!value || value === fe.EmbeddingModel.CUSTOM) throw new Error(`this fastembed version does not know ${name}`);
  mkdirSync(dir, { recursive: true });
  await fe.FlagEmbedding.init({ model: value, cacheDir: dir, showDownloadProgress: false, maxLength: 16 });
  const modelDir = join(dir, name);
  if (!existsSync(modelDir)) throw new Error(`fastembed did not leave ${modelDir}`);
  return modelDir;
}

/**
 * One of fastembed's named models outside the catalog: its folder in the cache, downloaded there
 * once by fastembed when allowed, then loaded like any model folder under its fastembed name.
 */
export async function loadFastembedModel(
  source: Extract<ModelSource, { kind: "named" }>,
  r: LoadSettings,
): ReturnType<typeof loadSource> {
  if (!FASTEMBED_ONNX.has(source.name)) {
    throw new ModelLoadError(
      `"${source.name}" (LOREKEEPER_EMBEDDING_MODEL) is neither a known model ` +
        `(${MODEL_CATALOG.map((m) => m.name).join(", ")}) nor a fastembed model name ` +
        `(${[...FASTEMBED_ONNX.keys()].join(", ")})`,
    );
  }
  const modelDir = join(source.cacheDir, source.name);
  const tarball = join(source.cacheDir, `${source.name}.tar.gz`);
  const cached = existsSync(modelDir);
  if (cached) {
    const check = inspectModelDir(modelDir);
    if (!check.ok)
      throw new ModelLoadError(
        `the cached copy is incomplete (${check.problem}); delete ${modelDir} to download it again`,
      );
  } else {
    if (!source.allowDownload) throw new ModelLoadError(`it is not in ${source.cacheDir} and downloading is off`);
    rmSync(tarball, { force: true }); // a leftover partial download would be taken as complete
    log.info(`downloading embedding model ${source.name} into ${source.cacheDir} (one time)…`);
    try {
      await downloadWithFastembed(source.name, source.cacheDir);
    } catch (err) {
      rmSync(tarball, { force: true });
      rmSync(modelDir, { recursive: true, force: true });
      throw new ModelLoadError(
        `it is not cached and could not be downloaded (${firstLine(err)}); offline machines need LOREKEEPER_MODEL_DIR`,
      );
    }
  }
  const loaded = await loadSource({ kind: "dir", origin: "installed", dir: modelDir }, r, source.name);
  // Catalog models are installed (and verified) by `lorekeeper model install`; fastembed's other names have no
  // published checksum.
  if (!cached)
    log.warn(
      `${source.name} was downloaded by fastembed without a published checksum to verify (ONNX ` +
        `sha256 ${loaded.info.sha256}); \`lorekeeper model install\` verifies the known models ` +
        "(lorekeeper model list --known)",
    );
  return { ...loaded, info: { ...loaded.info, source: cached ? "cache" : "download" } };
}
