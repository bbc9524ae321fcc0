/**
 * The linux-arm64 binary, run for real on an x64 machine through qemu-user: built with the tests'
 * tiny model and tiny content pack, moved alone into an empty folder, started with a fresh HOME /
 * XDG dirs, `env -i` and (where `unshare` works) no network, and asked a question that only
 * semantic ranking answers. Skipped, with the reason, where qemu-aarch64-static, the arm64 C and
 * C++ runtimes (Debian: dpkg multiarch libc6:arm64 libstdc++6:arm64, see docs/install.md) or Bun's
 * linux-arm64 runtime (cached by one cross-compile; the test never downloads it) are missing.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, renameSync } from "node:fs";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { upstreamEnvAt } from "../../src/sources/index.ts";
import { createTinyModel } from "../support/tiny-model.ts";
import { makeTempDir } from "../support/tmp.ts";
import { makePackStore, PACK_QUERY } from "./pack-fixture.ts";

const ROOT = resolve(import.meta.dir, "../..");
const QEMU = Bun.which("qemu-aarch64-static") ?? Bun.which("qemu-aarch64");
const ARM64_LIBS = ["/lib/ld-linux-aarch64.so.1", "/usr/lib/aarch64-linux-gnu/libstdc++.so.6"];
const BUN_CACHE =
  process.env.BUN_INSTALL_CACHE_DIR ?? join(process.env.BUN_INSTALL ?? join(homedir(), ".bun"), "install", "cache");
const ARM64_RUNTIME = join(BUN_CACHE, `bun-linux-aarch64-v${Bun.version}`);

function skipReason(): string | undefined {
  if (process.platform !== "linux" || process.arch !== "x64")
    return `runs on linux-x64 hosts (this is ${process.platform}-${process.arch})`;
  if (!QEMU) return "qemu-aarch64-static is not installed (Debian: apt-get install qemu-user-static)";
  const missing = ARM64_LIBS.filter((p) => !existsSync(p));
  if (missing.length)
    return (
      `the arm64 C/C++ runtime is missing (${missing.join(", ")}; Debian: dpkg ` +
      `--add-architecture arm64 && apt-get install libc6:arm64 libstdc++6:arm64)`
    );
  if (!existsSync(ARM64_RUNTIME))
    return (
      `Bun's linux-arm64 runtime is not cached (${ARM64_RUNTIME}); ` +
      `cross-compile once with network: bun run build -- --target linux-arm64`
    );
  return undefined;
}

const reason = skipReason();
if (reason) process.stderr.write(`[arm64 test] skipped: ${reason}\n`);
const offline = Bun.spawnSync(["unshare", "-rn", "true"], { stderr: "pipe" }).exitCode === 0;
const noNet = offline ? ["unshare", "-rn"] : [];

const tmp = makeTempDir("lk-arm64-");
afterAll(() => tmp.cleanup());

describe.skipIf(reason !== undefined)("linux-arm64 binary under qemu-user", () => {
  test("built with the model and a pack, it starts from an empty folder offline, answers in hybrid mode", async () => {
    const dir = tmp.dir;
    const modelDir = await createTinyModel(join(dir, "src", "lorekeeper-tiny"));
    const pack = await makePackStore(join(dir, "src", "pack.db"), modelDir);
    const built = join(dir, "build", "lorekeeper-linux-arm64");
    // The build itself must not need the network either (Bun's arm64 runtime comes from its cache).
    const b = Bun.spawn(
      [
        ...noNet,
        process.execPath,
        join(ROOT, "build.ts"),
        "--target",
        "linux-arm64",
        "--model",
        modelDir,
        "--content",
        pack.path,
        "--outfile",
        built,
        "--outdir",
        join(dir, "build"),
      ],
      {
        cwd: ROOT,
        stdout: "pipe",
        stderr: "pipe",
      },
    );
    const [code, err] = await Promise.all([b.exited, new Response(b.stderr).text()]);
    if (code !== 0) throw new Error(`bun build.ts --target linux-arm64 failed (${code}):\n${err}`);

    const runDir = join(dir, "run");
    mkdirSync(runDir);
    const bin = join(runDir, "lorekeeper");
    renameSync(built, bin);
    for (const d of ["home", "xdg/cache", "xdg/data", "xdg/config", "tmp"])
      mkdirSync(join(dir, d), { recursive: true });
    const env = [
      `HOME=${join(dir, "home")}`,
      `XDG_CACHE_HOME=${join(dir, "xdg/cache")}`,
      `XDG_DATA_HOME=${join(dir, "xdg/data")}`,
      `XDG_CONFIG_HOME=${join(dir, "xdg/config")}`,
      `TMPDIR=${join(dir, "tmp")}`,
      "PATH=/nonexistent",
      ...Object.entries(upstreamEnvAt("http://127.0.0.1:9")).map(([k, v]) => `${k}=${v}`),
    ];
    const run = async (args: string[]) => {
      const p = Bun.spawn([...noNet, "env", "-i", ...env, QEMU!, bin, ...args], {
        cwd: runDir,
        stdout: "pipe",
        stderr: "pipe",
        env: {},
      });
      const [c, out, e] = await Promise.all([p.exited, new Response(p.stdout).text(), new Response(p.stderr).text()]);
      return { code: c, out, err: e };
    };

    const version = await run(["--version"]);
    expect(version.code).toBe(0);
    expect(version.out).toContain("target linux-arm64");
    expect(version.out).toContain("embedded model: lorekeeper-tiny");

    const r = await run(["search", PACK_QUERY, "--type", "spell", "--json"]);
    if (r.code !== 0) throw new Error(`search under qemu failed (${r.code}):\n${r.err}`);
    const answer = JSON.parse(r.out) as { mode: string; results: { name: string }[] };
    expect(answer.mode).toBe("hybrid");
    expect(answer.results[0]?.name).toBe("Fireball");
  }, 300_000);
});
