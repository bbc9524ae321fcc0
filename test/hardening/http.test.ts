/**
 * the HTTP transport under hostile or broken clients, in-process on 127.0.0.1:0.
 * Oversized bodies (declared and chunked), slow and stalled bodies, clients stuck in their headers,
 * invalid JSON, valid JSON that is not JSON-RPC, batches, wrong Origin / Host, missing or wrong
 * token, wrong media types, methods other than POST, and 50 concurrent clients: each gets the right
 * status and a JSON-RPC error body that says what is wrong, and the server keeps serving.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect, type Socket } from "node:net";
import { type HttpServerHandle, startHttpServer } from "../../src/server/transports/http.ts";
import { makeStore } from "../support/entities.ts";
import { connectHttp, makeDeps, namesOf, TOOL_NAMES } from "../support/mcp.ts";

const TOKEN = "s3cret-token-for-tests";
const MAX_BODY = 64 * 1024;
const BODY_TIMEOUT_MS = 1000;
let open: HttpServerHandle;
let secured: HttpServerHandle;
let cleanup: () => void;
/** Opened first, checked last: Bun drops a client stuck in its headers after about 10 s. */
let stuck: ReturnType<typeof rawClient>;

beforeAll(async () => {
  const made = makeStore();
  cleanup = made.cleanup;
  const deps = makeDeps(made.store);
  open = await startHttpServer(deps, { port: 0, maxBodyBytes: MAX_BODY, bodyTimeoutMs: BODY_TIMEOUT_MS });
  stuck = rawClient(open.port);
  stuck.socket.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${open.port}\r\nContent-Type: appl`);
  secured = await startHttpServer(deps, {
    port: 0,
    token: TOKEN,
    allowedOrigins: ["https://app.example.com"],
    allowedHosts: ["lorekeeper.lan"],
  });
});

afterAll(async () => {
  await open.stop();
  await secured.stop();
  cleanup();
});

const MCP_HEADERS = {
  "Content-Type": "application/json",
  Accept: "application/json, text/event-stream",
  "Mcp-Protocol-Version": "2025-06-18",
};
const INIT = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
};
const call = (id: number, name: string, args: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name, arguments: args },
});

function post(
  url: string,
  body: string | ReadableStream<Uint8Array> | object,
  headers: Record<string, string> = {},
): Promise<Response> {
  const raw = typeof body === "string" || body instanceof ReadableStream ? body : JSON.stringify(body);
  return fetch(url, { method: "POST", headers: { ...MCP_HEADERS, ...headers }, body: raw });
}

interface RpcError {
  jsonrpc: string;
  id: unknown;
  error: { code: number; message: string };
}

/** A refused request: its status, and a JSON-RPC error body with `code` whose message matches. */
async function expectRefused(res: Response, status: number, code: number, message: RegExp): Promise<RpcError> {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toContain("application/json");
  const body = (await res.json()) as RpcError;
  expect(body.jsonrpc).toBe("2.0");
  expect(body.id).toBeNull();
  expect(body.error.code).toBe(code);
  expect(body.error.message).toMatch(message);
  expect(body.error.message).not.toMatch(/\n\s+at |\.ts:\d|TypeError/);
  return body;
}

/** JSON-RPC messages of an SSE (or JSON) response. */
async function messagesOf(res: Response): Promise<Array<Record<string, unknown>>> {
  const text = await res.text();
  if ((res.headers.get("content-type") ?? "").includes("application/json"))
    return [JSON.parse(text) as Record<string, unknown>].flat();
  return text
    .split("\n")
    .filter((l) => l.startsWith("data: "))
    .map((l) => JSON.parse(l.slice(6)) as Record<string, unknown>);
}

/** A raw TCP client: what it wrote, everything it received, and when the server closed it. */
function rawClient(port: number): { socket: Socket; received: () => string; closed: Promise<number> } {
  const socket = connect(port, "127.0.0.1");
  let got = "";
  socket.on("data", (d) => {
    got += d.toString();
  });
  socket.on("error", () => {});
  const t0 = performance.now();
  const closed = new Promise<number>((resolve) => socket.on("close", () => resolve(performance.now() - t0)));
  return { socket, received: () => got, closed };
}

async function normalCallWorks(url: string, token?: string): Promise<void> {
  const { client, close } = await connectHttp(url, token);
  try {
    expect(
      namesOf(
        await client.callTool({ name: "search_spell", arguments: { name: "Fireball", documents: ["srd-2014"] } }),
      ),
    ).toEqual(["Fireball"]);
  } finally {
    await close();
  }
}

describe("bodies", () => {
  test(
    "a body over the limit → 413, whether declared (Content-Length) " +
      "or streamed (chunked); exactly the limit passes",
    async () => {
      const padded = (size: number) => {
        const base = JSON.stringify({ ...INIT, params: { ...INIT.params, pad: "" } });
        return JSON.stringify({ ...INIT, params: { ...INIT.params, pad: "x".repeat(size - base.length) } });
      };
      expect(padded(MAX_BODY).length).toBe(MAX_BODY);
      const atLimit = await post(open.url, padded(MAX_BODY));
      expect(atLimit.status).toBe(200);
      expect(await atLimit.text()).toContain('"serverInfo"');

      await expectRefused(await post(open.url, padded(MAX_BODY + 1)), 413, -32000, /too large.*65536 bytes/i);
      const chunked = new ReadableStream<Uint8Array>({
        start(c) {
          const piece = new TextEncoder().encode("x".repeat(16 * 1024));
          c.enqueue(new TextEncoder().encode('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"'));
          for (let i = 0; i < 8; i++) c.enqueue(piece);
          c.close();
        },
      });
      await expectRefused(await post(open.url, chunked), 413, -32000, /too large/i);
      // A declared size far over the limit is refused before anything is read.
      const sock = rawClient(open.port);
      sock.socket.write(
        `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${open.port}\r\nContent-Type: application/json\r\nAccept: ` +
          `application/json, text/event-stream\r\nContent-Length: 999999999\r\n\r\n{`,
      );
      await sock.closed;
      expect(sock.received()).toMatch(/^HTTP\/1\.1 413/);
      await normalCallWorks(open.url);
    },
  );

  test("a client that sends its headers, then trickles its body is answered 408 while others are served", async () => {
    const slow = rawClient(open.port);
    const body = JSON.stringify(call(7, "search_spell", { name: "Shield" }));
    slow.socket.write(
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${open.port}\r\nContent-Type: ` +
        `application/json\r\nAccept: application/json, text/event-stream\r\nMcp-Protocol-Version: ` +
        `2025-06-18\r\nContent-Length: ${body.length}\r\n\r\n`,
    );
    let sent = 0;
    const trickle = setInterval(() => {
      if (sent < body.length && !slow.socket.destroyed) slow.socket.write(body[sent++]!);
    }, 100);
    try {
      // Meanwhile, 20 normal calls go through at normal speed.
      const { client, close } = await connectHttp(open.url);
      const t0 = performance.now();
      const names = await Promise.all(
        Array.from({ length: 20 }, () =>
          client.callTool({ name: "search_creature", arguments: { name: "Goblin" } }).then(namesOf),
        ),
      );
      expect(performance.now() - t0).toBeLessThan(BODY_TIMEOUT_MS);
      await close();
      expect(names.every((n) => n.length === 1 && n[0] === "Goblin")).toBe(true);
      const closedAfter = await slow.closed;
      expect(closedAfter).toBeGreaterThanOrEqual(BODY_TIMEOUT_MS - 50);
      expect(closedAfter).toBeLessThan(BODY_TIMEOUT_MS + 3000);
      expect(sent).toBeLessThan(body.length); // cut off before the body was complete
      const reply = slow.received();
      expect(reply).toMatch(/^HTTP\/1\.1 408/);
      expect(reply).toContain('"code":-32000');
      expect(reply).toContain(`did not arrive within ${BODY_TIMEOUT_MS} ms`);
    } finally {
      clearInterval(trickle);
      slow.socket.destroy();
    }
  });

  test("a stalled body → 408", async () => {
    const stalled = rawClient(open.port);
    stalled.socket.write(
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${open.port}\r\nContent-Type: application/json\r\nAccept: ` +
        `application/json, text/event-stream\r\nContent-Length: 100\r\n\r\n{"jsonrpc"`,
    );
    const closedAfter = await stalled.closed;
    expect(closedAfter).toBeGreaterThanOrEqual(BODY_TIMEOUT_MS - 50);
    expect(closedAfter).toBeLessThan(BODY_TIMEOUT_MS + 3000);
    expect(stalled.received()).toMatch(/^HTTP\/1\.1 408/);
    await normalCallWorks(open.url);
  });
});

describe("JSON-RPC framing", () => {
  test("invalid JSON → 400 with -32700", async () => {
    for (const body of [
      "{",
      "",
      "nul",
      '{"jsonrpc": "2.0", "id": 1,',
      "\u0000\u0001",
      "}{",
      "x".repeat(10_000),
      "{'jsonrpc': '2.0'}",
    ]) {
      await expectRefused(await post(open.url, body), 400, -32700, /^Parse error/);
    }
  });

  test("valid JSON that is not JSON-RPC → 400 with -32600", async () => {
    const bodies: unknown[] = [
      {},
      [],
      42,
      "tools/call",
      null,
      true,
      { jsonrpc: "1.0", id: 1, method: "ping" },
      { id: 1, method: "ping" },
      { jsonrpc: "2.0", id: 1, method: 42 },
      { jsonrpc: "2.0", id: { x: 1 }, method: "ping" },
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: "x" },
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "search_spell", _meta: "x" } },
    ];
    for (const b of bodies)
      await expectRefused(await post(open.url, JSON.stringify(b)), 400, -32600, /^Invalid Request/);
  });

  test('a request with "id": null → 400 -32600 naming the id, not an "Unrecognized key"', async () => {
    const res = await post(open.url, { jsonrpc: "2.0", id: null, method: "ping" });
    const body = await expectRefused(res, 400, -32600, /^Invalid Request/);
    expect(body.error.message).toContain("a request id must be a string or a number (got null)");
    expect(body.error.message).not.toContain("Unrecognized key");
  });

  test("a response sent with 2026-07-28 headers → 400 -32600: no request awaits it (not 'unsupported')", async () => {
    const modern = { "Mcp-Protocol-Version": "2026-07-28" };
    const responses = [
      { jsonrpc: "2.0", id: 1, result: {} },
      { jsonrpc: "2.0", id: 1, error: { code: -1, message: "no" } },
    ];
    for (const response of responses) {
      const res = await post(open.url, response, modern);
      const body = await expectRefused(res, 400, -32600, /^Invalid Request: the body is a JSON-RPC response/);
      expect(body.error.message).toContain("sends no requests to clients");
      expect(body.error.message).not.toContain("nsupported");
    }
    // A 2025-era client's response is still acknowledged as the SDK does.
    expect((await post(open.url, { jsonrpc: "2.0", id: 1, result: {} })).status).toBe(202);
  });

  test(
    "batches: each request answered; an invalid item, an initialize " +
      "among others or over 100 items → 400 -32600; notifications only → 202",
    async () => {
      const ok = await post(open.url, [
        call(1, "search_spell", { name: "Shield" }),
        { jsonrpc: "2.0", id: 2, method: "tools/list" },
        call(3, "search_spell", { level: "high" }),
      ]);
      expect(ok.status).toBe(200);
      const msgs = await messagesOf(ok);
      expect(msgs.map((m) => m.id).sort()).toEqual([1, 2, 3]);
      const byId = new Map(msgs.map((m) => [m.id, m.result as Record<string, unknown>]));
      expect(
        ((byId.get(1)!.structuredContent as { results: Array<{ name: string }> }).results ?? []).map((r) => r.name),
      ).toEqual(["Shield"]);
      expect((byId.get(2)!.tools as { name: string }[]).map((t) => t.name)).toEqual([...TOOL_NAMES]);
      expect(byId.get(3)!.isError).toBe(true);

      await expectRefused(
        await post(open.url, [call(1, "search_spell", {}), { jsonrpc: "2.0", id: 2 }]),
        400,
        -32600,
        /batch item 1/,
      );
      await expectRefused(await post(open.url, [INIT, call(2, "search_spell", {})]), 400, -32600, /initialization/);
      await expectRefused(
        await post(
          open.url,
          Array.from({ length: 101 }, (_, i) => call(i, "search_spell", {})),
        ),
        400,
        -32600,
        /at most 100 messages/,
      );
      const notes = await post(open.url, [
        { jsonrpc: "2.0", method: "notifications/initialized" },
        { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 99 } },
      ]);
      expect(notes.status).toBe(202);
    },
  );

  test("a malformed tools/call envelope → -32602 with a readable message; unknown tool → -32602", async () => {
    const cases: Array<[unknown, RegExp]> = [
      [
        { name: "search_spell", arguments: "Fireball" },
        /arguments must be an object of named parameters.*got the string "Fireball"/,
      ],
      [{ name: 42 }, /params\.name must be the name of a tool/],
      [{ name: "search_spells", arguments: {} }, /Unknown tool "search_spells"\. Available tools: search_spell,/],
    ];
    for (const [params, message] of cases) {
      const [msg] = await messagesOf(await post(open.url, { jsonrpc: "2.0", id: 5, method: "tools/call", params }));
      const err = (msg as unknown as RpcError).error;
      expect(err.code).toBe(-32602);
      expect(err.message).toMatch(message);
    }
    // "arguments": null counts as no arguments.
    const [nul] = await messagesOf(
      await post(open.url, {
        jsonrpc: "2.0",
        id: 6,
        method: "tools/call",
        params: { name: "list_documents", arguments: null },
      }),
    );
    expect((nul!.result as { structuredContent: { count: number } }).structuredContent.count).toBe(4);
  });

  test("wrong Content-Type → 415; an Accept without event-stream → 406", async () => {
    await expectRefused(
      await post(open.url, INIT, { "Content-Type": "text/plain" }),
      415,
      -32000,
      /Content-Type must be application\/json/,
    );
    await expectRefused(
      await post(open.url, INIT, { "Content-Type": "application/jsonx" }),
      415,
      -32000,
      /Unsupported Media Type/,
    );
    await expectRefused(await post(open.url, INIT, { Accept: "application/json" }), 406, -32000, /Not Acceptable/);
  });
});

describe("methods and paths", () => {
  test("GET, DELETE, PUT, PATCH on /mcp → 405 with Allow: POST; /health answers GET; unknown paths 404", async () => {
    for (const method of ["GET", "DELETE", "PUT", "PATCH"]) {
      const res = await fetch(open.url, { method, headers: { Accept: "text/event-stream, application/json" } });
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toBe("POST");
      expect(((await res.json()) as RpcError).error.message).toContain("send JSON-RPC with POST");
    }
    const health = await fetch(open.url.replace(/\/mcp$/, "/health"));
    expect(health.status).toBe(200);
    expect(((await health.json()) as { status: string; counts: Record<string, number> }).counts.spell).toBeGreaterThan(
      10,
    );
    for (const path of ["/", "/mcp/extra", "/health/../mcp2", "/%00", "/.env"])
      expect((await fetch(`http://127.0.0.1:${open.port}${path}`)).status).toBe(404);
    expect((await fetch(open.url.replace(/\/mcp$/, "/health"), { method: "POST", body: "{}" })).status).toBe(404);
  });
});

