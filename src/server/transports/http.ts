/**
 * MCP over Streamable HTTP on Elysia, stateless: the SDK's `createMcpHandler` serves POST /mcp with
 * a fresh server per request for either era (2026-07-28 and the 2025-era stateless idiom). No
 * sessions, no GET stream (GET/DELETE answer 405), so any replica can answer. Also GET /health.
 *
 * Safety: 127.0.0.1 by default, no network bind without a strong token; the bearer token compared
 * in constant time (401); Host and Origin allowlists (403, DNS rebinding); bodies over the limit
 * 413, too slow 408, invalid JSON -32700, invalid JSON-RPC -32600 (http-body.ts).
 */
import { LoreKeeperError } from "../../errors.ts";
import { createMcpHandler, type McpHttpHandler } from "@modelcontextprotocol/server";
import { Elysia } from "elysia";
import { APP_VERSION } from "../../config.ts";
import { log } from "../../log.ts";
import { countByKind } from "../../store/entities.ts";
import { lastSyncedAt } from "../../store/sync-state.ts";
import { CACHES } from "../../store/caches.ts";
import type { ToolDeps } from "../../tools/kit/deps.ts";
import { Admission } from "./backpressure.ts";
import { isJsonContentType, readBody } from "./http-body.ts";
import { parseJsonRpc } from "../protocol/protocol-checks.ts";
import { AuthFailures, type AuthFailureLimits, guessableTokenProblem, weakTokenProblem } from "./auth-failures.ts";
import type { Server } from "bun";
import { bearerMatches, checkHost, isLoopback, originAllowed, parseHost } from "./http-guard.ts";
import { buildServer } from "../mcp.ts";
import { TimeoutError, withTimeout } from "../../search/model/timeout.ts";

const HTTP_DEFAULTS = {
  port: 8000,
  allowedHosts: [] as string[],
  allowedOrigins: [] as string[],
  maxBodyBytes: 1024 * 1024,
  /** From the headers to the whole body, else 408 (Bun itself drops a client stuck in its headers after ~10 s). */
  bodyTimeoutMs: 30_000,
  /** Most JSON-RPC messages in one batch (as the SDK's transport); a larger batch gets 400 -32600. */
  maxBatch: 100,
  /** Messages worked on at once over all requests; past it requests wait, then get 503. */
  maxInFlightMessages: 100,
  maxQueuedMessages: 400,
  maxQueueWaitMs: 10_000,
  /** A client that leaves part of its answer unread this long is cut off. */
  maxHoldMs: 120_000,
  /** How long `stop()` lets requests finish (0: no limit) before closing what is left, stuck senders included. */
  stopGraceMs: 5_000,
};

export type HttpOptions = Partial<typeof HTTP_DEFAULTS> & {
  host?: string;
  token?: string;
  authFailureLimits?: AuthFailureLimits;
};

type Resolved = ReturnType<typeof resolveHttpOptions>;

export interface HttpServerHandle {
  url: string;
  port: number;
  stop(): Promise<void>;
}

export class HttpConfigError extends LoreKeeperError {
  declare readonly hint: string;
  constructor(message: string, hint: string) {
    super("http_config", message, hint);
    this.name = "HttpConfigError";
  }
}

function jsonRpcError(status: number, message: string, headers: Record<string, string> = {}, code = -32000): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { "Content-Type": "application/json", ...headers },
  });
}

/**
 * GET /health: status and version for everyone; the counts for callers with the token (or of a
 * server without one), remembered per store version so a crowd of checks runs one GROUP BY.
 */
function healthBody(deps: ToolDeps, detailed = true): Record<string, unknown> {
  if (!detailed) return { status: "ok", version: APP_VERSION };
  const { counts, synced } = CACHES.health.get(deps.db, () => ({
    counts: countByKind(deps.db),
    synced: lastSyncedAt(deps.db),
  }));
  return {
    status: "ok",
    version: APP_VERSION,
    entities: Object.values(counts).reduce((a, b) => a + b, 0),
    counts,
    data_synced_at: synced === null ? null : new Date(synced).toISOString(),
    model: deps.modelState?.() ?? "unknown",
  };
}

