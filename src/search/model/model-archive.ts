/**
 * Unpacking model archives (.zip / .whl, .tar, .tar.gz / .tgz) under one rule: regular files and
 * folders only, each under a relative path that stays inside (no "..", absolute path, drive letter
 * or NUL); a link, device, FIFO, encrypted or unreadable entry refuses the whole archive, naming it.
 *
 * Bounded (docs/architecture.md "Limits"): entries are streamed to disk in small chunks and counted
 * as they come out, so a lying header does not help: `maxEntryBytes` per entry, `maxTotalBytes` in
 * all, `maxEntries`, and `maxRatio` times the compressed size (per zip entry; per .tar.gz) beyond a
 * 1 MiB slack for small, very compressible JSON. A zip's declared sizes are checked before writing.
 */
import { closeSync, createReadStream, mkdirSync, openSync, statSync, writeSync } from "node:fs";
import { dirname, resolve, sep } from "node:path";
import { createGunzip } from "node:zlib";
import { Inflate } from "fflate";

const MiB = 1024 * 1024;
/** ONNX files cannot exceed 2 GiB (protobuf); real model archives compress 1–4×. */
export const ARCHIVE_LIMITS = {
  maxEntryBytes: 2048 * MiB,
  maxTotalBytes: 3072 * MiB,
  maxRatio: 20,
  maxEntries: 10_000,
};
export type ArchiveLimits = typeof ARCHIVE_LIMITS;
const RATIO_SLACK_BYTES = MiB;

export class ArchiveError extends Error {
  override name = "ArchiveError";
}

const fmt = (n: number) => (n >= MiB ? `${(n / MiB).toFixed(0)} MiB` : `${n} bytes`);

function entryPathProblem(name: string): string | undefined {
  if (name.includes("\0")) return "its name holds a NUL character";
  if (/^([\\/]|[A-Za-z]:)/.test(name)) return "an absolute path, outside its folder";
  if (name.split(/[\\/]/).includes("..")) return 'a path leading outside its folder ("..")';
  return undefined;
}

/** Counts bytes written per entry and in all, against the limits. */
class Budget {
  total = 0;
  entries = 0;
  constructor(
    readonly file: string,
    readonly limits: ArchiveLimits,
  ) {}

  entry(name: string): void {
    if (++this.entries > this.limits.maxEntries)
      throw new ArchiveError(
        `${this.file} holds more than ${this.limits.maxEntries} entries; refusing it (a model needs a handful)`,
      );
    const bad = entryPathProblem(name);
    if (bad)
      throw new ArchiveError(
        `${this.file} has an entry "${name}": ${bad}; refusing the archive (model archives hold plain ` +
          `relative paths only)`,
      );
  }

  grow(name: string, entryBytes: number, n: number, compressed?: number): void {
    this.total += n;
    if (entryBytes > this.limits.maxEntryBytes)
      throw new ArchiveError(
        `${this.file}: entry "${name}" inflates to more than ${fmt(this.limits.maxEntryBytes)} (the largest ` +
          `model file accepted); refusing it`,
      );
    if (this.total > this.limits.maxTotalBytes)
      throw new ArchiveError(
        `${this.file} inflates to more than ${fmt(this.limits.maxTotalBytes)} in all; refusing it`,
      );
    if (compressed !== undefined && entryBytes > compressed * this.limits.maxRatio + RATIO_SLACK_BYTES) {
      throw new ArchiveError(
        `${this.file}: entry "${name}" inflates more than ${this.limits.maxRatio}× its compressed size ` +
          `of ${fmt(compressed)} (an archive bomb?); refusing it`,
      );
    }
  }
}

function targetOf(dest: string, name: string): string {
  const root = resolve(dest);
  const target = resolve(root, name);
  if (target !== root && !target.startsWith(root + sep))
    throw new ArchiveError(`entry "${name}" would land outside the folder; refusing it`);
  return target;
}

// ---------------------------------------------------------------- zip

interface ZipEntry {
  name: string;
  method: number;
  flags: number;
  compressed: number;
  size: number;
  localOffset: number;
  kind: "file" | "dir" | "link" | "special";
}

const u16 = (b: Uint8Array, o: number) => b[o]! | (b[o + 1]! << 8);
const u32 = (b: Uint8Array, o: number) => (b[o]! | (b[o + 1]! << 8) | (b[o + 2]! << 16) | (b[o + 3]! << 24)) >>> 0;

