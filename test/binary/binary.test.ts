/**
 * The compiled binary, end to end: ONE build per run (`bun build.ts` with the tests' tiny model and a
 * tiny content pack), moved alone into an empty folder and run with a fresh HOME / XDG dirs, a
 * minimal environment and PATH, and — where `unshare` allows — the repo's node_modules and the model
 * source hidden, the binary's folder read-only, and no network at all. Checks `--version`, `doctor`, and MCP
 * initialize, tools/list
 * and a semantic search over stdio.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { existsSync, mkdirSync, renameSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { hostTarget } from "../../src/native/manifest.ts";
import { upstreamEnvAt } from "../../src/sources/index.ts";
import { makeTempDir } from "../support/tmp.ts";
import { makePackStore, PACK_QUERY } from "./pack-fixture.ts";
import { createTinyModel } from "../support/tiny-model.ts";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { TOOL_NAMES } from "../support/mcp.ts";
import { TOOL_CASES } from "../support/tool-calls.ts";
import { connectV2Http, connectV2Stdio } from "../support/v2-client.ts";

const ROOT = resolve(import.meta.dir, "../..");
const host = hostTarget();

interface Ctx {
  dir: string;
  bin: string;
  env: Record<string, string>;
  packEntities: number;
  modelId: string;
  isolation: string[];
  fake: ReturnType<typeof Bun.serve>;
  cleanup: () => void;
}
let ctx: Ctx | undefined;

/**
 * `unshare` wrapper: private mounts (node_modules + model source hidden, the binary's folder
 * read-only) and, unless `network`, no network at all. [] when unshare is unavailable here.
 */
function isolationPrefix(hide: string[], network: boolean): string[] {
  const probe = Bun.spawnSync(["unshare", "-rm", ...(network ? [] : ["-n"]), "true"], { stderr: "pipe" });
  if (probe.exitCode !== 0) return [];
  const empty = join(dirname(ctx!.dir), "empty");
  mkdirSync(empty, { recursive: true });
  const mounts = hide.filter(existsSync).map((p) => `mount --bind '${empty}' '${p}'`);
  mounts.push(`mount --bind '${ctx!.dir}' '${ctx!.dir}'`, `mount -o remount,ro,bind '${ctx!.dir}'`);
  return ["unshare", "-rm", ...(network ? [] : ["-n"]), "sh", "-c", `${[...mounts, 'exec "$0" "$@"'].join(" && ")}`];
}

function envArgs(env: Record<string, string>): string[] {
  return ["env", "-i", ...Object.entries(env).map(([k, v]) => `${k}=${v}`)];
}

async function run(
  args: string[],
  opts: { network?: boolean; extraEnv?: Record<string, string> } = {},
): Promise<{ code: number; out: string; err: string; ms: number }> {
  const c = ctx!;
  const prefix = opts.network ? isolationPrefix(c.isolation, true) : isolationPrefix(c.isolation, false);
  const t0 = performance.now();
  const p = Bun.spawn([...prefix, ...envArgs({ ...c.env, ...opts.extraEnv }), c.bin, ...args], {
    cwd: c.dir,
    stdout: "pipe",
    stderr: "pipe",
    env: {},
  });
  const [code, out, err] = await Promise.all([p.exited, new Response(p.stdout).text(), new Response(p.stderr).text()]);
  return { code, out, err, ms: performance.now() - t0 };
}

