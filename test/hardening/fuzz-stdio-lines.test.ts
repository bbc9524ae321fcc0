/**
 * stdio framing: what arrives on stdin is not always a valid JSON-RPC line.
 * Garbage, batches, messages the MCP schema rejects, oversized lines, CRLF, blank lines and
 * messages split at any byte (inside a UTF-8 character too) each get a JSON-RPC answer (or are
 * skipped, for blank lines), the session survives, and the server exits cleanly at EOF.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { specTypeSchemas } from "@modelcontextprotocol/server";
import { checkJsonRpc } from "../../src/server/protocol/protocol-checks.ts";
import { classifyLine, sniffId } from "../../src/server/transports/stdio-transport.ts";
import { openStore } from "../../src/store/db.ts";
import { replaceOrigin } from "../../src/store/entities.ts";
import { sampleEntities } from "../support/entities.ts";
import { Rng } from "../support/fuzz.ts";
import { REPO_ROOT } from "../support/mcp.ts";
import { makeTempDir } from "../support/tmp.ts";

describe("classifyLine / sniffId (pure)", () => {
  test(
    "blank → skipped; valid → the message; not JSON → " +
      "-32700; not JSON-RPC → -32600 " +
      "with the id when it has one",
    () => {
      expect(classifyLine("")).toBeNull();
      expect(classifyLine("  \t")).toBeNull();
      expect(classifyLine('{"jsonrpc":"2.0","id":1,"method":"ping"}')).toEqual({
        ok: true,
        message: { jsonrpc: "2.0", id: 1, method: "ping" },
      });
      const bad = (line: string) => {
        const v = classifyLine(line);
        if (!v || v.ok) throw new Error(`expected a refusal for ${line}`);
        return v.reply as unknown as { id: unknown; error: { code: number; message: string } };
      };
      expect(bad("{oops")).toEqual({
        id: null,
        error: { code: -32700, message: expect.stringContaining("not valid JSON") },
        jsonrpc: "2.0",
      } as never);
      expect(bad("[]").error.code).toBe(-32600);
      expect(bad('[{"jsonrpc":"2.0","id":1,"method":"ping"}]').error.message).toContain("batches are not supported");
      const meta = bad('{"jsonrpc":"2.0","id":"a-1","method":"tools/call","params":{"name":"x","_meta":"x"}}');
      expect(meta.id).toBe("a-1");
      expect(meta.error.code).toBe(-32600);
      expect(meta.error.message).toContain("params._meta");
      expect(bad('{"jsonrpc":"2.0","id":3,"method":42}').id).toBe(3);
      expect(bad('{"jsonrpc":"2.0","method":42}').id).toBeNull();
      expect(bad("42").id).toBeNull();
      expect(bad('{"id":{"x":1},"method":"ping"}').id).toBeNull();
    },
  );

  test("a request id that is neither a string nor a number is named as the problem", () => {
    for (const id of ["null", "true", "{}", "[1]"]) {
      const v = classifyLine(`{"jsonrpc":"2.0","id":${id},"method":"ping"}`);
      if (!v || v.ok) throw new Error(`expected a refusal for id ${id}`);
      const reply = v.reply as unknown as { id: unknown; error: { code: number; message: string } };
      expect(reply.error.code).toBe(-32600);
      expect(reply.error.message).toContain("a request id must be a string or a number");
      expect(reply.error.message).not.toContain("Unrecognized key");
    }
    // What the SDK's schema accepts passes unchanged.
    const params = { name: "search_spell", _meta: { progressToken: 7 } };
    const ok = { jsonrpc: "2.0", id: "a", method: "tools/call", params };
    expect(checkJsonRpc(ok)).toEqual({ ok: true, message: ok as never });
    expect(specTypeSchemas.JSONRPCRequest["~standard"].validate(ok)).toMatchObject({ value: ok });
  });

  test("sniffId finds a top-level id at either end of a huge line, and nothing else", () => {
    expect(sniffId('{"method":"tools/call","params":{"a":"xxx', 'xxx"}},"jsonrpc":"2.0","id":42}')).toBe(42);
    expect(sniffId('{"jsonrpc":"2.0","id":"req-7","method":"tools/call","params":{"a":"x', 'xxxxx"}}}')).toBe("req-7");
    expect(sniffId('{"method":"x","params":{"id":5,"a":"', 'xxxxx"}}')).toBeNull();
    expect(sniffId("garbage", "garbage")).toBeNull();
  });
});

/** A raw `lorekeeper serve` over stdio: write bytes, read the JSON lines it answers. */
function spawnServe(dbPath: string, dir: string) {
  const proc = Bun.spawn([process.execPath, join(REPO_ROOT, "src/cli/main.ts"), "serve", "--db-path", dbPath], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
    env: {
      ...process.env,
      HOME: dir,
      XDG_DATA_HOME: join(dir, "data"),
      XDG_CACHE_HOME: join(dir, "cache"),
      LOREKEEPER_MODEL_DIR: join(dir, "no-model"),
      LOREKEEPER_LOG_LEVEL: "warn",
    },
  });
  const lines: Array<Record<string, unknown>> = [];
  let buf = "";
  const decoder = new TextDecoder();
  const reading = (async () => {
    for await (const chunk of proc.stdout) {
      buf += decoder.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        lines.push(JSON.parse(line) as Record<string, unknown>); // stdout must hold JSON lines only
      }
    }
  })();
  const write = async (data: string | Uint8Array) => {
    proc.stdin.write(data);
    await proc.stdin.flush();
  };
  const waitFor = async (n: number, ms = 15_000) => {
    const deadline = Date.now() + ms;
    while (lines.length < n && Date.now() < deadline) await Bun.sleep(20);
    return lines;
  };
  return { proc, write, waitFor, lines, reading };
}

