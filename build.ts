#!/usr/bin/env bun
/**
 * `bun run build [-- options]`: compile LoreKeeper into one self-contained executable per target,
 * embedding the embedding model, onnxruntime's shared library, the usearch native addon and
 * optionally a content pack. See docs/binary.md.
 */
import { Database } from "bun:sqlite";
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { APP_VERSION, type Config, loadConfig } from "./src/config.ts";
import { resolveDefaultModelDir } from "./src/native/build-model.ts";
import { PACK_DB, storeSideFiles } from "./src/native/content-pack.ts";
import { PACK_FILE, writePackFile } from "./src/ingest/pack-file.ts";
import { darwinBuildCheck } from "./packaging/darwin-signature.ts";
import { sha256 } from "./src/native/extract.ts";
import {
  hostTarget,
  type Manifest,
  type ManifestFile,
  parseTarget,
  type Target,
  TARGETS,
} from "./src/native/manifest.ts";
import { dirModelName, fileSha256, MODEL_SIDE_FILES, PREFERRED_ONNX } from "./src/search/model/model-source.ts";
import { MANIFEST_FILE } from "./src/search/model/model-manifest.ts";
import { nativeLoaderPlugin } from "./src/native/build-plugin.ts";
import { INSTALL_ALL_PLATFORMS, nativePath, nativeSpecs, type NativeSpec } from "./src/native/targets.ts";
import { packageRelease } from "./packaging/release.ts";

const ROOT = import.meta.dir;

const HELP = `Usage: bun run build [-- options]

Compiles dist/lorekeeper-<os>-<arch> (one file: runtime, code, model, native libraries, content pack).

Options:
  --target T        linux-x64 | linux-arm64 | darwin-x64 | darwin-arm64 | windows-x64 | all
                    (repeatable; default: the host)
  --model DIR       embedding model folder (fastembed layout: model.onnx + tokenizer files);
                    default LOREKEEPER_MODEL_DIR, then all-MiniLM-L6-v2 from the model cache,
                    installed there first if missing (lorekeeper model install all-MiniLM-L6-v2)
  --content DB      embed a content pack: a store made by \`lorekeeper sync\` / \`import\`; it is
                    also written beside the binaries as lorekeeper-content.db.gz (+ .sha256), the
                    release asset that \`lorekeeper sync --pack\` loads with its vectors
  --no-semantic     build without the model and onnxruntime (keyword search only)
  --outdir DIR      output folder (default dist)
  --outfile PATH    output file (only with a single target; makes no .mcpb / server.json)
  --no-mcpb         skip the Claude Desktop bundles (.mcpb) and dist/server.json
  --require-signature-check
                    fail a darwin target unless rcodesign (crate apple-codesign) verified its
                    signature (an invalid one is ad-hoc signed and verified again); without this
                    flag the check runs when rcodesign is installed
  -h, --help        this help`;

interface Problem {
  target: Target;
  message: string;
  fix: string;
}

class BuildError extends Error {
  constructor(
    message: string,
    readonly fix: string,
  ) {
    super(message);
  }
}

interface Input {
  path: string;
  file: Omit<ManifestFile, "size" | "sha256">;
}

async function describe(input: Input): Promise<ManifestFile> {
  const bytes = await Bun.file(input.path).bytes();
  return { ...input.file, size: bytes.length, sha256: sha256(bytes) };
}

function resolvePackageDir(pkg: string): string | undefined {
  try {
    return dirname(Bun.resolveSync(`${pkg}/package.json`, ROOT));
  } catch {
    return undefined;
  }
}

function findNative(spec: NativeSpec): string | undefined {
  const pkgDir = resolvePackageDir(spec.pkg);
  if (!pkgDir) return undefined;
  const dir = join(pkgDir, spec.dir);
  if (typeof spec.file === "string") {
    const p = join(dir, spec.file);
    return existsSync(p) ? p : undefined;
  }
  const re = spec.file;
  const hit = existsSync(dir) ? readdirSync(dir).find((f) => re.test(f)) : undefined;
  return hit ? join(dir, hit) : undefined;
}

