import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ensureExtracted, ExtractError, MARKER } from "../../src/native/extract.ts";
import { extractionFolderName } from "../../src/native/manifest.ts";
import { makeTempDir } from "../support/tmp.ts";
import { defaultFiles, makeBundle, randomBytes } from "./bundle-fixture.ts";

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});
function tmp(): string {
  const t = makeTempDir("lk-extract-");
  cleanups.push(t.cleanup);
  return t.dir;
}

function expectSameFiles(dir: string, srcDir: string, names: string[]): void {
  for (const n of names) expect(Buffer.compare(readFileSync(join(dir, n)), readFileSync(join(srcDir, n)))).toBe(0);
}

describe("ensureExtracted", () => {
  test("unpacks every file once into <root>/<version>-<hash>, then starts warm", async () => {
    const base = tmp();
    const files = defaultFiles();
    const bundle = makeBundle(join(base, "src"), files);
    const root = join(base, "cache");
    const first = await ensureExtracted(bundle, [root]);
    expect(first.dir).toBe(join(root, extractionFolderName(bundle.manifest)));
    expect(first.dir).toMatch(/9\.9\.9-[0-9a-f]{12}$/);
    expect(first.warm).toBe(false);
    expect(first.written.sort()).toEqual(files.map((f) => f.name).sort());
    expectSameFiles(
      first.dir,
      join(base, "src"),
      files.map((f) => f.name),
    );
    expect(existsSync(join(first.dir, MARKER))).toBe(true);

    const second = await ensureExtracted(bundle, [root]);
    expect(second).toMatchObject({ dir: first.dir, warm: true, written: [] });
    // no temp files left behind
    const all = readdirSync(first.dir, { recursive: true }).map(String);
    expect(all.filter((f) => f.includes(".tmp-"))).toEqual([]);
  });

  test("a damaged or deleted unpacked file is detected and replaced", async () => {
    const base = tmp();
    const bundle = makeBundle(join(base, "src"), defaultFiles());
    const root = join(base, "cache");
    const { dir } = await ensureExtracted(bundle, [root]);
    const lib = join(dir, "native/libfake.so.1");
    const bytes = readFileSync(lib);
    bytes[1000] = bytes[1000]! ^ 0xff; // same size, different content
    writeFileSync(lib, bytes);
    utimesSync(lib, new Date(), new Date(Date.now() + 5000));
    rmSync(join(dir, "models/tiny/model.onnx"));
    const again = await ensureExtracted(bundle, [root]);
    expect(again.warm).toBe(false);
    expect(again.written.sort()).toEqual(["models/tiny/model.onnx", "native/libfake.so.1"]);
    expectSameFiles(dir, join(base, "src"), ["native/libfake.so.1", "models/tiny/model.onnx"]);
  });

  test("a different build (other bytes) gets its own folder", async () => {
    const base = tmp();
    const a = makeBundle(join(base, "a"), defaultFiles(1));
    const b = makeBundle(join(base, "b"), defaultFiles(7));
    const root = join(base, "cache");
    const ra = await ensureExtracted(a, [root]);
    const rb = await ensureExtracted(b, [root]);
    expect(ra.dir).not.toBe(rb.dir);
    expect((await ensureExtracted(a, [root])).warm).toBe(true);
  });

  test("embedded bytes that do not match the manifest are refused with a clear error", async () => {
    const base = tmp();
    const bundle = makeBundle(join(base, "src"), defaultFiles());
    writeFileSync(join(base, "src", "native/usearch.node"), randomBytes(70_000, 99));
    const err = await ensureExtracted(bundle, [join(base, "cache")]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExtractError);
    expect((err as ExtractError).message).toContain("native/usearch.node");
    expect((err as ExtractError).hint).toContain("again");
  });

  test("falls back to the next root when the cache folder cannot be created", async () => {
    const base = tmp();
    const bundle = makeBundle(join(base, "src"), defaultFiles());
    const blocker = join(base, "not-a-dir");
    writeFileSync(blocker, "x"); // mkdir below a regular file fails (ENOTDIR), even as root
    const res = await ensureExtracted(bundle, [join(blocker, "cache"), join(base, "fallback")]);
    expect(res.dir.startsWith(join(base, "fallback"))).toBe(true);
    const err = await ensureExtracted(bundle, [join(blocker, "cache")]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExtractError);
    expect((err as ExtractError).hint).toContain("XDG_CACHE_HOME");
  });

  test("several processes starting at once all end up with the same verified files", async () => {
    const base = tmp();
    const files = [
      ...defaultFiles(3),
      { name: "native/big.bin", role: "ort-lib" as const, bytes: randomBytes(4_000_000, 5) },
    ];
    const bundle = makeBundle(join(base, "src"), files);
    const bundleJson = join(base, "bundle.json");
    writeFileSync(bundleJson, JSON.stringify(bundle));
    const root = join(base, "cache");
    const procs = Array.from({ length: 4 }, () =>
      Bun.spawn([process.execPath, join(import.meta.dir, "extract-worker.ts"), bundleJson, root], {
        stdout: "pipe",
        stderr: "pipe",
      }),
    );
    const outs = await Promise.all(
      procs.map(async (p) => ({
        code: await p.exited,
        out: await new Response(p.stdout).text(),
        err: await new Response(p.stderr).text(),
      })),
    );
    for (const o of outs) expect(o).toMatchObject({ code: 0, err: "" });
    const dirs = new Set(outs.map((o) => (JSON.parse(o.out) as { dir: string }).dir));
    expect(dirs.size).toBe(1);
    const dir = [...dirs][0]!;
    expectSameFiles(
      dir,
      join(base, "src"),
      files.map((f) => f.name),
    );
    expect(
      readdirSync(dir, { recursive: true })
        .map(String)
        .filter((f) => f.includes(".tmp-")),
    ).toEqual([]);
    expect((await ensureExtracted(bundle, [root])).warm).toBe(true);
  }, 30_000);
});