describe("stdio framing, end to end", () => {
  test("bad lines are answered, the session goes on, EOF ends it cleanly", async () => {
    const tmp = makeTempDir("lk-stdio-lines-");
    try {
      const dbPath = join(tmp.dir, "lk.db");
      const store = openStore({ path: dbPath });
      replaceOrigin(store.db, "test:all", sampleEntities());
      store.close();
      const s = spawnServe(dbPath, tmp.dir);
      const msg = (o: object) => `${JSON.stringify(o)}\n`;
      await s.write(
        msg({
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
        }),
      );
      await s.write(msg({ jsonrpc: "2.0", method: "notifications/initialized" }));
      await s.write("this is not json\n");
      await s.write("\n   \n");
      await s.write('[{"jsonrpc":"2.0","id":2,"method":"tools/list"}]\n');
      await s.write(msg({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "search_spell", _meta: "x" } }));
      await s.write(msg({ jsonrpc: "2.0", id: 4, method: 42 }));
      // Over the 4 MiB line limit: skipped, answered with its id (seen at the end of the line).
      const huge = JSON.stringify({
        jsonrpc: "2.0",
        method: "tools/call",
        params: { name: "search_spell", arguments: { name: "x".repeat(5 * 1024 * 1024) } },
        id: 5,
      });
      for (let i = 0; i < huge.length; i += 256 * 1024) await s.write(huge.slice(i, i + 256 * 1024));
      await s.write("\n");
      const params = { name: "search_spell", arguments: { name: "Fireball", documents: ["srd-2014"] } };
      await s.write(`${JSON.stringify({ jsonrpc: "2.0", id: 6, method: "tools/call", params })}\r\n`);
      // One message cut into random pieces, one cut inside a multi-byte character.
      const rng = new Rng(7);
      const bytes = new TextEncoder().encode(
        msg({
          jsonrpc: "2.0",
          id: 7,
          method: "tools/call",
          params: { name: "search_spell", arguments: { search: "火球 fire ball 🔥", limit: 3 } },
        }),
      );
      for (let i = 0; i < bytes.length; ) {
        const n = rng.int(1, 9);
        await s.write(bytes.subarray(i, i + n));
        i += n;
      }
      await s.write(
        msg({
          jsonrpc: "2.0",
          id: 8,
          method: "tools/call",
          params: { name: "search_creature", arguments: { name: "Goblin" } },
        }),
      );

      const lines = await s.waitFor(9);
      const byId = new Map(lines.filter((l) => l.id !== null).map((l) => [l.id, l]));
      const errorOf = (id: unknown) =>
        (byId.get(id) as { error?: { code: number; message: string } } | undefined)?.error;
      expect((byId.get(1)!.result as { serverInfo: { name: string } }).serverInfo.name).toBe("lorekeeper");
      const anonymous = lines.filter((l) => l.id === null).map((l) => (l.error as { code: number }).code);
      expect(anonymous.sort()).toEqual([-32700, -32600].sort());
      expect(errorOf(3)?.code).toBe(-32600);
      expect(errorOf(3)?.message).toContain("_meta");
      expect(errorOf(4)?.code).toBe(-32600);
      expect(errorOf(5)?.code).toBe(-32600);
      expect(errorOf(5)?.message).toContain("larger than 4194304 bytes");
      const names = (id: number) =>
        (
          (byId.get(id)?.result as { structuredContent?: { results: Array<{ name: string }> } })?.structuredContent
            ?.results ?? []
        ).map((r) => r.name);
      expect(names(6)).toEqual(["Fireball"]);
      expect(names(7).length).toBeGreaterThan(0);
      expect(names(8)).toEqual(["Goblin"]);
      expect(lines).toHaveLength(9); // ids 1, 3–8 and two id-null errors

      s.proc.stdin.end();
      expect(await s.proc.exited).toBe(0);
      await s.reading;
      const err = await new Response(s.proc.stderr).text();
      expect(err).not.toMatch(/\bERROR\b|Uncaught|Unhandled|^\s+at\s/m);
    } finally {
      tmp.cleanup();
    }
  }, 60_000);
});
