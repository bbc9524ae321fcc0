/**
 * Content pack files: a LoreKeeper store (entities, documents and the vectors of one model),
 * gzip-compressed, with a `sha256sum`-style checksum file beside it, which build.ts writes and
 * pack.ts loads, so no install has to embed the corpus itself. This file only moves bytes: fetch
 * (file or http(s) URL, streamed to disk with a size cap), checksum, gunzip (streamed, with a cap
 * on the inflated size) and write.
 */
import {
  closeSync,
  createReadStream,
  createWriteStream,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
} from "node:fs";
import { pipeline } from "node:stream/promises";
import { Readable, Transform } from "node:stream";
import { createGunzip, createGzip } from "node:zlib";
import { basename, dirname, join } from "node:path";
import { LoreKeeperError } from "../errors.ts";
import { log } from "../log.ts";
import { fileSha256 } from "../search/model/model-source.ts";
import { alive } from "../store/embed-lease.ts";
import { fetchErrorText } from "../sources/http.ts";

/** A pack that cannot be used, with what to do about it. */
export class PackError extends LoreKeeperError {
  constructor(message: string, hint: string, options?: { cause?: unknown }) {
    super("pack", message, hint, options);
  }
}

/** The file name build.ts gives the pack. */
export const PACK_FILE = "lorekeeper-content.db.gz";

/** Caps: compressed download and inflated database (a full corpus store is ~100 MB). */
const MAX_DOWNLOAD_BYTES = 1024 * 1024 * 1024;
const MAX_INFLATED_BYTES = 2 * 1024 * 1024 * 1024;

const SQLITE_MAGIC = "SQLite format 3\u0000";

export type PackFormat = "gzip" | "sqlite";

/** The format of a local file by its first bytes, or undefined when it is neither. */
export function sniffPack(path: string): PackFormat | undefined {
  let fd: number | undefined;
  try {
    // Only a regular file can be a pack: opening a FIFO would wait for a writer, a device never ends.
    if (!statSync(path).isFile()) return undefined;
    fd = openSync(path, "r");
    const head = Buffer.alloc(16);
    const n = readSync(fd, head, 0, 16, 0);
    if (n >= 2 && head[0] === 0x1f && head[1] === 0x8b) return "gzip";
    if (n === 16 && head.toString("latin1") === SQLITE_MAGIC) return "sqlite";
    return undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

function isUrl(src: string): boolean {
  return /^https?:\/\//i.test(src);
}

/** A transform that fails once more than `max` bytes went through. */
function byteCap(max: number, what: () => PackError): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, cb) {
      seen += chunk.length;
      if (seen > max) cb(what());
      else cb(null, chunk);
    },
  });
}

/** The hex digest in a `sha256sum` line ("<hex>  <name>") or a bare digest. */
function parseChecksum(text: string): string | undefined {
  const m = /^\s*([0-9a-f]{64})\b/i.exec(text);
  return m?.[1]?.toLowerCase();
}

export interface FetchedPack {
  /** Local path of the (still compressed) pack: the file itself, or the download. */
  path: string;
  format: PackFormat;
  sha256: string;
  /** Where the expected checksum came from, or "none" when there was none to check against. */
  checkedAgainst: "flag" | "file" | "none";
  /** Remove the download (no-op for a local file). */
  cleanup: () => void;
}

/**
 * A failed fetch of `url` as a clause, Bun's advice to its own developers ("pass `verbose: true`…")
 * left out; the whole error goes to the log.
 */
function fetchFailure(err: unknown, url: string): string {
  log.warn(`fetching ${url} failed`, err);
  return fetchErrorText(err);
}

/** Files a stage could not write because the disk is full, said as such (not as a damaged file). */
function diskFull(err: unknown, where: string, what: string): PackError | undefined {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  if (code !== "ENOSPC" && code !== "EDQUOT") return undefined;
  return new PackError(
    `The disk holding ${where} is full: ${what} (${code}); nothing was loaded.`,
    "Free some disk space there (unpacking needs about as much as the store itself, ~100 MB for the " +
      "full corpus) and run the command again; the store is as it was.",
    { cause: err },
  );
}

