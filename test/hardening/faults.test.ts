/**
 * Upstream faults during a sync: 5xx bursts, timeouts, truncated and malformed
 * bodies, pages that change between requests, a server that dies mid-sync. Each time the previous
 * data keeps serving (exactly the same rows), the error cache stops request storms, and the next
 * sync completes. Runs in-process against the fake upstream; the HTTP cache's clock is injected so
 * "later" needs no sleeping.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Config, loadConfig } from "../../src/config.ts";
import { createEnsureData } from "../../src/ingest/ensure.ts";
import { runSync, type SyncReport } from "../../src/ingest/sync.ts";
import { HttpClient } from "../../src/sources/http.ts";
import { openStore, type Store } from "../../src/store/db.ts";
import { createHttpCache } from "../../src/store/http-cache.ts";
import { type FakeUpstream, startFakeUpstream } from "../support/fake-upstream.ts";
import { answerOf, connectInMemory, makeDeps, textOf } from "../support/mcp.ts";
import { makeTempDir } from "../support/tmp.ts";
import { SOURCES_FIXTURES } from "./generated.ts";
import { upstreamsAt } from "../../src/sources/index.ts";

const TYPES = ["spells", "rules", "rule-sections", "proficiencies"];
const ERROR_TTL_MS = 300_000;

/** Faults the upstream actually answered with, by type (printed at the end for the closing note). */
const injected: Record<string, number> = {};
const tally = (type: string, n: number) => {
  injected[type] = (injected[type] ?? 0) + n;
};

/** Every row that matters, in a stable order: what "the previous data" means. */
function rows(store: Store, kind = "%"): string {
  return JSON.stringify(
    store.db
      .query("SELECT origin, kind, key, name, content_hash FROM entities WHERE kind LIKE ? ORDER BY origin, kind, key")
      .all(kind),
  );
}

function spellNames(store: Store): string[] {
  return store.db
    .query<{ name: string }, []>("SELECT name FROM entities WHERE kind = 'spell' ORDER BY key")
    .all()
    .map((r) => r.name);
}

function typeResult(r: SyncReport, id: string) {
  const t = r.results.find((x) => x.contentType === id);
  if (!t) throw new Error(`no result for ${id}`);
  return t;
}

/** A front server that sends each request to `pick(n)` (n = 0, 1, … over all requests). */
function switchingProxy(pick: (n: number, path: string, search: string) => string) {
  let n = 0;
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const u = new URL(req.url);
      const target = pick(n++, u.pathname, u.search);
      const r = await fetch(`${target}${u.pathname}${u.search}`, { redirect: "manual" });
      return new Response(r.status === 301 ? null : await r.arrayBuffer(), { status: r.status, headers: r.headers });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, stop: () => server.stop(true) };
}

