/**
 * A client of an in-process LoreKeeper server, over the same line transport and SDK request
 * handling as stdio (stdio-transport.ts, serveStdio, buildServer), on in-memory streams: for tests
 * that send raw JSON-RPC (malformed envelopes a real SDK client would refuse to send). Nothing
 * touches the process's stdin or stdout.
 */
import { PassThrough } from "node:stream";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import type { ToolDeps } from "../../src/tools/kit/deps.ts";
import { buildServer } from "../../src/server/mcp.ts";
import { LineStdioTransport } from "../../src/server/transports/stdio-transport.ts";

export interface Loopback {
  /**
   * One request; resolves with its JSON-RPC response; rejects when none comes within the timeout, or the connection is
   * (or gets) closed.
   */
  request(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

/** A request the in-process server does not answer in this time is given up (it never should be). */
const TIMEOUT_MS = 10_000;

/** The newest protocol revision of the 2025 era, which the MCP clients in use open with. */
const OPENING_VERSION = "2025-11-25";

/** A connected (initialized) loopback client of a server over `deps`. */
export async function openLoopback(deps: ToolDeps, timeoutMs = TIMEOUT_MS): Promise<Loopback> {
  const toServer = new PassThrough();
  const fromServer = new PassThrough();
  const handle = serveStdio((ctx) => buildServer(deps, ctx.era), {
    transport: new LineStdioTransport(toServer, fromServer),
  });
  // The client writes its lines itself and reads the answers through the same line transport, the
  // other way round (it splits and checks them).
  const client = new LineStdioTransport(fromServer, toServer);
  const write = (message: Record<string, unknown>) => void toServer.write(`${JSON.stringify(message)}\n`);
  type Waiting = {
    resolve: (m: Record<string, unknown>) => void;
    reject: (err: Error) => void;
    timer: ReturnType<typeof setTimeout>;
  };
  const waiting = new Map<number, Waiting>();
  let closed = false;
  client.onmessage = (message) => {
    const id = "id" in message && ("result" in message || "error" in message) ? message.id : undefined;
    const w = typeof id === "number" ? waiting.get(id) : undefined;
    if (!w) return;
    clearTimeout(w.timer);
    waiting.delete(id as number);
    w.resolve(message as Record<string, unknown>);
  };
  await client.start();
  let lastId = 0;
  const request = (method: string, params: Record<string, unknown>) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      if (closed) {
        reject(new Error(`the loopback connection is closed: ${method} not sent`));
        return;
      }
      const id = ++lastId;
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new Error(`the in-process server did not answer ${method} within ${timeoutMs} ms`));
      }, timeoutMs);
      waiting.set(id, { resolve, reject, timer });
      write({ jsonrpc: "2.0", id, method, params });
    });
  const close = async () => {
    if (closed) return;
    closed = true;
    for (const w of waiting.values()) {
      clearTimeout(w.timer);
      w.reject(new Error("the loopback connection closed before the answer"));
    }
    waiting.clear();
    await handle.close();
    await client.close();
    toServer.destroy();
    fromServer.destroy();
  };
  try {
    const opened = await request("initialize", {
      protocolVersion: OPENING_VERSION,
      capabilities: {},
      clientInfo: { name: "lorekeeper-loopback", version: "0" },
    });
    if ("error" in opened)
      throw new Error(`the in-process server refused initialize: ${JSON.stringify(opened.error).slice(0, 200)}`);
  } catch (err) {
    await close();
    throw err;
  }
  write({ jsonrpc: "2.0", method: "notifications/initialized" });
  return { request, close };
}