/**
 * `res` with `release` called once its body is sent or dropped (an SSE answer works while it
 * streams). A client that leaves a chunk unread for `maxHoldMs` is cut off: it cannot hold its share
 * of the work in flight forever (a slow answer is no such case).
 */
function releaseWhenDone(res: Response, release: () => void, maxHoldMs: number): Response {
  if (!res.body) {
    release();
    return res;
  }
  const reader = res.body.getReader();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const done = () => {
    clearTimeout(timer);
    release();
  };
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      clearTimeout(timer);
      try {
        const { done: end, value } = await reader.read();
        if (end) {
          done();
          controller.close();
          return;
        }
        controller.enqueue(value);
        // The client has this chunk to read; if it does not come back for more, cut it off.
        timer = setTimeout(() => {
          log.warn(`a client did not read its answer for ${maxHoldMs} ms; closed it`);
          done();
          controller.error(new Error("answer not read in time"));
          reader.cancel().catch(() => {});
        }, maxHoldMs);
      } catch (err) {
        done();
        controller.error(err);
      }
    },
    cancel(reason) {
      done();
      return reader.cancel(reason);
    },
  });
  return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
}

const MODERN_REVISION = "2026-07-28";

/** A response posted in the 2026 era (the SDK would call the revision unsupported: not what is wrong). */
const RESPONSE_POSTED =
  "Invalid Request: the body is a JSON-RPC response, but this server sends no requests to clients, " +
  "so none awaits an answer (in 2026-07-28 a client answers a server's input request by repeating " +
  "its own request with `inputResponses`).";

async function handleMcp(
  request: Request,
  handler: McpHttpHandler,
  o: Resolved,
  admission: Admission,
): Promise<Response> {
  if (request.method !== "POST") {
    return jsonRpcError(405, "Method not allowed: this server is stateless; send JSON-RPC with POST.", {
      Allow: "POST",
    });
  }
  const tooLarge = () =>
    jsonRpcError(413, `Payload too large: the request body must not exceed ${o.maxBodyBytes} bytes.`);
  const declared = Number(request.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > o.maxBodyBytes) return tooLarge();
  // Wrong Accept / Content-Type: the transport answers 406 / 415 without reading the body.
  let parsedBody: unknown;
  const accept = request.headers.get("accept") ?? "";
  if (
    isJsonContentType(request.headers.get("content-type")) &&
    accept.includes("application/json") &&
    accept.includes("text/event-stream")
  ) {
    const body = await readBody(request, o.maxBodyBytes, o.bodyTimeoutMs);
    if ("tooLarge" in body) return tooLarge();
    if ("timedOut" in body) {
      log.warn(`a client took longer than ${o.bodyTimeoutMs} ms to send its request body; answered 408`);
      return jsonRpcError(408, `Request timeout: the request body did not arrive within ${o.bodyTimeoutMs} ms.`, {
        Connection: "close",
      });
    }
    const checked = parseJsonRpc(body.text, "the request body is not valid JSON.");
    if (!checked.ok) return jsonRpcError(400, checked.problem, {}, checked.code);
    const onlyResponses = [checked.message].flat().every((m) => !("method" in m));
    if (onlyResponses && request.headers.get("mcp-protocol-version") === MODERN_REVISION) {
      return jsonRpcError(400, RESPONSE_POSTED, {}, -32600);
    }
    parsedBody = checked.message;
  }
  const messages = parsedBody === undefined ? 0 : Array.isArray(parsedBody) ? parsedBody.length : 1;
  if (messages > o.maxBatch) {
    return jsonRpcError(
      400,
      `Invalid Request: a batch may hold at most ${o.maxBatch} messages (this one holds ${messages}); send ` +
        `them in smaller batches.`,
      {},
      -32600,
    );
  }
  const admitted = await admission.admit(messages);
  if (!admitted.ok) {
    log.warn(`busy: refused a request of ${messages} message(s) (${admitted.why})`);
    return jsonRpcError(503, "Server busy: too many requests are being worked on. Retry after 1 second.", {
      "Retry-After": "1",
    });
  }
  try {
    return releaseWhenDone(
      await handler.fetch(request, parsedBody === undefined ? undefined : { parsedBody }),
      admitted.release,
      o.maxHoldMs,
    );
  } catch (err) {
    admitted.release();
    log.error("HTTP request failed", err);
    return jsonRpcError(500, "Internal error (details are in the server log).");
  }
}

