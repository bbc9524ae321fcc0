/**
 * Extracting the binary's embedded files to a versioned cache folder, once.
 *
 * - Folder: `<root>/<version>-<manifest hash>/`, root = $XDG_CACHE_HOME/lorekeeper (or ~/.cache/lorekeeper),
 *   falling back to `<tmpdir>/lorekeeper-<uid>` when that is not writable (read-only home, sandbox).
 * - Each file is written to a unique temp name, its sha256 checked, then renamed into place: a reader
 *   sees either no file or a complete one, and two processes starting at once both end up with the
 *   same verified bytes (rename over an identical file is harmless).
 * - A marker file records size + mtime of every file once verified, so a warm start costs one read
 *   and a few stats; any mismatch (file deleted, truncated, replaced) triggers a re-check by hash.
 */
import { LoreKeeperError } from "../errors.ts";
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { dirname, join } from "node:path";
import {
  type EmbeddedBundle,
  extractedFiles,
  extractionFolderName,
  manifestHash,
  type ManifestFile,
} from "./manifest.ts";

export const MARKER = ".lorekeeper-extracted.json";

interface MarkerFile {
  hash: string;
  files: Record<string, { size: number; mtimeMs: number }>;
}

export class ExtractError extends LoreKeeperError {
  declare readonly hint: string;
  constructor(message: string, hint: string) {
    super("extract", message, hint);
    this.name = "ExtractError";
  }
}

export function sha256(bytes: Uint8Array): string {
  return Bun.CryptoHasher.hash("sha256", bytes, "hex");
}

function uid(): string {
  try {
    return String(userInfo().uid >= 0 ? userInfo().uid : userInfo().username);
  } catch {
    return "user";
  }
}

/** Candidate roots, best first. */
export function extractionRoots(cacheRoot: string): string[] {
  return [cacheRoot, join(tmpdir(), `lorekeeper-${uid()}`)];
}

/** Warm path: the marker names this manifest and every file still has the recorded size and mtime. */
function markerValid(dir: string, hash: string, files: ManifestFile[]): boolean {
  try {
    const m = JSON.parse(readFileSync(join(dir, MARKER), "utf8")) as MarkerFile;
    return (
      m.hash === hash &&
      files.every((f) => {
        const rec = m.files[f.name];
        const st = statSync(join(dir, f.name));
        return rec?.size === f.size && st.size === rec.size && st.mtimeMs === rec.mtimeMs;
      })
    );
  } catch {
    return false;
  }
}

/**
 * Writes of at most 64 KiB: one large write leaves the file in the page cache as large folios (ext4
 * on recent Linux), and a page fault in a memory-mapped file maps its whole folio, so every later
 * process that maps a library or model file unpacked here would hold megabytes it never reads.
 */
const WRITE_PIECE = 64 * 1024;

/** Write bytes to a unique temp file, fsync, rename into place (atomic on the same filesystem). */
export function writeAtomic(path: string, bytes: Uint8Array, mode = 0o644): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.tmp-${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
  const fd = openSync(tmp, "w", mode);
  try {
    let off = 0;
    while (off < bytes.length) off += writeSync(fd, bytes, off, Math.min(WRITE_PIECE, bytes.length - off));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

/** The file at `path` has the size and sha256 the manifest gives `f`. */
export function fileMatches(path: string, f: ManifestFile): boolean {
  try {
    return statSync(path).size === f.size && sha256(readFileSync(path)) === f.sha256;
  } catch {
    return false;
  }
}

/** The embedded bytes of `f` when they match the manifest; else `broken` says what to throw. */
export async function embeddedBytes(
  bundle: EmbeddedBundle,
  f: ManifestFile,
  broken = (missing: boolean) =>
    missing
      ? new ExtractError(
          `The binary is incomplete: ${f.name} is listed but not embedded.`,
          "Rebuild the binary with `bun run build`.",
        )
      : new ExtractError(
          `The binary is damaged: the embedded ${f.name} does not match its checksum.`,
          "Download or build the binary again; the file was probably truncated or modified.",
        ),
): Promise<Uint8Array> {
  const src = bundle.paths[f.name];
  const bytes = src ? await Bun.file(src).bytes() : undefined;
  if (bytes?.length === f.size && sha256(bytes) === f.sha256) return bytes;
  throw broken(!bytes);
}

async function extractInto(
  dir: string,
  bundle: EmbeddedBundle,
  hash: string,
  files: ManifestFile[],
): Promise<string[]> {
  mkdirSync(dir, { recursive: true });
  const written: string[] = [];
  for (const f of files) {
    const path = join(dir, f.name);
    if (fileMatches(path, f)) continue;
    const bytes = await embeddedBytes(bundle, f);
    try {
      writeAtomic(path, bytes, f.role === "model" ? 0o644 : 0o755);
    } catch (err) {
      // Windows cannot replace a DLL another process has loaded; an existing identical file is fine.
      if (!fileMatches(path, f)) throw err;
    }
    written.push(f.name);
  }
  // Another process unpacking at the same time may replace a file (same bytes, new mtime) after this
  // one looked at it: record again until the marker matches what is on disk.
  for (let attempt = 0; attempt < 5; attempt++) {
    const marker: MarkerFile = { hash, files: {} };
    for (const f of files) {
      const st = statSync(join(dir, f.name));
      marker.files[f.name] = { size: st.size, mtimeMs: st.mtimeMs };
    }
    writeAtomic(join(dir, MARKER), new TextEncoder().encode(JSON.stringify(marker)));
    if (markerValid(dir, hash, files)) break;
  }
  return written;
}

/**
 * Make sure every extracted file of the bundle exists, verified, under one of the roots: the folder,
 * the files this call wrote, and `warm` when the marker matched and nothing had to be hashed.
 * Throws ExtractError (message + hint) when no root is usable.
 */
export async function ensureExtracted(bundle: EmbeddedBundle, roots: string[]) {
  const t0 = performance.now();
  const files = extractedFiles(bundle.manifest);
  const hash = manifestHash(bundle.manifest);
  const folder = extractionFolderName(bundle.manifest);
  for (const root of roots) {
    const dir = join(root, folder);
    if (markerValid(dir, hash, files)) return { dir, written: [] as string[], warm: true, ms: performance.now() - t0 };
  }
  const failures: string[] = [];
  for (const root of roots) {
    const dir = join(root, folder);
    try {
      const written = await extractInto(dir, bundle, hash, files);
      return { dir, written, warm: false, ms: performance.now() - t0 };
    } catch (err) {
      if (err instanceof ExtractError) throw err;
      failures.push(`${dir}: ${(err as Error).message}`);
    }
  }
  throw new ExtractError(
    `Cannot unpack LoreKeeper's native libraries and model (${failures.join("; ")}).`,
    "Make $XDG_CACHE_HOME (or ~/.cache) writable, or set XDG_CACHE_HOME to a writable folder.",
  );
}
