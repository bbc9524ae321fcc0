/**
 * backpressure. A client that sends without reading can only fill a bounded
 * amount of memory.
 * - stdio: at most `maxInFlight` requests are read and not yet answered, and nothing more is read
 *   while stdout is backed up (one `drain` listener, never one per answer). Checked on the
 *   transport with streams, and on a spawned server: calls of search_spell {"limit": 100} (64 KB each)
 *   written without reading stdout are not all taken in; once the client reads, every one is
 *   answered.
 * - HTTP: batches over the limit are refused (-32600), work in flight is capped with a bounded
 *   queue, past it 503 + Retry-After; /health answers during the attack.
 * (Full-size figures: `bun scripts/attack-memory.ts`, see docs/architecture.md "Limits".)
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { PassThrough, Writable } from "node:stream";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { Admission } from "../../src/server/transports/backpressure.ts";
import { Semaphore } from "../../src/semaphore.ts";
import { type HttpServerHandle, startHttpServer } from "../../src/server/transports/http.ts";
import { LineStdioTransport } from "../../src/server/transports/stdio-transport.ts";
import { openStore, type Store } from "../../src/store/db.ts";
import { replaceOrigin } from "../../src/store/entities.ts";
import { makeEntity } from "../support/entities.ts";
import { isolatedEnv, makeDeps, REPO_ROOT } from "../support/mcp.ts";
import { makeTempDir } from "../support/tmp.ts";
import { waitFor } from "../support/wait.ts";

let tmp: ReturnType<typeof makeTempDir>;
let dbFile: string;
let store: Store;

beforeAll(() => {
  tmp = makeTempDir("lk-backpressure-");
  dbFile = join(tmp.dir, "lk.db");
  store = openStore({ path: dbFile });
  const text = "A shimmering field of arcane force surrounds the target and flames dance along its edges. ".repeat(8);
  replaceOrigin(
    store.db,
    "open5e_v2:spells",
    Array.from({ length: 300 }, (_, i) =>
      makeEntity(
        "spell",
        `Spell ${String(i).padStart(3, "0")}`,
        { level: i % 10, school: "evocation", classes: ["wizard"] },
        { text },
      ),
    ),
    [],
  );
  store.db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
});

afterAll(() => {
  store.close();
  tmp.cleanup();
});

const request = (id: number, extra = "") => {
  const params = { name: "search_spell", arguments: { limit: 100 }, _meta: { pad: extra } };
  return `${JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params })}\n`;
};

describe("stdio transport", () => {
  test("reads at most maxInFlight requests ahead, nothing while stdout is backed up; one drain listener", async () => {
    const stdin = new PassThrough();
    let reading = false;
    const held: Array<() => void> = [];
    let written = 0;
    const stdout = new Writable({
      highWaterMark: 4096,
      write(_chunk, _enc, cb) {
        written++;
        if (reading) cb();
        else held.push(() => cb());
      },
    });
    const t = new LineStdioTransport(stdin, stdout, { maxInFlight: 8 });
    let delivered = 0;
    t.onmessage = (m: JSONRPCMessage) => {
      delivered++;
      const id = (m as { id: number }).id;
      setTimeout(() => void t.send({ jsonrpc: "2.0", id, result: { big: "x".repeat(20_000) } }), 0);
    };
    await t.start();
    for (let i = 1; i <= 500; i++) stdin.write(request(i));
    await Bun.sleep(100);
    expect(delivered).toBeLessThanOrEqual(8);
    expect(stdout.listenerCount("drain")).toBeLessThanOrEqual(2);
    // The client starts reading: everything is taken in and answered, in bounded steps.
    reading = true;
    for (const cb of held.splice(0)) cb();
    await waitFor(() => written >= 500 && delivered >= 500);
    expect(delivered).toBe(500);
    expect(written).toBe(500);
    expect(t.inFlightRequests).toBe(0);
    await t.close();
  }, 30_000);

  test("a cancelled request frees its place (the SDK sends no answer to it)", async () => {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    stdout.resume();
    const t = new LineStdioTransport(stdin, stdout, { maxInFlight: 2 });
    const seen: number[] = [];
    t.onmessage = (m) => {
      if ("id" in m) seen.push(m.id as number);
    };
    await t.start();
    stdin.write(request(1));
    stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } })}\n`);
    for (let i = 2; i <= 4; i++) stdin.write(request(i));
    await waitFor(() => seen.length >= 3);
    // 1 was cancelled (no answer will come): 2 and 3 take the two places, 4 waits.
    expect(seen).toEqual([1, 2, 3]);
    expect(t.inFlightRequests).toBe(2);
    await t.close();
  }, 30_000);

  /**
   * Write `count` lines to `stdin` and wait until the kernel stops taking them (no write callback for
   * `stallMs`). Returns how many were taken (a failed write does not count). The socket's buffer size
   * is the machine's (net.core.wmem_default): measured, never assumed.
   */
  async function takeIn(
    stdin: NodeJS.WritableStream,
    line: (i: number) => string,
    count: number,
    stallMs: number,
  ): Promise<number> {
    let taken = 0;
    let last = performance.now();
    for (let i = 1; i <= count; i++) {
      stdin.write(line(i), (err) => {
        if (err) return;
        taken++;
        last = performance.now();
      });
    }
    while (taken < count && performance.now() - last < stallMs) await Bun.sleep(25);
    return taken;
  }

  test("a spawned server: calls written without reading stdout are taken in " +
    "up to maxInFlight past what the pipe holds; all are answered once read", async () => {
    const pad = "p".repeat(64 * 1024);
    const line = (i: number) => request(i, pad);
    // What the pipe alone holds: a child that never reads stdin.
    const idle = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)"], {
      stdio: ["pipe", "ignore", "ignore"],
    });
    idle.stdin.on("error", () => {});
    let pipeHolds = 0;
    try {
      pipeHolds = await takeIn(idle.stdin, line, 400, 500);
    } finally {
      idle.kill();
    }
    expect(pipeHolds).toBeLessThan(400);
    const pipeBytes = pipeHolds * line(1).length;

    const env = { ...process.env, ...(await isolatedEnv(tmp.dir)), LOREKEEPER_LOG_LEVEL: "error" };
    const child = spawn(process.execPath, [join(REPO_ROOT, "src", "cli", "main.ts"), "serve", "--db-path", dbFile], {
      env,
      cwd: REPO_ROOT,
      stdio: ["pipe", "pipe", "ignore"],
    });
    // A failed test kills the child with writes pending: their EPIPE is expected, not an error of the run.
    child.stdin.on("error", () => {});
    try {
      const init = {
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "0" } },
      };
      const probeId = 1_000_000;
      // The server is up when it answers initialize; one call tells how large an answer is. From then
      // on its stdout is not read.
      let early = "";
      await new Promise<void>((resolve) => {
        const onData = (d: Buffer) => {
          early += d.toString();
          if (early.split("\n").length > 2) {
            child.stdout.off("data", onData);
            child.stdout.pause();
            resolve();
          }
        };
        child.stdout.on("data", onData);
        child.stdin.write(
          `${JSON.stringify(init)}\n` +
            `${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n${request(probeId)}`,
        );
      });
      const [initLine, probeLine] = early.split("\n");
      expect(JSON.parse(initLine!) as { id: number }).toMatchObject({ id: 0 });
      expect(JSON.parse(probeLine!) as { id: number }).toMatchObject({ id: probeId });
      // The server answers until its stdout's socket is full (as large as its stdin's: the machine's
      // net.core.wmem_default; twice that, for the kernel's accounting) and then reads at most its
      // in-flight requests (16 by default) and a line or two of its read buffer (a line is 64 KB).
      const answersFit = Math.ceil((2 * pipeBytes) / (probeLine!.length + 1));
      const serverBound = answersFit + 16 + 4;
      const total = pipeHolds + serverBound + 50;
      // Each request the kernel takes fires its write callback; the intake has stopped when none fired
      // for a second. Taken in = what the pipe holds + what the server read.
      const flushed = await takeIn(child.stdin, line, total, 1000);
      expect(child.exitCode).toBeNull();
      const serverRead = flushed - pipeHolds;
      expect(serverRead).toBeLessThanOrEqual(serverBound);
      expect(flushed).toBeLessThan(total);
      const status = (() => {
        try {
          return readFileSync(`/proc/${child.pid}/status`, "utf8");
        } catch {
          return "";
        }
      })();
      const peakMb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
      if (peakMb > 0)
        process.stderr.write(
          `backpressure: stdio server peak RSS ${peakMb.toFixed(0)} MB with ${total} calls of 64 KB unread ` +
            `(the pipe holds ${pipeHolds}; the server read ${serverRead}, at most ${serverBound} allowed)\n`,
        );
      const ids = new Set<number>();
      let buf = early.split("\n").slice(2).join("\n");
      const done = new Promise<void>((resolve) => {
        child.stdout.on("data", (d: Buffer) => {
          buf += d.toString();
          let nl = buf.indexOf("\n");
          while (nl >= 0) {
            const m = JSON.parse(buf.slice(0, nl)) as {
              id: number;
              result?: { structuredContent?: { count: number } };
            };
            if (m.id > 0 && m.id <= total && m.result?.structuredContent?.count === 100) ids.add(m.id);
            buf = buf.slice(nl + 1);
            nl = buf.indexOf("\n");
          }
          if (ids.size === total) resolve();
        });
        child.stdout.resume();
      });
      await Promise.race([done, Bun.sleep(60_000)]);
      expect(ids.size).toBe(total);
    } finally {
      child.kill();
    }
  }, 90_000);
});

