/**
 * The HNSW index on disk: `<db>.usearch` (usearch's format) and the sidecar `<db>.usearch.json`
 * (model, dimension, entries, and the file's size and hash). usearch aborts the whole process on a
 * damaged file, so a file is handed to it only once its size and hash match. Saves are atomic.
 */
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { Index } from "usearch";
import { alive } from "../../store/embed-lease.ts";

const SIDECAR_FORMAT = 1;
/** The sidecar's fields a reader relies on, beside `format` and `entries`, and their types. */
const FIELD_TYPES = { modelId: "string", dim: "number", fileBytes: "number", fileHash: "string" };

export interface IndexSidecar {
  format: number;
  modelId: string;
  dim: number;
  quantization: string;
  connectivity: number;
  count: number;
  /** sha1 over "id:hash\n" of the entries, by id. */
  checksum: string;
  fileBytes: number;
  fileHash: string;
  /** [entity id, content hash prefix] of every vector in the index, by id. */
  entries: Array<[number, string]>;
}

export interface IndexPaths {
  index: string;
  sidecar: string;
}

/** Where the index of the database at `dbPath` lives (undefined for in-memory databases). */
export function indexPaths(dbPath: string): IndexPaths | undefined {
  if (dbPath === ":memory:" || dbPath === "") return undefined;
  return { index: `${dbPath}.usearch`, sidecar: `${dbPath}.usearch.json` };
}

/** The prefix of a content hash kept per entry (enough to notice a change). */
export function hashPrefix(contentHash: string): string {
  return contentHash.slice(0, 12);
}

function entriesChecksum(entries: Iterable<[number, string]>): string {
  const sorted = [...entries].sort((a, b) => a[0] - b[0]);
  const h = new Bun.CryptoHasher("sha1");
  for (const [id, hash] of sorted) h.update(`${id}:${hash}\n`);
  return h.digest("hex");
}

const fileHash = (bytes: Uint8Array): string => Bun.hash(bytes).toString(16);

/** The sidecar, or why it cannot be used. */
export function readSidecar(paths: IndexPaths): IndexSidecar | { problem: string } {
  if (!existsSync(paths.index)) return { problem: "no index file yet" };
  if (!existsSync(paths.sidecar)) return { problem: "its description file is missing" };
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(paths.sidecar, "utf8"));
  } catch {
    return { problem: "its description file is not valid JSON" };
  }
  const s = raw as Record<string, unknown> | null;
  const entries = s?.entries;
  const known =
    s?.format === SIDECAR_FORMAT &&
    Object.entries(FIELD_TYPES).every(([k, type]) => typeof s[k] === type) &&
    Array.isArray(entries) &&
    entries.every((e) => Array.isArray(e) && typeof e[0] === "number" && typeof e[1] === "string");
  return known ? (s as unknown as IndexSidecar) : { problem: "its description file has an unknown format" };
}

/** Check the index file against the sidecar; undefined when it is intact. */
export function verifyIndexFile(paths: IndexPaths, sidecar: IndexSidecar): string | undefined {
  try {
    if (statSync(paths.index).size !== sidecar.fileBytes)
      return "the index file has the wrong size (damaged or replaced)";
    if (fileHash(readFileSync(paths.index)) !== sidecar.fileHash)
      return "the index file does not match its checksum (damaged)";
  } catch (err) {
    return `the index file cannot be read (${(err as Error).message})`;
  }
  return undefined;
}

/**
 * Remove temp files left by saves that never finished (a process killed mid-save): those of
 * processes no longer running, and any older than an hour. Returns how many were removed.
 */
export function removeStaleTempFiles(paths: IndexPaths): number {
  const dir = dirname(paths.index);
  const names = new Set([basename(paths.index), basename(paths.sidecar)]);
  let removed = 0;
  let files: string[];
  try {
    files = readdirSync(dir);
  } catch {
    return 0;
  }
  for (const f of files) {
    const m = /^(.+)\.tmp-(\d+)-[a-z0-9]+$/.exec(f);
    if (!m || !names.has(m[1]!)) continue;
    const pid = Number(m[2]);
    const file = join(dir, f);
    try {
      const old = Date.now() - statSync(file).mtimeMs > 3_600_000;
      if (pid === process.pid || (alive(pid) && !old)) continue;
      rmSync(file, { force: true });
      removed++;
    } catch {
      /* gone meanwhile */
    }
  }
  return removed;
}

/** Save `index` and its sidecar atomically. Throws on I/O errors (the caller logs them). */
export function saveIndexFiles(
  index: Index,
  paths: IndexPaths,
  meta: Omit<IndexSidecar, "format" | "fileBytes" | "fileHash" | "count" | "checksum">,
): void {
  const suffix = `.tmp-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  const tmpIndex = paths.index + suffix;
  const tmpSidecar = paths.sidecar + suffix;
  removeStaleTempFiles(paths);
  try {
    index.save(tmpIndex);
    const bytes = readFileSync(tmpIndex);
    const sidecar: IndexSidecar = {
      format: SIDECAR_FORMAT,
      ...meta,
      count: meta.entries.length,
      checksum: entriesChecksum(meta.entries),
      fileBytes: bytes.byteLength,
      fileHash: fileHash(bytes),
    };
    writeFileSync(tmpSidecar, JSON.stringify(sidecar));
    renameSync(tmpIndex, paths.index);
    renameSync(tmpSidecar, paths.sidecar);
  } finally {
    rmSync(tmpIndex, { force: true });
    rmSync(tmpSidecar, { force: true });
  }
}

/** Remove the index files (e.g. the database was deleted). */
export function removeIndexFiles(paths: IndexPaths): void {
  rmSync(paths.index, { force: true });
  rmSync(paths.sidecar, { force: true });
}