async function download(url: string, to: string, max: number): Promise<void> {
  let res: Response;
  try {
    res = await fetch(url, { redirect: "follow", signal: AbortSignal.timeout(10 * 60_000) });
  } catch (err) {
    throw new PackError(
      `Cannot download the content pack from ${url}: ${fetchFailure(err, url)}.`,
      "Check the address and the network, or download the file by other means and pass its path.",
      { cause: err },
    );
  }
  if (!res.ok || !res.body)
    throw new PackError(
      `Cannot download the content pack from ${url}: HTTP ${res.status}.`,
      "Check the address (a release asset named lorekeeper-content.db.gz).",
    );
  const tooBig = (size = "") =>
    new PackError(
      `The content pack at ${url} is ${size}over the ${max}-byte limit.`,
      "This is not a LoreKeeper content pack; check the address.",
    );
  const declared = Number(res.headers.get("content-length") ?? "0");
  if (declared > max) throw tooBig(`${declared} bytes, `);
  try {
    const body = Readable.fromWeb(res.body as import("node:stream/web").ReadableStream);
    await pipeline(
      body,
      byteCap(max, () => tooBig()),
      createWriteStream(to, { mode: 0o600 }),
    );
  } catch (err) {
    if (err instanceof PackError) throw err;
    throw (
      diskFull(err, to, `the content pack could not be downloaded to ${to}`) ??
      new PackError(
        `Cannot download the content pack from ${url}: ${fetchFailure(err, url)}.`,
        "Check the address and the network, then retry.",
        { cause: err },
      )
    );
  }
}

/** What a checksum file's text looks like, for a message: an HTML page, nothing, or its beginning. */
function describeText(text: string): string {
  const t = text.trim();
  if (t === "") return "it is empty";
  if (t.startsWith("<")) return "it is an HTML page";
  const head = t.slice(0, 40).replace(/[^\x20-\x7e]/g, "?");
  return `it begins ${JSON.stringify(head)}${t.length > 40 ? "…" : ""}`;
}

const CHECKSUM_HINT =
  "Download the .sha256 published with the pack again (it holds one line: 64 hexadecimal digits and the file " +
  "name), or pass the digest with --sha256.";

/**
 * The digest in the `.sha256` beside `src`, or undefined when there is none (no such file; a URL
 * answering 404). A checksum that exists but cannot be read or holds no digest is an error: a
 * damaged or substituted checksum must not pass for a missing one.
 */
async function checksumBeside(src: string): Promise<string | undefined> {
  const where = `${src}.sha256`;
  let text: string;
  if (isUrl(src)) {
    let res: Response;
    try {
      res = await fetch(where, { signal: AbortSignal.timeout(30_000) });
    } catch (err) {
      const why = `The checksum ${where} could not be fetched: ${fetchFailure(err, where)}.`;
      throw new PackError(why, `${CHECKSUM_HINT} Check the network.`, { cause: err });
    }
    if (res.status === 404 || res.status === 410) {
      await res.body?.cancel();
      return undefined;
    }
    if (!res.ok) {
      await res.body?.cancel();
      throw new PackError(
        `The checksum ${where} could not be fetched: the server answered HTTP ${res.status}.`,
        `${CHECKSUM_HINT} Retry later if the server has trouble.`,
      );
    }
    text = (await res.text()).slice(0, 4096);
  } else {
    if (!existsSync(where)) return undefined;
    try {
      if (!statSync(where).isFile()) throw new Error("it is not a regular file");
      text = readFileSync(where, "utf8").slice(0, 4096);
    } catch (err) {
      const why = `The checksum file ${where} exists but cannot be read: ${(err as Error).message}.`;
      throw new PackError(why, CHECKSUM_HINT, { cause: err });
    }
  }
  const digest = parseChecksum(text);
  if (!digest) {
    const why = `The checksum ${where} exists but holds no SHA-256 digest (${describeText(text)}).`;
    throw new PackError(why, CHECKSUM_HINT);
  }
  return digest;
}

/**
 * Bring the pack at `src` (path or URL) to a local file beside the store at `storePath` and check
 * its checksum against `expected` (from --sha256) or the `.sha256` file beside it. A mismatch is
 * refused.
 */
