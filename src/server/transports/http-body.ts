/**
 * A POST /mcp body, read before the MCP transport sees it: at most `maxBytes` (counted while reading,
 * chunked bodies too; else 413), within `timeoutMs` (a client that trickles or stalls its body gets 408
 * instead of holding a request open). http.ts then checks it with protocol-checks.ts `parseJsonRpc`.
 */
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

/** Media type is application/json (parameters such as charset allowed). */
export function isJsonContentType(ct: string | null): boolean {
  return /^\s*application\/json\s*(;|$)/i.test(ct ?? "");
}
