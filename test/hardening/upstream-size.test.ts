/**
 * Hardening: an upstream that streams an endless body was read into memory, gigabytes of it, before
 * failing (×6 concurrency, redirects followed). Now a response body is read up to a cap
 * (LOREKEEPER_HTTP_MAX_MB; lowered here), the rest is cancelled, and the request fails at once,
 * unretried, with an actionable message. A fake upstream on 127.0.0.1 streams lazily, so the test
 * never holds more than it sends before the cut.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { HttpClient, UpstreamError } from "../../src/sources/http.ts";

const CHUNK = 64 * 1024;
const CAP = 1024 * 1024;
let sent = 0;
let server: ReturnType<typeof Bun.serve>;
/** A 3 MB body sent with its Content-Length. */
const announced = new Uint8Array(3 * CAP).fill(0x20);
/**
 * What loopback socket buffers may hold ahead of the reader: the server runs ahead of the cut by a few MB, never the
 * whole body.
 */
const SLACK = 16 * 1024 * 1024;

/** A body of `total` bytes made on demand (never in memory at once), counting what was pulled. */
function lazyBody(total: number): ReadableStream<Uint8Array> {
  let left = total;
  const chunk = new Uint8Array(CHUNK).fill(0x20);
  return new ReadableStream({
    pull(c) {
      if (left <= 0) return c.close();
      const n = Math.min(CHUNK, left);
      left -= n;
      sent += n;
      c.enqueue(chunk.subarray(0, n));
    },
  });
}

beforeAll(() => {
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const path = new URL(req.url).pathname;
      if (path === "/endless")
        return new Response(lazyBody(64 * 1024 * 1024), { headers: { "content-type": "application/json" } });
      if (path === "/announced") return new Response(announced, { headers: { "content-type": "application/json" } });
      if (path === "/redirect") return Response.redirect(`http://127.0.0.1:${server.port}/endless`, 302);
      if (path === "/small") return Response.json({ results: [{ name: "Fireball" }], next: null });
      if (path === "/error-page") return new Response(lazyBody(64 * 1024 * 1024), { status: 500 });
      return new Response("not found", { status: 404 });
    },
  });
});

afterAll(() => server.stop(true));

const client = () =>
  new HttpClient({ retries: 2, baseDelayMs: 1, maxDelayMs: 2, timeoutMs: 20_000, maxBodyBytes: CAP });

async function failure(c: HttpClient, path: string): Promise<UpstreamError> {
  const err = await c.request(`http://127.0.0.1:${server.port}${path}`).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(UpstreamError);
  return err as UpstreamError;
}

describe("response size caps", () => {
  for (const path of ["/endless", "/redirect"]) {
    test(`${path}: a body beyond the cap fails at once, unretried, after reading about the cap`, async () => {
      sent = 0;
      const c = client();
      const err = await failure(c, path);
      expect(err.kind).toBe("too-large");
      expect(err.message).toContain("too large to read");
      expect(err.message).toContain("LOREKEEPER_HTTP_MAX_MB");
      expect(c.stats.requests).toBe(1);
      // Streams are cancelled: the server produced the cap plus what socket buffers hold, not 64 MB.
      await Bun.sleep(50);
      expect(sent).toBeLessThan(SLACK);
    });
  }

  test("a body announcing more than the cap is refused from its Content-Length", async () => {
    sent = 0;
    const err = await failure(client(), "/announced");
    expect(err.kind).toBe("too-large");
    expect(err.message).toContain("announces 3 MB");
  });

  test("an error page is read only far enough for its first line, then retried as a 5xx", async () => {
    sent = 0;
    const c = client();
    const err = await failure(c, "/error-page");
    expect(err.kind).toBe("http");
    expect(c.stats.requests).toBe(3);
    await Bun.sleep(50);
    expect(sent).toBeLessThan(3 * SLACK);
  });

  test("normal pages still read whole", async () => {
    expect((await client().request(`http://127.0.0.1:${server.port}/small`)).data).toEqual({
      results: [{ name: "Fireball" }],
      next: null,
    });
  });
});
