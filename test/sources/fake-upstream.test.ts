import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { type FakeUpstream, startFakeUpstream } from "../support/fake-upstream.ts";
import { FIXTURES } from "./helpers.ts";

async function get(url: string): Promise<{ status: number; body: unknown; headers: Headers }> {
  const r = await fetch(url, { redirect: "manual" });
  const text = await r.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* keep text */
  }
  return { status: r.status, body, headers: r.headers };
}

describe("fake upstream behaves like the real APIs", () => {
  let fake: FakeUpstream;
  beforeEach(async () => {
    fake = await startFakeUpstream({ dataDir: FIXTURES });
  });
  afterEach(async () => {
    await fake.stop();
  });

  test("Open5e envelope: default page size, sorted absolute links, previous drops page 1", async () => {
    const p1 = await get(`${fake.url}/v2/spells/?limit=junk`);
    expect(p1.body).toMatchObject({ count: 7, next: null, previous: null });
    const p2 = (await get(`${fake.url}/v2/spells/?page=2&limit=2&level=3`)).body as Record<string, unknown>;
    expect(p2.next).toBe(`${fake.url}/v2/spells/?level=3&limit=2&page=3`);
    expect(p2.previous).toBe(`${fake.url}/v2/spells/?level=3&limit=2`);
    expect((p2.results as unknown[]).length).toBe(2);
    const last = (await get(`${fake.url}/v2/spells/?limit=2&page=last`)).body as Record<string, unknown>;
    expect(last.next).toBeNull();
    expect((last.results as unknown[]).length).toBe(1);
  });

  test("errors and redirects", async () => {
    expect(await get(`${fake.url}/v2/spells/?page=9`)).toMatchObject({
      status: 404,
      body: { detail: "Invalid page." },
    });
    expect(await get(`${fake.url}/v2/spells/?page=0`)).toMatchObject({ status: 404 });
    const r = await get(`${fake.url}/v2/spells?limit=2`);
    expect(r.status).toBe(301);
    expect(r.headers.get("location")).toBe("/v2/spells/?limit=2");
    expect((await get(`${fake.url}/v2/nothing/`)).status).toBe(404);
    expect(await get(`${fake.url}/v2/spells/srd_nope/`)).toMatchObject({ status: 404, body: { detail: "Not found." } });
    const legacy = await get(`${fake.url}/api/rules/combat?x=1`);
    expect(legacy.status).toBe(301);
    expect(legacy.headers.get("location")).toBe("/api/2014/rules/combat?x=1");
    expect(await get(`${fake.url}/api/2014/rules/nope`)).toMatchObject({ status: 404, body: "Not Found" });
  });

  test("details, v1 deprecation header, dnd5eapi list with name filter", async () => {
    expect((await get(`${fake.url}/v2/spells/srd-2024_fireball/`)).body).toMatchObject({ key: "srd-2024_fireball" });
    const v1 = await get(`${fake.url}/v1/spells/shield/`);
    expect(v1.body).toMatchObject({ slug: "shield" });
    const v1list = await get(`${fake.url}/v1/spells/`);
    expect(v1list.headers.get("warning")).toContain("Deprecated API");
    expect((await get(`${fake.url}/api/2014/rule-sections?name=COMBAT`)).body).toEqual({
      count: 2,
      results: [
        { index: "actions-in-combat", name: "Actions in Combat", url: "/api/2014/rule-sections/actions-in-combat" },
        {
          index: "the-order-of-combat",
          name: "The Order of Combat",
          url: "/api/2014/rule-sections/the-order-of-combat",
        },
      ],
    });
  });

  test("roots: raw file rewritten onto itself, or derived from the folder", async () => {
    expect((await get(`${fake.url}/v2/`)).body).toEqual({
      documents: `${fake.url}/v2/documents/`,
      spells: `${fake.url}/v2/spells/`,
      rules: `${fake.url}/v2/rules/`,
    });
    expect((await get(`${fake.url}/v1/`)).body).toEqual({ spells: `${fake.url}/v1/spells/` });
  });

  test("faults: status sequence then normal, times, request log", async () => {
    fake.setFault("/v2/rules/", { statuses: [503, 0, 429], retryAfter: "2" });
    const a = await get(`${fake.url}/v2/rules/`);
    expect(a.status).toBe(503);
    expect(a.headers.get("retry-after")).toBe("2");
    expect((await get(`${fake.url}/v2/rules/`)).status).toBe(200);
    expect((await get(`${fake.url}/v2/rules/`)).status).toBe(429);
    expect((await get(`${fake.url}/v2/rules/`)).status).toBe(200);
    fake.clearFaults();
    fake.setFault("/v2/documents/", { malformed: "garbage", times: 1 });
    expect(typeof (await get(`${fake.url}/v2/documents/`)).body).toBe("string");
    expect(typeof (await get(`${fake.url}/v2/documents/`)).body).toBe("object");
    expect(fake.requests.map((r) => r.status)).toEqual([503, 200, 429, 200, 200, 200]);
    expect(fake.requests[0]).toMatchObject({ method: "GET", path: "/v2/rules/", search: "", inFlight: 1 });
  });

  test("runs as a script and prints its URL", async () => {
    const proc = Bun.spawn(["bun", join(import.meta.dir, "..", "support", "fake-upstream.ts"), "--data", FIXTURES], {
      stdout: "pipe",
      stderr: "pipe",
    });
    try {
      const reader = proc.stdout.getReader();
      let out = "";
      while (!out.includes("\n")) {
        const { value, done } = await reader.read();
        if (done) break;
        out += new TextDecoder().decode(value);
      }
      const url = out.trim();
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect((await get(`${url}/api/2014/rules`)).body).toMatchObject({ count: 3 });
    } finally {
      proc.kill();
      await proc.exited;
    }
  }, 30_000);
});
