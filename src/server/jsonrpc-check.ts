/**
 * Is a parsed value one JSON-RPC 2.0 message as MCP defines it? Shared by the stdio and HTTP
 * transports so that both refuse the same things with the same words. Pure.
 */
import { type JSONRPCMessage, type JSONRPCRequest, type RequestId, specTypeSchemas } from "@modelcontextprotocol/server";
import { hasOnlyKeys, specIssue } from "./spec-check.ts";

/** The id of a request-like object (to answer it with), or null. */
export function requestIdOf(v: unknown): RequestId | null {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return null;
  const id = (v as { id?: unknown }).id;
  return typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) ? id : null;
}

/** Requests checkJsonRpc found to be JSONRPCRequests (the SDK's schema): see isCheckedRequest. */
const checkedRequests = new WeakSet<object>();

/**
 * True when `m` came from checkJsonRpc as a request: it passed the SDK's JSONRPCRequest schema
 * (strict, so no response or notification schema can pass it), as the SDK's message handler
 * checks before it dispatches a request.
 */
export function isCheckedRequest(m: JSONRPCMessage): m is JSONRPCRequest {
  return checkedRequests.has(m);
}

/**
 * True for a request of the usual form, which the SDK's JSONRPCRequest schema (strict) accepts as
 * it is: `"jsonrpc": "2.0"`, an id that is a string or a whole number, a method name, and params,
 * if any, as an object without `_meta`. False sends it to the schema itself: a `_meta` (whose
 * fields the schema checks), a key too many, a fractional id...
 */
const REQUEST_KEYS = ["jsonrpc", "id", "method", "params"];

function plainRequest(v: object): boolean {
  const m = v as Record<string, unknown>;
  if (!hasOnlyKeys(m, REQUEST_KEYS)) return false;
  if (m.jsonrpc !== "2.0" || typeof m.method !== "string") return false;
  if (typeof m.id !== "string" && !Number.isSafeInteger(m.id)) return false;
  if (!Object.hasOwn(m, "params")) return true;
  const p = m.params;
  return p !== null && typeof p === "object" && !Array.isArray(p) && !Object.hasOwn(p, "_meta");
}

/** `v` as a JSON-RPC message (validated once, as the SDK's own transports parse it), or why it is not one. */
export function checkJsonRpc(v: unknown): { ok: true; message: JSONRPCMessage } | { ok: false; problem: string } {
  // What most lines are, a request, is checked against the request schema alone (the union's first member).
  if (v !== null && typeof v === "object" && "method" in v && "id" in v) {
    if (plainRequest(v)) {
      checkedRequests.add(v);
      return { ok: true, message: v as JSONRPCRequest };
    }
    const q = specTypeSchemas.JSONRPCRequest["~standard"].validate(v);
    if (!q.issues) {
      checkedRequests.add(q.value as object);
      return { ok: true, message: q.value as JSONRPCMessage };
    }
  }
  const r = specTypeSchemas.JSONRPCMessage["~standard"].validate(v);
  if (!r.issues) return { ok: true, message: r.value as JSONRPCMessage };
  return { ok: false, problem: whyNot(v) };
}

/** Why `v` is not a JSON-RPC message (one clause, e.g. `params._meta: Invalid input`), or undefined. */
export function jsonRpcProblem(v: unknown): string | undefined {
  if (!specIssue("JSONRPCMessage", v)) return undefined;
  return whyNot(v);
}

function whyNot(v: unknown): string {
  const hasMethod = v !== null && typeof v === "object" && !Array.isArray(v) && "method" in v;
  if (hasMethod) {
    const issue = specIssue(requestIdOf(v) !== null ? "JSONRPCRequest" : "JSONRPCNotification", v);
    if (issue) return `${issue.path.length > 0 ? issue.path.join(".") : "the message"}: ${issue.message}`;
  }
  return 'it needs "jsonrpc": "2.0" and a "method", or a "result"/"error" with an "id"';
}