describe("access control", () => {
  test(
    "missing or wrong token → 401 with WWW-Authenticate, " + "before the body is looked at; the right token works",
    async () => {
      const refusals: Array<Record<string, string>> = [
        {},
        { Authorization: "Bearer wrong" },
        { Authorization: `Bearer ${TOKEN}x` },
        { Authorization: `Bearer ${TOKEN.slice(0, -1)}` },
        { Authorization: "Bearer " },
        { Authorization: `Basic ${btoa(`user:${TOKEN}`)}` },
        { Authorization: TOKEN },
      ];
      for (const h of refusals) {
        const res = await post(secured.url, INIT, h);
        expect(res.headers.get("www-authenticate")).toBe('Bearer realm="lorekeeper"');
        await expectRefused(res, 401, -32000, /Unauthorized/);
      }
      // A broken or large body does not get past a missing token; one over the server's hard limit
      // (1 MiB + 64 KiB) is refused by Bun before any handler runs.
      expect((await post(secured.url, "{", {})).status).toBe(401);
      expect((await post(secured.url, "x".repeat(512 * 1024), {})).status).toBe(401);
      expect((await post(secured.url, "x".repeat(2 * 1024 * 1024), {})).status).toBe(413);
      const ok = await post(secured.url, INIT, { Authorization: `bearer ${TOKEN}` });
      expect(ok.status).toBe(200);
      await normalCallWorks(secured.url, TOKEN);
      // /health stays open (monitoring), and reveals no content.
      expect((await fetch(secured.url.replace(/\/mcp$/, "/health"))).status).toBe(200);
    },
  );

  test("a foreign Origin or Host → 403 (DNS rebinding), even with the right token", async () => {
    const auth = { Authorization: `Bearer ${TOKEN}` };
    for (const origin of [
      "https://evil.example",
      "null",
      "http://127.0.0.1.evil.example",
      "https://app.example.com.evil.example",
      "http://app.example.com",
      "file://",
      "not a url",
    ]) {
      await expectRefused(
        await post(secured.url, INIT, { ...auth, Origin: origin }),
        403,
        -32000,
        /Origin not allowed/,
      );
    }
    for (const host of [
      "evil.example",
      "127.0.0.1.evil.example",
      `evil.example:${secured.port}`,
      "lorekeeper.lan.evil.example",
      "localhost.evil",
    ]) {
      await expectRefused(
        await post(secured.url, INIT, { ...auth, Host: host }),
        403,
        -32000,
        /Host header not allowed/,
      );
    }
    expect(
      (await fetch(secured.url.replace(/\/mcp$/, "/health"), { headers: { Host: "rebind.example" } })).status,
    ).toBe(403);
    const goods: Array<Record<string, string>> = [
      { Origin: "https://app.example.com" },
      { Origin: "http://localhost:5173" },
      { Host: `lorekeeper.lan:${secured.port}` },
      { Host: `localhost:${secured.port}` },
    ];
    for (const good of goods) {
      expect((await post(secured.url, INIT, { ...auth, ...good })).status).toBe(200);
    }
  });
});

