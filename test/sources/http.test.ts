import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { USER_AGENT } from "../../src/config.ts";
import { backoffDelay, cacheKey, parseRetryAfter, UpstreamError } from "../../src/sources/http.ts";
import { Semaphore } from "../../src/semaphore.ts";
import { type FakeUpstream, startFakeUpstream } from "../support/fake-upstream.ts";
import { FIXTURES, fastClient } from "./helpers.ts";

async function failure(p: Promise<unknown>): Promise<UpstreamError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof UpstreamError) return err;
    throw err;
  }
  throw new Error("expected an UpstreamError");
}

describe("pure helpers", () => {
  test("cacheKey sorts query params and drops the fragment", () => {
    expect(cacheKey("http://h/v2/spells/?page=2&limit=3#x")).toBe("http://h/v2/spells/?limit=3&page=2");
    expect(cacheKey("http://h/v2/spells/?b=1&a=2")).toBe(cacheKey("http://h/v2/spells/?a=2&b=1"));
    expect(cacheKey("http://h/v2/spells/")).toBe("http://h/v2/spells/");
  });

  test("parseRetryAfter reads seconds and HTTP dates", () => {
    expect(parseRetryAfter("3")).toBe(3000);
    expect(parseRetryAfter("0.5")).toBe(500);
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(parseRetryAfter("Thu, 01 Jan 2026 00:00:07 GMT", now)).toBe(7000);
    expect(parseRetryAfter("Wed, 31 Dec 2025 23:00:00 GMT", now)).toBe(0);
    expect(parseRetryAfter("soon")).toBeUndefined();
    expect(parseRetryAfter(null)).toBeUndefined();
  });

  test("backoff is full jitter under an exponential, capped ceiling", () => {
    expect(backoffDelay(0, 100, 10_000, () => 0.999)).toBe(99);
    expect(backoffDelay(3, 100, 10_000, () => 0.5)).toBe(400);
    expect(backoffDelay(20, 100, 10_000, () => 0.999)).toBe(9990);
    expect(backoffDelay(5, 100, 10_000, () => 0)).toBe(0);
  });

  test("semaphore never exceeds its limit and runs everything", async () => {
    const sem = new Semaphore(2);
    let active = 0;
    let peak = 0;
    const done = await Promise.all(
      Array.from({ length: 7 }, (_, i) =>
        sem.run(async () => {
          active++;
          peak = Math.max(peak, active);
          await Bun.sleep(5);
          active--;
          return i;
        }),
      ),
    );
    expect(done).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(peak).toBe(2);
    expect(sem.inFlight).toBe(0);
  });
});

