/**
 * Reading and checking a POST /mcp body before the MCP transport sees it:
 *
 * - at most `maxBytes` (declared Content-Length or counted while reading, chunked bodies too) → 413;
 * - within `timeoutMs` from the first byte asked for (a client that sends headers and then
 *   trickles or stalls its body is answered 408 instead of holding a request open) → 408;
 * - JSON → else -32700 Parse error (400);
 * - one JSON-RPC message or a non-empty batch of them → else -32600 Invalid Request (400).
 */
import type { JSONRPCMessage } from "@modelcontextprotocol/server";
import { checkJsonRpc } from "../protocol/protocol-checks.ts";

export type BodyCheck =
  | { ok: true; message: JSONRPCMessage | JSONRPCMessage[] }
  | { ok: false; status: number; code: number; error: string };

const TIMEOUT = Symbol("timeout");

type ReadResult = { text: string } | { tooLarge: true } | { timedOut: true };

/** The body as text, or why it could not be read within the limits. */
export async function readBody(request: Request, maxBytes: number, timeoutMs: number): Promise<ReadResult> {
  const declared = Number(request.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > maxBytes) return { tooLarge: true };
  if (!request.body) return { text: "" };
  const reader = request.body.getReader();
  const decoder = new TextDecoder();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<typeof TIMEOUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMEOUT), Math.max(1, timeoutMs));
  });
  let received = 0;
  let text = "";
  try {
    for (;;) {
      const next = await Promise.race([reader.read(), deadline]);
      if (next === TIMEOUT) return { timedOut: true };
      if (next.done) break;
      received += next.value.byteLength;
      if (received > maxBytes) return { tooLarge: true };
      text += decoder.decode(next.value, { stream: true });
    }
    return { text: text + decoder.decode() };
  } finally {
    clearTimeout(timer);
    reader.cancel().catch(() => {});
  }
}

/** Parse and check a body text (pure). */
export function checkJsonRpcBody(text: string): BodyCheck {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { ok: false, status: 400, code: -32700, error: "Parse error: the request body is not valid JSON." };
  }
  const invalid = (why: string): BodyCheck => ({
    ok: false,
    status: 400,
    code: -32600,
    error: `Invalid Request: ${why}`,
  });
  if (Array.isArray(parsed)) {
    if (parsed.length === 0) return invalid("an empty batch holds no JSON-RPC message.");
    for (const [i, m] of parsed.entries()) {
      const checked = checkJsonRpc(m);
      if (!checked.ok) return invalid(`batch item ${i} is not a valid JSON-RPC 2.0 message (${checked.problem}).`);
    }
    return { ok: true, message: parsed as JSONRPCMessage[] };
  }
  const checked = checkJsonRpc(parsed);
  if (!checked.ok) return invalid(`not a valid JSON-RPC 2.0 message (${checked.problem}).`);
  return { ok: true, message: parsed as JSONRPCMessage };
}

/** Media type is application/json (parameters such as charset allowed). */
export function isJsonContentType(ct: string | null): boolean {
  return /^\s*application\/json\s*(;|$)/i.test(ct ?? "");
}