/** A byte range of a file (shorter at its end): a zip is read where its directory points, never whole. */
function readAt(file: string, offset: number, length: number): Promise<Uint8Array> {
  return Bun.file(file)
    .slice(offset, offset + length)
    .bytes();
}

const MAX_DIRECTORY_BYTES = 64 * MiB;
const CHUNK = 64 * 1024;

async function zipDirectory(file: string, size: number): Promise<ZipEntry[]> {
  const tailStart = Math.max(0, size - 22 - 65535);
  const tail = await readAt(file, tailStart, size - tailStart);
  let eocd = -1;
  for (let o = tail.length - 22; o >= 0; o--) {
    if (u32(tail, o) === 0x06054b50) {
      eocd = o;
      break;
    }
  }
  if (eocd < 0) throw new ArchiveError(`${file} is not a readable zip/wheel (no central directory)`);
  const count = u16(tail, eocd + 10);
  const cdSize = u32(tail, eocd + 12);
  const cdOffset = u32(tail, eocd + 16);
  if (count === 0xffff || cdOffset === 0xffffffff)
    throw new ArchiveError(`${file} is a ZIP64 archive (over 4 GiB or 65,535 entries); model archives are smaller`);
  if (cdSize > MAX_DIRECTORY_BYTES)
    throw new ArchiveError(`${file} has a ${fmt(cdSize)} central directory; refusing it`);
  const b = await readAt(file, cdOffset, cdSize);
  const out: ZipEntry[] = [];
  let o = 0;
  for (let i = 0; i < count; i++) {
    if (o + 46 > b.length || u32(b, o) !== 0x02014b50)
      throw new ArchiveError(`${file} is not a readable zip/wheel (damaged central directory)`);
    const nameLen = u16(b, o + 28);
    const name = new TextDecoder().decode(b.subarray(o + 46, o + 46 + nameLen));
    const host = b[o + 5]!;
    const mode = (u32(b, o + 38) >>> 16) & 0o170000;
    const isDir = name.endsWith("/");
    let kind: ZipEntry["kind"] = isDir ? "dir" : "file";
    if (host === 3 && mode === 0o120000) kind = "link";
    else if (host === 3 && mode !== 0 && mode !== 0o100000 && mode !== 0o040000) kind = "special";
    out.push({
      name,
      flags: u16(b, o + 8),
      method: u16(b, o + 10),
      compressed: u32(b, o + 20),
      size: u32(b, o + 24),
      localOffset: u32(b, o + 42),
      kind,
    });
    o += 46 + nameLen + u16(b, o + 30) + u16(b, o + 32);
  }
  return out;
}

function writeChunked(fd: number, data: Uint8Array): void {
  for (let off = 0; off < data.length; ) off += writeSync(fd, data, off, data.length - off);
}

async function extractZip(file: string, dest: string, limits: ArchiveLimits): Promise<void> {
  const size = statSync(file).size;
  if (size > limits.maxTotalBytes)
    throw new ArchiveError(
      `${file} is ${fmt(size)}, more than the ${fmt(limits.maxTotalBytes)} a model archive may be`,
    );
  const entries = await zipDirectory(file, size);
  const budget = new Budget(file, limits);
  // Declared sizes first: a bomb that says what it is costs nothing.
  const declaredBudget = new Budget(file, limits);
  for (const e of entries) {
    budget.entry(e.name);
    if (e.kind === "link")
      throw new ArchiveError(
        `${file} has a symbolic link entry "${e.name}"; refusing the archive (model archives hold regular ` +
          `files only)`,
      );
    if (e.kind === "special")
      throw new ArchiveError(
        `${file} has an entry "${e.name}" that is not a regular file or folder; refusing the archive`,
      );
    if (e.kind === "dir") continue;
    if (e.flags & 1) throw new ArchiveError(`${file} has an encrypted entry "${e.name}"; refusing the archive`);
    if (e.method !== 0 && e.method !== 8)
      throw new ArchiveError(
        `${file}: entry "${e.name}" uses compression method ${e.method} (only stored and deflate are read)`,
      );
    declaredBudget.grow(e.name, e.size, e.size, e.method === 8 ? e.compressed : undefined);
  }
  for (const e of entries) {
    const target = targetOf(dest, e.name);
    if (e.kind === "dir") {
      mkdirSync(target, { recursive: true });
      continue;
    }
    const h = await readAt(file, e.localOffset, 30);
    if (h.length < 30 || u32(h, 0) !== 0x04034b50)
      throw new ArchiveError(`${file} is not a readable zip/wheel (entry "${e.name}" is damaged)`);
    const start = e.localOffset + 30 + u16(h, 26) + u16(h, 28);
    if (start + e.compressed > size)
      throw new ArchiveError(`${file} is not a readable zip/wheel (entry "${e.name}" is cut short)`);
    mkdirSync(dirname(target), { recursive: true });
    const fd = openSync(target, "w");
    let written = 0;
    try {
      const put = (chunk: Uint8Array) => {
        written += chunk.length;
        budget.grow(e.name, written, chunk.length, e.method === 8 ? e.compressed : undefined);
        writeChunked(fd, chunk);
      };
      const inflate = e.method === 8 ? new Inflate((chunk) => put(chunk)) : undefined;
      for (let off = 0; off < e.compressed; off += CHUNK) {
        const data = await readAt(file, start + off, Math.min(CHUNK, e.compressed - off));
        if (inflate) inflate.push(data, off + CHUNK >= e.compressed);
        else put(data);
      }
      if (inflate && e.compressed === 0) inflate.push(new Uint8Array(0), true);
    } catch (err) {
      if (err instanceof ArchiveError) throw err;
      throw new ArchiveError(`${file} is not a readable zip/wheel (entry "${e.name}": ${(err as Error).message})`);
    } finally {
      closeSync(fd);
    }
    if (written !== e.size)
      throw new ArchiveError(
        `${file}: entry "${e.name}" holds ${written} bytes, its header says ${e.size}; refusing the archive`,
      );
  }
}