describe("upstream faults during sync", () => {
  let fake: FakeUpstream;
  let tmp: ReturnType<typeof makeTempDir>;
  let store: Store;
  let cfg: Config;
  let clock = Date.now();
  let baseline = "";

  const client = (over: Partial<ConstructorParameters<typeof HttpClient>[0]> = {}) =>
    new HttpClient({
      cache: createHttpCache(store.db, cfg, () => clock),
      retries: 2,
      baseDelayMs: 1,
      maxDelayMs: 5,
      timeoutMs: 2000,
      ...over,
    });
  const sync = (over: { force?: boolean; http?: HttpClient; url?: string; types?: string[] } = {}) =>
    runSync(store, {
      types: over.types ?? TYPES,
      force: over.force,
      config: over.url ? { ...cfg, ...upstreamsAt(over.url) } : cfg,
      http: over.http ?? client(),
    });
  const since = () => {
    const mark = fake.requests.length;
    return () => fake.requests.slice(mark);
  };

  beforeAll(async () => {
    fake = await startFakeUpstream({ dataDir: SOURCES_FIXTURES });
  });
  afterAll(async () => {
    await fake.stop();
    const total = Object.values(injected).reduce((a, b) => a + b, 0);
    process.stderr.write(
      `faults injected: ${total} (${Object.entries(injected)
        .map(([k, v]) => `${k} ${v}`)
        .join(", ")})\n`,
    );
  });
  beforeEach(async () => {
    tmp = makeTempDir("lk-faults-");
    store = openStore({ path: join(tmp.dir, "lk.db") });
    clock = Date.now();
    cfg = {
      ...loadConfig(),
      ...upstreamsAt(fake.url),
      open5ePageSize: 2,
      httpRetries: 2,
      errorCacheTtlMs: ERROR_TTL_MS,
    };
    fake.clearFaults();
    const first = await sync();
    expect(first.status).toBe("ok");
    baseline = rows(store);
    expect(spellNames(store).length).toBe(7);
  });
  afterEach(() => {
    fake.clearFaults();
    store.close();
    tmp.cleanup();
  });

  test("a short 5xx/429 burst is ridden out by retries: the sync completes", async () => {
    fake.setFault(/\/v2\/spells\/.*page=2/, { statuses: [500, 429, 502], retryAfter: "0" });
    const seen = since();
    const r = await sync({ force: true, http: client({ retries: 4 }) });
    expect(r.status).toBe("ok");
    const faulted = seen().filter((q) => q.status >= 429).length;
    expect(faulted).toBe(3);
    tally("5xx/429", faulted);
    expect(rows(store)).toBe(baseline);
  });

  test(
    "a long 5xx burst fails that type only; the old rows stay; " +
      "the error cache stops the storm; later the sync completes",
    async () => {
      fake.setFault(/\/v2\/spells\/.*page=3/, { statuses: Array(50).fill(503) });
      const seen = since();
      const r = await sync({ force: true });
      expect(typeResult(r, "spells").status).toBe("failed");
      expect(typeResult(r, "spells").error).toMatch(/503/);
      expect(typeResult(r, "2014/rules").status).toBe("ok");
      expect(r.status).toBe("partial");
      const hits = seen().filter((q) => q.search.includes("page=3"));
      expect(hits.length).toBe(3); // 1 + 2 retries, then the failure is cached
      tally("5xx/429", hits.length);
      expect(rows(store)).toBe(baseline);

      // Ten more syncs while the upstream is still down: not one request reaches page 3.
      const storm = since();
      for (let i = 0; i < 10; i++) {
        const again = await sync();
        expect(typeResult(again, "spells").status).toBe("failed");
        expect(typeResult(again, "spells").error).toMatch(/failed recently.*--force/s);
      }
      expect(storm().filter((q) => q.search.includes("page=3")).length).toBe(0);
      expect(rows(store)).toBe(baseline);

      // The upstream recovers; once the error has expired the next (plain) sync completes.
      fake.clearFaults();
      clock += ERROR_TTL_MS + 1000;
      const later = await sync();
      expect(later.status).toBe("ok");
      expect(typeResult(later, "spells").status).toBe("ok");
      expect(rows(store)).toBe(baseline);
    },
  );

  test("timeouts fail the type after the retries, quickly, and keep its rows", async () => {
    fake.setFault(/^\/api\/2014\/rules/, { delayMs: 1500 });
    const seen = since();
    const t0 = performance.now();
    const r = await sync({ force: true, http: client({ timeoutMs: 150, retries: 1 }) });
    // Two attempts that waited for the 1.5 s answers would take 3 s: the timeout fired before (with load margin).
    expect(performance.now() - t0).toBeLessThan(2900);
    const rules = typeResult(r, "2014/rules");
    expect(rules.status).toBe("failed");
    expect(rules.error).toMatch(/did not answer within 150 ms.*LOREKEEPER_HTTP_TIMEOUT_MS/s);
    expect(typeResult(r, "spells").status).toBe("ok");
    // rule-sections needs the rules too: rather than store sections missing their rule, it keeps the old ones
    const sections = typeResult(r, "2014/rule-sections");
    expect(sections.status).toBe("failed");
    expect(sections.error).toMatch(/related rules unavailable.*previous \(complete\) data is kept/s);
    const timedOut = seen().filter((q) => q.path.startsWith("/api/2014/rules")).length;
    // 2 attempts for the rules type, 2 more when rule-sections asks for its related rules (forced run)
    expect(timedOut).toBe(4);
    tally("timeout", timedOut);
    expect(rows(store)).toBe(baseline);
    fake.clearFaults();
    expect((await sync({ force: true })).status).toBe("ok");
  });

  test(
    "a truncated body and a non-JSON body fail their type " + "with a clear message; forced, the next sync completes",
    async () => {
      fake.setFault(/\/v2\/spells\/.*page=3/, { malformed: "truncated" });
      fake.setFault("/api/2014/rule-sections", { malformed: "garbage" });
      const seen = since();
      const r = await sync({ force: true });
      const spells = typeResult(r, "spells");
      expect(spells.status).toBe("failed");
      expect(spells.error).toMatch(/not valid JSON/);
      const sections = typeResult(r, "2014/rule-sections");
      expect(sections.status).toBe("failed");
      expect(sections.error).toMatch(/not valid JSON.*LOREKEEPER_DND5EAPI_BASE_URL/s);
      tally("truncated body", seen().filter((q) => q.search.includes("page=3")).length);
      tally("malformed JSON", seen().filter((q) => q.path === "/api/2014/rule-sections").length);
      expect(rows(store)).toBe(baseline);
      fake.clearFaults();
      const next = await sync({ force: true });
      expect(next.status).toBe("ok");
      expect(rows(store)).toBe(baseline);
    },
  );

  test("pages that change between requests: the list is read again, and no good record is dropped", async () => {
    // Upstream B = A without "Cure Wounds" (2nd record): every later page shifts by one.
    const dataB = join(tmp.dir, "upstream-b");
    cpSync(SOURCES_FIXTURES, dataB, { recursive: true });
    const file = join(dataB, "open5e", "v2", "spells.json");
    const recs = JSON.parse(readFileSync(file, "utf8")) as Array<{ name: string }>;
    writeFileSync(file, JSON.stringify(recs.filter((s) => s.name !== "Cure Wounds")));
    const b = await startFakeUpstream({ dataDir: dataB });
    try {
      // The change lands right after the first page of spells.
      let spellsSeen = 0;
      const proxy = switchingProxy((_, path) => (path === "/v2/spells/" && spellsSeen++ >= 1 ? b.url : fake.url));
      try {
        const r = await sync({ force: true, url: proxy.url, types: ["spells"] });
        tally("changing pages", 1);
        const spells = typeResult(r, "spells");
        expect(spells.status).toBe("ok");
        const want = recs
          .filter((s) => s.name !== "Cure Wounds")
          .map((s) => s.name)
          .sort();
        expect([...spellNames(store)].sort()).toEqual(want); // "Fire Shield" (shifted past) is still there
        expect(spellNames(store)).not.toContain("Cure Wounds");
      } finally {
        proxy.stop();
      }

      // A list that never holds still (every request flips between A and B) fails, keeping the rows.
      const before = rows(store);
      const flip = switchingProxy((n, path) => (path === "/v2/spells/" && n % 2 === 1 ? fake.url : b.url));
      try {
        const r = await sync({ force: true, url: flip.url, types: ["spells"] });
        tally("changing pages", 2);
        const spells = typeResult(r, "spells");
        expect(spells.status).toBe("failed");
        expect(spells.error).toMatch(/kept changing while it was being listed.*previous data is kept/s);
        expect(rows(store)).toBe(before);
      } finally {
        flip.stop();
      }
    } finally {
      await b.stop();
    }
  });

  /** A second upstream serving the fixtures with its spell list edited. */
  const spellsVariant = (name: string, edit: (recs: unknown[]) => unknown[]) => {
    const dir = join(tmp.dir, name);
    cpSync(SOURCES_FIXTURES, dir, { recursive: true });
    const file = join(dir, "open5e", "v2", "spells.json");
    writeFileSync(file, JSON.stringify(edit(JSON.parse(readFileSync(file, "utf8")) as unknown[])));
    return startFakeUpstream({ dataDir: dir });
  };
  const lastFirst = (recs: unknown[]) => [recs.at(-1), ...recs.slice(0, -1)];

  test("pages that shift and then fail, on both reads: the list fails and no stored record is dropped", async () => {
    // Upstream C = A with its last spell moved first: the same count, but from page 2 on every page
    // starts one record earlier (a record comes twice), and C's page 3 keeps failing.
    const c = await spellsVariant("upstream-c", lastFirst);
    c.setFault(/\/v2\/spells\/.*page=3/, { statuses: Array(12).fill(500) });
    // Every read of the list takes page 1 from A and the later pages from C.
    const proxy = switchingProxy((_, path, search) =>
      path === "/v2/spells/" && /[?&]page=[2-9]/.test(search) ? c.url : fake.url,
    );
    try {
      const before = rows(store);
      const r = await sync({ force: true, url: proxy.url, types: ["spells"] });
      tally("shifting pages, then 5xx", 1);
      const spells = typeResult(r, "spells");
      expect(spells.status).toBe("failed");
      expect(spells.error).toMatch(/kept changing while it was being listed.*came twice.*previous data is kept/s);
      expect(rows(store)).toBe(before);
      expect(spellNames(store).length).toBe(7);
    } finally {
      proxy.stop();
      await c.stop();
    }
  });

  test("pages that shift, then a count that moves, on both reads: the list fails and keeps the rows", async () => {
    // Page 1 from A, page 2 from C (A with its last spell moved first: a record comes twice), page 3
    // from D (A without its last spell: the count moves from 7 to 6 after the repeat was seen).
    const c = await spellsVariant("upstream-c2", lastFirst);
    const d = await spellsVariant("upstream-d", (recs) => recs.slice(0, -1));
    const proxy = switchingProxy((_, path, search) => {
      if (path !== "/v2/spells/") return fake.url;
      if (/[?&]page=2\b/.test(search)) return c.url;
      return /[?&]page=[3-9]/.test(search) ? d.url : fake.url;
    });
    try {
      const before = rows(store);
      const r = await sync({ force: true, url: proxy.url, types: ["spells"] });
      tally("changing pages", 1);
      const spells = typeResult(r, "spells");
      expect(spells.status).toBe("failed");
      expect(spells.error).toMatch(/kept changing while it was being listed.*came twice.*count changed/s);
      expect(rows(store)).toBe(before);
    } finally {
      proxy.stop();
      await c.stop();
      await d.stop();
    }
  });

  test(
    "the server dies mid-sync: everything already stored stays; " +
      "a new server on the same port completes the next sync",
    async () => {
      const dying = await startFakeUpstream({ dataDir: SOURCES_FIXTURES });
      const port = dying.port;
      // The dying server is the one configured for this store from now on (source URLs name it).
      cfg = { ...cfg, ...upstreamsAt(dying.url) };
      expect((await sync({ force: true })).status).toBe("ok");
      baseline = rows(store);
      dying.setFault(/\/v2\/spells\/.*page=2/, { die: true });
      const t0 = performance.now();
      const r = await sync({ force: true, http: client({ timeoutMs: 1000 }) });
      tally("server died", 1);
      expect(performance.now() - t0).toBeLessThan(10_000);
      expect(r.status).toBe("failed");
      for (const t of r.results) {
        expect(t.status).toBe("failed");
        expect(t.error).toMatch(/unreachable|did not answer/);
      }
      expect(rows(store)).toBe(baseline);
      await dying.stop();

      const revived = await startFakeUpstream({ dataDir: SOURCES_FIXTURES, port });
      try {
        // Without --force the recorded failures are not retried yet (that is the storm guard)…
        const blocked = await sync();
        expect(blocked.results.some((t) => /failed recently/.test(t.error ?? ""))).toBe(true);
        expect(revived.requests.filter((q) => q.path === "/v2/spells/").length).toBe(0);
        // …and with --force (what the message says) the next sync completes.
        const next = await sync({ force: true });
        expect(next.status).toBe("ok");
        expect(rows(store)).toBe(baseline);
      } finally {
        await revived.stop();
      }
    },
  );

  test(
    "MCP tools while the upstream fails: stored kinds keep " +
      "answering; a missing kind fails clearly without a request storm",
    async () => {
      fake.setFault("/v2/creatures/", { statuses: Array(500).fill(500) });
      const ensureData = createEnsureData(store, { config: { ...cfg, httpRetries: 1 }, backgroundRefresh: false });
      const conn = await connectInMemory(makeDeps(store, { ensureData }));
      try {
        const seen = since();
        let errors = 0;
        let served = 0;
        for (let round = 0; round < 3; round++) {
          const calls = Array.from({ length: 10 }, (_, i) =>
            i % 2 === 0
              ? conn.client.callTool({ name: "search_creature", arguments: { name: "Goblin" } })
              : conn.client.callTool({ name: "search_spell", arguments: { name: "Fireball" } }),
          );
          for (const [i, res] of (await Promise.all(calls)).entries()) {
            if (i % 2 === 0) {
              expect(res.isError).toBe(true);
              expect(textOf(res)).toMatch(/lorekeeper sync/);
              expect(textOf(res)).not.toMatch(/\n\s+at /);
              errors++;
            } else {
              expect(answerOf(res).results.map((x) => x.name)).toContain("Fireball");
              served++;
            }
          }
        }
        expect(errors).toBe(15);
        expect(served).toBe(15);
        const hits = seen().filter((q) => q.path === "/v2/creatures/");
        // 15 failing calls, but the upstream saw one attempt + one retry: the failure was cached.
        expect(hits.length).toBe(2);
        tally("5xx/429", hits.length);
        expect(rows(store)).toBe(baseline);
      } finally {
        await conn.close();
      }
    },
  );
});