function modelInputs(dir: string): { inputs: Input[]; onnx: string; name: string } {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new BuildError(
      `The embedding model folder ${dir} does not exist.`,
      "Pass --model DIR (a fastembed model folder), set LOREKEEPER_MODEL_DIR, or build with --no-semantic.",
    );
  }
  const onnx = PREFERRED_ONNX.find((f) => existsSync(join(dir, f)));
  const missing = MODEL_SIDE_FILES.filter((f) => !existsSync(join(dir, f)));
  if (!onnx || missing.length) {
    const what = [...(onnx ? [] : [`an ONNX file (${PREFERRED_ONNX.join(" / ")})`]), ...missing].join(", ");
    throw new BuildError(
      `The model folder ${dir} is incomplete: missing ${what}.`,
      "Point --model at a complete fastembed model folder.",
    );
  }
  // The folder keeps its name: the embedder derives the model id ("custom:<folder>@<sha>") from it.
  const name = basename(dir);
  // The manifest of an installed model (lorekeeper model install) travels with it: prefixes, license, source.
  const files = [...MODEL_SIDE_FILES, onnx, ...(existsSync(join(dir, MANIFEST_FILE)) ? [MANIFEST_FILE] : [])];
  const inputs = files.map((f) => ({
    path: join(dir, f),
    file: { name: `models/${name}/${f}`, role: "model" as const },
  }));
  return { inputs, onnx, name };
}

interface Pack {
  inputs: Input[];
  summary: NonNullable<Manifest["pack"]>;
}

/** A compact, self-contained copy of the store (no WAL, no HTTP cache) plus its vector index. */
function preparePack(src: string, workDir: string): Pack {
  if (!existsSync(src))
    throw new BuildError(
      `The content pack ${src} does not exist.`,
      "Make one with `lorekeeper sync --db-path FILE` (or `import`), then pass --content FILE.",
    );
  const out = join(workDir, "pack.db");
  rmSync(out, { force: true });
  let source: Database;
  try {
    source = new Database(src, { readonly: true });
  } catch (err) {
    throw new BuildError(
      `Cannot open the content pack ${src}: ${(err as Error).message}`,
      "Pass a LoreKeeper store (SQLite file).",
    );
  }
  try {
    const hasEntities = source.query("SELECT 1 FROM sqlite_master WHERE type='table' AND name='entities'").get();
    if (!hasEntities)
      throw new BuildError(
        `${src} is not a LoreKeeper store (no entities table).`,
        "Make one with `lorekeeper sync --db-path FILE`.",
      );
    source.exec(`VACUUM INTO '${out.replaceAll("'", "''")}'`);
  } finally {
    source.close();
  }
  const db = new Database(out);
  try {
    db.exec("PRAGMA journal_mode = DELETE");
    if (db.query("SELECT 1 FROM sqlite_master WHERE name='http_cache'").get()) db.exec("DELETE FROM http_cache");
    db.exec("VACUUM");
    const n = (q: string) => (db.query(q).get() as { n: number }).n;
    const entities = n("SELECT count(*) AS n FROM entities");
    if (entities === 0)
      throw new BuildError(`The content pack ${src} has no entities.`, "Run `lorekeeper sync --db-path FILE` first.");
    const vectors = n("SELECT count(*) AS n FROM vectors");
    const model_ids = (db.query("SELECT DISTINCT model_id AS m FROM vectors").all() as { m: string }[]).map((r) => r.m);
    const v = db.query("SELECT value FROM meta WHERE key='schema_version'").get() as { value: string } | null;
    const inputs: Input[] = [{ path: out, file: { name: PACK_DB, role: "pack-db" } }];
    // The vector index and its sidecar, when the store has them (the app rebuilds them otherwise).
    for (const side of storeSideFiles(resolve(src))) {
      if (existsSync(side))
        inputs.push({ path: side, file: { name: `${PACK_DB}${side.slice(resolve(src).length)}`, role: "pack-index" } });
    }
    return { inputs, summary: { entities, vectors, model_ids, schema_version: Number(v?.value ?? 0) } };
  } finally {
    db.close();
  }
}

