/**
 * The envelope of a tools/call request (`name`, `arguments`, `_meta`), checked at the transport
 * edge before the SDK sees it (mcp.ts guardEdge), so that a malformed call gets -32602 with one
 * readable sentence instead of the SDK's dump of schema issues. `"arguments": null` counts as none.
 */
import { type JSONRPCMessage, ProtocolErrorCode } from "@modelcontextprotocol/server";
import { isPlainObject, shown, specCheck } from "./protocol-checks.ts";

/** As `shown`, naming a scalar's type ("the string \"x\"", "number 5"). */
function describe(v: unknown): string {
  if (typeof v === "string") return `the string ${shown(v)}`;
  return typeof v === "number" || typeof v === "boolean" ? `${typeof v} ${v}` : shown(v);
}

/** What is wrong with a tools/call `params` (one sentence), or undefined when it is well-formed. Pure. */
export function callParamsProblem(params: unknown): string | undefined {
  if (!isPlainObject(params)) {
    return (
      `tools/call needs params as an object such as {"name": "search_spell", "arguments": {"name": ` +
      `"Fireball"}} (got ${describe(params)}).`
    );
  }
  if (typeof params.name !== "string" || params.name.length === 0) {
    return `tools/call: params.name must be the name of a tool, as a string (got ${describe(params.name)}).`;
  }
  const args = params.arguments;
  if (args !== undefined && args !== null && !isPlainObject(args)) {
    return (
      `Invalid arguments for ${params.name.slice(0, 100)}: arguments must be an object of named parameters ` +
      `such as {"name": "Fireball"} (got ${describe(args)}).`
    );
  }
  if (params.task !== undefined && params.task !== null) {
    return (
      `tools/call: ${params.name.slice(0, 100)} answers at once and does not run as a task; send the call ` +
      `without params.task.`
    );
  }
  const check = specCheck("CallToolRequestParams", normalizeCallParams(params));
  if (check.ok) return undefined;
  const where = check.where ? `params.${check.where}` : "params";
  return `tools/call: ${where} is not valid${check.message ? ` (${check.message})` : ""}.`;
}

type Screened = { ok: true; message: JSONRPCMessage } | { ok: false; reply: JSONRPCMessage };

/** A tools/call with a malformed envelope becomes the error that answers it; anything else passes. */
export function screenCall(message: JSONRPCMessage): Screened {
  if (!("method" in message) || message.method !== "tools/call" || !("id" in message)) return { ok: true, message };
  const problem = callParamsProblem(message.params);
  if (problem) {
    const error = { code: ProtocolErrorCode.InvalidParams, message: problem };
    return { ok: false, reply: { jsonrpc: "2.0", id: message.id, error } };
  }
  const params = message.params as Record<string, unknown>;
  if (params.arguments !== null) return { ok: true, message };
  return { ok: true, message: { ...message, params: normalizeCallParams(params) } };
}

/** `arguments: null` → no arguments (some clients send null for "none"). */
export function normalizeCallParams(params: Record<string, unknown>): Record<string, unknown> {
  if (params.arguments !== null) return params;
  const { arguments: _none, ...rest } = params;
  return rest;
}
