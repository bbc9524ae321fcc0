/**
 * Is a parsed value one JSON-RPC 2.0 message as MCP defines it? Shared by the stdio and HTTP
 * transports so that both refuse the same things with the same words. Pure.
 */
import type { RequestId } from "@modelcontextprotocol/server";
import { specIssue } from "./spec-check.ts";

/** The id of a request-like object (to answer it with), or null. */
export function requestIdOf(v: unknown): RequestId | null {
  if (v === null || typeof v !== "object" || Array.isArray(v)) return null;
  const id = (v as { id?: unknown }).id;
  return typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) ? id : null;
}

/** Why `v` is not a JSON-RPC message (one clause, e.g. `params._meta: Invalid input`), or undefined. */
export function jsonRpcProblem(v: unknown): string | undefined {
  if (!specIssue("JSONRPCMessage", v)) return undefined;
  const hasMethod = v !== null && typeof v === "object" && !Array.isArray(v) && "method" in v;
  if (hasMethod) {
    const issue = specIssue(requestIdOf(v) !== null ? "JSONRPCRequest" : "JSONRPCNotification", v);
    if (issue) return `${issue.path.length > 0 ? issue.path.join(".") : "the message"}: ${issue.message}`;
  }
  return 'it needs "jsonrpc": "2.0" and a "method", or a "result"/"error" with an "id"';
}
