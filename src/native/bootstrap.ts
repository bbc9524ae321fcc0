/**
 * Start-up of the compiled binary, before the CLI: unpack the embedded native libraries and model
 * (once, verified), install the native loader, install the content pack into an empty store, then
 * hand over to `main()`. Running from source (`bun src/cli/main.ts`) never comes through here.
 */
import { hintOf, isLoreKeeperError } from "../errors.ts";
import { join } from "node:path";
import { APP_VERSION, type Config, dbPath, dbPathOption, loadConfig } from "../config.ts";
import { log } from "../log.ts";
import { installContentPack } from "./content-pack.ts";
import { ensureExtracted, ExtractError, extractionRoots } from "./extract.ts";
import { createNativeLoader } from "./loader.ts";
import type { EmbeddedBundle, Manifest } from "./manifest.ts";

/** Facts about the running binary, for `--version` and `doctor`. */
interface BinaryInfo {
  manifest: Manifest;
  /** Extraction folder, once unpacked. */
  dir?: string;
  /** Embedded model folder inside `dir`. */
  modelDir?: string;
  extract?: { warm: boolean; written: number; ms: number };
  pack?: Awaited<ReturnType<typeof installContentPack>>;
}

declare global {
  var __lorekeeperBinary: BinaryInfo | undefined;
}

/** `lorekeeper --version` of a binary: the first line is the same as from source. */
function versionText(m: Manifest): string {
  const model = m.model ? m.model.name : `none (${m.semantic_disabled_reason ?? "semantic search disabled"})`;
  const pack = m.pack ? `${m.pack.entities} entities, ${m.pack.vectors} vectors` : "none";
  return [
    `lorekeeper ${APP_VERSION}`,
    `target ${m.target}, bun ${m.bun_version}, built ${m.built_at}`,
    `embedded model: ${model}`,
    `embedded content pack: ${pack}`,
  ].join("\n");
}

const NO_STORE_COMMANDS = new Set(["--version", "version", "-h", "--help", "help"]);

function fail(err: unknown): number {
  const hint = hintOf(err);
  process.stderr.write(`lorekeeper: ${err instanceof Error ? err.message : String(err)}\n${hint ? `${hint}\n` : ""}`);
  log.debug("bootstrap failed", err);
  return 1;
}

/** Prepare the binary's environment, then run the CLI; returns the exit code. */
export async function bootstrap(bundle: EmbeddedBundle, argv: string[]): Promise<number> {
  const t0 = performance.now();
  const m = bundle.manifest;
  const info: BinaryInfo = { manifest: m };
  globalThis.__lorekeeperBinary = info;
  const first = argv.find((a) => a !== "-v" && a !== "--verbose");
  const usesStore = !NO_STORE_COMMANDS.has(first ?? "");
  // The edge of a binary: the environment is read here once; the CLI gets the Config (with the embedded model).
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (isLoreKeeperError(err)) return fail(err);
    throw err;
  }
  if (first === "--version" || first === "version") {
    process.stdout.write(`${versionText(m)}\n`);
    return 0;
  }
  try {
    const ex = await ensureExtracted(bundle, extractionRoots(config.cacheDir));
    info.dir = ex.dir;
    info.extract = { warm: ex.warm, written: ex.written.length, ms: ex.ms };
    if (m.model) info.modelDir = join(ex.dir, "models", m.model.name);
    log.debug(
      `binary: ${ex.warm ? "cache verified" : `unpacked ${ex.written.length} files`} in ${ex.dir} ` +
        `(${ex.ms.toFixed(1)} ms)`,
    );
    globalThis.__lorekeeperNative = createNativeLoader(ex.dir, m);
    // First run: onnxruntime optimises the model's graph once and saves it; later starts load that
    // (src/search/model/optimized-graph.ts). Skipped for commands that never load the model.
    if (!ex.warm && m.model && info.modelDir && usesStore) {
      const { prepareOptimizedGraph } = await import("../search/model/optimized-graph.ts");
      const graph = await prepareOptimizedGraph(
        join(info.modelDir, m.model.onnx_file),
        join(config.cacheDir, "onnx-optimized"),
      );
      log.debug(`binary: optimised graph ${graph.detail} (${graph.ms} ms)`);
    }
    if (m.pack && usesStore && !config.noContentPack) {
      info.pack = await installContentPack(bundle, dbPath(dbPathOption(argv)));
      log.debug(`binary: content pack: ${info.pack.detail} (${info.pack.ms.toFixed(1)} ms)`);
    }
  } catch (err) {
    if (isLoreKeeperError(err)) return fail(err);
    return fail(
      new ExtractError(
        `Cannot prepare the LoreKeeper binary: ${(err as Error).message}`,
        "Run with -v for details, or report the problem.",
      ),
    );
  }
  const t1 = performance.now();
  const { main } = await import("../cli/main.ts");
  log.debug(
    `binary: start ${t0.toFixed(1)} ms after exec, bootstrap ${(t1 - t0).toFixed(1)} ms, CLI loaded ` +
      `${(performance.now() - t1).toFixed(1)} ms`,
  );
  // The embedder uses the embedded model unless LOREKEEPER_MODEL_DIR names another model.
  return main(argv, { ...config, embeddedModelDir: info.modelDir });
}