export async function fetchPack(src: string, storePath: string, expected?: string): Promise<FetchedPack> {
  const max = MAX_DOWNLOAD_BYTES;
  let path = src;
  let cleanup = () => {};
  try {
    if (isUrl(src)) {
      // Named after the store it is for, so that leftovers are told from the user's own files.
      path = `${storePath}.download-${process.pid}-${basename(new URL(src).pathname) || "pack"}`;
      cleanup = () => rmSync(path, { force: true });
      await download(src, path, max);
    } else if (!existsSync(src)) {
      throw new PackError(
        `The content pack ${src} does not exist.`,
        "Pass the path of lorekeeper-content.db.gz (a release asset, or written by `bun run build -- --content DB`).",
      );
    } else {
      const st = statSync(src);
      if (!st.isFile())
        throw new PackError(
          `The content pack ${src} is not a regular file.`,
          "Pass the path of lorekeeper-content.db.gz.",
        );
      if (st.size > max)
        throw new PackError(
          `The content pack ${src} is ${st.size} bytes, over the ${max}-byte limit.`,
          "This is not a LoreKeeper content pack.",
        );
    }
    const format = sniffPack(path);
    if (!format)
      throw new PackError(
        `${src} is not a LoreKeeper content pack (neither gzip nor SQLite).`,
        "Pass lorekeeper-content.db.gz from a release, or a store written by `lorekeeper sync`.",
      );
    const sha256 = await fileSha256(path);
    const flag = expected ? parseChecksum(expected) : undefined;
    if (expected && !flag)
      throw new PackError(
        `--sha256 "${expected.slice(0, 80)}" is not a SHA-256 digest.`,
        "Pass the 64 hexadecimal digits from the .sha256 file published with the pack.",
      );
    const want = flag ?? (await checksumBeside(src));
    if (want && want !== sha256) {
      throw new PackError(
        `The content pack ${src} does not match its checksum (expected ${want}, got ${sha256}).`,
        "The file is damaged or not the one published: download it again (with its .sha256) and retry.",
      );
    }
    return { path, format, sha256, checkedAgainst: flag ? "flag" : want ? "file" : "none", cleanup };
  } catch (err) {
    cleanup();
    throw err;
  }
}

/** Inflate (or copy) the pack to `to`, streamed, failing past MAX_INFLATED_BYTES. */
export async function unpackPack(p: Pick<FetchedPack, "path" | "format">, to: string): Promise<void> {
  const tooBig = () =>
    new PackError(
      `The content pack inflates past ${MAX_INFLATED_BYTES} bytes.`,
      "This is not a LoreKeeper content pack (a full store is about 100 MB).",
    );
  const stages: NodeJS.ReadWriteStream[] = p.format === "gzip" ? [createGunzip()] : [];
  try {
    await pipeline(
      createReadStream(p.path),
      ...stages,
      byteCap(MAX_INFLATED_BYTES, tooBig),
      createWriteStream(to, { mode: 0o600 }),
    );
  } catch (err) {
    rmSync(to, { force: true });
    if (err instanceof PackError) throw err;
    const full = diskFull(err, dirname(to), `the content pack could not be unpacked there`);
    if (full) throw full;
    throw new PackError(
      `The content pack ${p.path} could not be unpacked: ${(err as Error).message}.`,
      "The file is damaged: download it again.",
      { cause: err },
    );
  }
}

/** The unpacked copy of a pack being loaded into the store at `storePath` by process `pid`. */
export function unpackedPath(storePath: string, pid = process.pid): string {
  return `${storePath}.pack-${pid}-${Date.now()}.db`;
}

/**
 * Files an interrupted pack load left beside the store at `storePath`: unpacked copies (with their
 * SQLite companions) and downloads whose process is gone. A load still running keeps its own.
 */
export function packLeftovers(storePath: string): string[] {
  const dir = dirname(storePath);
  const base = basename(storePath);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const f of names) {
    const m = f.startsWith(`${base}.`) ? /^(?:pack|download)-(\d+)-/.exec(f.slice(base.length + 1)) : null;
    if (m && !alive(Number(m[1]))) out.push(join(dir, f));
  }
  return out.sort();
}

/** Remove what packLeftovers finds; returns the files removed. */
export function removePackLeftovers(storePath: string): string[] {
  const gone: string[] = [];
  for (const f of packLeftovers(storePath)) {
    try {
      rmSync(f, { force: true });
      gone.push(f);
    } catch {
      // left for doctor to report
    }
  }
  return gone;
}

/** Gzip `dbPath` to `out` and write `out.sha256` beside it; returns the digest and size. */
export async function writePackFile(dbPath: string, out: string): Promise<{ sha256: string; bytes: number }> {
  await pipeline(createReadStream(dbPath), createGzip({ level: 9 }), createWriteStream(out));
  const sha256 = await fileSha256(out);
  await Bun.write(`${out}.sha256`, `${sha256}  ${basename(out)}\n`);
  return { sha256, bytes: statSync(out).size };
}
