/**
 * Where the embedding model comes from, and what kind of model it is. Pure file inspection: nothing
 * here loads ONNX Runtime. Order: LOREKEEPER_MODEL_DIR (if set and broken, nothing else is tried) →
 * the installed model in use → the model embedded in the binary → the named model from
 * `<cacheDir>/models/<name>`, installed once when online (embedder.ts).
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join } from "node:path";

/** fastembed 2.1.0's named models (EmbeddingModel values, CUSTOM excluded), each with the ONNX file it expects. */
export const FASTEMBED_ONNX = new Map([
  ["fast-all-MiniLM-L6-v2", "model.onnx"],
  ["fast-bge-base-en", "model_optimized.onnx"],
  ["fast-bge-base-en-v1.5", "model_optimized.onnx"],
  ["fast-bge-small-en", "model_optimized.onnx"],
  ["fast-bge-small-en-v1.5", "model_optimized.onnx"],
  ["fast-bge-small-zh-v1.5", "model_optimized.onnx"],
  ["fast-multilingual-e5-large", "model.onnx"],
]);

/** Files fastembed reads beside the ONNX file. */
export const MODEL_SIDE_FILES = [
  "tokenizer.json",
  "config.json",
  "tokenizer_config.json",
  "special_tokens_map.json",
] as const;
export const PREFERRED_ONNX = ["model.onnx", "model_optimized.onnx", "model_quantized.onnx"];

/** `onnxFile` is relative to dir, e.g. "model.onnx" or "onnx/model.onnx"; `maxLength` its model_max_length. */
type ModelDirCheck =
  | { ok: true; dir: string; onnxFile: string; config: Record<string, unknown>; maxLength: number }
  | { ok: false; dir: string; problem: string };

function listOnnx(dir: string): string[] {
  try {
    return readdirSync(dir).filter((f) => f.toLowerCase().endsWith(".onnx") && statSync(join(dir, f)).isFile());
  } catch {
    return [];
  }
}

function pickOnnx(dir: string): { file?: string; problem?: string } {
  for (const sub of ["", "onnx"]) {
    const found = listOnnx(join(dir, sub));
    const rel = (f: string) => (sub ? `${sub}/${f}` : f);
    const preferred = PREFERRED_ONNX.find((p) => found.includes(p));
    if (preferred) return { file: rel(preferred) };
    if (found.length === 1) return { file: rel(found[0]!) };
    if (found.length > 1)
      return { problem: `several ONNX files (${found.join(", ")}) and none is named ${PREFERRED_ONNX.join(" / ")}` };
  }
  return { problem: `no ONNX file (expected ${PREFERRED_ONNX.join(", ")} or a single *.onnx)` };
}

export function readJsonObject(path: string): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(readFileSync(path, "utf8"));
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Bounds on a model folder's side files (docs/architecture.md "Limits"). fastembed pads every text
 * to min(our limit, model_max_length) tokens: a negative value wraps to billions of tokens (a
 * 17 GB allocation) and 0 or 1 leaves no room for a word, so model_max_length must lie in
 * [MIN_MODEL_TOKENS, ∞) (huge values such as 1e30, "no limit" in Hugging Face files, are fine: our
 * own limit caps them). tokenizer.json is parsed whole into memory, so its size is capped too.
 */
const MIN_MODEL_TOKENS = 8;
const MAX_TOKENIZER_JSON_BYTES = 32 * 1024 * 1024;
const MAX_SIDE_JSON_BYTES = 1024 * 1024;

const mb = (n: number) => `${(n / 1024 / 1024).toFixed(n < 1024 * 1024 ? 2 : 0)} MB`;

export function sideFileSizeProblem(name: string, size: number): string | undefined {
  const max = name === "tokenizer.json" ? MAX_TOKENIZER_JSON_BYTES : MAX_SIDE_JSON_BYTES;
  return size > max ? `${name} is ${mb(size)}, more than the ${mb(max)} a model's ${name} may have` : undefined;
}

export function tokenizerConfigProblem(path: string): string | undefined {
  const tc = readJsonObject(path);
  return tc ? maxLengthProblem(tc.model_max_length) : "tokenizer_config.json is not a JSON object";
}

function maxLengthProblem(v: unknown): string | undefined {
  if (typeof v !== "number" || !Number.isFinite(v)) return "tokenizer_config.json has no numeric model_max_length";
  if (v < MIN_MODEL_TOKENS || !Number.isInteger(v)) {
    return (
      `tokenizer_config.json says model_max_length ${v}; it must be a whole number of at ` +
      `least ${MIN_MODEL_TOKENS} tokens (a damaged or hostile file)`
    );
  }
  return undefined;
}