describe("HTTP", () => {
  let server: HttpServerHandle;
  // Searches wait on this gate; open unless a test closes it (so "in flight" does not depend on how
  // fast this machine answers).
  let gate: Promise<void> = Promise.resolve();
  beforeAll(async () => {
    const base = makeDeps(store);
    const search: typeof base.search = async (q) => {
      await gate;
      return base.search(q);
    };
    server = await startHttpServer(
      { ...base, search },
      {
        port: 0,
        maxBatch: 16,
        maxInFlightMessages: 16,
        maxQueuedMessages: 32,
        maxQueueWaitMs: 20_000,
        maxBodyBytes: 4 * 1024 * 1024,
      },
    );
  });
  afterAll(async () => {
    await server.stop();
  });

  const headers = {
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    "Mcp-Protocol-Version": "2025-06-18",
  };
  const batch = (n: number, base: number) =>
    Array.from({ length: n }, (_, i) => ({
      jsonrpc: "2.0",
      id: base + i,
      method: "tools/call",
      params: { name: "search_all", arguments: { query: "arcane force", limit: 100 } },
    }));

  test("a batch over the limit → 400 -32600 saying the limit", async () => {
    const res = await fetch(server.url, { method: "POST", headers, body: JSON.stringify(batch(17, 1)) });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: number; message: string } };
    expect(body.error.code).toBe(-32600);
    expect(body.error.message).toContain("at most 16 messages");
  });

  test(
    "12 concurrent batches of 16: 3 are worked on or queued, " +
      "the rest get 503 + Retry-After; /health answers meanwhile",
    async () => {
      const held = Promise.withResolvers<void>();
      gate = held.promise;
      try {
        const answered: Response[] = [];
        const posts = Array.from({ length: 12 }, (_, i) =>
          fetch(server.url, { method: "POST", headers, body: JSON.stringify(batch(16, 1000 * (i + 1))) }).then((r) => {
            answered.push(r);
            return r;
          }),
        );
        // While the first batch's searches are held: one batch in flight, two queued (32 messages), and
        // the other nine are refused at once.
        await waitFor(() => answered.length >= 9);
        await Bun.sleep(50);
        expect(answered.length).toBe(9);
        expect(answered.map((r) => r.status)).toEqual(Array(9).fill(503));
        const health = await fetch(server.url.replace(/\/mcp$/, "/health"));
        expect(health.status).toBe(200);
        held.resolve();
        const res = await Promise.all(posts);
        expect(res.filter((r) => r.status === 200).length).toBe(3);
        for (const r of res) {
          if (r.status === 503) {
            expect(r.headers.get("retry-after")).toBe("1");
            expect(((await r.json()) as { error: { message: string } }).error.message).toContain("Server busy");
          } else {
            const text = await r.text();
            expect(text.match(/"search_mode"/g)?.length).toBeGreaterThanOrEqual(16);
          }
        }
      } finally {
        held.resolve();
        gate = Promise.resolve();
      }
      // All room is given back: the next batch is served at once.
      expect(
        (await fetch(server.url, { method: "POST", headers, body: JSON.stringify(batch(16, 99_000)) })).status,
      ).toBe(200);
    },
  );
});