// ---------------------------------------------------------------- tar

/** Reads exact byte counts from a stream of chunks, telling `counted` each chunk's size as it is taken. */
class ByteReader {
  private buf: Uint8Array = new Uint8Array(0);
  private readonly it: AsyncIterator<Uint8Array>;
  constructor(
    source: AsyncIterable<Uint8Array>,
    private readonly counted: (n: number) => void,
  ) {
    this.it = source[Symbol.asyncIterator]();
  }

  /** Exactly n bytes, or undefined at the end of the stream. */
  async read(n: number): Promise<Uint8Array | undefined> {
    const parts: Uint8Array[] = [];
    return (await this.pipe(n, (c) => parts.push(c))) ? Buffer.concat(parts) : undefined;
  }

  /** n bytes handed over chunk by chunk (never all at once); false when the stream ends first. */
  async pipe(n: number, onChunk: (c: Uint8Array) => void): Promise<boolean> {
    for (let left = n; left > 0; ) {
      if (this.buf.length === 0) {
        const r = await this.it.next();
        if (r.done) return false;
        this.buf = r.value;
      }
      const take = this.buf.subarray(0, Math.min(left, this.buf.length));
      this.buf = this.buf.subarray(take.length);
      left -= take.length;
      this.counted(take.length);
      onChunk(take);
    }
    return true;
  }
}

const text = (b: Uint8Array) => {
  const end = b.indexOf(0);
  return new TextDecoder().decode(end < 0 ? b : b.subarray(0, end));
};

function octal(file: string, b: Uint8Array): number {
  if (b[0]! & 0x80) throw new ArchiveError(`${file} has an entry too large for a model archive (base-256 size)`);
  const s = text(b).trim();
  const n = s === "" ? 0 : Number.parseInt(s, 8);
  if (!Number.isFinite(n) || n < 0)
    throw new ArchiveError(`${file} is not a readable tar archive (bad size field "${s}")`);
  return n;
}

function paxRecords(b: Uint8Array): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of new TextDecoder().decode(b).split("\n")) {
    const m = /^\d+ ([^=]+)=(.*)$/s.exec(line);
    if (m) out.set(m[1]!, m[2]!);
  }
  return out;
}

const TAR_KIND: Record<string, string> = {
  "1": "a hard link",
  "2": "a symbolic link",
  "3": "a character device",
  "4": "a block device",
  "6": "a FIFO",
};
const META_MAX = MiB;

