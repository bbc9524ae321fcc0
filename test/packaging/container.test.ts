/**
 * The container image. Unless LOREKEEPER_CONTAINER_TEST=1, or without a container engine, the
 * engine test is skipped with its reason; what can run without one always does: the Dockerfile's
 * promises (non-root, volume, health check, token) read from the file, its HEALTHCHECK command
 * against a real `serve --http`, and the compose example's shape.
 * With an engine: builds the binary (tests' tiny model, tiny pack), builds the image, runs it with
 * a token, waits for the health check, then calls /health and a tool over Streamable HTTP.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { makePackStore, PACK_QUERY } from "../binary/pack-fixture.ts";
import { answerOf, connectHttp, isolatedEnv, REPO_ROOT } from "../support/mcp.ts";
import { createTinyModel } from "../support/tiny-model.ts";
import { makeTempDir } from "../support/tmp.ts";
import { buildBase, DEFAULT_BASE_TAG } from "../../scripts/container-base.ts";

const tmp = makeTempDir("lk-container-");
afterAll(() => tmp.cleanup());
const dockerfile = await Bun.file(join(REPO_ROOT, "Dockerfile")).text();

type Engine = { cmd: "docker" | "podman"; run: string[]; base?: string };

/** docker when its engine answers; else podman + runc (the ulimits this sandbox cannot raise are lowered). */
function findEngine(): Engine | { reason: string } {
  // Only when asked, everywhere: building the image (and podman's base, from Debian's mirrors)
  // reaches the network and takes minutes, and `bun test` is offline and self-contained.
  if (process.env.LOREKEEPER_CONTAINER_TEST !== "1") {
    const why = "the image build reaches the network and takes minutes";
    return { reason: `${why}: run with LOREKEEPER_CONTAINER_TEST=1 to build and run it` };
  }
  if (Bun.which("docker")) {
    const r = Bun.spawnSync(["docker", "info", "--format", "{{.ServerVersion}}"], { stdout: "pipe", stderr: "pipe" });
    if (r.exitCode === 0) return { cmd: "docker", run: ["docker", "run"] };
  }
  if (!Bun.which("podman")) return { reason: "no container engine: neither a docker engine nor podman" };
  if (!Bun.which("runc")) return { reason: "podman without runc (Debian: apt-get install runc)" };
  const run = ["podman", "--runtime", "runc", "run", "--ulimit", "nofile=1024:1024", "--ulimit", "nproc=1024:1024"];
  // No outside registry here: the base is built from Debian packages (scripts/container-base.ts).
  const have = Bun.spawnSync(["podman", "image", "exists", DEFAULT_BASE_TAG]).exitCode === 0;
  if (!have && !Bun.which("debootstrap"))
    return { reason: `podman, but no ${DEFAULT_BASE_TAG} image and no debootstrap to build it` };
  return { cmd: "podman", run, base: DEFAULT_BASE_TAG };
}
const engine = findEngine();
const noEngine = "reason" in engine ? engine.reason : undefined;

function lines(re: RegExp): string[] {
  return dockerfile.split("\n").filter((l) => re.test(l));
}

