/**
 * Checks of what a client sends, answered with JSON-RPC errors of one readable sentence, each
 * against the SDK's own spec schemas (`specTypeSchemas`), so nothing passes that the SDK would
 * refuse: a JSON-RPC message (transports answer -32600), logging/setLevel's level (2025 era; only
 * acknowledged, as LoreKeeper sends no log notifications), resources/read's uri. Every error text
 * is cut to MAX_RPC_ERROR_CHARS before sending (`capErrorText`). Pure.
 */
import {
  type JSONRPCMessage,
  type LoggingLevel,
  ProtocolErrorCode,
  type RequestId,
  type SpecTypeName,
  specTypeSchemas,
} from "@modelcontextprotocol/server";
import { capText, safeText } from "../../text/sanitize.ts";

/**
 * A malformed request, answered -32602 with this message as it is (a plain Error with a code: McpError
 * would prefix "MCP error -32602:"). The message quotes what the client sent: controls and bidi neutralised.
 */
export function invalidParams(message: string): Error {
  return Object.assign(new Error(safeText(message)), { code: ProtocolErrorCode.InvalidParams });
}

export const MAX_RPC_ERROR_CHARS = 2000;
const MAX_URI_CHARS = 2048;
const LEVELS: readonly LoggingLevel[] = [
  "debug",
  "info",
  "notice",
  "warning",
  "error",
  "critical",
  "alert",
  "emergency",
];

type SpecCheck = { ok: true; value: unknown } | { ok: false; where: string; message: string };

/** `value` as one of the SDK's spec types: its validated output, or where (`params._meta`) and what is wrong. */
export function specCheck(name: SpecTypeName, value: unknown): SpecCheck {
  const r = specTypeSchemas[name]["~standard"].validate(value);
  const issue = r.issues?.[0];
  if (!issue) return { ok: true, value: (r as { value: unknown }).value };
  const where = (issue.path ?? []).map((p) => String(typeof p === "object" && p !== null ? p.key : p)).join(".");
  return { ok: false, where, message: issue.message };
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** The id of a request-like object (to answer it with), or null. */
function requestIdOf(v: unknown): RequestId | null {
  const id = isPlainObject(v) ? v.id : undefined;
  return typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) ? id : null;
}

/** `v` as a JSON-RPC message (the SDK schema's output), or why not (one clause: `params._meta: Invalid input`). */
export function checkJsonRpc(v: unknown): { ok: true; message: JSONRPCMessage } | { ok: false; problem: string } {
  const whole = specCheck("JSONRPCMessage", v);
  if (whole.ok) return { ok: true, message: whole.value as JSONRPCMessage };
  if (!isPlainObject(v) || !("method" in v)) {
    return { ok: false, problem: 'it needs "jsonrpc": "2.0" and a "method", or a "result"/"error" with an "id"' };
  }
  // A request's id is a string or a number; null (JSON-RPC 2.0 allows it, MCP does not) makes no notification.
  const id = v.id;
  if ("id" in v && requestIdOf(v) === null) {
    const got = id === null ? "null" : Array.isArray(id) ? "a list" : typeof id;
    return { ok: false, problem: `a request id must be a string or a number (got ${got})` };
  }
  const part = specCheck("id" in v ? "JSONRPCRequest" : "JSONRPCNotification", v);
  const problem = part.ok ? 'it needs "jsonrpc": "2.0"' : `${part.where || "the message"}: ${part.message}`;
  return { ok: false, problem };
}

type ParsedRpc =
  | { ok: true; message: JSONRPCMessage | JSONRPCMessage[] }
  | { ok: false; code: number; problem: string; id: RequestId | null };

/**
 * The stdio line or HTTP body `text` as one JSON-RPC message, or a batch of them unless `noBatch` says why not;
 * else the -32700 (`notJson` ends its text) or -32600 error to answer, with the request id it shows.
 */
export function parseJsonRpc(text: string, notJson: string, noBatch?: string): ParsedRpc {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, code: -32700, problem: `Parse error: ${notJson}`, id: null };
  }
  const invalid = (why: string, id: RequestId | null = null) =>
    ({ ok: false, code: -32600, problem: `Invalid Request: ${why}`, id }) as const;
  if (Array.isArray(parsed)) {
    if (noBatch) return invalid(noBatch);
    if (parsed.length === 0) return invalid("an empty batch holds no JSON-RPC message.");
    for (const [i, m] of parsed.entries()) {
      const checked = checkJsonRpc(m);
      if (!checked.ok) return invalid(`batch item ${i} is not a valid JSON-RPC 2.0 message (${checked.problem}).`);
    }
    return { ok: true, message: parsed as JSONRPCMessage[] };
  }
  const checked = checkJsonRpc(parsed);
  if (checked.ok) return checked;
  return invalid(`not a valid JSON-RPC 2.0 message (${checked.problem}).`, requestIdOf(parsed));
}

/** A value as an error names it: "nothing", "null", "a list", "an object", a string quoted (cut at 40). */
export function shown(v: unknown): string {
  if (v === undefined) return "nothing";
  if (typeof v === "string") return JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);
  if (Array.isArray(v)) return "a list";
  return v === null ? "null" : typeof v === "object" ? "an object" : String(v);
}

/** logging/setLevel: a valid level is only acknowledged (LoreKeeper logs to stderr, never as notifications). */
export function setLevel(params: Record<string, unknown>): Record<string, never> {
  if (!LEVELS.includes(params.level as LoggingLevel)) {
    throw invalidParams(`logging/setLevel: level must be one of ${LEVELS.join(", ")} (got ${shown(params.level)}).`);
  }
  return {};
}

/** The URI of resources/read params, or throws invalidParams with a sentence. */
export function resourceUriOf(params: Record<string, unknown>): URL {
  const uri = params.uri;
  if (typeof uri !== "string")
    throw invalidParams(
      `resources/read: uri must be a string such as "lorekeeper://spell/srd_fireball" (got ${shown(uri)}).`,
    );
  if (uri.length > MAX_URI_CHARS)
    throw invalidParams(`resources/read: uri is ${uri.length} characters long; at most ${MAX_URI_CHARS} are accepted.`);
  const url = URL.parse(uri);
  if (url) return url;
  throw invalidParams(
    `resources/read: ${shown(uri)} is not a URI. LoreKeeper's resources are lorekeeper://{kind}/{key} (the ` +
      `\`uri\` of a search result) and lorekeeper://documents.`,
  );
}

/** `message` with its error text cut to the budget (other messages unchanged). Pure. */
export function capErrorText(message: JSONRPCMessage): JSONRPCMessage {
  if (
    !("error" in message) ||
    typeof message.error?.message !== "string" ||
    message.error.message.length <= MAX_RPC_ERROR_CHARS
  )
    return message;
  return { ...message, error: { ...message.error, message: capText(message.error.message, MAX_RPC_ERROR_CHARS) } };
}