async function extractTar(file: string, dest: string, limits: ArchiveLimits, gzip: boolean): Promise<void> {
  const compressed = statSync(file).size;
  const raw = createReadStream(file);
  const source = gzip ? raw.pipe(createGunzip()) : raw;
  const budget = new Budget(file, limits);
  let inflated = 0;
  const ratio = (n: number) => {
    inflated += n;
    if (gzip && inflated > compressed * limits.maxRatio + RATIO_SLACK_BYTES) {
      throw new ArchiveError(
        `${file} inflates more than ${limits.maxRatio}× its compressed size of ${fmt(compressed)} (an ` +
          `archive bomb?); refusing it`,
      );
    }
  };
  const reader = new ByteReader(source as AsyncIterable<Uint8Array>, ratio);
  let longName: string | undefined;
  let pax = new Map<string, string>();
  try {
    for (;;) {
      const h = await reader.read(512);
      if (!h) throw new ArchiveError(`${file} is not a readable tar archive (it ends without its end marker)`);
      if (h.every((x) => x === 0)) break;
      let sum = 0;
      for (let i = 0; i < 512; i++) sum += i >= 148 && i < 156 ? 32 : h[i]!;
      if (sum !== octal(file, h.subarray(148, 156)))
        throw new ArchiveError(`${file} is not a readable tar archive (header checksum mismatch)`);
      const type = String.fromCharCode(h[156]!) || "0";
      const size = octal(file, h.subarray(124, 136));
      const padded = Math.ceil(size / 512) * 512;
      if (type === "x" || type === "g" || type === "L" || type === "K") {
        if (size > META_MAX) throw new ArchiveError(`${file} has a ${size}-byte extended header; refusing it`);
        const body = await reader.read(padded);
        if (!body) throw new ArchiveError(`${file} is not a readable tar archive (cut short)`);
        if (type === "x") pax = paxRecords(body.subarray(0, size));
        if (type === "L") longName = text(body.subarray(0, size));
        continue;
      }
      const prefix = text(h.subarray(345, 500));
      const name =
        pax.get("path") ??
        longName ??
        (prefix && text(h.subarray(257, 263)).startsWith("ustar")
          ? `${prefix}/${text(h.subarray(0, 100))}`
          : text(h.subarray(0, 100)));
      const linkTo = pax.get("linkpath") ?? text(h.subarray(157, 257));
      longName = undefined;
      pax = new Map();
      budget.entry(name);
      const kind = TAR_KIND[type];
      if (kind)
        throw new ArchiveError(
          `${file} has ${kind} entry ` +
            `"${name}"${linkTo && (type === "1" || type === "2") ? ` (to ${linkTo})` : ""}; refusing the ` +
            `archive (model archives hold regular files only)`,
        );
      const target = targetOf(dest, name);
      if (type === "5") {
        mkdirSync(target, { recursive: true });
        if (size) await reader.pipe(padded, () => {});
        continue;
      }
      if (type !== "0" && type !== "7" && type !== "\0")
        throw new ArchiveError(
          `${file} has an entry "${name}" of tar type "${type}", not a regular file or folder; refusing the archive`,
        );
      budget.grow(name, size, 0);
      mkdirSync(dirname(target), { recursive: true });
      const fd = openSync(target, "w");
      let written = 0;
      try {
        const ok = await reader.pipe(padded, (c) => {
          const keep = c.subarray(0, Math.max(0, Math.min(c.length, size - written)));
          written += keep.length;
          budget.grow(name, written, keep.length);
          writeChunked(fd, keep);
        });
        if (!ok) throw new ArchiveError(`${file} is not a readable tar archive (entry "${name}" is cut short)`);
      } finally {
        closeSync(fd);
      }
    }
  } catch (err) {
    if (err instanceof ArchiveError) throw err;
    throw new ArchiveError(`${file} is not a readable tar archive (${(err as Error).message})`);
  } finally {
    raw.destroy();
  }
}

/** The archive types `model install` reads, by file name. */
export function archiveType(path: string): "zip" | "tar" | "tar.gz" | undefined {
  const lower = path.toLowerCase();
  if (lower.endsWith(".whl") || lower.endsWith(".zip")) return "zip";
  if (lower.endsWith(".tar.gz") || lower.endsWith(".tgz")) return "tar.gz";
  if (lower.endsWith(".tar")) return "tar";
  return undefined;
}

/** Unpack `file` into `dest` under the rule and limits above; throws ArchiveError saying why not. */
export async function extractArchive(
  file: string,
  dest: string,
  limits: ArchiveLimits = ARCHIVE_LIMITS,
): Promise<void> {
  const type = archiveType(file);
  if (type === "zip") await extractZip(file, dest, limits);
  else if (type) await extractTar(file, dest, limits, type === "tar.gz");
  else throw new ArchiveError(`${file} is not an archive LoreKeeper reads (.tar.gz, .tgz, .tar, .zip, .whl)`);
}
