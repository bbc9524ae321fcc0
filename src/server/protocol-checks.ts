/**
 * Protocol requests whose parameters the SDK would check with a bare schema parse (a malformed
 * request then gets an error with a dump of schema issues): here they get -32602 Invalid params
 * and one sentence. buildServer answers them through these checks:
 *
 * - `logging/setLevel` (2025 era only; deprecated in 2026-07-28): `level` must be one of the
 *   RFC 5424 levels. LoreKeeper sends no log notifications, so a valid level is only acknowledged.
 * - `resources/read`: `uri` must be a URI (at most 2,048 characters).
 *
 * Every JSON-RPC error text also has a budget (`capErrorText`): the server cuts it to
 * MAX_RPC_ERROR_CHARS before sending, on every transport.
 */
import type { JSONRPCMessage, LoggingLevel } from "@modelcontextprotocol/server";
import { capText } from "../text/sanitize.ts";
import { InvalidCallError } from "./call-envelope.ts";

export const MAX_RPC_ERROR_CHARS = 2000;
const MAX_URI_CHARS = 2048;
const LEVELS: readonly LoggingLevel[] = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"];

function paramsObject(p: unknown, method: string, example: string): Record<string, unknown> {
  if (p === null || typeof p !== "object" || Array.isArray(p)) throw new InvalidCallError(`${method} needs params as an object such as ${example}.`);
  return p as Record<string, unknown>;
}

function shown(v: unknown): string {
  if (typeof v === "string") return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  if (Array.isArray(v)) return "a list";
  return v === null ? "null" : typeof v === "object" ? "an object" : String(v);
}

/** What is wrong with logging/setLevel params (a sentence), or undefined. Pure. */
export function setLevelProblem(p: unknown): string | undefined {
  const params = p as Record<string, unknown> | null;
  if (params === null || typeof params !== "object" || Array.isArray(params)) return `logging/setLevel needs params such as {"level": "info"}.`;
  if (!LEVELS.includes(params.level as LoggingLevel)) {
    return `logging/setLevel: level must be one of ${LEVELS.join(", ")} (got ${params.level === undefined ? "nothing" : shown(params.level)}).`;
  }
  return undefined;
}

/** The URI of resources/read params, or throws InvalidCallError with a sentence. */
export function resourceUriOf(p: unknown): URL {
  const params = paramsObject(p, "resources/read", '{"uri": "lorekeeper://spell/srd_fireball"}');
  const uri = params.uri;
  if (typeof uri !== "string") throw new InvalidCallError(`resources/read: uri must be a string such as "lorekeeper://spell/srd_fireball" (got ${uri === undefined ? "nothing" : shown(uri)}).`);
  if (uri.length > MAX_URI_CHARS) throw new InvalidCallError(`resources/read: uri is ${uri.length} characters long; at most ${MAX_URI_CHARS} are accepted.`);
  try {
    return new URL(uri);
  } catch {
    throw new InvalidCallError(`resources/read: ${shown(uri)} is not a URI. LoreKeeper's resources are lorekeeper://{kind}/{key} (the \`uri\` of a search result) and lorekeeper://documents.`);
  }
}

/** logging/setLevel: a valid level is only acknowledged (LoreKeeper logs to stderr, never as notifications). */
export function setLevel(params: unknown): Record<string, never> {
  const problem = setLevelProblem(params);
  if (problem) throw new InvalidCallError(problem);
  return {};
}

/** `message` with its error text cut to the budget (other messages unchanged). Pure. */
export function capErrorText(message: JSONRPCMessage): JSONRPCMessage {
  if (!("error" in message) || typeof message.error?.message !== "string" || message.error.message.length <= MAX_RPC_ERROR_CHARS) return message;
  return { ...message, error: { ...message.error, message: capText(message.error.message, MAX_RPC_ERROR_CHARS) } };
}
