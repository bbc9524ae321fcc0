/**
 * Content pack files: a LoreKeeper store (entities, documents and the vectors of one model),
 * gzip-compressed, with a `sha256sum`-style checksum file beside it. `build.ts` writes one beside
 * the binaries (`lorekeeper-content.db.gz` + `.sha256`); `lorekeeper sync --pack FILE|URL` and
 * `lorekeeper import FILE` load it (see pack-load.ts), so an install from source, a container or a
 * homelab mirror never has to embed the corpus itself.
 *
 * This file only moves bytes: fetch (file or http(s) URL, streamed to disk with a size cap),
 * checksum, gunzip (streamed, with a cap on the inflated size) and write.
 */
import { createReadStream, createWriteStream, existsSync, openSync, readSync, closeSync, readFileSync, rmSync, statSync } from "node:fs";
import { pipeline } from "node:stream/promises";
import { Readable, Transform } from "node:stream";
import { createGunzip, createGzip } from "node:zlib";
import { basename } from "node:path";
import { LoreKeeperError } from "../errors.ts";

/** A pack that cannot be used, with what to do about it. */
export class PackError extends LoreKeeperError {
  constructor(message: string, hint: string, options?: { cause?: unknown }) {
    super("pack", message, hint, options);
  }
}

/** The file name build.ts gives the pack. */
export const PACK_FILE = "lorekeeper-content.db.gz";

/** Caps: compressed download and inflated database (a full corpus store is ~100 MB). */
export const PACK_LIMITS = { maxDownloadBytes: 1024 * 1024 * 1024, maxInflatedBytes: 2 * 1024 * 1024 * 1024 };

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

export function isUrl(src: string): boolean {
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

async function fileSha256(path: string): Promise<string> {
  const h = new Bun.CryptoHasher("sha256");
  for await (const chunk of createReadStream(path)) h.update(chunk as Buffer);
  return h.digest("hex");
}

/** The hex digest in a `sha256sum` line ("<hex>  <name>") or a bare digest. */
export function parseChecksum(text: string): string | undefined {
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

async function download(url: string, to: string, max: number): Promise<void> {
  let res: Response;
  try {
    res = await fetch(url, { redirect: "follow", signal: AbortSignal.timeout(10 * 60_000) });
  } catch (err) {
    throw new PackError(`Cannot download the content pack from ${url}: ${(err as Error).message}.`, "Check the address and the network, or download the file by other means and pass its path.", { cause: err });
  }
  if (!res.ok || !res.body) throw new PackError(`Cannot download the content pack from ${url}: HTTP ${res.status}.`, "Check the address (a release asset named lorekeeper-content.db.gz).");
  const declared = Number(res.headers.get("content-length") ?? "0");
  if (declared > max) throw new PackError(`The content pack at ${url} is ${declared} bytes, over the ${max}-byte limit.`, "This is not a LoreKeeper content pack; check the address.");
  const tooBig = () => new PackError(`The content pack at ${url} is over the ${max}-byte limit.`, "This is not a LoreKeeper content pack; check the address.");
  await pipeline(Readable.fromWeb(res.body as import("node:stream/web").ReadableStream), byteCap(max, tooBig), createWriteStream(to, { mode: 0o600 }));
}

async function checksumBeside(src: string): Promise<string | undefined> {
  const where = `${src}.sha256`;
  if (isUrl(src)) {
    try {
      const res = await fetch(where, { signal: AbortSignal.timeout(30_000) });
      if (!res.ok) return undefined;
      return parseChecksum((await res.text()).slice(0, 4096));
    } catch {
      return undefined;
    }
  }
  if (!existsSync(where)) return undefined;
  return parseChecksum(readFileSync(where, "utf8").slice(0, 4096));
}

/**
 * Bring the pack at `src` (path or URL) to a local file in `workDir` and check its checksum against
 * `expected` (from --sha256) or the `.sha256` file beside it. A mismatch is refused.
 */
export async function fetchPack(src: string, workDir: string, opts: { expected?: string; maxBytes?: number } = {}): Promise<FetchedPack> {
  const max = opts.maxBytes ?? PACK_LIMITS.maxDownloadBytes;
  let path = src;
  let cleanup = () => {};
  if (isUrl(src)) {
    path = `${workDir}/download-${process.pid}-${basename(new URL(src).pathname) || "pack"}`;
    cleanup = () => rmSync(path, { force: true });
    try {
      await download(src, path, max);
    } catch (err) {
      cleanup();
      throw err;
    }
  } else {
    if (!existsSync(src)) throw new PackError(`The content pack ${src} does not exist.`, "Pass the path of lorekeeper-content.db.gz (a release asset, or written by `bun run build -- --content DB`).");
    const st = statSync(src);
    if (!st.isFile()) throw new PackError(`The content pack ${src} is not a regular file.`, "Pass the path of lorekeeper-content.db.gz.");
    if (st.size > max) throw new PackError(`The content pack ${src} is ${st.size} bytes, over the ${max}-byte limit.`, "This is not a LoreKeeper content pack.");
  }
  try {
    const format = sniffPack(path);
    if (!format) throw new PackError(`${src} is not a LoreKeeper content pack (neither gzip nor SQLite).`, "Pass lorekeeper-content.db.gz from a release, or a store written by `lorekeeper sync`.");
    const sha256 = await fileSha256(path);
    const flag = opts.expected ? parseChecksum(opts.expected) : undefined;
    if (opts.expected && !flag) throw new PackError(`--sha256 "${opts.expected.slice(0, 80)}" is not a SHA-256 digest.`, "Pass the 64 hexadecimal digits from the .sha256 file published with the pack.");
    const expected = flag ?? (await checksumBeside(src));
    if (expected && expected !== sha256) {
      throw new PackError(
        `The content pack ${src} does not match its checksum (expected ${expected}, got ${sha256}).`,
        "The file is damaged or not the one published: download it again (with its .sha256) and retry.",
      );
    }
    return { path, format, sha256, checkedAgainst: flag ? "flag" : expected ? "file" : "none", cleanup };
  } catch (err) {
    cleanup();
    throw err;
  }
}

/** Inflate (or copy) the pack to `to`, streamed, failing past `maxBytes`. */
export async function unpackPack(p: Pick<FetchedPack, "path" | "format">, to: string, maxBytes = PACK_LIMITS.maxInflatedBytes): Promise<void> {
  const tooBig = () => new PackError(`The content pack inflates past ${maxBytes} bytes.`, "This is not a LoreKeeper content pack (a full store is about 100 MB).");
  const stages: NodeJS.ReadWriteStream[] = p.format === "gzip" ? [createGunzip()] : [];
  try {
    await pipeline(createReadStream(p.path), ...stages, byteCap(maxBytes, tooBig), createWriteStream(to, { mode: 0o600 }));
  } catch (err) {
    rmSync(to, { force: true });
    if (err instanceof PackError) throw err;
    throw new PackError(`The content pack ${p.path} could not be unpacked: ${(err as Error).message}.`, "The file is damaged: download it again.", { cause: err });
  }
}

/** Gzip `dbPath` to `out` and write `out.sha256` beside it; returns the digest and size. */
export async function writePackFile(dbPath: string, out: string): Promise<{ sha256: string; bytes: number }> {
  await pipeline(createReadStream(dbPath), createGzip({ level: 9 }), createWriteStream(out));
  const sha256 = await fileSha256(out);
  await Bun.write(`${out}.sha256`, `${sha256}  ${basename(out)}\n`);
  return { sha256, bytes: statSync(out).size };
}
