/**
 * onnxruntime optimises a model's graph at every session creation, a large part of a start's CPU
 * for the int8 all-MiniLM-L6-v2 (constant folding of its int8 weights, fused attention). Here it is
 * done ONCE per model file, onnxruntime version and platform: the graph is saved (level "extended":
 * no hardware-specific layouts) with its weights in an external data file, checked against the
 * original on a probe, and loaded instead from then on (docs/benchmark.md).
 *
 * - Where: `<cacheDir>/lorekeeper/onnx-optimized/<16 hex of the source sha256>-ort<v>-<os>-<arch>/`,
 *   complete.json (sizes) written last; the folder appears by an atomic rename.
 * - When: `lorekeeper model install`, the binary's first run, else in the background after a load.
 * - The model's identity stays the source file's sha256: stores and content packs are unaffected.
 * - A model file's sha256 is remembered by path, size and mtime (sha256.json), not hashed each start.
 */
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { cacheDir } from "../../config.ts";
import { log } from "../../log.ts";
import { fileSha256, readJsonObject } from "./model-source.ts";
import type { OrtSession as Session } from "./onnx-session.ts";
import { tokenFeeds } from "./onnx-runners.ts";

type Ort = typeof import("onnxruntime-node");

const GRAPH_FILE = "model.onnx";
export function defaultGraphCache(): string {
  return join(cacheDir(), "onnx-optimized");
}
const DATA_FILE = "model.onnx.data";
const MARKER = "complete.json";
const SHA_CACHE = "sha256.json";

export function ortVersion(ort: Ort): string {
  return ort.env.versions?.node ?? ort.env.versions?.common ?? "unknown";
}

/** The folder of a model file's optimised graph for this onnxruntime and platform. */
export function optimizedGraphDir(root: string, sourceSha256: string, ortV: string): string {
  return join(root, `${sourceSha256.slice(0, 16)}-ort${ortV}-${process.platform}-${process.arch}`);
}

/** The saved graph (its model.onnx), if it is complete. */
export function findOptimizedGraph(dir: string): string | undefined {
  try {
    const m = JSON.parse(readFileSync(join(dir, MARKER), "utf8")) as { files: Record<string, number> };
    for (const [f, size] of Object.entries(m.files)) if (statSync(join(dir, f)).size !== size) return undefined;
    return join(dir, GRAPH_FILE);
  } catch {
    return undefined;
  }
}

