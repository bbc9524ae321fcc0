/**
 * Hardening round 3, the HTTP token: `serve --http --host 0.0.0.0 --token a` was accepted (a
 * 1-character token on a network bind), and wrong guesses were answered as fast as they came
 * (22,869 a second) with nothing logged. Now a network bind needs a strong token, and wrong or
 * missing tokens are counted per client address, logged, and limited (429 + Retry-After).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { getLogLevel, setLogLevel } from "../../src/log.ts";
import { HttpConfigError, type HttpServerHandle, resolveHttpOptions, startHttpServer } from "../../src/server/http.ts";
import { makeStore } from "../support/entities.ts";
import { clearTestLogs, testLogs } from "../support/logs.ts";
import { makeDeps } from "../support/mcp.ts";
import { makeTempDir } from "../support/tmp.ts";
import { cliEnv, expectCleanFailure, runCli } from "./store-health.ts";

const STRONG = "f3a9c1d7e5b24a6f8c0d2e4b6a8c1f3e";

describe("token strength off loopback", () => {
  for (const token of ["a", "hunter2", "aaaaaaaaaaaaaaaaaaaaaaaa", "abababababababababab"]) {
    test(`--token ${JSON.stringify(token)} is refused for a network bind`, () => {
      const err = (() => {
        try {
          resolveHttpOptions({ host: "0.0.0.0", token });
          return undefined;
        } catch (e) {
          return e;
        }
      })();
      expect(err).toBeInstanceOf(HttpConfigError);
      expect((err as HttpConfigError).message).toContain("weak token");
      expect((err as HttpConfigError).hint).toContain("openssl rand");
    });
  }

  test("a strong token is accepted off loopback, any token on loopback", () => {
    expect(resolveHttpOptions({ host: "0.0.0.0", token: STRONG }).token).toBe(STRONG);
    expect(resolveHttpOptions({ host: "127.0.0.1", token: "a" }).token).toBe("a");
  });

  test("serve --http --host 0.0.0.0 --token a exits 1 with the reason, before listening", async () => {
    const tmp = makeTempDir("lk-http-auth-");
    try {
      mkdirSync(join(tmp.dir, "home"));
      const r = await runCli(["serve", "--http", "--host", "0.0.0.0", "--port", "0", "--token", "a", "--db-path", join(tmp.dir, "lk.db")], cliEnv(join(tmp.dir, "home")));
      expectCleanFailure(r);
      expect(r.stderr).toContain("weak token");
    } finally {
      tmp.cleanup();
    }
  }, 20_000);
});

describe("wrong tokens are counted, logged and limited per client address", () => {
  let server: HttpServerHandle;
  let cleanup: () => void;
  const level = getLogLevel();

  beforeAll(async () => {
    setLogLevel("info"); // the warnings are what this checks (another test file may have lowered the level)
    const made = makeStore();
    cleanup = made.cleanup;
    server = await startHttpServer(makeDeps(made.store), { port: 0, token: STRONG, authFailureLimits: { maxFailures: 5, windowMs: 60_000, maxAddresses: 100 } });
  });

  afterAll(async () => {
    setLogLevel(level);
    await server.stop();
    cleanup();
  });

  const post = (token?: string) =>
    fetch(server.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });

  test("after 5 failures the address gets 429 + Retry-After without its token being checked; the log counts them", async () => {
    clearTestLogs();
    const ok = await post(STRONG);
    expect(ok.status).not.toBe(401);
    await ok.body?.cancel();
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let i = 0; i < 12; i++) {
      const r = await post(i % 2 ? "wrong-guess" : undefined);
      statuses.push(r.status);
      if (r.status === 429) retryAfter = r.headers.get("retry-after");
      await r.body?.cancel();
    }
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(statuses.slice(5).every((s) => s === 429)).toBe(true);
    expect(Number(retryAfter)).toBeGreaterThan(0);
    // Even the right token is not looked at while the address is limited: guessing cannot go faster.
    const limited = await post(STRONG);
    expect(limited.status).toBe(429);
    await limited.body?.cancel();
    // /health with a token is no way around it: its detailed answer needs the token, checked and limited alike.
    const health = await fetch(server.url.replace(/\/mcp$/, "/health"), { headers: { authorization: `Bearer ${STRONG}` } });
    const body = (await health.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(["status", "version"]);
    const logs = testLogs().join("\n");
    expect(logs).toContain("wrong or missing bearer token from 127.0.0.1");
    expect(logs).toMatch(/5 wrong or missing bearer tokens from 127\.0\.0\.1/);
  });
});
