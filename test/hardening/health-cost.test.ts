/**
 * GET /health is cheap. Unauthenticated callers of a token server get status
 * and version only (no store query); the counts (a GROUP BY over every entity) are computed once
 * per store version however many callers ask, and again after the store changes.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { type HttpServerHandle, startHttpServer } from "../../src/server/transports/http.ts";
import { replaceOrigin } from "../../src/store/entities.ts";
import { makeEntity, makeStore } from "../support/entities.ts";
import { makeDeps } from "../support/mcp.ts";

const TOKEN = "health-token";
let made: ReturnType<typeof makeStore>;
let open: HttpServerHandle;
let secured: HttpServerHandle;
let groupBys = 0;

beforeAll(async () => {
  made = makeStore();
  const real = made.store.db;
  // The real database, counting the GROUP BY statements prepared through it.
  const counting = new Proxy(real, {
    get(target, prop) {
      if (prop === "query") {
        return (sql: string) => {
          if (/GROUP BY/i.test(sql)) groupBys++;
          return target.query(sql);
        };
      }
      const v = Reflect.get(target, prop, target);
      return typeof v === "function" ? v.bind(target) : v;
    },
  }) as Database;
  const deps = makeDeps(made.store, { db: counting });
  open = await startHttpServer(deps, { port: 0 });
  secured = await startHttpServer(deps, { port: 0, token: TOKEN });
});

afterAll(async () => {
  await open.stop();
  await secured.stop();
  made.cleanup();
});

const health = (h: HttpServerHandle, headers: Record<string, string> = {}) =>
  fetch(h.url.replace(/\/mcp$/, "/health"), { headers });

test("100 health checks run the GROUP BY once; a change of the store runs it once more", async () => {
  groupBys = 0;
  const bodies = await Promise.all(
    Array.from({ length: 100 }, () => health(open).then((r) => r.json() as Promise<{ entities: number }>)),
  );
  expect(new Set(bodies.map((b) => b.entities)).size).toBe(1);
  expect(groupBys).toBe(1);
  replaceOrigin(made.store.db, "open5e_v2:extra", [makeEntity("spell", "Health Check Spell", { level: 1 })], []);
  const after = (await (await health(open)).json()) as { entities: number };
  expect(after.entities).toBe(bodies[0]!.entities + 1);
  for (let i = 0; i < 20; i++) await health(open);
  expect(groupBys).toBe(2);
});

test("a token server: status only without the token (no store query), details with it", async () => {
  groupBys = 0;
  for (let i = 0; i < 50; i++) {
    const r = await health(secured);
    expect(r.status).toBe(200);
    expect(Object.keys((await r.json()) as object).sort()).toEqual(["status", "version"]);
  }
  const authed = (await (await health(secured, { Authorization: `Bearer ${TOKEN}` })).json()) as {
    counts: Record<string, number>;
  };
  expect(authed.counts.spell).toBeGreaterThan(0);
  expect(groupBys).toBeLessThanOrEqual(1);
});