beforeAll(async () => {
  if (!host) return;
  const tmp = makeTempDir("lk-binary-");
  const dir = tmp.dir;
  const modelDir = await createTinyModel(join(dir, "src", "lorekeeper-tiny"));
  const pack = await makePackStore(join(dir, "src", "pack.db"), modelDir);
  const built = join(dir, "build", "lorekeeper");
  const t0 = performance.now();
  const b = Bun.spawn(
    [
      process.execPath,
      join(ROOT, "build.ts"),
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
  if (code !== 0) throw new Error(`bun build.ts failed (${code}):\n${err}`);
  process.stderr.write(
    `[binary test] built in ${((performance.now() - t0) / 1000).toFixed(1)} ` +
      `s, ${(statSync(built).size / 1048576).toFixed(1)} MB\n`,
  );
  // The binary alone, in an empty folder; everything it writes goes to fresh XDG dirs.
  const runDir = join(dir, "run");
  mkdirSync(runDir);
  const bin = join(runDir, "lorekeeper");
  renameSync(built, bin);
  const fake = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => Response.json({ ok: true }) });
  const home = join(dir, "home");
  for (const d of ["home", "xdg/cache", "xdg/data", "xdg/config", "tmp", "bin-empty"])
    mkdirSync(join(dir, d), { recursive: true });
  ctx = {
    dir: runDir,
    bin,
    env: {
      HOME: home,
      XDG_CACHE_HOME: join(dir, "xdg/cache"),
      XDG_DATA_HOME: join(dir, "xdg/data"),
      XDG_CONFIG_HOME: join(dir, "xdg/config"),
      TMPDIR: join(dir, "tmp"),
      PATH: join(dir, "bin-empty"),
      // Every upstream on a closed port but Open5e's, which the fake answers.
      ...upstreamEnvAt("http://127.0.0.1:9"),
      LOREKEEPER_OPEN5E_BASE_URL: `http://127.0.0.1:${fake.port}`,
    },
    packEntities: pack.entities,
    modelId: pack.modelId,
    isolation: [join(ROOT, "node_modules"), dirname(modelDir), dirname(built)],
    fake,
    cleanup: () => {
      void fake.stop(true);
      tmp.cleanup();
    },
  };
  if (isolationPrefix(ctx.isolation, false).length === 0)
    process.stderr.write("[binary test] unshare is not available: running without network/mount isolation\n");
  // no node_modules anywhere above the run folder
  for (let d = runDir; d !== dirname(d); d = dirname(d)) expect(existsSync(join(d, "node_modules"))).toBe(false);
}, 180_000);

afterAll(() => ctx?.cleanup());