describe("load", () => {
  test("50 clients × 20 calls at once: every call answered correctly", async () => {
    const queries: Array<[string, Record<string, unknown>, string]> = [
      ["search_creature", { name: "Goblin" }, "Goblin"],
      ["search_spell", { name: "Magic Missile" }, "Magic Missile"],
      ["search_equipment", { name: "Longsword" }, "Longsword"],
      ["search_rule", { name: "Grappled" }, "Grappled"],
      ["search_character_option", { name: "Wizard" }, "Wizard"],
    ];
    const clients = await Promise.all(Array.from({ length: 50 }, () => connectHttp(secured.url, TOKEN)));
    try {
      const outcomes = await Promise.all(
        clients.map(async ({ client }, ci) => {
          const got: boolean[] = [];
          for (let i = 0; i < 20; i++) {
            const [tool, args, expected] = queries[(ci + i) % queries.length]!;
            const r = await client.callTool({ name: tool, arguments: args }).catch((err: unknown) => err);
            got.push(!(r instanceof Error) && namesOf(r)[0] === expected);
          }
          return got;
        }),
      );
      const flat = outcomes.flat();
      expect(flat).toHaveLength(1000);
      expect(flat.filter((ok) => !ok)).toHaveLength(0);
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
    await normalCallWorks(secured.url, TOKEN);
  }, 60_000);
});

describe("slowloris", () => {
  test("the client stuck in its headers since the start was cut off (about 10 s, by Bun) and got nothing", async () => {
    // Disconnected at all (else this await outlives the test's timeout), and not early. No upper bound
    // in wall time: on busy cores the 50-client load test above can hold the event loop well past 10 s.
    const after = await stuck.closed;
    expect(after).toBeGreaterThan(5000);
    expect(stuck.received()).toBe("");
    await normalCallWorks(open.url);
  }, 25_000);
});
