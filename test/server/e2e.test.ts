/**
 * End to end: `lorekeeper serve` (stdio and --http) as a real process over an empty store, with
 * the upstream APIs played by the fake server over test/fixtures/upstream. The first tool call of
 * each type syncs it (with progress), later calls answer from the store.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type AddressInfo, createServer } from "node:net";
import { join } from "node:path";
import { startFakeUpstream, type FakeUpstream } from "../support/fake-upstream.ts";
import { answerOf, connectHttp, connectStdio, namesOf, REPO_ROOT } from "../support/mcp.ts";
import { makeTempDir } from "../support/tmp.ts";
import { upstreamEnvAt } from "../../src/sources/index.ts";

let fake: FakeUpstream;
let tmp: ReturnType<typeof makeTempDir>;

beforeAll(async () => {
  fake = await startFakeUpstream({ dataDir: join(import.meta.dir, "..", "fixtures", "upstream") });
  tmp = makeTempDir("lk-e2e-");
});

afterAll(async () => {
  await fake.stop();
  tmp.cleanup();
});

function env(name: string): Record<string, string> {
  const dir = join(tmp.dir, name);
  return {
    HOME: dir,
    XDG_DATA_HOME: join(dir, "data"),
    XDG_CACHE_HOME: join(dir, "cache"),
    ...upstreamEnvAt(fake.url),
    LOREKEEPER_HTTP_RETRIES: "0",
    LOREKEEPER_MODEL_DIR: join(dir, "no-model"),
  };
}

describe("stdio, first use against the (fake) upstream", () => {
  test("each type is fetched on first use, with progress; answers carry attribution", async () => {
    const conn = await connectStdio(["serve", "--db-path", join(tmp.dir, "stdio.db")], env("stdio"));
    try {
      await conn.client.listTools();
      const progress: string[] = [];
      const r = await conn.client.callTool(
        { name: "search_spell", arguments: { name: "fireball", all_versions: true } },
        undefined,
        {
          onprogress: (p) => progress.push(p.message ?? String(p.progress)),
          timeout: 30_000,
        },
      );
      const a = answerOf(r);
      expect(a.results.map((x) => x.document_key).sort()).toEqual(["a5e-ag", "srd-2014", "srd-2024"]);
      expect(a.results.every((x) => x.name === "Fireball" && x.kind === "spell")).toBe(true);
      expect(a.metadata.data_synced_at).not.toBeNull();
      expect(progress.length).toBeGreaterThan(0);
      expect(fake.requests.some((q) => q.path === "/v2/spells/")).toBe(true);
      expect(fake.requests.some((q) => q.path === "/v2/creatures/")).toBe(false);

      const spellRequests = fake.requests.filter((q) => q.path === "/v2/spells/").length;
      expect(
        namesOf(
          await conn.client.callTool({
            name: "search_spell",
            arguments: { name: "cure wounds", documents: ["srd-5e"] },
          }),
        ),
      ).toEqual(["Cure Wounds"]);
      expect(fake.requests.filter((q) => q.path === "/v2/spells/").length).toBe(spellRequests);

      const undead = answerOf(
        await conn.client.callTool({ name: "search_creature", arguments: { type: "undead" } }, undefined, {
          timeout: 30_000,
        }),
      );
      expect(undead.results.map((x) => x.name)).toEqual(expect.arrayContaining(["Vampire", "Wraith", "Specter"]));
      expect(undead.results.every((x) => String(x.type).toLowerCase() === "undead")).toBe(true);

      const docs = (await conn.client.callTool({ name: "list_documents", arguments: {} })).structuredContent as {
        documents: Array<{ key: string; entity_count: number }>;
      };
      expect(docs.documents.map((d) => d.key)).toContain("srd-2014");
      expect(docs.documents[0]!.key).toBe("srd-2014");
    } finally {
      await conn.close();
    }
  }, 60_000);
});

describe("serve --http as a process", () => {
  test("serves /mcp and /health, and stops cleanly on SIGTERM", async () => {
    const proc = Bun.spawn(
      [
        process.execPath,
        join(REPO_ROOT, "src/cli/main.ts"),
        "serve",
        "--http",
        "--port",
        "0",
        "--db-path",
        join(tmp.dir, "http.db"),
      ],
      {
        stdout: "pipe",
        stderr: "pipe",
        env: { ...process.env, ...env("http"), LOREKEEPER_LOG_LEVEL: "warn" },
      },
    );
    const reader = proc.stderr.getReader();
    let err = "";
    let url = "";
    const deadline = Date.now() + 15_000;
    while (!url && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      err += new TextDecoder().decode(value);
      url = /(http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err)?.[1] ?? "";
    }
    expect(url).not.toBe("");
    const health = (await (await fetch(url.replace(/\/mcp$/, "/health"))).json()) as { status: string };
    expect(health.status).toBe("ok");
    const { client, close } = await connectHttp(url);
    const r = await client.callTool(
      { name: "search_rule", arguments: { rule_type: "condition", name: "grappled" } },
      undefined,
      { timeout: 30_000 },
    );
    const grappled = answerOf(r).results;
    expect(grappled.length).toBeGreaterThan(0);
    expect(grappled.every((x) => x.name === "Grappled" && x.kind === "condition")).toBe(true);
    await close();
    proc.kill("SIGTERM");
    expect(await proc.exited).toBe(0);
    expect(await new Response(proc.stdout).text()).toBe("");
  }, 60_000);

  test("refuses a non-loopback bind without a token", async () => {
    const proc = Bun.spawn(
      [
        process.execPath,
        join(REPO_ROOT, "src/cli/main.ts"),
        "serve",
        "--http",
        "--host",
        "0.0.0.0",
        "--port",
        "0",
        "--db-path",
        join(tmp.dir, "refuse.db"),
      ],
      {
        stdout: "pipe",
        stderr: "pipe",
        env: { ...process.env, ...env("refuse"), LOREKEEPER_HTTP_TOKEN: "" },
      },
    );
    expect(await proc.exited).toBe(1);
    const err = await new Response(proc.stderr).text();
    expect(err).toContain("Refusing to listen on 0.0.0.0 without a token");
    expect(err).toContain("--token");
  }, 30_000);

  test("a port in use: one sentence and a hint, exit 1, no stack", async () => {
    // A plain listener without SO_REUSEPORT, so the port really is taken.
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    const port = (taken.address() as AddressInfo).port;
    try {
      const args = ["serve", "--http", "--port", String(port), "--db-path", join(tmp.dir, "in-use.db")];
      const proc = Bun.spawn([process.execPath, join(REPO_ROOT, "src/cli/main.ts"), ...args], {
        stdout: "pipe",
        stderr: "pipe",
        env: { ...process.env, ...env("in-use") },
      });
      expect(await proc.exited).toBe(1);
      const err = await new Response(proc.stderr).text();
      expect(err).toContain(`Port ${port} on 127.0.0.1 is already in use.`);
      expect(err).toContain("Pick another with --port");
      expect(err).not.toMatch(/\n\s+at /);
    } finally {
      taken.close();
    }
  }, 30_000);

  test("usage errors", async () => {
    const proc = Bun.spawn([process.execPath, join(REPO_ROOT, "src/cli/main.ts"), "serve", "--port", "99999"], {
      stdout: "pipe",
      stderr: "pipe",
      env: { ...process.env, ...env("usage") },
    });
    expect(await proc.exited).toBe(64);
    expect(await new Response(proc.stderr).text()).toContain("--port must be a whole number from 0 to 65535");
  }, 30_000);
});
