import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { UpstreamError } from "../../../src/sources/http.ts";
import {
  Open5eClient,
  type Open5ePage,
  parseOpen5eEnvelope,
  rewriteOntoBase,
} from "../../../src/sources/open5e/client.ts";
import { openStore, type Store } from "../../../src/store/db.ts";
import { createHttpCache } from "../../../src/store/http-cache.ts";
import { type FakeUpstream, startFakeUpstream } from "../../support/fake-upstream.ts";
import { makeTempDir } from "../../support/tmp.ts";
import { FIXTURES, fastClient } from "../helpers.ts";

const keys = (records: unknown[]) =>
  records.map((r) => (r as { key?: string; slug?: string }).key ?? (r as { slug: string }).slug);
const ALL_SPELL_KEYS = [
  "srd-2024_fireball",
  "srd_cure-wounds",
  "srd_fire-shield",
  "srd_fireball",
  "srd_healing-word",
  "srd_ice-storm",
  "srd_shield",
];

async function rejection(p: Promise<unknown>): Promise<UpstreamError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(e instanceof UpstreamError)) throw new Error(`expected an UpstreamError, got ${String(e)}`);
  return e;
}

describe("pure pagination helpers", () => {
  test("rewriteOntoBase keeps path from /vN/ and the query", () => {
    expect(rewriteOntoBase("https://api.open5e.com/v2/spells/?limit=3&page=2", "http://127.0.0.1:9/")).toBe(
      "http://127.0.0.1:9/v2/spells/?limit=3&page=2",
    );
    expect(rewriteOntoBase("https://api.open5e.com/v1/monsters/?page=4", "http://mirror/open5e")).toBe(
      "http://mirror/open5e/v1/monsters/?page=4",
    );
    expect(rewriteOntoBase("http://mirror/open5e/v2/rules/?page=2", "http://mirror/open5e")).toBe(
      "http://mirror/open5e/v2/rules/?page=2",
    );
    expect(rewriteOntoBase("/v2/rules/?page=2", "http://m")).toBe("http://m/v2/rules/?page=2");
  });

  test("envelopes: 2026 and 2025 shapes, bare arrays, junk", () => {
    // 2025-10-31 envelope: same keys; records then carried `url`.
    const old = {
      count: 227,
      next: "https://api.open5e.com/v2/rules/?limit=2&page=2",
      previous: null,
      results: [{ url: "x", name: "A" }],
    };
    expect(parseOpen5eEnvelope(old)).toEqual({ count: 227, next: old.next, results: old.results });
    expect(parseOpen5eEnvelope([{ a: 1 }])).toEqual({ count: 1, next: null, results: [{ a: 1 }] });
    expect(parseOpen5eEnvelope({ results: [], next: "" })).toEqual({ count: null, next: null, results: [] });
    expect(parseOpen5eEnvelope({ detail: "x" })).toBeNull();
  });
});

