/**
 * The envelope of a tools/call request (`params.name`, `params.arguments`, `params._meta`),
 * checked before the SDK's own validation so that a malformed call gets JSON-RPC -32602 (invalid
 * params) with one readable sentence, instead of a dump of schema issues. `"arguments": null`
 * counts as no arguments. LoreKeeperServer (lk-server.ts) runs the check.
 */
import { ProtocolErrorCode } from "@modelcontextprotocol/server";
import { hasOnlyKeys, specIssue } from "./spec-check.ts";

export class InvalidCallError extends Error {
  override name = "InvalidCallError";
  readonly code: number = ProtocolErrorCode.InvalidParams;
}

function describe(v: unknown): string {
  if (v === undefined) return "nothing";
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list";
  if (typeof v === "object") return "an object";
  if (typeof v === "string") return `the string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}`;
  return `${typeof v} ${String(v)}`;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** What is wrong with a tools/call `params` (one sentence), or undefined when it is well-formed. Pure. */
export function callParamsProblem(params: unknown): string | undefined {
  if (!isPlainObject(params)) {
    return `tools/call needs params as an object such as {"name": "search_spell", "arguments": {"name": "Fireball"}} (got ${describe(params)}).`;
  }
  if (typeof params.name !== "string" || params.name.length === 0) {
    return `tools/call: params.name must be the name of a tool, as a string (got ${describe(params.name)}).`;
  }
  const args = params.arguments;
  if (args !== undefined && args !== null && !isPlainObject(args)) {
    return `Invalid arguments for ${params.name.slice(0, 100)}: arguments must be an object of named parameters such as {"name": "Fireball"} (got ${describe(args)}).`;
  }
  if (params.task !== undefined && params.task !== null) {
    return `tools/call: ${params.name.slice(0, 100)} answers at once and does not run as a task; send the call without params.task.`;
  }
  // Only a name and arguments (no _meta): the checks above are all the schema has for them
  // (name: a string; arguments: an object of named values, as JSON gives them).
  if (hasOnlyKeys(params, ["name", "arguments"])) return undefined;
  const issue = specIssue("CallToolRequestParams", normalizeCallParams(params));
  if (issue) {
    const where = issue.path.length > 0 ? `params.${issue.path.join(".")}` : "params";
    return `tools/call: ${where} is not valid${issue.message ? ` (${issue.message})` : ""}.`;
  }
  return undefined;
}

/** `arguments: null` → no arguments (some clients send null for "none"). */
export function normalizeCallParams(params: Record<string, unknown>): Record<string, unknown> {
  if (params.arguments !== null) return params;
  const { arguments: _none, ...rest } = params;
  return rest;
}
