/**
 * MCP over stdio (newline-delimited JSON-RPC), like the SDK's StdioServerTransport except that a
 * bad line is always answered and never ends the session: not JSON → -32700 (id null); not a
 * JSON-RPC message (a batch, `"_meta": "x"`...) → -32600 with the request's id when it has one, so
 * the call fails at once instead of timing out; a line over MAX_LINE_BYTES → skipped to its newline
 * and answered -32600 (with its id when visible at either end). `classifyLine` is pure.
 *
 * Backpressure: past `maxInFlight` requests read and not yet answered, or while stdout is backed up
 * (a client that sends without reading), stdin is paused and the client's writes block in the
 * pipe, so memory stays bounded however fast a client sends.
 */
import type { JSONRPCMessage, RequestId, Transport } from "@modelcontextprotocol/server";
import { capErrorText, parseJsonRpc } from "../protocol/protocol-checks.ts";

const MAX_LINE_BYTES = 4 * 1024 * 1024;
const DEFAULT_MAX_IN_FLIGHT = 16;
/**
 * Input read before stdin pauses for a turn of the event loop: an input that never runs dry
 * (/dev/zero) otherwise keeps Bun reading without running timers or signal handlers (no SIGTERM).
 */
const YIELD_BYTES = 1024 * 1024;

type LineVerdict = { ok: true; message: JSONRPCMessage } | { ok: false; reply: JSONRPCMessage; problem: string };

function errorReply(id: RequestId | null, code: number, message: string): JSONRPCMessage {
  // The JSON-RPC spec answers an unidentifiable request with id null; the SDK's types do not model it.
  return { jsonrpc: "2.0", id: id as RequestId, error: { code, message } };
}