describe("HttpClient against the fake upstream", () => {
  let fake: FakeUpstream;
  const spells = () => `${fake.url}/v2/spells/?limit=2`;
  beforeEach(async () => {
    fake = await startFakeUpstream({ dataDir: FIXTURES });
  });
  afterEach(async () => {
    await fake.stop();
  });

  test("sends the User-Agent and parses JSON", async () => {
    const http = fastClient();
    const body = (await http.request(spells())).data as { count: number; results: unknown[] };
    expect(body.count).toBe(7);
    expect(body.results.length).toBe(2);
    expect(fake.requests[0]!.userAgent).toBe(USER_AGENT);
    expect(http.stats).toMatchObject({ requests: 1, retries: 0, cacheHits: 0 });
  });

  test("retries 500s then succeeds, counting retries", async () => {
    fake.setFault("/v2/spells/", { statuses: [500, 502] });
    const http = fastClient();
    const body = (await http.request(spells())).data as { count: number };
    expect(body.count).toBe(7);
    expect(fake.requests.map((r) => r.status)).toEqual([500, 502, 200]);
    expect(http.stats).toMatchObject({ requests: 3, retries: 2, failures: 0 });
  });

  test("gives up after the configured retries with an actionable message", async () => {
    fake.setFault("/v2/spells/", { statuses: [503, 503, 503] });
    const http = fastClient({ retries: 2 });
    const err = await failure(
      http.request(spells(), { upstream: { name: "Open5e", baseUrl: fake.url, envVar: "LOREKEEPER_OPEN5E_BASE_URL" } }),
    );
    expect(err.kind).toBe("http");
    expect(err.status).toBe(503);
    expect(err.message).toContain("after 3 attempts");
    expect(err.message).toContain("LOREKEEPER_OPEN5E_BASE_URL");
    expect(fake.requests.length).toBe(3);
    expect(http.stats.failures).toBe(1);
  });

  test("4xx other than 429 are not retried", async () => {
    const http = fastClient();
    const err = await failure(http.request(`${fake.url}/v2/spells/srd_nope/`));
    expect(err.kind).toBe("http");
    expect(err.status).toBe(404);
    expect(fake.requests.length).toBe(1);
    expect(http.stats.retries).toBe(0);
  });

  test("timeouts are retried, then reported as kind timeout", async () => {
    fake.setFault("/v2/spells/", { delayMs: 400, times: 1 });
    const http = fastClient({ timeoutMs: 100 });
    const body = (await http.request(spells())).data as { count: number };
    expect(body.count).toBe(7);
    expect(http.stats.retries).toBe(1);

    fake.setFault("/v2/rules/", { delayMs: 400 });
    const err = await failure(fastClient({ timeoutMs: 80, retries: 1 }).request(`${fake.url}/v2/rules/`));
    expect(err.kind).toBe("timeout");
    expect(err.message).toContain("did not answer within 80 ms");
  });

  test("429 honours Retry-After", async () => {
    fake.setFault("/v2/spells/", { statuses: [429], retryAfter: "0.3" });
    const http = fastClient();
    const t0 = performance.now();
    await http.request(spells());
    const waited = performance.now() - t0;
    expect(waited).toBeGreaterThanOrEqual(290);
    expect(fake.requests.map((r) => r.status)).toEqual([429, 200]);
    const gap = fake.requests[1]!.startedAt - fake.requests[0]!.endedAt;
    expect(gap).toBeGreaterThanOrEqual(280);
  });

  test("Retry-After is capped", async () => {
    fake.setFault("/v2/spells/", { statuses: [429], retryAfter: "3600" });
    const http = fastClient({ maxRetryAfterMs: 50 });
    const t0 = performance.now();
    await http.request(spells());
    // Capped at 50 ms instead of an hour (a loaded machine adds its own delays, hence the margin).
    expect(performance.now() - t0).toBeLessThan(10_000);
    expect(http.stats.retries).toBe(1);
  }, 20_000);

  test("malformed and truncated JSON become kind malformed, without retry", async () => {
    fake.setFault("/v2/spells/", { malformed: "garbage" });
    const http = fastClient();
    const e1 = await failure(http.request(spells()));
    expect(e1.kind).toBe("malformed");
    expect(e1.message).toContain("not valid JSON");
    fake.setFault("/v2/rules/", { malformed: "truncated" });
    const e2 = await failure(http.request(`${fake.url}/v2/rules/`));
    expect(e2.kind).toBe("malformed");
    expect(fake.requests.length).toBe(2);
  });

  test("an unreachable server is kind network with the fix in the message", async () => {
    const url = spells();
    await fake.stop();
    const err = await failure(
      fastClient({ retries: 1 }).request(url, {
        upstream: { name: "Open5e", baseUrl: "http://mirror", envVar: "LOREKEEPER_OPEN5E_BASE_URL" },
      }),
    );
    expect(err.kind).toBe("network");
    expect(err.message).toContain("Open5e at http://mirror is unreachable");
    expect(err.message).toContain("lorekeeper sync");
  });

  test("a server dying mid-walk fails later requests as network errors", async () => {
    const http = fastClient({ retries: 1 });
    await http.request(spells());
    fake.setFault("/v2/rules/", { die: true });
    const err = await failure(http.request(`${fake.url}/v2/rules/`));
    expect(err.kind === "network" || err.kind === "timeout").toBe(true);
    const again = await failure(http.request(spells()));
    expect(again.kind).toBe("network");
  });

  test("follows the 301 for a missing trailing slash", async () => {
    const body = (await fastClient().request(`${fake.url}/v2/spells?limit=3`)).data as { results: unknown[] };
    expect(body.results.length).toBe(3);
    expect(fake.requests.map((r) => r.status)).toEqual([301, 200]);
  });

  test("concurrency is bounded across callers", async () => {
    fake.setFault("/v2/spells/", { delayMs: 40 });
    const http = fastClient({ concurrency: 2 });
    await Promise.all(
      Array.from({ length: 6 }, (_, i) => http.request(`${fake.url}/v2/spells/?limit=1&page=${i + 1}`)),
    );
    expect(fake.requests.length).toBe(6);
    expect(Math.max(...fake.requests.map((r) => r.inFlight))).toBe(2);
  });
});
