/**
 * The container image. Without a container engine (this machine has only the docker client) the
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

const tmp = makeTempDir("lk-container-");
afterAll(() => tmp.cleanup());
const dockerfile = await Bun.file(join(REPO_ROOT, "Dockerfile")).text();

function engineReason(): string | undefined {
  const which = Bun.which("docker");
  if (!which) return "no docker client on PATH";
  const r = Bun.spawnSync(["docker", "info", "--format", "{{.ServerVersion}}"], { stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) return `no container engine reachable (docker info: ${r.stderr.toString().trim().split("\n").pop()})`;
  return undefined;
}
const noEngine = engineReason();

function lines(re: RegExp): string[] {
  return dockerfile.split("\n").filter((l) => re.test(l));
}

describe("Dockerfile (no engine needed)", () => {
  test("runs as a non-root user, keeps the store on /data, has a health check, and needs a token", () => {
    const runtime = dockerfile.slice(dockerfile.lastIndexOf("\nFROM "));
    expect(runtime).toMatch(/^\nFROM gcr\.io\/distroless\/cc-debian12:nonroot/);
    const user = lines(/^USER /).pop() ?? "";
    expect(user).toMatch(/^USER [1-9]\d*(:\d+)?$/); // numeric, not root
    expect(runtime).toContain('VOLUME ["/data"]');
    expect(runtime).toContain("LOREKEEPER_DATA_DIR=/data");
    expect(runtime).toMatch(/HEALTHCHECK [^\n]*\\\n\s+CMD \["\/usr\/local\/bin\/lorekeeper", "health"/);
    expect(runtime).toContain('CMD ["serve", "--http", "--host", "0.0.0.0", "--port", "8000"]');
  });

  test("the image's command refuses to start without a token", async () => {
    const env = await isolatedEnv(tmp.dir);
    const p = Bun.spawn([process.execPath, join(REPO_ROOT, "src/cli/main.ts"), "serve", "--http", "--host", "0.0.0.0", "--port", "0"], {
      env: { ...env, PATH: process.env.PATH ?? "", LOREKEEPER_DATA_DIR: join(tmp.dir, "data-notoken") },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [code, err] = await Promise.all([p.exited, new Response(p.stderr).text()]);
    expect(code).not.toBe(0);
    expect(err.toLowerCase()).toContain("token");
  }, 30_000);

  test("the HEALTHCHECK command: healthy against a running server, unhealthy when none answers", async () => {
    const env = { ...(await isolatedEnv(tmp.dir)), PATH: process.env.PATH ?? "", LOREKEEPER_DATA_DIR: join(tmp.dir, "data"), LOREKEEPER_HTTP_TOKEN: "t0ken" };
    const server = Bun.spawn([process.execPath, join(REPO_ROOT, "src/cli/main.ts"), "serve", "--http", "--port", "0"], { env, stdout: "pipe", stderr: "pipe" });
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
      const ok = Bun.spawnSync([process.execPath, join(REPO_ROOT, "src/cli/main.ts"), "health", "--url", `http://127.0.0.1:${port}/health`], { env, stdout: "pipe", stderr: "pipe" });
      expect(ok.exitCode).toBe(0);
      expect(ok.stdout.toString()).toContain('"status":"ok"');
    } finally {
      server.kill("SIGTERM");
      await server.exited;
    }
    const down = Bun.spawnSync([process.execPath, join(REPO_ROOT, "src/cli/main.ts"), "health", "--url", "http://127.0.0.1:9/health", "--timeout", "1000"], { env, stdout: "pipe" });
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
  const tag = `lorekeeper-test:${process.pid}`;
  const name = `lorekeeper-test-${process.pid}`;
  const cleanup = () => {
    Bun.spawnSync(["docker", "rm", "-f", name]);
    Bun.spawnSync(["docker", "rmi", "-f", tag]);
  };

  test("builds, becomes healthy, answers /health and a tool call with the token", async () => {
    const ctx = join(tmp.dir, "ctx");
    mkdirSync(join(ctx, "dist"), { recursive: true });
    const model = await createTinyModel(join(tmp.dir, "model", "lorekeeper-tiny"));
    const pack = await makePackStore(join(tmp.dir, "pack.db"), model);
    const b = Bun.spawnSync([process.execPath, join(REPO_ROOT, "build.ts"), "--model", model, "--content", pack.path, "--target", "linux-x64", "--outfile", join(ctx, "dist", "lorekeeper-linux-x64"), "--outdir", join(tmp.dir, "build")], { stdout: "pipe", stderr: "pipe" });
    expect(b.exitCode).toBe(0);
    copyFileSync(join(REPO_ROOT, "Dockerfile"), join(ctx, "Dockerfile"));
    const built = Bun.spawnSync(["docker", "build", "-t", tag, ctx], { stdout: "pipe", stderr: "pipe" });
    expect(built.exitCode).toBe(0);
    try {
      const run = Bun.spawnSync(["docker", "run", "-d", "--name", name, "-p", "127.0.0.1::8000", "-e", "LOREKEEPER_HTTP_TOKEN=t0ken", tag], { stdout: "pipe", stderr: "pipe" });
      expect(run.exitCode).toBe(0);
      const port = Bun.spawnSync(["docker", "port", name, "8000/tcp"], { stdout: "pipe" }).stdout.toString().trim().split(":").pop();
      let health = "";
      for (let i = 0; i < 60 && health !== "healthy"; i++) {
        await Bun.sleep(1000);
        health = Bun.spawnSync(["docker", "inspect", "--format", "{{.State.Health.Status}}", name], { stdout: "pipe" }).stdout.toString().trim();
      }
      expect(health).toBe("healthy");
      expect(Bun.spawnSync(["docker", "inspect", "--format", "{{.Config.User}}", name], { stdout: "pipe" }).stdout.toString().trim()).toBe("65532:65532");
      const h = (await (await fetch(`http://127.0.0.1:${port}/health`)).json()) as { status: string };
      expect(h.status).toBe("ok");
      expect((await fetch(`http://127.0.0.1:${port}/mcp`, { method: "POST", body: "{}" })).status).toBe(401);
      const { client, close } = await connectHttp(`http://127.0.0.1:${port}/mcp`, "t0ken");
      try {
        const r = await client.callTool({ name: "search_all", arguments: { search: PACK_QUERY, limit: 3 } });
        expect(answerOf(r).results.length).toBeGreaterThan(0);
      } finally {
        await close();
      }
    } finally {
      cleanup();
    }
  }, 600_000);
});