/** sha256 of a model file, remembered in `root` by path, size and mtime. */
export async function modelFileSha256(path: string, root: string | undefined): Promise<string> {
  const abs = resolve(path);
  const st = statSync(abs);
  const cacheFile = root ? join(root, SHA_CACHE) : undefined;
  type Remembered = Record<string, { size: number; mtimeMs: number; sha256: string } | undefined>;
  const cache = ((cacheFile && readJsonObject(cacheFile)) || {}) as Remembered;
  const hit = cache[abs];
  if (hit && hit.size === st.size && hit.mtimeMs === st.mtimeMs && /^[0-9a-f]{64}$/.test(hit.sha256)) return hit.sha256;
  const sha256 = await fileSha256(abs);
  if (cacheFile) {
    try {
      mkdirSync(root!, { recursive: true });
      cache[abs] = { size: st.size, mtimeMs: st.mtimeMs, sha256 };
      const tmp = `${cacheFile}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify(cache));
      renameSync(tmp, cacheFile);
    } catch {
      // a read-only cache only costs the hash next time
    }
  }
  return sha256;
}

/** The model's output for a probe every BERT-style encoder takes (small ids exist in every vocabulary). */
async function probe(ort: Ort, s: Session): Promise<Float32Array> {
  const feeds = tokenFeeds(ort, s.inputNames, [{ ids: [2, 1, 3], mask: [1, 1, 1], types: [0, 0, 0] }]);
  const out = await s.run(feeds);
  const first = out[s.outputNames[0]!];
  if (!first || !(first.data instanceof Float32Array)) throw new Error("the model gave no float output");
  return first.data;
}

/**
 * Optimise `sourceOnnx` once and save the graph into `dir` (atomically); checks that the saved
 * graph gives the original's output on a probe (within 1e-4). False when it was saved already.
 */
async function saveOptimizedGraph(ort: Ort, sourceOnnx: string, sourceSha256: string, dir: string): Promise<boolean> {
  if (findOptimizedGraph(dir)) return false;
  mkdirSync(dirname(dir), { recursive: true });
  const tmp = `${dir}.tmp-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  mkdirSync(tmp, { recursive: true });
  const sessions: Session[] = [];
  try {
    const original = await ort.InferenceSession.create(sourceOnnx, {
      graphOptimizationLevel: "extended",
      optimizedModelFilePath: join(tmp, GRAPH_FILE),
      extra: {
        session: {
          optimized_model_external_initializers_file_name: DATA_FILE,
          optimized_model_external_initializers_min_size_in_bytes: "1024",
        },
      },
    });
    sessions.push(original);
    const saved = await ort.InferenceSession.create(join(tmp, GRAPH_FILE), { graphOptimizationLevel: "all" });
    sessions.push(saved);
    const [a, b] = [await probe(ort, original), await probe(ort, saved)];
    if (a.length !== b.length || a.some((x, i) => Math.abs(x - b[i]!) > 1e-4))
      throw new Error("the saved graph does not reproduce the model's output");
    if (existsSync(join(tmp, DATA_FILE))) rewriteInPieces(join(tmp, DATA_FILE));
    const files = Object.fromEntries(
      [GRAPH_FILE, DATA_FILE].filter((f) => existsSync(join(tmp, f))).map((f) => [f, statSync(join(tmp, f)).size]),
    );
    const marker = {
      source_sha256: sourceSha256,
      ort: ortVersion(ort),
      level: "extended",
      files,
      created_at: new Date().toISOString(),
    };
    writeFileSync(join(tmp, MARKER), `${JSON.stringify(marker, null, 2)}\n`);
    try {
      renameSync(tmp, dir);
    } catch (err) {
      // another process saved it first
      if (!findOptimizedGraph(dir)) throw err;
    }
    return true;
  } finally {
    for (const s of sessions) await s.release().catch(() => undefined);
    rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * Copy a file over itself in 64 KiB writes. onnxruntime's large writes leave it in the page cache
 * as large folios (ext4); the memory-mapped word-embedding table then maps a whole folio per row a
 * query reads: ~9 MB of a meaning session's peak instead of ~1 MB (docs/benchmark.md).
 */
function rewriteInPieces(path: string): void {
  const copy = `${path}.pieces`;
  const buf = new Uint8Array(64 * 1024);
  const src = openSync(path, "r");
  const dst = openSync(copy, "w");
  try {
    for (let n = readSync(src, buf); n > 0; n = readSync(src, buf)) {
      let off = 0;
      while (off < n) off += writeSync(dst, buf, off, n - off);
    }
  } finally {
    closeSync(src);
    closeSync(dst);
  }
  renameSync(copy, path);
}

/** Save the optimised graph of a model file now (install, the binary's first run). Never throws. */
export async function prepareOptimizedGraph(
  onnxPath: string,
  root: string = defaultGraphCache(),
): Promise<{ saved: boolean; ms: number; detail: string }> {
  const t0 = performance.now();
  const ms = () => Math.round(performance.now() - t0);
  try {
    const ort = await import("onnxruntime-node");
    const sha = await modelFileSha256(onnxPath, root);
    const dir = optimizedGraphDir(root, sha, ortVersion(ort));
    const saved = await saveOptimizedGraph(ort, onnxPath, sha, dir);
    return { saved, ms: ms(), detail: `${saved ? "" : "already "}saved in ${dir}` };
  } catch (err) {
    return { saved: false, ms: ms(), detail: `not saved: ${(err as Error).message}` };
  }
}

const pending = new Set<string>();

/** A model was loaded without a saved graph: save one a few seconds later, for the next start. */
export function saveGraphInBackground(ort: Ort, onnxPath: string, sha256: string, dir: string, delayMs = 5000): void {
  if (pending.has(dir)) return;
  pending.add(dir);
  const t = setTimeout(() => {
    const t0 = performance.now();
    saveOptimizedGraph(ort, onnxPath, sha256, dir)
      .then(
        () =>
          log.info(
            `saved onnxruntime's optimised graph of ${basename(dirname(onnxPath))} ` +
              `(${Math.round(performance.now() - t0)} ms, once): later starts load it instead of optimising again`,
          ),
        (err) => log.debug(`the optimised graph of ${onnxPath} was not saved`, err),
      )
      .finally(() => pending.delete(dir));
  }, delayMs);
  t.unref?.();
}