describe("Dockerfile (no engine needed)", () => {
  test("runs as a non-root user, keeps the store on /data, has a health check, and needs a token", () => {
    const runtime = dockerfile.slice(dockerfile.lastIndexOf("\nFROM "));
    // The base is a build argument: distroless by default, a Debian-packages base where it cannot be pulled.
    expect(dockerfile).toContain("ARG BASE=gcr.io/distroless/cc-debian12:nonroot");
    expect(runtime).toMatch(/^\nFROM \$\{BASE\}\n/);
    expect(dockerfile).toContain('io.modelcontextprotocol.server.name="io.github.lorekeeper-mcp/lorekeeper"');
    const user = lines(/^USER /).pop() ?? "";
    expect(user).toMatch(/^USER [1-9]\d*(:\d+)?$/); // numeric, not root
    expect(runtime).toContain('VOLUME ["/data"]');
    expect(runtime).toContain("LOREKEEPER_DATA_DIR=/data");
    expect(runtime).toMatch(/HEALTHCHECK [^\n]*\\\n\s+CMD \["\/usr\/local\/bin\/lorekeeper", "health"/);
    expect(runtime).toContain('CMD ["serve", "--http", "--host", "0.0.0.0", "--port", "8000"]');
  });

  test("the image's command refuses to start without a token", async () => {
    const env = await isolatedEnv(tmp.dir);
    const p = Bun.spawn(
      [process.execPath, join(REPO_ROOT, "src/cli/main.ts"), "serve", "--http", "--host", "0.0.0.0", "--port", "0"],
      {
        env: { ...env, PATH: process.env.PATH ?? "", LOREKEEPER_DATA_DIR: join(tmp.dir, "data-notoken") },
        stdout: "pipe",
        stderr: "pipe",
      },
    );
    const [code, err] = await Promise.all([p.exited, new Response(p.stderr).text()]);
    expect(code).not.toBe(0);
    expect(err.toLowerCase()).toContain("token");
  }, 30_000);

  test("the HEALTHCHECK command: healthy against a running server, unhealthy when none answers", async () => {
    const env = {
      ...(await isolatedEnv(tmp.dir)),
      PATH: process.env.PATH ?? "",
      LOREKEEPER_DATA_DIR: join(tmp.dir, "data"),
      LOREKEEPER_HTTP_TOKEN: "t0ken",
    };
    const server = Bun.spawn([process.execPath, join(REPO_ROOT, "src/cli/main.ts"), "serve", "--http", "--port", "0"], {
      env,
      stdout: "pipe",
      stderr: "pipe",
    });
    try {
      const reader = server.stderr.getReader();
      let seen = "";
      const deadline = Date.now() + 20_000;
      while (!/http:\/\/127\.0\.0\.1:\d+\/mcp/.test(seen) && Date.now() < deadline) {
        const { value, done } = await reader.read();
        if (done) break;
        seen += new TextDecoder().decode(value);
      }
      reader.releaseLock();
      const port = /127\.0\.0\.1:(\d+)\/mcp/.exec(seen)?.[1];
      expect(port).toBeDefined();
      const ok = Bun.spawnSync(
        [process.execPath, join(REPO_ROOT, "src/cli/main.ts"), "health", "--url", `http://127.0.0.1:${port}/health`],
        { env, stdout: "pipe", stderr: "pipe" },
      );
      expect(ok.exitCode).toBe(0);
      expect(ok.stdout.toString()).toContain('"status":"ok"');
    } finally {
      server.kill("SIGTERM");
      await server.exited;
    }
    const down = Bun.spawnSync(
      [
        process.execPath,
        join(REPO_ROOT, "src/cli/main.ts"),
        "health",
        "--url",
        "http://127.0.0.1:9/health",
        "--timeout",
        "1000",
      ],
      { env, stdout: "pipe" },
    );
    expect(down.exitCode).toBe(1);
    expect(down.stdout.toString()).toContain("unhealthy");
  }, 60_000);

  test("the compose example keeps the token required, the store on a volume and the root read-only", async () => {
    const compose = await Bun.file(join(REPO_ROOT, "compose.yaml")).text();
    expect(compose).toContain("LOREKEEPER_HTTP_TOKEN: ${LOREKEEPER_HTTP_TOKEN:?");
    expect(compose).toContain("lorekeeper-data:/data");
    expect(compose).toContain("read_only: true");
  });
});

describe.skipIf(noEngine !== undefined)(`container image${noEngine ? ` — skipped: ${noEngine}` : ""}`, () => {
  const e = engine as Engine;
  const tag = `localhost/lorekeeper-test:${process.pid}`;
  const name = `lorekeeper-test-${process.pid}`;
  const volume = `lorekeeper-test-data-${process.pid}`;
  const sh = (args: string[]) => Bun.spawnSync(args, { stdout: "pipe", stderr: "pipe" });
  const out = (args: string[]) => sh(args).stdout.toString().trim();

  async function healthy(timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (e.cmd === "podman") {
        if (sh(["podman", "healthcheck", "run", name]).exitCode === 0) return true;
      } else if (out(["docker", "inspect", "--format", "{{.State.Health.Status}}", name]) === "healthy") return true;
      await Bun.sleep(500);
    }
    return false;
  }

  async function ask(port: number): Promise<string[]> {
    const { client, close } = await connectHttp(`http://127.0.0.1:${port}/mcp`, "t0ken-for-the-container-test");
    try {
      const r = await client.callTool({ name: "search_all", arguments: { query: PACK_QUERY, limit: 3 } });
      return answerOf(r).results.map((x) => String((x as { name: string }).name));
    } finally {
      await close();
    }
  }

  test("built on its base, read-only root, non-root, token and /data " +
    "volume: healthy, answers, restarts with the store intact", async () => {
    const ctx = join(tmp.dir, "ctx");
    mkdirSync(join(ctx, "dist"), { recursive: true });
    const model = await createTinyModel(join(tmp.dir, "model", "lorekeeper-tiny"));
    const pack = await makePackStore(join(tmp.dir, "pack.db"), model);
    const b = sh([
      process.execPath,
      join(REPO_ROOT, "build.ts"),
      "--model",
      model,
      "--content",
      pack.path,
      "--target",
      "linux-x64",
      "--outfile",
      join(ctx, "dist", "lorekeeper-linux-x64"),
      "--outdir",
      join(tmp.dir, "build"),
    ]);
    expect(b.exitCode).toBe(0);
    copyFileSync(join(REPO_ROOT, "Dockerfile"), join(ctx, "Dockerfile"));
    if (e.base && sh(["podman", "image", "exists", e.base]).exitCode !== 0) buildBase({ tag: e.base });
    const baseArgs = e.base ? ["--build-arg", `BASE=${e.base}`, "--build-arg", `TOOLS=${e.base}`] : [];
    const built = sh([
      e.cmd,
      "build",
      ...(e.cmd === "podman" ? ["--format", "docker"] : []),
      ...baseArgs,
      "-t",
      tag,
      ctx,
    ]);
    if (built.exitCode !== 0) throw new Error(`image build failed: ${built.stderr.toString().slice(-2000)}`);
    const cleanup = () => {
      sh([e.cmd, "rm", "-f", name]);
      sh([e.cmd, "volume", "rm", "-f", volume]);
      sh([e.cmd, "rmi", "-f", tag]);
    };
    try {
      expect(
        out([
          e.cmd,
          "image",
          "inspect",
          "--format",
          '{{index .Config.Labels "io.modelcontextprotocol.server.name"}}',
          tag,
        ]),
      ).toBe("io.github.lorekeeper-mcp/lorekeeper");
      const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
      const port = probe.port!;
      await probe.stop(true);
      const run = sh([
        ...e.run,
        "-d",
        "--name",
        name,
        "--read-only",
        "--tmpfs",
        "/home/nonroot/.cache:rw,exec,mode=1777",
        "--tmpfs",
        "/tmp:rw,mode=1777",
        "-v",
        `${volume}:/data`,
        "-e",
        "LOREKEEPER_HTTP_TOKEN=t0ken-for-the-container-test",
        "-p",
        `127.0.0.1:${port}:8000`,
        tag,
      ]);
      if (run.exitCode !== 0) throw new Error(`run failed: ${run.stderr.toString().slice(-2000)}`);
      const t0 = performance.now();
      expect(await healthy(90_000)).toBe(true);
      const size = Number(out([e.cmd, "image", "inspect", "--format", "{{.Size}}", tag]));
      if (process.env.LOREKEEPER_TEST_REPORT)
        process.stderr.write(
          `container: image ${(size / 1048576).toFixed(0)} MB, ` +
            `run → healthy ${Math.round(performance.now() - t0)} ms\n`,
        );
      expect(out([e.cmd, "inspect", "--format", "{{.Config.User}}", name])).toBe("65532:65532");
      expect((await fetch(`http://127.0.0.1:${port}/mcp`, { method: "POST", body: "{}" })).status).toBe(401);
      const first = await ask(port);
      expect(first[0]).toBe("Fireball");
      expect(out([e.cmd, "inspect", "--format", "{{.HostConfig.ReadonlyRootfs}}", name])).toBe("true");
      expect(sh([e.cmd, "restart", name]).exitCode).toBe(0);
      expect(await healthy(90_000)).toBe(true);
      expect(await ask(port)).toEqual(first);
    } finally {
      cleanup();
    }
  }, 900_000);
});