const STRONG_TOKEN_HINT =
  "Generate one, e.g. `openssl rand -hex 24`, and pass it with --token or LOREKEEPER_HTTP_TOKEN (or bind 127.0.0.1).";

/**
 * The token as clients send it: trimmed (a secret file's trailing newline). A blank token, or one
 * with a control character (no header can carry it), is refused, never served as "no token".
 */
function tokenOf(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const token = raw.trim();
  if (token === "") {
    throw new HttpConfigError(
      "The token is empty (a blank --token or LOREKEEPER_HTTP_TOKEN, or an empty secret file).",
      "Give the token itself, e.g. one from `openssl rand -hex 24`, or leave both unset to serve loopback without one.",
    );
  }
  const control = /[\u0000-\u001f\u007f]/.exec(token);
  if (control) {
    const code = control[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0");
    throw new HttpConfigError(
      `The token holds a control character (U+${code}` +
        ` at position ${control.index + 1}): no client can send it in an Authorization header.`,
      "Use a token of printable characters, e.g. one from `openssl rand -hex 24`.",
    );
  }
  return token;
}

/** Validate the options; throws HttpConfigError with a hint when unsafe. */
export function resolveHttpOptions(opts: HttpOptions): typeof HTTP_DEFAULTS & { host: string; token?: string } {
  const given = opts.host ?? "127.0.0.1";
  // An IPv4 address in another spelling ("127.1", "0x7f000001") is bound and shown as the canonical one.
  const parsed = parseHost(given);
  const host = parsed && /^\d+\.\d+\.\d+\.\d+$/.test(parsed) ? parsed : given;
  const token = tokenOf(opts.token);
  if (!isLoopback(host) && !token) {
    throw new HttpConfigError(
      `Refusing to listen on ${host} without a token: anyone on the network could use this server.`,
      "Set a token with --token <T> or LOREKEEPER_HTTP_TOKEN (clients then send `Authorization: Bearer " +
        "<T>`), or bind 127.0.0.1.",
    );
  }
  const weak = token && !isLoopback(host) ? weakTokenProblem(token) : undefined;
  if (weak) {
    throw new HttpConfigError(`Refusing to listen on ${host} with a weak token: ${weak}.`, STRONG_TOKEN_HINT);
  }
  // Options passed as undefined (flags not given) keep their defaults.
  const set: Partial<typeof HTTP_DEFAULTS> = Object.fromEntries(
    Object.entries(opts).filter(([, v]) => v !== undefined),
  );
  return { ...HTTP_DEFAULTS, ...set, host, token };
}

/** resolveHttpOptions, and for a network bind a token that is not easy to guess (loads a password list). */
export async function checkHttpOptions(opts: HttpOptions): Promise<Resolved> {
  const o = resolveHttpOptions(opts);
  const guessable = o.token && !isLoopback(o.host) ? await guessableTokenProblem(o.token) : undefined;
  if (guessable) {
    throw new HttpConfigError(`Refusing to listen on ${o.host} with a weak token: ${guessable}.`, STRONG_TOKEN_HINT);
  }
  return o;
}

export async function startHttpServer(deps: ToolDeps, options: HttpOptions = {}): Promise<HttpServerHandle> {
  const o = await checkHttpOptions(options);
  // The bind address itself is a valid Host (e.g. a LAN IP when serving on it).
  const allowedHosts = [...o.allowedHosts, o.host];
  const admission = new Admission({
    maxInFlight: o.maxInFlightMessages,
    maxQueued: o.maxQueuedMessages,
    maxWaitMs: o.maxQueueWaitMs,
  });
  const failures = new AuthFailures(options.authFailureLimits);
  /** The bearer check with its failures counted and limited per client address (auth-failures.ts). */
  const authorized = (request: Request, server: Server<unknown> | null): true | Response => {
    // The right token is served whatever the address sent before (auth-failures.ts says why).
    if (bearerMatches(request.headers.get("authorization"), o.token!)) return true;
    const wait = failures.fail(server?.requestIP(request)?.address ?? "unknown");
    if (wait > 0) {
      return jsonRpcError(429, "Too many requests with a wrong or missing token; try again later.", {
        "Retry-After": String(Math.ceil(wait / 1000)),
      });
    }
    return jsonRpcError(401, "Unauthorized: send `Authorization: Bearer <token>`.", {
      "WWW-Authenticate": 'Bearer realm="lorekeeper"',
    });
  };
  // One handler, one factory, both eras (2025-era traffic served statelessly, per request).
  const handler = createMcpHandler((ctx) => buildServer(deps, ctx.era), {
    legacy: "stateless",
    maxRequestBodySize: o.maxBodyBytes,
    onerror: (err) => log.debug("HTTP MCP", err.message),
  });
  const app = new Elysia({ serve: { maxRequestBodySize: o.maxBodyBytes + 64 * 1024 } })
    .onRequest(({ request, server }) => {
      const host = checkHost(request.headers.get("host"), allowedHosts);
      if (host !== "ok") {
        log.warn(`refused request with Host ${JSON.stringify(request.headers.get("host")?.slice(0, 200))}`);
        // A Host that is no host at all: on a token server, a caller without the token learns nothing more than 401.
        if (host === "malformed" && o.token) {
          const ok = authorized(request, server);
          if (ok !== true) return ok;
        }
        return host === "malformed"
          ? jsonRpcError(403, "Forbidden: the Host header is not a valid host[:port].")
          : jsonRpcError(
              403,
              "Forbidden: Host header not allowed (DNS-rebinding protection). Add it with --allowed-host.",
            );
      }
      if (!originAllowed(request.headers.get("origin"), o.allowedOrigins)) {
        log.warn(`refused request with Origin ${JSON.stringify(request.headers.get("origin"))}`);
        return jsonRpcError(403, "Forbidden: Origin not allowed. Add it with --allowed-origin.");
      }
      if (o.token && URL.parse(request.url)?.pathname !== "/health") {
        const ok = authorized(request, server);
        if (ok !== true) return ok;
      }
      return undefined;
    })
    // /health answers everyone; its details need the token, checked (and limited) like /mcp, so it is no token oracle.
    .get("/health", ({ request, server }) =>
      healthBody(deps, !o.token || (request.headers.has("authorization") && authorized(request, server) === true)),
    )
    .all("/mcp", ({ request }) => handleMcp(request, handler, o, admission), { parse: "none" });
  try {
    app.listen({ hostname: o.host, port: o.port });
  } catch (err) {
    const e = err as { code?: string; message?: string };
    if (e?.code === "EADDRINUSE" || /in use/i.test(e?.message ?? ""))
      throw new HttpConfigError(
        `Port ${o.port} on ${o.host} is already in use.`,
        "Pick another with --port, or stop the other server.",
      );
    throw err;
  }
  const server = app.server;
  if (!server) throw new Error(`Could not listen on ${o.host}:${o.port}.`);
  const port = server.port ?? o.port;
  const shownHost = o.host.includes(":") && !o.host.startsWith("[") ? `[${o.host}]` : o.host;
  const url = `http://${shownHost}:${port}/mcp`;
  log.info(`MCP server listening on ${url}${o.token ? " (bearer token required)" : ""}`);
  return {
    url,
    port,
    stop: async () => {
      await handler.close().catch(() => {});
      // Requests in flight may finish within the grace; a client still sending (or stuck) after
      // it is cut off, as Bun's graceful stop would wait for it (up to bodyTimeoutMs, or forever).
      const finished = await withTimeout(app.stop(), o.stopGraceMs, "the graceful stop").then(
        () => true,
        (err: unknown) => {
          if (err instanceof TimeoutError) return false;
          throw err;
        },
      );
      if (!finished) {
        log.warn(`requests still in flight ${o.stopGraceMs} ms after the stop: closing their connections`);
        await server.stop(true);
      }
    },
  };
}