/** One line of stdin → the message, or the error to answer it with; null for a blank line. Pure. */
export function classifyLine(line: string): LineVerdict | null {
  if (line.trim() === "") return null;
  // Checked by the SDK's schema, as its own stdio transport does.
  const checked = parseJsonRpc(
    line,
    "a line on stdin is not valid JSON. Send one JSON-RPC message per line.",
    "batches are not supported over stdio; send one JSON-RPC message per line.",
  );
  if (checked.ok) return { ok: true, message: checked.message as JSONRPCMessage }; // not a batch: refused above
  return { ok: false, reply: errorReply(checked.id, checked.code, checked.problem), problem: checked.problem };
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
const keyOf = (id: RequestId) => `${typeof id}:${String(id)}`;

export class LineStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private chunks: Buffer[] = [];
  private size = 0;
  /** Set while skipping the rest of an oversized line. */
  private skipping: { head: string; tail: string } | undefined;
  private started = false;
  private readonly maxInFlight: number;
  /** Input read from stdin and not yet split into lines (at most about one chunk while paused). */
  private pending: Buffer[] = [];
  /** Requests handed to the server and not yet answered, by id. */
  private readonly inFlight = new Map<string, number>();
  private inFlightCount = 0;
  /** stdout refused more (write returned false) and has not drained yet. */
  private outputBlocked = false;
  private readonly drainWaiters: Array<() => void> = [];
  private inputPaused = false;
  /** Bytes read since stdin last paused for a turn of the event loop (YIELD_BYTES). */
  private sinceYield = 0;
  private yielding = false;
  private closed = false;

  constructor(
    private readonly stdin: NodeJS.ReadableStream = process.stdin,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
    opts: { maxInFlight?: number } = {},
  ) {
    this.maxInFlight = Math.max(1, opts.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT);
  }

  /** Requests read and not yet answered (tests). */
  get inFlightRequests(): number {
    return this.inFlightCount;
  }

  private readonly onData = (chunk: Buffer | string) => {
    const buf = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    this.pending.push(buf);
    this.sinceYield += buf.length;
    this.pump();
    if (this.sinceYield >= YIELD_BYTES) this.yieldInput();
  };

  /** Pause stdin for one turn of the event loop (timers, signals, answers), then read on unless blocked. */
  private yieldInput(): void {
    this.sinceYield = 0;
    if (this.yielding || this.inputPaused) return;
    this.yielding = true;
    this.stdin.pause();
    setTimeout(() => {
      this.yielding = false;
      if (!this.closed && !this.inputPaused) this.stdin.resume();
    }, 0);
  }

  private blocked(): boolean {
    return this.inFlightCount >= this.maxInFlight || this.outputBlocked;
  }

  /** Split pending input into lines while there is room; pause stdin while there is none. */
  private pump(): void {
    // After close (an answer sent in the same tick queues a pump): stdin stays as close left it.
    if (this.closed) return;
    while (this.pending.length > 0 && !this.blocked()) {
      const buf = this.pending[0]!;
      const nl = buf.indexOf(10);
      this.take(nl === -1 ? buf : buf.subarray(0, nl));
      if (nl !== -1 && nl + 1 < buf.length) this.pending[0] = buf.subarray(nl + 1);
      else this.pending.shift();
      if (nl !== -1) this.endLine();
    }
    const pause = this.blocked();
    if (pause !== this.inputPaused && this.started) {
      this.inputPaused = pause;
      if (pause) this.stdin.pause();
      else if (!this.yielding) this.stdin.resume();
    }
  }

  private readonly onDrain = () => {
    this.outputBlocked = false;
    for (const w of this.drainWaiters.splice(0)) w();
    this.pump();
  };

  private track(message: JSONRPCMessage): void {
    if ("method" in message && "id" in message && message.id !== undefined) {
      const k = keyOf(message.id);
      this.inFlight.set(k, (this.inFlight.get(k) ?? 0) + 1);
      this.inFlightCount++;
    } else if ("method" in message && message.method === "notifications/cancelled") {
      // The SDK sends no answer to a cancelled request: its slot is free now.
      const id = (message.params as { requestId?: RequestId } | undefined)?.requestId;
      if (id !== undefined) this.untrack(id);
    }
  }

  private untrack(id: RequestId): void {
    const k = keyOf(id);
    const n = this.inFlight.get(k);
    if (n === undefined) return;
    if (n <= 1) this.inFlight.delete(k);
    else this.inFlight.set(k, n - 1);
    this.inFlightCount--;
    queueMicrotask(() => this.pump());
  }

  private readonly onStreamError = (err: Error) => this.onerror?.(err);

  private take(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.skipping) {
      this.skipping.tail = (this.skipping.tail + piece.toString("latin1")).slice(-PEEK);
      return;
    }
    if (this.size + piece.length > MAX_LINE_BYTES) {
      const first = this.chunks[0] ?? piece;
      this.skipping = {
        head: first.subarray(0, PEEK).toString("latin1"),
        tail: piece.subarray(-PEEK).toString("latin1"),
      };
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
      const problem = `Invalid Request: a message on stdin is larger than ${MAX_LINE_BYTES} bytes; it was skipped.`;
      this.reject(errorReply(sniffId(head, tail), -32600, problem), problem);
      return;
    }
    const line = Buffer.concat(this.chunks, this.size).toString("utf8").replace(/\r$/, "");
    this.chunks = [];
    this.size = 0;
    const verdict = classifyLine(line);
    if (!verdict) return;
    if (verdict.ok) {
      this.track(verdict.message);
      this.onmessage?.(verdict.message);
    } else this.reject(verdict.reply, verdict.problem);
  }

  private reject(reply: JSONRPCMessage, problem: string): void {
    this.onerror?.(new Error(problem));
    this.write(reply).catch((err: unknown) => this.onerror?.(err instanceof Error ? err : new Error(String(err))));
  }

  async start(): Promise<void> {
    if (this.started) throw new Error("LineStdioTransport already started");
    this.started = true;
    this.stdin.on("data", this.onData);
    this.stdin.on("error", this.onStreamError);
    this.stdout.on("error", this.onStreamError);
    this.stdout.on("drain", this.onDrain);
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (("result" in message || "error" in message) && "id" in message && message.id != null) this.untrack(message.id);
    return this.write(message);
  }

  /** Write one message; resolves when stdout has taken it (after a drain when it is backed up). */
  private write(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.stdout.write(`${JSON.stringify(capErrorText(message))}\n`) && !this.outputBlocked) resolve();
      else {
        this.outputBlocked = true;
        this.drainWaiters.push(resolve);
      }
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stdin.off("data", this.onData);
    this.stdin.off("error", this.onStreamError);
    this.stdout.off("error", this.onStreamError);
    this.stdout.off("drain", this.onDrain);
    for (const w of this.drainWaiters.splice(0)) w();
    if (this.stdin.listenerCount("data") === 0) this.stdin.pause();
    this.pending = [];
    this.chunks = [];
    this.size = 0;
    this.onclose?.();
  }
}