describe.skipIf(!host)(
  `compiled binary (${host ?? `no Bun compile target for ${process.platform}-${process.arch}`})`,
  () => {
    test("--version names the build, the embedded model and the content pack", async () => {
      const r = await run(["--version"]);
      expect(r.err).toBe("");
      expect(r.code).toBe(0);
      expect(r.out).toContain("lorekeeper 0.1.0");
      expect(r.out).toContain(`target ${host}`);
      expect(r.out).toContain("embedded model: lorekeeper-tiny");
      expect(r.out).toContain(`embedded content pack: ${ctx!.packEntities} entities`);
    });

    test("doctor: everything essential OK, the content pack installed, upstreams reported", async () => {
      // with network (the fake Open5e on 127.0.0.1 answers, the D&D 5e API port is closed)
      const r = await run(["doctor", "--json", "--timeout", "2000"], { network: true });
      expect(r.code).toBe(0);
      const report = JSON.parse(r.out) as {
        ok: boolean;
        checks: { name: string; status: string; summary: string; details?: Record<string, unknown> }[];
      };
      const by = (n: string) => report.checks.find((c) => c.name === n)!;
      expect(report.ok).toBe(true);
      expect(by("store").status).toBe("ok");
      expect(by("store").details?.entities).toBe(ctx!.packEntities);
      expect(by("model").status).toBe("ok");
      expect(by("model").details?.id).toBe(ctx!.modelId);
      expect(by("unpacked files").status).toBe("ok");
      expect(by("native libraries").status).toBe("ok");
      expect(by("native libraries").summary).toBe("onnxruntime loaded, usearch loaded");
      expect(by("upstream open5e_v2").status).toBe("ok");
      expect(by("upstream open5e_v1").status).toBe("ok");
      expect(by("upstream dnd5e_api").status).toBe("warn");
      expect(String(by("binary").details?.extraction_dir)).toStartWith(ctx!.env.XDG_CACHE_HOME!);
    }, 30_000);

    test("doctor warns with a fix when there is no store yet (a fresh install is not a failure)", async () => {
      const r = await run(["doctor", "--offline", "--db-path", join(ctx!.dir, "..", "xdg", "nothing.db")], {
        extraEnv: { LOREKEEPER_NO_CONTENT_PACK: "1" },
      });
      expect(r.code).toBe(0);
      expect(r.out).toMatch(/WARN\s+store\s+no store yet/);
      expect(r.out).toContain("fix: ");
      expect(r.out).toMatch(/OK\s+model/);
    }, 30_000);

    test("MCP over stdio: initialize, tools/list and a semantic search, offline", async () => {
      const c = ctx!;
      const [command, ...args] = [...isolationPrefix(c.isolation, false), ...envArgs(c.env), c.bin];
      const transport = new StdioClientTransport({ command: command!, args, cwd: c.dir, env: {}, stderr: "pipe" });
      let stderr = "";
      transport.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
      const client = new Client({ name: "binary-test", version: "1.0.0" });
      const t0 = performance.now();
      try {
        await client.connect(transport);
        const tools = await client.listTools();
        const tList = performance.now() - t0;
        expect(tools.tools.map((t) => t.name)).toContain("search_spell");
        const res = await client.callTool({ name: "search_spell", arguments: { search: PACK_QUERY, limit: 3 } });
        const tSearch = performance.now() - t0;
        process.stderr.write(
          `[binary test] exec → tools/list ${tList.toFixed(0)} ` +
            `ms, → first semantic result ${tSearch.toFixed(0)} ms\n`,
        );
        expect(res.isError ?? false).toBe(false);
        const answer = res.structuredContent as {
          results: { name: string; similarity_score?: number }[];
          search_mode: string;
        };
        expect(answer.search_mode).toBe("hybrid");
        expect(answer.results[0]?.name).toBe("Fireball");
        expect(answer.results[0]?.similarity_score).toBeGreaterThan(0);
      } catch (err) {
        throw new Error(`${(err as Error).message}\n--- binary stderr ---\n${stderr}`);
      } finally {
        await client.close();
      }
    }, 60_000);

    test("one binary, both SDKs and both eras: v2 (2026-07-28) and v1 (2025-11-25) " +
      "clients list, call every tool and read a resource over stdio and HTTP", async () => {
      const c = ctx!;
      type Anyc = {
        listTools(): Promise<{ tools: { name: string }[] }>;
        callTool(p: {
          name: string;
          arguments: Record<string, unknown>;
        }): Promise<{ isError?: boolean; structuredContent?: unknown; content?: unknown }>;
        readResource(p: { uri: string }): Promise<{ contents: unknown[] }>;
        close(): Promise<void>;
      };
      const exercise = async (label: string, client: Anyc) => {
        expect([label, (await client.listTools()).tools.map((t) => t.name)]).toEqual([label, [...TOOL_NAMES]]);
        for (const name of TOOL_NAMES) {
          // Every call is answered (a result, or a tool error for what the small pack lacks), never a protocol error.
          const r = await client.callTool({ name, arguments: TOOL_CASES[name]!.ok });
          expect([label, name, r.isError ? "tool error" : typeof r.structuredContent]).toEqual([
            label,
            name,
            r.isError ? "tool error" : "object",
          ]);
        }
        expect((await client.readResource({ uri: "lorekeeper://documents" })).contents.length).toBe(1);
        await client.close();
      };
      const v2s = await connectV2Stdio([], c.env, "auto", c.bin);
      expect(v2s.client.getProtocolEra()).toBe("modern");
      await exercise("v2 stdio", v2s.client as unknown as Anyc);
      const v1s = new Client({ name: "binary-test-v1", version: "1.0.0" });
      await v1s.connect(
        new StdioClientTransport({ command: c.bin, args: [], cwd: c.dir, env: c.env, stderr: "ignore" }),
      );
      await exercise("v1 stdio", v1s as unknown as Anyc);

      const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
      const port = probe.port!;
      await probe.stop(true);
      const server = Bun.spawn([c.bin, "serve", "--http", "--port", String(port)], {
        cwd: c.dir,
        env: c.env,
        stdout: "ignore",
        stderr: "ignore",
      });
      try {
        const url = `http://127.0.0.1:${port}/mcp`;
        for (let i = 0; i < 200; i++) {
          if (
            await fetch(`http://127.0.0.1:${port}/health`)
              .then((r) => r.ok)
              .catch(() => false)
          )
            break;
          await Bun.sleep(50);
        }
        const v2h = await connectV2Http(url, "modern");
        expect(v2h.client.getProtocolEra()).toBe("modern");
        await exercise("v2 HTTP", v2h.client as unknown as Anyc);
        const v1h = new Client({ name: "binary-test-v1", version: "1.0.0" });
        await v1h.connect(new StreamableHTTPClientTransport(new URL(url)));
        await exercise("v1 HTTP", v1h as unknown as Anyc);
      } finally {
        server.kill();
        await server.exited;
      }
    }, 120_000);
  },
);
