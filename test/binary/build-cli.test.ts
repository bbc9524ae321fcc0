/**
 * build.ts refusals (nothing is compiled here: each case stops before Bun.build) and the loader
 * rewrites it applies to the real node_modules files.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { REWRITES } from "../../src/native/build-plugin.ts";
import { nativePath, nativeSpecs } from "../../src/native/targets.ts";
import { TARGETS } from "../../src/native/manifest.ts";
import { createTinyModel } from "../support/tiny-model.ts";
import { makeTempDir } from "../support/tmp.ts";
import { makePackStore } from "./pack-fixture.ts";

const ROOT = resolve(import.meta.dir, "../..");
const tmp = makeTempDir("lk-build-cli-");
afterAll(() => tmp.cleanup());

async function build(args: string[]): Promise<{ code: number; err: string }> {
  const p = Bun.spawn([process.execPath, join(ROOT, "build.ts"), "--outdir", join(tmp.dir, "dist"), ...args], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [code, err] = await Promise.all([p.exited, new Response(p.stderr).text()]);
  return { code, err };
}

describe("build.ts refuses what would not work", () => {
  test("no model: a clear error naming the options, and no binary", async () => {
    const r = await build(["--model", join(tmp.dir, "no-such-model")]);
    expect(r.code).not.toBe(0);
    expect(r.err).toContain("does not exist");
    expect(r.err).toContain("--model");
    expect(existsSync(join(tmp.dir, "dist", "lorekeeper-linux-x64"))).toBe(false);
  });

  test("an incomplete model folder lists what is missing", async () => {
    const dir = await createTinyModel(join(tmp.dir, "broken-model"));
    Bun.spawnSync(["rm", join(dir, "tokenizer.json"), join(dir, "model.onnx")]);
    const r = await build(["--model", dir]);
    expect(r.code).not.toBe(0);
    expect(r.err).toContain("tokenizer.json");
    expect(r.err).toContain("ONNX");
  }, 30_000);

  test("unknown target and --outfile with several targets are usage errors", async () => {
    expect((await build(["--target", "plan9-x64", "--no-semantic"])).err).toContain('Unknown target "plan9-x64"');
    expect((await build(["--target", "all", "--outfile", "x", "--no-semantic"])).err).toContain(
      "--outfile works with one target only",
    );
  });

  test("a content pack embedded with another model is refused, naming both model ids", async () => {
    const modelA = await createTinyModel(join(tmp.dir, "pack-model", "lorekeeper-tiny"), { seed: 1 });
    const modelB = await createTinyModel(join(tmp.dir, "other-model", "lorekeeper-tiny"), { seed: 2 });
    const pack = await makePackStore(join(tmp.dir, "pack.db"), modelA);
    const r = await build(["--model", modelB, "--content", pack.path]);
    expect(r.code).not.toBe(0);
    expect(r.err).toContain(pack.modelId);
    expect(r.err).toContain("but the embedded model is custom:lorekeeper-tiny@");
    expect(r.err).toContain("lorekeeper sync");
  });
});

describe("native plan and loader rewrites", () => {
  test("every target has onnxruntime and usearch, and no native tokenizer (it is pure JS)", () => {
    for (const t of TARGETS) {
      const specs = nativeSpecs(t);
      const roles = specs.map((s) => s.role);
      expect(roles).toContain("ort-lib");
      expect(roles).toContain("ort-binding");
      expect(roles).toContain("usearch");
      expect(specs.some((s) => /tokenizers/.test(s.pkg))).toBe(false);
    }
    // every native lands in one folder, so the binding finds libonnxruntime beside itself
    expect(nativePath("libonnxruntime.so.1")).toBe("native/libonnxruntime.so.1");
  });

  test("each rewrite matches the installed package and removes node_modules lookups", () => {
    const files: Record<string, string> = {
      "onnxruntime-node binding": "node_modules/onnxruntime-node/dist/binding.js",
      "usearch loader": "node_modules/usearch/javascript/dist/esm/usearch.js",
    };
    for (const r of REWRITES) {
      const rel = files[r.name]!;
      const path = join(ROOT, rel);
      expect(r.filter.test(path)).toBe(true);
      const out = r.apply(readFileSync(path, "utf8"));
      expect(out).toBeDefined();
      expect(out!).toContain("__lorekeeperNative.load(");
      expect(out!).not.toMatch(/require\([^)]*\.node/);
      expect(out!).not.toContain("getBuildDir(getDirName())");
    }
    const cjs = join(ROOT, "node_modules/usearch/javascript/dist/cjs/usearch.js");
    expect(REWRITES.find((r) => r.name === "usearch loader")!.apply(readFileSync(cjs, "utf8"))).toContain(
      '__lorekeeperNative.load("usearch")',
    );
    // a changed loader is caught, not silently left in place
    for (const r of REWRITES) expect(r.apply("module.exports = {}")).toBeUndefined();
  });
});
