/**
 * Deep arguments and bad protocol parameters, over real HTTP (raw JSON-RPC, in-process on 127.0.0.1:0):
 * - an argument nested 100,000 deep, or 1,000,000 list items, gets a clean argument error naming
 *   the parameter (no internal error, nothing stringified whole), and /health still answers;
 * - `logging/setLevel {"level": "bogus"}` and `resources/read {"uri": "not a uri"}` get -32602
 *   with one sentence, not -32603 with a zod dump;
 * - 50,000 unknown parameters give an error text within its budget, not 489 KB.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type HttpServerHandle, startHttpServer } from "../../src/server/transports/http.ts";
import { capErrorText, MAX_RPC_ERROR_CHARS } from "../../src/server/protocol/protocol-checks.ts";
import { MAX_ERROR_CHARS } from "../../src/tools/kit/validate.ts";
import { makeStore } from "../support/entities.ts";
import { makeDeps } from "../support/mcp.ts";

let server: HttpServerHandle;
let cleanup: () => void;

beforeAll(async () => {
  const made = makeStore();
  cleanup = made.cleanup;
  server = await startHttpServer(makeDeps(made.store), { port: 0, maxBodyBytes: 8 * 1024 * 1024 });
});

afterAll(async () => {
  await server.stop();
  cleanup();
});

interface Reply {
  id: number;
  result?: { isError?: boolean; content?: Array<{ text: string }>; [k: string]: unknown };
  error?: { code: number; message: string };
}

async function rpc(method: string, params: unknown, id = 1): Promise<Reply> {
  const res = await fetch(server.url, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "Mcp-Protocol-Version": "2025-06-18",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id, method, params }),
  });
  const text = await res.text();
  const data = text.startsWith("{") ? text : (/^data: (.*)$/m.exec(text)?.[1] ?? "");
  return JSON.parse(data) as Reply;
}

const toolText = (r: Reply) => r.result?.content?.map((c) => c.text).join("\n") ?? "";

function nested(depth: number, leaf: unknown = "evocation"): string {
  return `${"[".repeat(depth)}${JSON.stringify(leaf)}${"]".repeat(depth)}`;
}

describe("deeply nested and huge argument values", () => {
  test("an enum parameter given a list nested 100,000 deep → a clean argument error naming it", async () => {
    const body =
      `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"search_spell","arguments":{"school":` +
      `${nested(100_000)}}}}`;
    const res = await fetch(server.url, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
      body,
    });
    const text = await res.text();
    const reply = JSON.parse(text.startsWith("{") ? text : /^data: (.*)$/m.exec(text)![1]!) as Reply;
    expect(reply.error).toBeUndefined();
    expect(reply.result?.isError).toBe(true);
    const msg = toolText(reply);
    expect(msg).toContain("school");
    expect(msg).toMatch(/nested more than \d+ levels/);
    expect(msg).not.toContain("internal error");
    expect(msg.length).toBeLessThan(400);
  });

  test("eight at once, and /health still answers; every call gets its own clean error", async () => {
    const calls = Array.from({ length: 8 }, (_, i) =>
      rpc("tools/call", { name: "search_creature", arguments: { type: JSON.parse(nested(20_000)) } }, i + 10).catch(
        (e: Error) => e,
      ),
    );
    const health = await fetch(server.url.replace(/\/mcp$/, "/health"));
    expect(health.status).toBe(200);
    for (const r of await Promise.all(calls)) {
      expect(r).not.toBeInstanceOf(Error);
      expect(toolText(r as Reply)).toMatch(/type: the value is nested more than/);
    }
  });

  test("a list of 1,000,000 items → refused as too many values, briefly", async () => {
    const r = await rpc("tools/call", {
      name: "search_spell",
      arguments: { documents: Array.from({ length: 1_000_000 }, () => 1) },
    });
    expect(r.result?.isError).toBe(true);
    expect(toolText(r)).toMatch(/more than 10000/);
    expect(toolText(r).length).toBeLessThan(400);
  });
});

describe("protocol error codes", () => {
  test('logging/setLevel {"level": "bogus"} → -32602 and a sentence naming the levels', async () => {
    const r = await rpc("logging/setLevel", { level: "bogus" });
    expect(r.error?.code).toBe(-32602);
    expect(r.error?.message).toMatch(/^logging\/setLevel: level must be one of debug, info, .* \(got "bogus"\)\.$/);
    for (const params of [{}, { level: 5 }, { level: ["info"] }])
      expect((await rpc("logging/setLevel", params)).error?.code).toBe(-32602);
    expect((await rpc("logging/setLevel", { level: "warning" })).result).toEqual({});
    // What the client sent is quoted with its bidi and C1 controls neutralised, as in every other -32602.
    for (const [method, params] of [
      ["logging/setLevel", { level: "x\u202eevil\u0085" }],
      ["resources/read", { uri: "x\u202eevil\u0085" }],
    ] as const) {
      const message = (await rpc(method, params)).error?.message ?? "";
      expect(message).toContain("x\ufffdevil\ufffd");
      expect(message).not.toMatch(/[\u202e\u0085]/);
    }
  });

  test('resources/read {"uri": "not a uri"} → -32602 and a sentence; good URIs still read', async () => {
    for (const params of [{ uri: "not a uri" }, { uri: 42 }, {}, { uri: `lorekeeper://spell/${"x".repeat(5000)}` }]) {
      const r = await rpc("resources/read", params);
      expect(r.error?.code).toBe(-32602);
      expect(r.error?.message).toMatch(/^resources\/read: /);
      expect(r.error!.message.length).toBeLessThan(300);
    }
    const ok = await rpc("resources/read", { uri: "lorekeeper://spell/srd_fireball" });
    expect(JSON.stringify(ok.result)).toContain("Fireball");
    const docs = await rpc("resources/read", { uri: "lorekeeper://documents" });
    expect(JSON.stringify(docs.result)).toContain("srd-2014");
    // Resource not found: -32602 (MCP 2026-07-28's code; the v2 SDK sends it in both eras, it was -32002).
    expect((await rpc("resources/read", { uri: "https://example.com/x" })).error?.code).toBe(-32602);
    expect((await rpc("resources/read", { uri: "lorekeeper://spell/nope" })).error?.code).toBe(-32602);
  });

  test("50,000 unknown parameters → an error text within its budget, naming a few of them", async () => {
    const args: Record<string, number> = {};
    for (let i = 0; i < 50_000; i++) args[`bogus_parameter_${i}`] = i;
    const r = await rpc("tools/call", { name: "search_spell", arguments: args });
    const msg = toolText(r);
    expect(r.result?.isError).toBe(true);
    expect(msg.length).toBeLessThanOrEqual(MAX_ERROR_CHARS);
    expect(msg).toContain('"bogus_parameter_0"');
    expect(msg).toContain("and 49995 more");
    expect(msg).toContain("Valid parameters:");
  });

  test("every JSON-RPC error text is cut to its budget", () => {
    const long = { jsonrpc: "2.0" as const, id: 1, error: { code: -32602, message: "x".repeat(500_000) } };
    const capped = capErrorText(long) as typeof long;
    expect(capped.error.message.length).toBeLessThanOrEqual(MAX_RPC_ERROR_CHARS);
    expect(capped.error.message).toContain("more characters");
    const short = { jsonrpc: "2.0" as const, id: 1, result: {} };
    expect(capErrorText(short)).toBe(short);
  });
});
