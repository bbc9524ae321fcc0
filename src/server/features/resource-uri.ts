/** What every resource reader shares: the "resource not found" error and URI template values decoded. */
import { safeLine, safeText } from "../../text/sanitize.ts";

/**
 * MCP 2025-11-25's "resource not found" code; the SDK sends it as -32602 (invalid params), the
 * code 2026-07-28 gives it, in both eras.
 */
const RESOURCE_NOT_FOUND = -32002;

/**
 * A JSON-RPC error with this code, exactly this message (McpError would prefix it) and the URI asked
 * for. Both quote the client's URI: control and bidi characters in them are neutralised.
 */
export function notFound(message: string, uri: string): Error {
  return Object.assign(new Error(safeText(message)), { code: RESOURCE_NOT_FOUND, data: { uri: safeLine(uri) } });
}

/** A URI template variable, percent-decoded (kept as given when it is not valid percent-encoding). */
export function decode(v: string | string[] | undefined): string {
  const s = Array.isArray(v) ? v.join(",") : (v ?? "");
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