function generatedModule(manifest: Manifest, paths: Map<string, string>): string {
  const lines = [
    "// Generated by build.ts — do not edit.",
    `import type { EmbeddedBundle } from "${join(ROOT, "src/native/manifest.ts")}";`,
  ];
  const entries: string[] = [];
  [...paths.entries()].forEach(([name, path], i) => {
    lines.push(`import f${i} from ${JSON.stringify(path)} with { type: "file" };`);
    entries.push(`  ${JSON.stringify(name)}: f${i},`);
  });
  lines.push(
    `export const EMBEDDED: EmbeddedBundle = { manifest: ` +
      `${JSON.stringify(manifest)}, paths: {\n${entries.join("\n")}\n} };`,
  );
  return `${lines.join("\n")}\n`;
}

interface Options {
  targets: Target[];
  modelDir: string | undefined;
  content: string | undefined;
  semantic: boolean;
  outdir: string;
  outfile: string | undefined;
  mcpb: boolean;
  /** Fail a darwin target when rcodesign cannot check its signature (the release sets it). */
  requireSignatureCheck: boolean;
}

async function buildTarget(
  t: Target,
  o: Options,
  pack: Pack | undefined,
  problems: Problem[],
): Promise<string | undefined> {
  const inputs: Input[] = [];
  const lacking: Problem[] = [];
  for (const spec of nativeSpecs(t)) {
    if (spec.feature === "semantic" && !o.semantic) continue;
    const path = findNative(spec);
    if (!path) {
      const where = `${spec.pkg}/${spec.dir}/${typeof spec.file === "string" ? spec.file : spec.file.source}`;
      lacking.push({
        target: t,
        message: `missing ${where} in node_modules`,
        fix: `install every platform's optional dependencies: ${INSTALL_ALL_PLATFORMS}`,
      });
      continue;
    }
    inputs.push({ path, file: { name: nativePath(basename(path)), role: spec.role } });
  }
  let model: Manifest["model"] = null;
  if (o.semantic) {
    const dir = o.modelDir!;
    const m = modelInputs(dir);
    inputs.push(...m.inputs);
    model = { name: m.name, onnx_file: m.onnx };
  }
  if (lacking.length) {
    problems.push(...lacking);
    return undefined;
  }
  if (pack) inputs.push(...pack.inputs);
  const files = await Promise.all(inputs.map(describe));
  const manifest: Manifest = {
    format: 1,
    app_version: APP_VERSION,
    target: t,
    built_at: new Date().toISOString(),
    bun_version: Bun.version,
    model,
    pack: pack?.summary ?? null,
    semantic_disabled_reason: o.semantic ? null : "built with --no-semantic",
    files,
  };
  const work = join(o.outdir, ".build", t);
  mkdirSync(work, { recursive: true });
  const genPath = join(work, "embedded.ts");
  await Bun.write(genPath, generatedModule(manifest, new Map(inputs.map((i) => [i.file.name, resolve(i.path)]))));
  const outfile = resolve(o.outfile ?? join(o.outdir, `lorekeeper-${t}${t.startsWith("windows") ? ".exe" : ""}`));
  const res = await Bun.build({
    throw: false,
    entrypoints: [join(ROOT, "src/native/entry.ts")],
    compile: { target: `bun-${t}` as Bun.Build.CompileTarget, outfile },
    // Identifiers keep their names: error names and class names stay readable in messages.
    minify: { whitespace: true, syntax: true, identifiers: false },
    // Precompiled bytecode: skips parsing the ~2.4 MB bundle at every start.
    bytecode: true,
    format: "esm",
    // Each dynamic import its own chunk, loaded when first imported: a start evaluates only what it
    // uses, and the node:https / node:stream / node:zlib imports of fastembed's download code and the
    // pack and model-archive readers are not loaded by every start (docs/benchmark.md, "Figures behind the code").
    splitting: true,
    plugins: [
      nativeLoaderPlugin(),
      {
        name: "lorekeeper-embedded",
        setup(b) {
          b.onResolve({ filter: /^lorekeeper:embedded$/ }, () => ({ path: resolve(genPath) }));
        },
      },
    ],
  });
  if (!res.success) {
    const msgs = res.logs.map((l) => `${l.message}${l.position ? ` (${l.position.file}:${l.position.line})` : ""}`);
    problems.push({
      target: t,
      message: `compilation failed: ${msgs.join("; ")}`,
      fix: "fix the errors in the source (bunx tsc --noEmit) and build again",
    });
    return undefined;
  }
  return outfile;
}

