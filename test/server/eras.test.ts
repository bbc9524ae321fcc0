/**
 * One server, both protocol eras: MCP 2026-07-28 (server/discover, per-request `_meta`, cache
 * hints, no logging capability, -32602 for a missing resource) and 2025-11-25 (initialize), over
 * HTTP (the real Elysia front on 127.0.0.1:0) and stdio (a spawned `lorekeeper serve`), with
 * clients of both SDKs: v2 (@modelcontextprotocol/client) and v1 (@modelcontextprotocol/sdk).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ProtocolError } from "@modelcontextprotocol/client";
import { type HttpServerHandle, startHttpServer } from "../../src/server/transports/http.ts";
import { SERVER_INSTRUCTIONS } from "../../src/server/mcp.ts";
import { makeStore } from "../support/entities.ts";
import { connectHttp, connectStdio, isolatedEnv, makeDeps, TOOL_NAMES } from "../support/mcp.ts";
import { TOOL_CASES } from "../support/tool-calls.ts";
import { connectV2Http, connectV2Stdio } from "../support/v2-client.ts";

const MODERN = "2026-07-28";
let http: HttpServerHandle;
let made: ReturnType<typeof makeStore>;

beforeAll(async () => {
  made = makeStore();
  http = await startHttpServer(makeDeps(made.store), { port: 0 });
});
afterAll(async () => {
  await http.stop();
  made.cleanup();
});

const envelope = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** A raw POST; modern requests carry the envelope and the 2026 headers. */
async function raw(
  method: string,
  params: Record<string, unknown> = {},
  era: "modern" | "legacy" = "modern",
  headers: Record<string, string> = {},
): Promise<{ status: number; body: { result?: Record<string, unknown>; error?: { code: number; message: string } } }> {
  const modern = era === "modern";
  const res = await fetch(http.url, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      "MCP-Protocol-Version": modern ? MODERN : "2025-11-25",
      ...(modern
        ? {
            "Mcp-Method": method,
            ...(typeof (params.name ?? params.uri) === "string"
              ? { "Mcp-Name": String(params.name ?? params.uri) }
              : {}),
          }
        : {}),
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: modern ? { ...params, _meta: envelope } : params }),
  });
  const text = await res.text();
  const json = text.startsWith("{")
    ? text
    : (text
        .split("\n")
        .filter((l) => l.startsWith("data:"))
        .at(-1)
        ?.slice(5) ?? "{}");
  return { status: res.status, body: JSON.parse(json) };
}