/** Check that `dir` is a complete fastembed model folder; say precisely what is wrong if not. */
export function inspectModelDir(dir: string): ModelDirCheck {
  if (!existsSync(dir)) return { ok: false, dir, problem: `the folder ${dir} does not exist` };
  if (!statSync(dir).isDirectory()) return { ok: false, dir, problem: `${dir} is not a folder` };
  const onnx = pickOnnx(dir);
  const present = MODEL_SIDE_FILES.filter((f) => existsSync(join(dir, f)));
  const missing = MODEL_SIDE_FILES.filter((f) => !present.includes(f));
  const problems: string[] = [];
  if (onnx.problem) problems.push(onnx.problem);
  if (missing.length) problems.push(`missing ${missing.join(", ")}`);
  // Sizes first: nothing oversized is read into memory, here or by fastembed.
  const oversized = present.flatMap((f) => sideFileSizeProblem(f, statSync(join(dir, f)).size) ?? []);
  if (oversized.length) return { ok: false, dir, problem: `${dir}: ${oversized.join("; ")}` };
  const config = present.includes("config.json") ? readJsonObject(join(dir, "config.json")) : undefined;
  if (present.includes("config.json") && !config) problems.push("config.json is not a JSON object");
  else if (config && typeof config.pad_token_id !== "number") problems.push("config.json has no numeric pad_token_id");
  const tokenizerConfig = join(dir, "tokenizer_config.json");
  const bad = present.includes("tokenizer_config.json") ? tokenizerConfigProblem(tokenizerConfig) : undefined;
  if (bad) problems.push(bad);
  if (problems.length || !onnx.file || !config) return { ok: false, dir, problem: `${dir}: ${problems.join("; ")}` };
  const maxLength = readJsonObject(tokenizerConfig)!.model_max_length as number;
  return { ok: true, dir, onnxFile: onnx.file, config, maxLength };
}

export type ModelSource =
  | { kind: "dir"; origin: "LOREKEEPER_MODEL_DIR" | "installed" | "embedded"; dir: string }
  | { kind: "named"; name: string; cacheDir: string; allowDownload: boolean };

/** The sources to try, in order. An explicit model dir is the only source when set; no cacheDir, no named model. */
export function planModelSources(input: {
  modelDir?: string;
  installedDir?: string;
  embeddedDir?: string;
  modelName: string;
  cacheDir: string | undefined;
  allowDownload: boolean;
}): ModelSource[] {
  if (input.modelDir) return [{ kind: "dir", origin: "LOREKEEPER_MODEL_DIR", dir: input.modelDir }];
  const out: ModelSource[] = [];
  if (input.installedDir) out.push({ kind: "dir", origin: "installed", dir: input.installedDir });
  if (input.embeddedDir) out.push({ kind: "dir", origin: "embedded", dir: input.embeddedDir });
  if (input.cacheDir)
    out.push({ kind: "named", name: input.modelName, cacheDir: input.cacheDir, allowDownload: input.allowDownload });
  return out;
}

export function describeSource(s: ModelSource): string {
  const what = {
    embedded: "embedded model",
    installed: "installed model",
    LOREKEEPER_MODEL_DIR: "LOREKEEPER_MODEL_DIR",
  } as const;
  return s.kind === "dir" ? `${what[s.origin]} (${s.dir})` : `model ${s.name}`;
}

/** How a model wants its inputs: query/passage prefixes. */
export interface ModelProfile {
  family: "bge" | "e5" | "plain";
  queryPrefix: string;
  passagePrefix: string;
}

export const BGE_QUERY_INSTRUCTION = "Represent this sentence for searching relevant passages: ";
const BGE_ZH_QUERY_INSTRUCTION = "为这个句子生成表示以用于检索相关文章：";

/**
 * BGE: instruction prefix on queries only. E5: "query: " / "passage: ". Everything else (static
 * models like lorekeeper-static-384, MiniLM): no prefix. Decided from the model name and config.
 */
export function modelProfile(name: string, config?: Record<string, unknown>): ModelProfile {
  const hint = `${name} ${typeof config?._name_or_path === "string" ? config._name_or_path : ""}`.toLowerCase();
  if (/(^|[^a-z0-9])bge/.test(hint)) {
    return {
      family: "bge",
      queryPrefix: /zh/.test(hint) ? BGE_ZH_QUERY_INSTRUCTION : BGE_QUERY_INSTRUCTION,
      passagePrefix: "",
    };
  }
  if (/(^|[-_/\s])e5([-_/\s]|$)/.test(hint))
    return { family: "e5", queryPrefix: "query: ", passagePrefix: "passage: " };
  return { family: "plain", queryPrefix: "", passagePrefix: "" };
}

/** Display name of a model folder: "custom:<folder name>". */
export function dirModelName(dir: string): string {
  return `custom:${basename(dir.replace(/[\\/]+$/, "")) || "model"}`;
}

/** sha256 of a file, hex, streamed (does not block the event loop on big models). */
export async function fileSha256(path: string): Promise<string> {
  const h = new Bun.CryptoHasher("sha256");
  for await (const chunk of Bun.file(path).stream()) h.update(chunk);
  return h.digest("hex");
}