describe("Admission", () => {
  test("admits up to the limit, queues up to its bound in order, refuses past it, times out", async () => {
    const a = new Admission({ maxInFlight: 4, maxQueued: 4, maxWaitMs: 50 });
    const first = await a.admit(4);
    expect(first.ok).toBe(true);
    const queued = a.admit(3);
    const queued2 = a.admit(1);
    expect((await a.admit(1)).ok).toBe(false);
    expect(a.load()).toEqual({ inFlight: 4, queued: 4 });
    if (first.ok) first.release();
    const [q1, q2] = await Promise.all([queued, queued2]);
    expect(q1.ok && q2.ok).toBe(true);
    expect(a.load()).toEqual({ inFlight: 4, queued: 0 });
    const late = await a.admit(2);
    expect(late).toEqual({ ok: false, why: "timeout" });
  });
});

describe("search slots (a Semaphore handing over on the next turn)", () => {
  test("at most `max` run at once; the others run in order as slots free up", async () => {
    const slots = new Semaphore(2, { handOverNextTurn: true });
    let running = 0;
    let peak = 0;
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        slots.run(async () => {
          running++;
          peak = Math.max(peak, running);
          order.push(i);
          await Bun.sleep(5);
          running--;
        }),
      ),
    );
    expect(peak).toBe(2);
    expect(order).toEqual([0, 1, 2, 3, 4, 5]);
  });
});
