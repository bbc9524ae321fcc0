import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { UpstreamError } from "../../../src/sources/http.ts";
import { Dnd5eApiClient } from "../../../src/sources/dnd5eapi/client.ts";
import { type FakeUpstream, startFakeUpstream } from "../../support/fake-upstream.ts";
import { FIXTURES, fastClient, maxConcurrent } from "../helpers.ts";

const indexes = (records: unknown[]) => records.map((r) => (r as { index: string }).index);

describe("Dnd5eApiClient against the fake upstream", () => {
  let fake: FakeUpstream;
  beforeEach(async () => {
    fake = await startFakeUpstream({ dataDir: FIXTURES });
  });
  afterEach(async () => {
    await fake.stop();
  });

  test("availableEndpoints lists the endpoints of a year", async () => {
    const client = new Dnd5eApiClient(fastClient(), { baseUrl: fake.url });
    expect(await client.availableEndpoints("2014")).toEqual(["proficiencies", "rule-sections", "rules"]);
    // 2024 has no raw root here: the fake derives it from the folder; no rules there.
    const y2024 = await client.availableEndpoints("2024");
    expect(y2024).toEqual(["feats", "proficiencies"]);
    expect(y2024).not.toContain("rules");
  });

  for (const [endpoint, expected] of [
    ["rules", ["adventuring", "combat", "using-ability-scores"]],
    [
      "rule-sections",
      ["ability-checks", "actions-in-combat", "making-an-attack", "the-environment", "the-order-of-combat"],
    ],
    ["proficiencies", ["all-armor", "light-armor", "longswords", "skill-arcana"]],
  ] as const) {
    test(`fetchAll ${endpoint}: list then every detail, in list (index) order`, async () => {
      const client = new Dnd5eApiClient(fastClient(), { baseUrl: fake.url });
      const res = await client.fetchAll("2014", endpoint);
      expect(indexes(res.records)).toEqual([...expected]);
      expect(res.count).toBe(expected.length);
      expect(res.skipped).toEqual([]);
      expect(res.warnings).toEqual([]);
      expect(fake.requests.length).toBe(1 + expected.length);
      expect(fake.requests[0]!.path).toBe(`/api/2014/${endpoint}`);
      expect(fake.requests.slice(1).every((r) => r.path.startsWith(`/api/2014/${endpoint}/`))).toBe(true);
    });
  }

  test("details are fetched by index, not by the (sometimes stale) listed url", async () => {
    const client = new Dnd5eApiClient(fastClient(), { baseUrl: fake.url });
    // The list names carpenters-tools with the url /api/2024/proficiencies/tool-carpenters-tools.
    expect((await client.list("2024", "proficiencies")).indexes[0]).toBe("carpenters-tools");
    const res = await client.fetchAll("2024", "proficiencies");
    expect(indexes(res.records)).toEqual(["carpenters-tools", "light-armor"]);
    expect(res.skipped).toEqual([]);
    expect(fake.requests.map((r) => r.path)).toContain("/api/2024/proficiencies/carpenters-tools");
  });

  test("details run with bounded concurrency and still come back in list order", async () => {
    fake.setFault("/api/2014/rule-sections/*", { delayMs: 30 });
    const client = new Dnd5eApiClient(fastClient({ concurrency: 2 }), { baseUrl: fake.url });
    const progress: number[] = [];
    const res = await client.fetchAll("2014", "rule-sections", { onProgress: (d) => progress.push(d) });
    expect(indexes(res.records)).toEqual([
      "ability-checks",
      "actions-in-combat",
      "making-an-attack",
      "the-environment",
      "the-order-of-combat",
    ]);
    const details = fake.requests.filter((r) => r.path.startsWith("/api/2014/rule-sections/"));
    expect(details.length).toBe(5);
    expect(maxConcurrent(details)).toBe(2);
    expect(progress).toEqual([1, 2, 3, 4, 5]);
  });

  test("a failing detail is skipped and reported, the rest kept", async () => {
    fake.setFault("/api/2014/rules/combat", { statuses: [500, 500, 500, 500] });
    const http = fastClient({ retries: 2 });
    const client = new Dnd5eApiClient(http, { baseUrl: fake.url });
    const res = await client.fetchAll("2014", "rules");
    expect(indexes(res.records)).toEqual(["adventuring", "using-ability-scores"]);
    expect(res.skipped.length).toBe(1);
    expect(res.skipped[0]).toMatchObject({
      index: "combat",
      kind: "http",
      status: 500,
      url: `${fake.url}/api/2014/rules/combat`,
    });
    expect(res.skipped[0]!.message).toContain("LOREKEEPER_DND5EAPI_BASE_URL");
    expect(http.stats.retries).toBe(2);
  });

  test("a listed record whose detail is missing is skipped; a non-object detail too", async () => {
    fake.setFault("/api/2014/proficiencies", {
      injectRecord: { index: "ghost", name: "Ghost", url: "/api/2014/proficiencies/ghost" },
    });
    fake.setFault("/api/2014/proficiencies/longswords", { statuses: [200], body: "[1,2]" });
    const client = new Dnd5eApiClient(fastClient(), { baseUrl: fake.url });
    const res = await client.fetchAll("2014", "proficiencies");
    expect(indexes(res.records)).toEqual(["all-armor", "light-armor", "skill-arcana"]);
    expect(res.skipped.map((s) => [s.index, s.kind, s.status])).toEqual([
      ["longswords", "malformed", undefined],
      ["ghost", "http", 404],
    ]);
  });

  test("a failing list throws", async () => {
    fake.setFault("/api/2014/rules", { statuses: [404] });
    const client = new Dnd5eApiClient(fastClient(), { baseUrl: fake.url });
    const err = await client.fetchAll("2014", "rules").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    expect((err as UpstreamError).status).toBe(404);
    expect(fake.requests.length).toBe(1);
  });

  test("a list that is not {count, results} is malformed", async () => {
    fake.setFault("/api/2014/rules", { statuses: [200], body: JSON.stringify({ error: "nope" }) });
    const client = new Dnd5eApiClient(fastClient(), { baseUrl: fake.url });
    const err = (await client.list("2014", "rules").catch((e: unknown) => e)) as UpstreamError;
    expect(err.kind).toBe("malformed");
  });

  test("when most details fail the whole fetch throws", async () => {
    fake.setFault("/api/2014/rule-sections/*", { statuses: [500, 500, 500, 500], times: 4 });
    const client = new Dnd5eApiClient(fastClient({ retries: 0 }), { baseUrl: fake.url });
    const err = (await client.fetchAll("2014", "rule-sections").catch((e: unknown) => e)) as UpstreamError;
    expect(err).toBeInstanceOf(UpstreamError);
    expect(err.message).toContain("4 of 5 2014 rule-sections records could not be fetched");
  });
});