function parseOptions(argv: string[], config: Config): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      target: { type: "string", multiple: true },
      model: { type: "string" },
      content: { type: "string" },
      "no-semantic": { type: "boolean" },
      outdir: { type: "string" },
      outfile: { type: "string" },
      "no-mcpb": { type: "boolean" },
      "require-signature-check": { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    process.exit(0);
  }
  const raw = (values.target ?? [])
    .flatMap((s) => s.split(","))
    .map((s) => s.trim())
    .filter(Boolean);
  const targets: Target[] = [];
  for (const r of raw.length ? raw : ["host"]) {
    if (r === "all") targets.push(...TARGETS);
    else if (r === "host") {
      const h = hostTarget();
      if (!h)
        throw new BuildError(
          `Bun cannot compile for this host (${process.platform}-${process.arch}).`,
          `Pass --target (${TARGETS.join(", ")}).`,
        );
      targets.push(h);
    } else {
      const t = parseTarget(r);
      if (!t) throw new BuildError(`Unknown target "${r}".`, `Use one of: ${TARGETS.join(", ")}, all.`);
      targets.push(t);
    }
  }
  const uniq = [...new Set(targets)];
  if (values.outfile && uniq.length > 1)
    throw new BuildError("--outfile works with one target only.", "Use --outdir for several targets.");
  const semantic = !values["no-semantic"];
  return {
    targets: uniq,
    // undefined with semantic on: the default release model, resolved (and installed if needed) in run().
    modelDir: semantic ? (values.model ? resolve(values.model) : config.modelDir) : undefined,
    content: values.content ? resolve(values.content) : undefined,
    semantic,
    outdir: resolve(values.outdir ?? join(ROOT, "dist")),
    outfile: values.outfile,
    mcpb: !values["no-mcpb"] && !values.outfile,
    requireSignatureCheck: values["require-signature-check"] ?? false,
  };
}

/** The host's binary must at least start and name its target. */
function smokeTest(bin: string, t: Target): boolean {
  const r = Bun.spawnSync([bin, "--version"], {
    stdout: "pipe",
    stderr: "pipe",
    env: { PATH: process.env.PATH ?? "" },
  });
  const out = r.stdout.toString();
  if (r.exitCode === 0 && out.includes(`target ${t}`)) return true;
  process.stderr.write(`${bin} --version failed (${r.exitCode}): ${out}${r.stderr.toString()}\n`);
  return false;
}

function mb(n: number): string {
  return `${(n / 1048576).toFixed(1)} MB`;
}

/** The id the embedder will give the embedded model (see src/search/model/model-source.ts). */
async function embeddedModelId(dir: string): Promise<string> {
  const m = modelInputs(dir);
  return `${dirModelName(dir)}@${(await fileSha256(join(dir, m.onnx))).slice(0, 12)}`;
}