describe("Open5eClient against the fake upstream", () => {
  let fake: FakeUpstream;
  beforeEach(async () => {
    // Links name the production host, as the real API's do.
    fake = await startFakeUpstream({ dataDir: FIXTURES, linkBase: "https://api.open5e.com" });
  });
  afterEach(async () => {
    await fake.stop();
  });

  test("walks every page (3 pages), rewriting production next links onto the base", async () => {
    const client = new Open5eClient(fastClient(), { baseUrl: `${fake.url}/` });
    const pages: Open5ePage[] = [];
    for await (const p of client.pages("v2", "spells", { pageSize: 3 })) pages.push(p);
    expect(pages.map((p) => [p.page, p.results.length, p.recordsSoFar, p.totalCount])).toEqual([
      [1, 3, 3, 7],
      [2, 3, 6, 7],
      [3, 1, 7, 7],
    ]);
    expect(keys(pages.flatMap((p) => p.results))).toEqual(ALL_SPELL_KEYS);
    expect(pages.every((p) => p.warnings.length === 0)).toBe(true);
    // Every request went to the fake (none to api.open5e.com), with the asked-for limit.
    expect(fake.requests.map((r) => r.path + r.search)).toEqual([
      "/v2/spells/?limit=3",
      "/v2/spells/?limit=3&page=2",
      "/v2/spells/?limit=3&page=3",
    ]);
  });

  test("fetchAll asks for limit=1000 by default", async () => {
    const client = new Open5eClient(fastClient(), { baseUrl: fake.url });
    const res = await client.fetchAll("v2", "spells");
    expect(res.warnings).toEqual([]);
    expect(keys(res.records)).toEqual(ALL_SPELL_KEYS);
    expect(fake.requests.map((r) => r.search)).toEqual(["?limit=1000"]);
  });

  test("v1 lists work the same way", async () => {
    const client = new Open5eClient(fastClient(), { baseUrl: fake.url });
    const res = await client.fetchAll("v1", "spells", { pageSize: 2 });
    expect(keys(res.records)).toEqual(["fire-shield", "fireball", "ice-storm", "shield"]);
    expect(fake.requests.length).toBe(2);
  });

  for (const mode of ["self", "first"] as const) {
    test(`a next link that loops (${mode}) stops with a pagination error, never hangs`, async () => {
      fake.setFault(/\/v2\/spells\/\?limit=3&page=2$/, { loopNext: mode });
      const client = new Open5eClient(fastClient(), { baseUrl: fake.url });
      const got: number[] = [];
      const err = await rejection(
        (async () => {
          for await (const p of client.pages("v2", "spells", { pageSize: 3 })) got.push(p.page);
        })(),
      );
      expect(err.kind).toBe("pagination");
      expect(err.message).toContain("loops back");
      expect(got).toEqual([1]);
      expect(fake.requests.length).toBe(2);
    });
  }

  test("the hard page cap stops a long walk", async () => {
    const client = new Open5eClient(fastClient(), { baseUrl: fake.url });
    const err = await rejection(client.fetchAll("v2", "spells", { pageSize: 1, maxPages: 4 }));
    expect(err.kind).toBe("pagination");
    expect(err.message).toContain("more pages than expected");
    expect(fake.requests.length).toBe(4);
  });

  test("the count-derived page cap stops a walk far longer than the count allows", async () => {
    // count 1 at 1 record per page allows 1 page + 5 of slack; the server keeps sending next.
    fake.setFault("/v2/spells/", { countOffset: -6 });
    const client = new Open5eClient(fastClient(), { baseUrl: fake.url });
    const err = await rejection(client.fetchAll("v2", "spells", { pageSize: 1 }));
    expect(err.kind).toBe("pagination");
    expect(fake.requests.length).toBe(6);
  });

  test("a count mismatch is a warning, not an error", async () => {
    fake.setFault("/v2/spells/", { countOffset: 5 });
    const client = new Open5eClient(fastClient(), { baseUrl: fake.url });
    const res = await client.fetchAll("v2", "spells", { pageSize: 4 });
    expect(res.records.length).toBe(7);
    expect(res.warnings.length).toBe(1);
    expect(res.warnings[0]).toContain("announced 12 records but sent 7");
  });

  test("an injected bad record is passed through for the normalizer to reject", async () => {
    fake.setFault(/page=2/, { injectRecord: { key: 42 } });
    const client = new Open5eClient(fastClient(), { baseUrl: fake.url });
    const res = await client.fetchAll("v2", "spells", { pageSize: 3 });
    expect(res.records.length).toBe(8);
    expect(res.records).toContainEqual({ key: 42 });
    expect(res.warnings[0]).toContain("announced 7 records but sent 8");
  });

  test("500s on a middle page are retried transparently", async () => {
    fake.setFault(/page=2/, { statuses: [500, 503] });
    const http = fastClient();
    const client = new Open5eClient(http, { baseUrl: fake.url });
    const res = await client.fetchAll("v2", "spells", { pageSize: 3 });
    expect(keys(res.records)).toEqual(ALL_SPELL_KEYS);
    expect(http.stats.retries).toBe(2);
  });

  test("a body that is not an envelope is malformed", async () => {
    fake.setFault("/v2/rules/", { statuses: [200], body: JSON.stringify({ detail: "hello" }) });
    const client = new Open5eClient(fastClient(), { baseUrl: fake.url });
    const err = await rejection(client.fetchAll("v2", "rules"));
    expect(err.kind).toBe("malformed");
    expect(err.message).toContain("not a list envelope");
    expect(err.message).toContain("LOREKEEPER_OPEN5E_BASE_URL");
  });

  test("a missing endpoint (e.g. /v2/magicitems/ on a 2025 server) is an http 404", async () => {
    const client = new Open5eClient(fastClient(), { baseUrl: fake.url });
    const err = await rejection(client.fetchAll("v2", "magicitems"));
    expect(err.kind).toBe("http");
    expect(err.status).toBe(404);
  });
});

describe("Open5eClient with the cache", () => {
  let tmp: ReturnType<typeof makeTempDir>;
  let store: Store;
  let fake: FakeUpstream;
  beforeEach(async () => {
    tmp = makeTempDir();
    store = openStore({ path: join(tmp.dir, "lk.db") });
    fake = await startFakeUpstream({ dataDir: FIXTURES });
  });
  afterEach(async () => {
    await fake.stop();
    store.close();
    tmp.cleanup();
  });

  test("a second walk is served from the cache; a looping walk is not cached as success", async () => {
    let clock = 1_000_000;
    const cache = createHttpCache(store.db, { cacheTtlMs: 60_000, errorCacheTtlMs: 1000 }, () => clock);
    const http = fastClient({ cache, now: () => clock });
    const client = new Open5eClient(http, { baseUrl: fake.url });
    await client.fetchAll("v2", "spells", { pageSize: 3 });
    const again: boolean[] = [];
    for await (const p of client.pages("v2", "spells", { pageSize: 3 })) again.push(p.fromCache);
    expect(again).toEqual([true, true, true]);
    expect(fake.requests.length).toBe(3);

    fake.setFault(/rules\/\?limit=1&page=2$/, { loopNext: "self", times: 1 });
    expect((await rejection(client.fetchAll("v2", "rules", { pageSize: 1 }))).kind).toBe("pagination");
    // Inside the error window the walk is refused without a request...
    const before = fake.requests.length;
    expect((await rejection(client.fetchAll("v2", "rules", { pageSize: 1 }))).kind).toBe("recent-failure");
    expect(fake.requests.length).toBe(before);
    // ...and afterwards it goes back to the network for every page and succeeds (fault used up).
    clock += 1001;
    const ok = await client.fetchAll("v2", "rules", { pageSize: 1 });
    expect(ok.records.length).toBe(2);
    expect(fake.requests.length).toBe(before + 2);
  });
});
