/**
 * An upstream that closes every connection: Bun's fetch error then ends with advice to its own
 * developers ("For more information, pass `verbose: true` in the second argument to fetch()").
 * Wherever that error reaches a person or an answer (the HTTP client's error, a sync's report and
 * its recorded state, the error cache's "failed recently", a tool's first-use answer, `doctor`,
 * `health`), the cause is named without the advice; the whole error goes to the log.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { runDoctor } from "../../src/cli/commands/doctor.ts";
import { type Config, loadConfig } from "../../src/config.ts";
import { createEnsureData } from "../../src/ingest/ensure.ts";
import { runSync } from "../../src/ingest/sync.ts";
import { HttpClient, UpstreamError } from "../../src/sources/http.ts";
import { upstreamsAt } from "../../src/sources/index.ts";
import { openStore } from "../../src/store/db.ts";
import { createHttpCache } from "../../src/store/http-cache.ts";
import { listSyncState } from "../../src/store/sync-state.ts";
import { clearTestLogs, testLogs } from "../support/logs.ts";
import { connectInMemory, makeDeps, textOf } from "../support/mcp.ts";
import { makeTempDir } from "../support/tmp.ts";
import { cliEnv, runCli } from "./store-health.ts";

const ADVICE = /verbose/i;
const CAUSE = /ECONNRESET|closed unexpectedly/;

const tmp = makeTempDir("lk-upstream-errors-");
// Reads the request, then hangs up without an answer.
const rude = Bun.listen({
  hostname: "127.0.0.1",
  port: 0,
  socket: { data: (s) => void s.end(), open: () => {} },
});
const base = `http://127.0.0.1:${rude.port}`;
let cfg: Config;

beforeAll(() => {
  cfg = { ...loadConfig(), ...upstreamsAt(base), httpRetries: 1 };
});
beforeEach(() => clearTestLogs());
afterAll(() => {
  rude.stop(true);
  tmp.cleanup();
});

const client = (store?: ReturnType<typeof openStore>) =>
  new HttpClient({
    retries: 1,
    baseDelayMs: 1,
    maxDelayMs: 2,
    timeoutMs: 5000,
    ...(store ? { cache: createHttpCache(store.db, cfg) } : {}),
  });

/** The WARN lines that logged the whole error, advice included. */
const loggedWhole = () => testLogs().filter((l) => l.includes("WARN") && CAUSE.test(l) && ADVICE.test(l));

describe("a connection the upstream closes", () => {
  test("the client's error names the cause without Bun's advice; the log has the whole error", async () => {
    const err = await client()
      .request(`${base}/v2/spells/`)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(UpstreamError);
    const e = err as UpstreamError;
    expect(e.kind).toBe("network");
    expect(e.message).toMatch(CAUSE);
    expect(e.message).toContain("is unreachable");
    expect(e.message).not.toMatch(ADVICE);
    expect(loggedWhole().length).toBe(1);
  });

  test("a sync: its report, its recorded state and the error cache's later refusal", async () => {
    const store = openStore({ path: join(tmp.dir, "sync.db") });
    try {
      const r = await runSync(store, { types: ["spells"], config: cfg, http: client(store) });
      expect(r.status).toBe("failed");
      const t = r.results[0]!;
      expect(t.error).toMatch(CAUSE);
      expect(t.error).not.toMatch(ADVICE);
      const state = listSyncState(store.db).find((s) => s.content_type === "spells");
      expect(state?.error).toMatch(CAUSE);
      expect(state?.error).not.toMatch(ADVICE);
      expect(loggedWhole().length).toBeGreaterThan(0);
      // Within the error cache's time the failure is answered from it, with the same clean cause.
      const again = await runSync(store, { types: ["spells"], config: cfg, http: client(store) });
      expect(again.results[0]!.error).toMatch(/failed recently.*Last error: .*(ECONNRESET|closed unexpectedly)/);
      expect(again.results[0]!.error).not.toMatch(ADVICE);
    } finally {
      store.close();
    }
  }, 30_000);

  test("a failure recorded by an earlier version, advice and all, is shown without it", async () => {
    const store = openStore({ path: join(tmp.dir, "old-cache.db") });
    try {
      const url = `${base}/v2/creatures/`;
      const message =
        "Open5e is unreachable (ECONNRESET: The socket connection was closed unexpectedly. For more " +
        "information, pass `verbose: true` in the second argument to fetch()).";
      createHttpCache(store.db, cfg).putFailure(url, { status: 0, kind: "network", message });
      const err = (await client(store)
        .request(url)
        .catch((e: unknown) => e)) as UpstreamError;
      expect(err.kind).toBe("recent-failure");
      expect(err.message).toMatch(
        /Last error: Open5e is unreachable \(ECONNRESET: The socket connection was closed unexpectedly\)\. To retry/,
      );
      expect(err.message).not.toMatch(ADVICE);
    } finally {
      store.close();
    }
  });

  test("a tool's first-use sync answers with the cause, not the advice", async () => {
    const store = openStore({ path: join(tmp.dir, "tool.db") });
    const ensureData = createEnsureData(store, { config: cfg, backgroundRefresh: false });
    const conn = await connectInMemory(makeDeps(store, { ensureData }));
    try {
      const res = await conn.client.callTool({ name: "search_spell", arguments: { name: "Fireball" } });
      expect(res.isError).toBe(true);
      expect(textOf(res)).toMatch(CAUSE);
      expect(textOf(res)).not.toMatch(ADVICE);
      expect(loggedWhole().length).toBeGreaterThan(0);
    } finally {
      await conn.close();
      store.close();
    }
  }, 30_000);

  test("doctor's upstream check and `lorekeeper health`", async () => {
    const noModel = () => ({ state: () => "unavailable" as never, get: async () => null, reason: () => "none" });
    const report = await runDoctor(cfg, noModel, { dbPath: join(tmp.dir, "doctor.db"), timeoutMs: 5000 });
    const upstream = report.checks.filter((c) => c.summary.includes(base));
    expect(upstream.length).toBeGreaterThan(0);
    for (const c of upstream) {
      expect(c.summary).toMatch(CAUSE);
      expect(c.summary).not.toMatch(ADVICE);
    }
    const h = await runCli(["health", "--url", `${base}/health`], cliEnv(tmp.dir));
    expect(h.code).toBe(1);
    expect(h.stdout).toMatch(CAUSE);
    expect(h.stdout).not.toMatch(ADVICE);
  }, 30_000);
});
