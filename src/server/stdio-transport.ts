/**
 * MCP over stdio (newline-delimited JSON-RPC), like the SDK's StdioServerTransport except that a
 * bad line never goes unanswered and never ends the session:
 *
 * - not JSON → -32700 Parse error (id null);
 * - JSON but not a JSON-RPC message (a batch, `"_meta": "x"`, a non-string method...) → -32600
 *   Invalid Request, with the request's id when it has one, so the client's call fails at once
 *   instead of waiting for its timeout (the SDK transport drops such lines silently);
 * - a line over `maxLineBytes` → skipped up to its newline and answered -32600 (with its id when
 *   cheaply visible at either end of the line); the SDK transport closes the session instead.
 *
 * The classification of one line is pure (`classifyLine`); the class only splits the stream.
 */
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type JSONRPCMessage, JSONRPCMessageSchema, type RequestId } from "@modelcontextprotocol/sdk/types.js";
import { jsonRpcProblem, requestIdOf } from "./jsonrpc-check.ts";
import { capErrorText } from "./protocol-checks.ts";

export const DEFAULT_MAX_LINE_BYTES = 4 * 1024 * 1024;

export type LineVerdict = { ok: true; message: JSONRPCMessage } | { ok: false; reply: JSONRPCMessage; problem: string };

function errorReply(id: RequestId | null, code: number, message: string): JSONRPCMessage {
  // The JSON-RPC spec answers an unidentifiable request with id null; the SDK's types do not model it.
  return { jsonrpc: "2.0", id: id as RequestId, error: { code, message } };
}

/** One line of stdin → the message, or the error to answer it with; null for a blank line. Pure. */
export function classifyLine(line: string): LineVerdict | null {
  if (line.trim() === "") return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    const problem = "Parse error: a line on stdin is not valid JSON. Send one JSON-RPC message per line.";
    return { ok: false, reply: errorReply(null, -32700, problem), problem };
  }
  if (Array.isArray(parsed)) {
    const problem = "Invalid Request: batches are not supported over stdio; send one JSON-RPC message per line.";
    return { ok: false, reply: errorReply(null, -32600, problem), problem };
  }
  const detail = jsonRpcProblem(parsed);
  // Valid: parsed by the SDK's schema, as its own stdio transport does.
  if (detail === undefined) return { ok: true, message: JSONRPCMessageSchema.parse(parsed) };
  const problem = `Invalid Request: not a valid JSON-RPC 2.0 message (${detail}).`;
  return { ok: false, reply: errorReply(requestIdOf(parsed), -32600, problem), problem };
}

/** The top-level id of a request line too large to parse, when visible at its start or end. Pure. */
export function sniffId(head: string, tail: string): RequestId | null {
  const value = String.raw`(-?\d{1,15}|"[\x20-\x21\x23-\x5b\x5d-\x7e]{0,100}")`;
  const atEnd = new RegExp(String.raw`"id"\s*:\s*${value}\s*\}\s*$`).exec(tail);
  const atStart = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${value}`).exec(head);
  const raw = atEnd?.[1] ?? atStart?.[1];
  if (raw === undefined) return null;
  return raw.startsWith('"') ? raw.slice(1, -1) : Number(raw);
}

const PEEK = 256;

export class LineStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private chunks: Buffer[] = [];
  private size = 0;
  /** Set while skipping the rest of an oversized line. */
  private skipping: { head: string; tail: string } | undefined;
  private started = false;
  private readonly maxLineBytes: number;

  constructor(
    private readonly stdin: NodeJS.ReadableStream = process.stdin,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
    opts: { maxLineBytes?: number } = {},
  ) {
    this.maxLineBytes = opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  }

  private readonly onData = (chunk: Buffer | string) => {
    const buf = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    let start = 0;
    for (;;) {
      const nl = buf.indexOf(10, start);
      this.take(nl === -1 ? buf.subarray(start) : buf.subarray(start, nl));
      if (nl === -1) return;
      this.endLine();
      start = nl + 1;
    }
  };

  private readonly onStreamError = (err: Error) => {
    this.onerror?.(err);
  };

  private take(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.skipping) {
      this.skipping.tail = (this.skipping.tail + piece.toString("latin1")).slice(-PEEK);
      return;
    }
    if (this.size + piece.length > this.maxLineBytes) {
      const first = this.chunks[0] ?? piece;
      this.skipping = { head: first.subarray(0, PEEK).toString("latin1"), tail: piece.subarray(-PEEK).toString("latin1") };
      this.chunks = [];
      this.size = 0;
      return;
    }
    this.chunks.push(piece);
    this.size += piece.length;
  }

  private endLine(): void {
    if (this.skipping) {
      const { head, tail } = this.skipping;
      this.skipping = undefined;
      const problem = `Invalid Request: a message on stdin is larger than ${this.maxLineBytes} bytes; it was skipped.`;
      this.reject(errorReply(sniffId(head, tail), -32600, problem), problem);
      return;
    }
    const line = Buffer.concat(this.chunks, this.size).toString("utf8").replace(/\r$/, "");
    this.chunks = [];
    this.size = 0;
    const verdict = classifyLine(line);
    if (!verdict) return;
    if (verdict.ok) this.onmessage?.(verdict.message);
    else this.reject(verdict.reply, verdict.problem);
  }

  private reject(reply: JSONRPCMessage, problem: string): void {
    this.onerror?.(new Error(problem));
    this.send(reply).catch((err: unknown) => this.onerror?.(err instanceof Error ? err : new Error(String(err))));
  }

  async start(): Promise<void> {
    if (this.started) throw new Error("LineStdioTransport already started");
    this.started = true;
    this.stdin.on("data", this.onData);
    this.stdin.on("error", this.onStreamError);
    this.stdout.on("error", this.onStreamError);
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(`${JSON.stringify(capErrorText(message))}\n`)) resolve();
      else this.stdout.once("drain", () => resolve());
    });
  }

  async close(): Promise<void> {
    this.stdin.off("data", this.onData);
    this.stdin.off("error", this.onStreamError);
    this.stdout.off("error", this.onStreamError);
    if (this.stdin.listenerCount("data") === 0) this.stdin.pause();
    this.chunks = [];
    this.size = 0;
    this.onclose?.();
  }
}
