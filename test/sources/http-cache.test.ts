import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { type HttpCache, UpstreamError } from "../../src/sources/http.ts";
import { openStore, type Store } from "../../src/store/db.ts";
import { createHttpCache } from "../../src/store/http-cache.ts";
import { type FakeUpstream, startFakeUpstream } from "../support/fake-upstream.ts";
import { makeTempDir } from "../support/tmp.ts";
import { FIXTURES, fastClient } from "./helpers.ts";

const HOUR = 3_600_000;

describe("SQLite HTTP cache", () => {
  let tmp: ReturnType<typeof makeTempDir>;
  let store: Store;
  let fake: FakeUpstream;
  let clock: number;
  let cache: HttpCache;
  const now = () => clock;

  beforeEach(async () => {
    tmp = makeTempDir();
    store = openStore({ path: join(tmp.dir, "lk.db") });
    fake = await startFakeUpstream({ dataDir: FIXTURES });
    clock = Date.parse("2026-06-01T00:00:00Z");
    cache = createHttpCache(store.db, { cacheTtlMs: 7 * 24 * HOUR, errorCacheTtlMs: 300_000 }, now);
  });
  afterEach(async () => {
    await fake.stop();
    store.close();
    tmp.cleanup();
  });

  test("a fresh success is served without a request; expired is refetched", async () => {
    const http = fastClient({ cache, now });
    const url = `${fake.url}/v2/spells/?page=2&limit=3`;
    const first = await http.request(url);
    expect(first.fromCache).toBe(false);
    // Same URL with params in another order hits the same entry.
    const second = await http.request(`${fake.url}/v2/spells/?limit=3&page=2`);
    expect(second.fromCache).toBe(true);
    expect(second.data).toEqual(first.data);
    expect(fake.requests.length).toBe(1);
    expect(http.stats).toMatchObject({ requests: 1, cacheHits: 1 });

    clock += 7 * 24 * HOUR - 1;
    expect((await http.request(url)).fromCache).toBe(true);
    clock += 2;
    expect((await http.request(url)).fromCache).toBe(false);
    expect(fake.requests.length).toBe(2);
  });

  test("force bypasses the read but refreshes the entry", async () => {
    const http = fastClient({ cache, now });
    const url = `${fake.url}/v2/rules/`;
    await http.request(url);
    clock += 1000;
    const forced = await http.request(url, { force: true });
    expect(forced.fromCache).toBe(false);
    expect(fake.requests.length).toBe(2);
    expect(cache.get(url)!.fetchedAt).toBe(clock);
  });

  test("a cached failure is not re-sent inside its window, and is after", async () => {
    fake.setFault("/v2/rules/", { statuses: [500, 500] });
    const http = fastClient({ cache, now, retries: 1 });
    const url = `${fake.url}/v2/rules/`;
    const e1 = await http.request(url).catch((e: unknown) => e);
    expect(e1).toBeInstanceOf(UpstreamError);
    expect((e1 as UpstreamError).kind).toBe("http");
    expect(fake.requests.length).toBe(2);

    clock += 299_000;
    const e2 = (await http.request(url).catch((e: unknown) => e)) as UpstreamError;
    expect(e2.kind).toBe("recent-failure");
    expect(e2.status).toBe(500);
    expect(e2.retryAt).toBe(clock - 299_000 + 300_000);
    expect(e2.message).toContain("failed recently");
    expect(e2.message).toContain("1 s");
    expect(fake.requests.length).toBe(2);
    expect(http.stats.cachedFailures).toBe(1);

    clock += 1001;
    const body = (await http.request(url)).data as { count: number };
    expect(body.count).toBe(2);
    expect(fake.requests.length).toBe(3);
    // The success replaced the failure.
    expect(cache.get(url)!.ok).toBe(true);
  });

  test("force re-sends a request that failed recently", async () => {
    fake.setFault("/v2/rules/", { statuses: [404] });
    const http = fastClient({ cache, now });
    const url = `${fake.url}/v2/rules/`;
    await http.request(url).catch(() => undefined);
    expect(((await http.request(url).catch((e: unknown) => e)) as UpstreamError).kind).toBe("recent-failure");
    expect((await http.request(url, { force: true })).data).toMatchObject({ count: 2 });
    expect(fake.requests.length).toBe(2);
  });

  test("malformed responses are cached as failures", async () => {
    fake.setFault("/v2/spells/", { malformed: "truncated", times: 1 });
    const http = fastClient({ cache, now });
    const url = `${fake.url}/v2/spells/`;
    expect(((await http.request(url).catch((e: unknown) => e)) as UpstreamError).kind).toBe("malformed");
    const entry = cache.get(url)!;
    expect(entry.ok).toBe(false);
    expect(entry.errorKind).toBe("malformed");
    expect(((await http.request(url).catch((e: unknown) => e)) as UpstreamError).kind).toBe("recent-failure");
    expect(fake.requests.length).toBe(1);
  });

  test("an expired failure is not served, the success still is", async () => {
    const http = fastClient({ cache, now });
    const rows = () => store.db.query<{ n: number }, []>("SELECT count(*) AS n FROM http_cache").get()!.n;
    await http.request(`${fake.url}/v2/spells/`);
    fake.setFault("/v2/rules/", { statuses: [404] });
    await http.request(`${fake.url}/v2/rules/`).catch(() => undefined);
    expect(rows()).toBe(2);
    expect(cache.get(`${fake.url}/v2/rules/`)?.ok).toBe(false);
    clock += 301_000;
    expect(cache.get(`${fake.url}/v2/rules/`)).toBeUndefined();
    expect(cache.get(`${fake.url}/v2/spells/`)?.ok).toBe(true);
  });

  test("createHttpCache takes its TTLs from the configuration", async () => {
    const c = createHttpCache(store.db, { cacheTtlMs: 1000, errorCacheTtlMs: 0 }, now);
    c.putSuccess("http://x/a/?b=1&a=2", 200, "{}");
    expect(c.get("http://x/a/?a=2&b=1")!.expiresAt).toBe(clock + 1000);
    c.putFailure("http://x/b/", { status: 500, kind: "http", message: "boom" });
    expect(c.get("http://x/b/")).toBeUndefined(); // error caching disabled by a 0 TTL
  });
});
