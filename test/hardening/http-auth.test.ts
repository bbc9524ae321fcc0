/**
 * Hardening, the HTTP token: `serve --http --host 0.0.0.0 --token a` was accepted (a
 * 1-character token on a network bind), and wrong guesses were answered as fast as they came
 * with nothing logged. Now a network bind needs a strong token, and wrong or
 * missing tokens are counted per client address, logged, and limited (429 + Retry-After).
 *
 * Also: the limit locked out the token holder too (after 30 wrong tokens from an address, the
 * right one got 429 for a minute: every client behind the same proxy or NAT); guessable tokens of
 * 16 characters and more ("passwordpassword", "1234567890123456", "changeme-changeme") were
 * accepted on a network bind; a token read with a trailing newline (a secret file) was kept as it
 * was and could never match.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { getLogLevel, setLogLevel } from "../../src/log.ts";
import {
  checkHttpOptions,
  HttpConfigError,
  type HttpServerHandle,
  resolveHttpOptions,
  startHttpServer,
} from "../../src/server/transports/http.ts";
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

  // Each of these once passed the length and variety checks.
  for (const [token, cause] of [
    ["passwordpassword", '"password" repeated'],
    ["1234567890123456", 'the common password or word "123456789"'],
    ["changeme-changeme", 'the common password or word "changeme"'],
    ["qwertyuiopasdfgh", "qwertyuiop"],
    ["lorekeeperlorekeeper", 'the word "lorekeeper"'],
  ] as const) {
    test(`guessable ${JSON.stringify(token)} (${token.length} characters) is refused, naming why`, async () => {
      expect(resolveHttpOptions({ host: "0.0.0.0", token }).token).toBe(token);
      const err = await checkHttpOptions({ host: "0.0.0.0", token }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(HttpConfigError);
      expect((err as HttpConfigError).message).toContain("weak token: the token is easy to guess");
      expect((err as HttpConfigError).message).toContain(cause);
      expect((err as HttpConfigError).hint).toContain("openssl rand");
      // On loopback any token will do.
      expect((await checkHttpOptions({ host: "127.0.0.1", token })).token).toBe(token);
    });
  }

  test("random tokens pass the guessability check", async () => {
    const uuid = "550e8400-e29b-41d4-a716-446655440000";
    const random = [STRONG, "x7Gk2mQp9vLr4sWz", uuid, "correct-horse-battery-staple-lantern"];
    for (const token of random) {
      expect((await checkHttpOptions({ host: "0.0.0.0", token })).token).toBe(token);
    }
  });

  test("serve --http --host 0.0.0.0 --token passwordpassword exits 1 with the reason, before listening", async () => {
    const tmp = makeTempDir("lk-http-auth-");
    try {
      mkdirSync(join(tmp.dir, "home"));
      const args = ["serve", "--http", "--host", "0.0.0.0", "--port", "0", "--token", "passwordpassword"];
      const r = await runCli([...args, "--db-path", join(tmp.dir, "lk.db")], cliEnv(join(tmp.dir, "home")));
      expectCleanFailure(r);
      expect(r.stderr).toContain("weak token: the token is easy to guess");
      expect(r.stderr).not.toContain("listening");
    } finally {
      tmp.cleanup();
    }
  }, 20_000);
});

describe("the token as given", () => {
  test("a trailing newline (a secret file) or surrounding spaces are trimmed at start", () => {
    expect(resolveHttpOptions({ host: "0.0.0.0", token: `${STRONG}\n` }).token).toBe(STRONG);
    expect(resolveHttpOptions({ host: "127.0.0.1", token: `  ${STRONG}\r\n` }).token).toBe(STRONG);
  });

  test("a blank token or one with a control character inside is refused, never served as no token", () => {
    const refusal = (token: string) => {
      try {
        resolveHttpOptions({ host: "127.0.0.1", token });
        return "accepted";
      } catch (e) {
        return (e as HttpConfigError).message;
      }
    };
    expect(refusal("\n")).toContain("The token is empty");
    expect(refusal("   ")).toContain("The token is empty");
    const nul = `${STRONG.slice(0, 10)}\u0000${STRONG.slice(10)}`;
    expect(refusal(nul)).toContain("control character (U+0000 at position 11)");
  });

  test("a server started with the token and its newline accepts the token", async () => {
    const made = makeStore();
    const server = await startHttpServer(makeDeps(made.store), { port: 0, token: `${STRONG}\n` });
    try {
      const r = await fetch(server.url, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: `Bearer ${STRONG}`,
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
      });
      expect(r.status).toBe(200);
      await r.body?.cancel();
    } finally {
      await server.stop();
      made.cleanup();
    }
  });
});

describe("wrong tokens are counted, logged and limited per client address", () => {
  let server: HttpServerHandle;
  let cleanup: () => void;
  const level = getLogLevel();

  beforeAll(async () => {
    setLogLevel("info"); // the warnings are what this checks (another test file may have lowered the level)
    const made = makeStore();
    cleanup = made.cleanup;
    server = await startHttpServer(makeDeps(made.store), {
      port: 0,
      token: STRONG,
      authFailureLimits: { maxFailures: 5, windowMs: 60_000, maxAddresses: 100 },
    });
  });

  afterAll(async () => {
    setLogLevel(level);
    await server.stop();
    cleanup();
  });

  const post = (token?: string) =>
    fetch(server.url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });

  test("after 5 failures the address gets 429 + Retry-After for wrong tokens; the log counts them", async () => {
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
    const logs = testLogs().join("\n");
    expect(logs).toContain("wrong or missing bearer token from 127.0.0.1");
    expect(logs).toMatch(/5 wrong or missing bearer tokens from 127\.0\.0\.1/);
  });

  // The address of a proxy, an ingress or a NAT is shared by the token holder and everyone else.
  test("the right token from a limited address is still served, on /mcp and /health", async () => {
    for (let i = 0; i < 8; i++) {
      const r = await post("wrong-guess");
      await r.body?.cancel();
    }
    const wrong = await post("another-wrong-guess");
    expect(wrong.status).toBe(429);
    await wrong.body?.cancel();
    const right = await post(STRONG);
    expect(right.status).toBe(200);
    expect(await right.text()).toContain('"result"');
    const healthUrl = server.url.replace(/\/mcp$/, "/health");
    const health = await fetch(healthUrl, { headers: { authorization: `Bearer ${STRONG}` } });
    const body = (await health.json()) as Record<string, unknown>;
    expect(body).toHaveProperty("counts");
    // A wrong token on /health still gets only the public answer.
    const guessed = await fetch(healthUrl, { headers: { authorization: "Bearer wrong-guess" } });
    expect(Object.keys((await guessed.json()) as object).sort()).toEqual(["status", "version"]);
    // And the address is still limited for wrong tokens afterwards.
    const after = await post("wrong-guess");
    expect(after.status).toBe(429);
    await after.body?.cancel();
  });
});
