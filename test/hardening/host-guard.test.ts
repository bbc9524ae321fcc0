/**
 * the Host guard parses hosts as browsers do. `Host: [::1]evil.com` (not a host
 * at all) is refused, 401 on a token server to a caller without the token and 403 otherwise,
 * never 200 "Invalid URL"; `--host 127.1` and `0x7f000001` are loopback spellings and accepted.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { connect } from "node:net";
import { type HttpServerHandle, resolveHttpOptions, startHttpServer } from "../../src/server/transports/http.ts";
import { checkHost, isLoopback } from "../../src/server/transports/http-guard.ts";
import { makeStore } from "../support/entities.ts";
import { connectHttp, makeDeps, namesOf } from "../support/mcp.ts";

const TOKEN = "host-guard-token";
let open: HttpServerHandle;
let secured: HttpServerHandle;
let cleanup: () => void;
let deps: ReturnType<typeof makeDeps>;

beforeAll(async () => {
  const made = makeStore();
  cleanup = made.cleanup;
  deps = makeDeps(made.store);
  open = await startHttpServer(deps, { port: 0 });
  secured = await startHttpServer(deps, { port: 0, token: TOKEN });
});

afterAll(async () => {
  await open.stop();
  await secured.stop();
  cleanup();
});

/** One raw HTTP/1.1 request with exactly these headers; the status line and body of the answer. */
function raw(port: number, path: string, headers: string[], body = ""): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const s = connect(port, "127.0.0.1");
    let data = "";
    s.on("data", (d) => (data += d.toString()));
    s.on("error", reject);
    s.on("close", () =>
      resolve({
        status: Number(/^HTTP\/1\.1 (\d+)/.exec(data)?.[1] ?? 0),
        body: data.split("\r\n\r\n").slice(1).join("\r\n\r\n"),
      }),
    );
    s.write(
      `${body ? "POST" : "GET"} ${path} HTTP/1.1\r\n${headers.join("\r\n")}\r\nConnection: ` +
        `close\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
    );
  });
}

const INIT = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
});
const MCP = ["Content-Type: application/json", "Accept: application/json, text/event-stream"];

describe("a Host header that is no host", () => {
  const bad = ["[::1]evil.com", "[::1]evil.com:80", "127.0.0.1/evil", "user@127.0.0.1", "[::1"];

  test("→ 403 on a server without a token (never 200)", async () => {
    for (const host of bad) {
      for (const path of ["/health", "/mcp"]) {
        const r = await raw(open.port, path, [`Host: ${host}`, ...MCP], path === "/mcp" ? INIT : "");
        expect({ host, path, status: r.status }).toEqual({ host, path, status: 403 });
        expect(r.body).not.toContain("Invalid URL");
      }
    }
  });

  test("→ 401 on a token server without the token, 403 with it", async () => {
    for (const host of bad) {
      const r = await raw(secured.port, "/mcp", [`Host: ${host}`, ...MCP], INIT);
      expect({ host, status: r.status }).toEqual({ host, status: 401 });
      const h = await raw(secured.port, "/health", [`Host: ${host}`]);
      expect({ host, status: h.status }).toEqual({ host, status: 401 });
      const authed = await raw(secured.port, "/mcp", [`Host: ${host}`, `Authorization: Bearer ${TOKEN}`, ...MCP], INIT);
      expect({ host, status: authed.status }).toEqual({ host, status: 403 });
    }
  });

  test("checkHost tells malformed from foreign", () => {
    const hosts: string[] = [];
    expect(checkHost("[::1]evil.com", hosts)).toBe("malformed");
    expect(checkHost("evil.com", hosts)).toBe("forbidden");
    expect(checkHost("[::1]:8000", hosts)).toBe("ok");
    expect(checkHost("127.1:8000", hosts)).toBe("ok");
  });
});

describe("loopback in every IPv4 spelling", () => {
  test("isLoopback accepts 127.1, 0x7f000001, 2130706433, 0177.0.0.1, ::1, ::ffff:127.0.0.1; no look-alikes", () => {
    for (const h of [
      "127.1",
      "0x7f000001",
      "2130706433",
      "0177.0.0.1",
      "127.0.0.1",
      "::1",
      "[::1]",
      "::ffff:127.0.0.1",
      "localhost",
    ])
      expect({ h, loop: isLoopback(h) }).toEqual({ h, loop: true });
    for (const h of ["128.1", "0x7f000001.evil", "127.0.0.1.evil.example", "[::1]evil.com", "10.0.0.1", "::2"])
      expect({ h, loop: isLoopback(h) }).toEqual({ h, loop: false });
  });

  test("--host 127.1 and 0x7f000001 are accepted without a token and serve on 127.0.0.1", async () => {
    for (const host of ["127.1", "0x7f000001"]) {
      expect(resolveHttpOptions({ host }).host).toBe("127.0.0.1");
      const h = await startHttpServer(deps, { host, port: 0 });
      try {
        expect(h.url).toStartWith("http://127.0.0.1:");
        const c = await connectHttp(h.url);
        expect(namesOf(await c.client.callTool({ name: "search_spell", arguments: { name: "Fireball" } }))).toContain(
          "Fireball",
        );
        await c.close();
      } finally {
        await h.stop();
      }
    }
  }, 30_000);

  test("a non-loopback address in another spelling still needs a token", () => {
    expect(() => resolveHttpOptions({ host: "0x0a000001" })).toThrow(/without a token/);
  });
});
