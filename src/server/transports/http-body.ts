/**
 * A POST /mcp body, read and checked before the MCP transport sees it: at most `maxBytes` (counted
 * while reading, chunked bodies too; else 413), within `timeoutMs` (a client that trickles or stalls
 * its body gets 408 instead of holding a request open), JSON (else -32700), one JSON-RPC message or
 * a non-empty batch (else -32600).
 */
import type { JSONRPCMessage } from "@modelcontextprotocol/server";
import { checkJsonRpc } from "../protocol/protocol-checks.ts";

export type BodyCheck =
  | { ok: true; message: JSONRPCMessage | JSONRPCMessage[] }
  | { ok: false; status: number; code: number; error: string };

const TIMEOUT = Symbol("timeout");

type ReadResult = { text: string } | { tooLarge: true } | { timedOut: true };

/** The body as text, or why it could not be read within the limits (the declared length is checked before). */
export async function readBody(request: Request, maxBytes: number, timeoutMs: number): Promise<ReadResult> {
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

/** Pure. */
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