describe("2026-07-28 over HTTP", () => {
  test("server/discover: versions, capabilities without logging, instructions, identity, cache hints", async () => {
    const { status, body } = await raw("server/discover");
    expect(status).toBe(200);
    const r = body.result!;
    expect(r.supportedVersions).toContain(MODERN);
    expect(r.capabilities).toEqual({ tools: {}, resources: {}, prompts: {}, completions: {} });
    expect(r.instructions).toBe(SERVER_INSTRUCTIONS);
    expect((r._meta as Record<string, { name: string }>)["io.modelcontextprotocol/serverInfo"]?.name).toBe(
      "lorekeeper",
    );
    expect(r.ttlMs).toBe(3_600_000);
    expect(r.cacheScope).toBe("public");
  });

  test("lists carry cache hints in 2026-07-28 and none in 2025; reads are private and short", async () => {
    for (const method of ["tools/list", "prompts/list", "resources/list", "resources/templates/list"]) {
      const modern = (await raw(method)).body.result!;
      expect([method, modern.ttlMs, modern.cacheScope, modern.resultType]).toEqual([
        method,
        3_600_000,
        "public",
        "complete",
      ]);
      const legacy = (await raw(method, {}, "legacy")).body.result!;
      expect([method, legacy.ttlMs, legacy.cacheScope]).toEqual([method, undefined, undefined]);
    }
    const read = (await raw("resources/read", { uri: "lorekeeper://documents" })).body.result!;
    expect([read.ttlMs, read.cacheScope]).toEqual([60_000, "private"]);
  });

  test("2026 errors: a missing resource is -32602 with the same guidance; logging/setLevel not offered", async () => {
    const missing = await raw("resources/read", { uri: "lorekeeper://spell/srd_nothing" });
    expect(missing.body.error?.code).toBe(-32602);
    expect(missing.body.error?.message).toContain("Search for it with the search tools");
    const setLevel = await raw("logging/setLevel", { level: "info" });
    expect(setLevel.body.error).toBeDefined();
    // An unknown revision: -32022 naming the supported ones.
    const future = await fetch(http.url, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        "MCP-Protocol-Version": "2099-01-01",
        "Mcp-Method": "tools/list",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 9,
        method: "tools/list",
        params: { _meta: { ...envelope, "io.modelcontextprotocol/protocolVersion": "2099-01-01" } },
      }),
    });
    const futureBody = (await future.json()) as { error: { code: number; data: { supported: string[] } } };
    expect([future.status, futureBody.error.code]).toEqual([400, -32022]);
    expect(futureBody.error.data.supported).toContain(MODERN);
    // A 2026 request whose Mcp-Method header disagrees with its body is refused (header mismatch).
    const mismatch = await raw("tools/list", {}, "modern", { "Mcp-Method": "prompts/list" });
    expect([mismatch.status, mismatch.body.error?.code]).toEqual([400, -32020]);
  });

  test("a v2 client pinned to 2026-07-28 lists the tools, calls each one and reads a resource", async () => {
    const { client, close } = await connectV2Http(http.url, "modern");
    try {
      expect(client.getProtocolEra()).toBe("modern");
      expect(client.getServerCapabilities()?.logging).toBeUndefined();
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual([...TOOL_NAMES]);
      for (const name of TOOL_NAMES) {
        const r = await client.callTool({ name, arguments: TOOL_CASES[name]!.ok });
        expect([name, r.isError ?? false, typeof r.structuredContent]).toEqual([name, false, "object"]);
      }
      const doc = await client.readResource({ uri: "lorekeeper://creature/srd_goblin" });
      expect(JSON.parse((doc.contents[0] as { text: string }).text).name).toBe("Goblin");
      const err = await client.readResource({ uri: "lorekeeper://spell/srd_nothing" }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ProtocolError);
      expect((err as ProtocolError).code).toBe(-32602);
    } finally {
      await close();
    }
  });

  test("a v2 client in auto mode negotiates 2026-07-28; a v2 client in legacy mode, a v1 client: 2025", async () => {
    const auto = await connectV2Http(http.url, "auto");
    const legacy = await connectV2Http(http.url, "legacy");
    const v1 = await connectHttp(http.url);
    try {
      expect(auto.client.getProtocolEra()).toBe("modern");
      expect(legacy.client.getProtocolEra()).toBe("legacy");
      expect(legacy.client.getServerCapabilities()?.logging).toEqual({});
      for (const c of [auto.client, legacy.client])
        expect((await c.callTool({ name: "search_spell", arguments: { name: "Fireball" } })).isError).toBeFalsy();
      expect((await v1.client.callTool({ name: "search_spell", arguments: { name: "Fireball" } })).isError).toBeFalsy();
      expect(v1.client.getServerCapabilities()?.logging).toEqual({});
    } finally {
      await Promise.all([auto.close(), legacy.close(), v1.close()]);
    }
  });

  test("initialize after a successful server/discover works (clients that probe, then open the 2025 way)", async () => {
    expect((await raw("server/discover")).body.result?.supportedVersions).toContain(MODERN);
    const init = await raw(
      "initialize",
      { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
      "legacy",
    );
    expect(init.body.result?.protocolVersion).toBe("2025-11-25");
  });
});

describe("stdio, both eras, one command", () => {
  test("a v2 client (auto) gets 2026-07-28, a v1 client gets 2025; both list, call and read", async () => {
    const env = await isolatedEnv(made.store.db.filename.replace(/\/lk\.db$/, ""));
    const args = ["serve", "--db-path", made.store.db.filename];
    const v2 = await connectV2Stdio(args, env, "auto");
    const v1 = await connectStdio(args, env);
    try {
      expect(v2.client.getProtocolEra()).toBe("modern");
      expect(v2.client.getServerCapabilities()?.logging).toBeUndefined();
      expect(v1.client.getServerCapabilities()?.logging).toEqual({});
      for (const c of [v2.client, v1.client]) {
        expect((await c.listTools()).tools.map((t) => t.name)).toEqual([...TOOL_NAMES]);
        const r = await c.callTool({ name: "search_creature", arguments: { name: "Goblin" } });
        expect((r.structuredContent as { count: number }).count).toBe(1);
        const doc = await c.readResource({ uri: "lorekeeper://documents" });
        expect((doc.contents[0] as { text: string }).text).toContain("srd-2014");
      }
    } finally {
      await Promise.all([v2.close(), v1.close()]);
    }
  }, 30_000);
});
