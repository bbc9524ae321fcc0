/**
 * LoreKeeperServer: the SDK's low-level `Server` (v2, both protocol eras) with two additions.
 *
 * - `handle(method, fn)`: `fn` gets the request's `params` exactly as the client sent them and
 *   checks them itself, so a malformed request gets -32602 and one readable sentence (the SDK's
 *   own parse would answer with a schema dump, -32603 for most methods). For `tools/call` the
 *   envelope (`params.name`, `params.arguments`) is checked before the SDK's validation
 *   (call-envelope.ts) and `"arguments": null` counts as no arguments.
 * - every JSON-RPC error text it sends is cut to MAX_RPC_ERROR_CHARS (capErrorText), on any
 *   transport it is connected to (stdio, the per-request HTTP transports).
 *
 * The SDK still does everything else: the era codecs, `initialize`, `server/discover`, the
 * per-request `_meta` envelope, cache hints on list results, the 2026 error codes.
 */
import { type JSONRPCMessage, type JSONRPCRequest, type MessageExtraInfo, type Result, Server, type ServerContext, type Transport } from "@modelcontextprotocol/server";
import * as z from "zod";
import { callParamsProblem, InvalidCallError, normalizeCallParams } from "./call-envelope.ts";
import { isCheckedRequest } from "./jsonrpc-check.ts";
import { capErrorText } from "./protocol-checks.ts";

export type RawHandler = (params: unknown, ctx: ServerContext) => Result | Promise<Result>;
type Stored = (request: JSONRPCRequest, ctx: ServerContext) => Promise<Result>;

/** Accepts any params: the raw handler checks them (the SDK requires a schema for this form). */
const ANY_PARAMS = z.unknown();

export class LoreKeeperServer extends Server {
  /** Created on first use: the SDK's constructor registers its own handlers before fields are set. */
  private raw?: Map<string, RawHandler>;

  /** Answer `method` with `fn`, which checks the raw params itself (see the file comment). */
  handle(method: string, fn: RawHandler): void {
    (this.raw ??= new Map()).set(method, fn);
    this.setRequestHandler(method, { params: ANY_PARAMS }, () => {
      throw new Error(`${method}: the raw handler was bypassed`);
    });
  }

  protected override _wrapHandler(method: string, handler: Stored): Stored {
    const fn = this.raw?.get(method);
    if (!fn) return super._wrapHandler(method, handler);
    const direct: Stored = async (request, ctx) => fn(request.params, ctx);
    if (method !== "tools/call") return super._wrapHandler(method, direct);
    // tools/call: our envelope check replaces the SDK's (same schema, readable sentences). The
    // SDK's wrapper would also re-validate every result against the result schema (≈ 30 µs a
    // call); our results are built by response.ts in one shape (tests check it), never by a
    // client, and the SDK serves no multi-round-trip input for us (no tool asks for input).
    return async (request, ctx) => {
      const problem = callParamsProblem(request.params);
      if (problem) throw new InvalidCallError(problem);
      return fn(normalizeCallParams(request.params as Record<string, unknown>), ctx);
    };
  }

  override async connect(transport: Transport): Promise<void> {
    const send = transport.send.bind(transport);
    transport.send = (message: JSONRPCMessage, options) => send(capErrorText(message), options);
    await super.connect(transport);
    // A request the line transport (or the loopback) checked against the SDK's request schema
    // (jsonrpc-check.ts) goes straight to the SDK's request dispatch, without the three schema
    // parses (response? error? request?) its message handler runs on every message to tell them
    // apart. Anything else, and every message of the HTTP transports, takes the SDK's path.
    const dispatch = (this as unknown as { _onrequest?: (request: JSONRPCRequest, extra?: MessageExtraInfo) => void })._onrequest;
    const generic = transport.onmessage;
    if (typeof dispatch === "function" && generic) {
      transport.onmessage = (message, extra) => {
        if (isCheckedRequest(message)) dispatch.call(this, message, extra);
        else generic(message, extra);
      };
    }
  }
}
