/**
 * `lorekeeper serve` over stdio, spawned as a real process and driven by the SDK's Client:
 * the handshake and tools/list are immediate whatever the data, stdout carries only protocol
 * messages, an unreachable upstream on first use is a clear tool error.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { openStore } from "../../src/store/db.ts";
import { replaceOrigin } from "../../src/store/entities.ts";
import { sampleEntities } from "../support/entities.ts";
import { answerOf, connectStdio, isolatedEnv, namesOf, REPO_ROOT, textOf, TOOL_NAMES } from "../support/mcp.ts";
import { makeTempDir } from "../support/tmp.ts";

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Env that keeps the child away from the network and from the user's files. */
function tmp() {
  const t = makeTempDir("lk-stdio-");
  cleanups.push(t.cleanup);
  return t.dir;
}

describe("stdio", () => {
  test("empty store: tools/list at once, list_documents says " +
    "how to fill it, a first-use failure explains the fix", async () => {
    const dir = tmp();
    const conn = await connectStdio(["serve", "--db-path", join(dir, "lk.db")], await isolatedEnv(dir));
    cleanups.push(conn.close);
    // Answered without a model or a sync (the store is empty and offline); its speed is the bench's.
    const { tools } = await conn.client.listTools();
    expect(tools.map((t) => t.name)).toEqual([...TOOL_NAMES]);

    const docs = await conn.client.callTool({ name: "list_documents", arguments: {} });
    expect(docs.isError).toBeFalsy();
    expect(textOf(docs)).toContain("No documents found in cache");

    const r = await conn.client.callTool({ name: "search_spell", arguments: { name: "Fireball" } });
    expect(r.isError).toBe(true);
    const t = textOf(r);
    expect(t).toContain("lorekeeper sync");
    expect(t).toContain("LOREKEEPER_OPEN5E_BASE_URL");
    expect(t).not.toMatch(/\n\s+at /);
  }, 30_000);

  test("a filled store answers searches and resources", async () => {
    const dir = tmp();
    const path = join(dir, "lk.db");
    const store = openStore({ path });
    replaceOrigin(store.db, "test:all", sampleEntities());
    store.close();
    const conn = await connectStdio(["serve", "--db-path", path], await isolatedEnv(dir));
    cleanups.push(conn.close);
    await conn.client.listTools();
    expect(namesOf(await conn.client.callTool({ name: "search_creature", arguments: { cr: "1/4" } }))).toEqual([
      "Goblin",
      "Zombie",
    ]);
    const a = answerOf(
      await conn.client.callTool({ name: "search_all", arguments: { query: "healing", content_types: ["Spell"] } }),
    );
    expect(a.search_mode).toBe("lexical"); // no model available in the child
    expect(a.results[0]!.name).toBe("Healing Word");
    const res = await conn.client.readResource({ uri: "lorekeeper://spell/srd_fireball" });
    expect(JSON.parse((res.contents[0] as { text: string }).text).name).toBe("Fireball");
  }, 30_000);

  test("`lorekeeper` with no command serves stdio, and stdout carries only JSON-RPC", async () => {
    const dir = tmp();
    const proc = Bun.spawn([process.execPath, join(REPO_ROOT, "src/cli/main.ts"), "--db-path", join(dir, "lk.db")], {
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
      env: { ...process.env, ...(await isolatedEnv(dir)), LOREKEEPER_LOG_LEVEL: "debug" },
    });
    const send = (msg: object) => proc.stdin.write(`${JSON.stringify(msg)}\n`);
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
    });
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    send({
      jsonrpc: "2.0",
      id: 3,
      method: "tools/call",
      params: { name: "list_documents", arguments: { format: "text" } },
    });
    await proc.stdin.flush();
    const reader = proc.stdout.getReader();
    let out = "";
    const deadline = Date.now() + 15_000;
    while (out.split("\n").filter((l) => l.trim()).length < 3 && Date.now() < deadline) {
      const { value, done } = await reader.read();
      if (done) break;
      out += new TextDecoder().decode(value);
    }
    proc.stdin.end();
    const code = await proc.exited;
    const lines = out.split("\n").filter((l) => l.trim().length > 0);
    expect(lines.length).toBe(3);
    const msgs = lines.map((l) => JSON.parse(l) as { id: number; result: Record<string, unknown> });
    expect(msgs.map((m) => m.id)).toEqual([1, 2, 3]);
    expect((msgs[0]!.result.serverInfo as { name: string }).name).toBe("lorekeeper");
    expect(String(msgs[0]!.result.instructions)).toContain("search_all");
    expect(JSON.stringify(msgs[2]!.result)).toContain("No documents found in cache");
    expect(code).toBe(0);
    const err = await new Response(proc.stderr).text();
    expect(err).toContain("MCP server ready on stdio"); // logs went to stderr
  }, 30_000);
});