/** The pack's vectors must come from the embedded model, or semantic search finds nothing. */
async function checkPackModel(pack: Pack, o: Options): Promise<void> {
  const s = pack.summary;
  process.stderr.write(
    `content pack: ${s.entities} entities, ${s.vectors} vectors (${s.model_ids.join(", ") || "no vectors"})\n`,
  );
  if (!o.semantic) return;
  const id = await embeddedModelId(o.modelDir!);
  if (s.vectors === 0) {
    process.stderr.write(
      `warning: the content pack has no vectors; semantic search ` +
        `stays empty until \`lorekeeper sync\` embeds them with ${id}\n`,
    );
  } else if (!s.model_ids.includes(id)) {
    throw new BuildError(
      `The content pack's vectors were made with ${s.model_ids.join(", ")}, but the embedded model is ${id}.`,
      `Re-embed the pack with that model (LOREKEEPER_MODEL_DIR=${o.modelDir} ` +
        `lorekeeper sync --db-path ${o.content}), or pass the matching --model.`,
    );
  }
}

async function run(argv: string[]): Promise<number> {
  const config = loadConfig();
  const o = parseOptions(argv, config);
  if (o.semantic && !o.modelDir) {
    try {
      o.modelDir = await resolveDefaultModelDir(config, (l) => process.stderr.write(`${l}\n`));
    } catch (err) {
      const e = err as Error & { hint?: string };
      throw new BuildError(
        `No embedding model: ${e.message}`,
        e.hint ??
          "Pass --model DIR, or install one with `lorekeeper model " +
            "install all-MiniLM-L6-v2`, or build with --no-semantic.",
      );
    }
  }
  if (o.semantic) {
    modelInputs(o.modelDir!); // fail early with a clear message
    process.stderr.write(`embedding model: ${o.modelDir}\n`);
  }
  mkdirSync(join(o.outdir, ".build"), { recursive: true });
  const pack = o.content ? preparePack(o.content, join(o.outdir, ".build")) : undefined;
  if (pack) await checkPackModel(pack, o);
  const problems: Problem[] = [];
  const built: { target: Target; path: string }[] = [];
  for (const t of o.targets) {
    const t0 = performance.now();
    const out = await buildTarget(t, o, pack, problems);
    if (out) {
      built.push({ target: t, path: out });
      process.stderr.write(
        `built ${out} (${mb(statSync(out).size)}, ${((performance.now() - t0) / 1000).toFixed(1)} s)\n`,
      );
      if (t === hostTarget() && !smokeTest(out, t))
        problems.push({ target: t, message: `${out} was built but does not start`, fix: "run it with -v to see why" });
      if (t.startsWith("darwin")) {
        const sig = darwinBuildCheck(out, o.requireSignatureCheck);
        process.stderr.write(`${sig.line}\n`);
        if (sig.problem) problems.push({ target: t, ...sig.problem });
      }
    }
  }
  if (o.mcpb && built.length) await packageRelease(built, o.outdir);
  // The pack as a release asset beside the binaries: `lorekeeper sync --pack` loads it (vectors included).
  if (pack && built.length) {
    const out = join(o.outdir, PACK_FILE);
    const w = await writePackFile(pack.inputs[0]!.path, out);
    process.stderr.write(
      `content pack asset ${out} (${mb(w.bytes)}, sha256 ${w.sha256.slice(0, 16)}…) and ${PACK_FILE}.sha256\n`,
    );
  }
  for (const p of problems) process.stderr.write(`NOT BUILT ${p.target}: ${p.message}\n  fix: ${p.fix}\n`);
  return problems.length ? 1 : 0;
}

if (import.meta.main) {
  try {
    process.exit(await run(process.argv.slice(2)));
  } catch (err) {
    const e = err as Error & { fix?: string };
    process.stderr.write(`build: ${e.message}\n${e.fix ? `  fix: ${e.fix}\n` : ""}`);
    process.exit(err instanceof BuildError || (err as { code?: string }).code?.startsWith("ERR_PARSE_ARGS") ? 64 : 1);
  }
}
