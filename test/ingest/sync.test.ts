import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Config, loadConfig } from "../../src/config.ts";
import { createEnsureData } from "../../src/ingest/ensure.ts";
import { planSync, runSync } from "../../src/ingest/sync.ts";
import { HttpClient } from "../../src/sources/http.ts";
import { openStore, type Store } from "../../src/store/db.ts";
import { countByKind } from "../../src/store/entities.ts";
import { createHttpCache } from "../../src/store/http-cache.ts";
import { startFakeUpstream, type FakeUpstream } from "../support/fake-upstream.ts";
import { makeTempDir } from "../support/tmp.ts";
import { upstreamsAt } from "../../src/sources/index.ts";

const DATA = join(import.meta.dir, "..", "fixtures", "sources");
const fixtureCount = (rel: string) => (JSON.parse(readFileSync(join(DATA, rel), "utf8")) as unknown[]).length;
const TYPES = ["spells", "rules", "rule-sections", "proficiencies"];

describe("sync", () => {
  let fake: FakeUpstream;
  let tmp: ReturnType<typeof makeTempDir>;
  let store: Store;
  let cfg: Config;
  beforeAll(async () => {
    fake = await startFakeUpstream({ dataDir: DATA });
  });
  afterAll(async () => {
    await fake.stop();
  });
  beforeEach(() => {
    tmp = makeTempDir();
    store = openStore({ path: join(tmp.dir, "lk.db") });
    cfg = { ...loadConfig(), ...upstreamsAt(fake.url), open5ePageSize: 2, httpRetries: 1 };
    fake.clearFaults();
    fake.requests.length = 0;
  });
  afterEach(() => {
    store.close();
    tmp.cleanup();
  });
  const http = () =>
    new HttpClient({ cache: createHttpCache(store.db, cfg), retries: 1, baseDelayMs: 1, maxDelayMs: 5 });

  test("default plan: all Open5e v2 types; from the D&D 5e API rules, sections, proficiencies, 2014 classes", () => {
    const plan = planSync({});
    expect(plan.some((t) => t.source === "open5e_v1")).toBe(false);
    const dnd = plan.filter((t) => t.source === "dnd5e_api").map((t) => t.id);
    // The 2014 classes for their level tables' class columns (Sneak Attack, Invocations Known, …),
    // which Open5e v2's lack.
    const rules = ["2014/rules", "2014/rule-sections", "2014/proficiencies", "2024/proficiencies"];
    expect(new Set(dnd)).toEqual(new Set([...rules, "2014/classes"]));
    expect(plan.filter((t) => t.source === "open5e_v2").map((t) => t.id)).toContain("creatures");
    expect(() => planSync({ types: ["nonsense"] })).toThrow(/Unknown content type/);
  });

  test("complete pagination, every record stored; a second sync inside the TTL sends no requests", async () => {
    const report = await runSync(store, { types: TYPES, config: cfg, http: http() });
    expect(report.status).toBe("ok");
    const spells = report.results.find((r) => r.contentType === "spells")!;
    expect(spells.records + spells.skipped).toBe(fixtureCount("open5e/v2/spells.json"));
    expect(spells.records).toBeGreaterThan(0);
    // 7 spells at 2 per page = 4 pages
    expect(fake.requests.filter((r) => r.path === "/v2/spells/").length).toBe(
      Math.ceil(fixtureCount("open5e/v2/spells.json") / 2),
    );
    expect(countByKind(store.db).spell).toBe(spells.records);
    const profs = report.results.filter((r) => r.contentType.endsWith("/proficiencies"));
    expect(profs.reduce((a, r) => a + r.records, 0)).toBe(
      fixtureCount("dnd5eapi/2014/proficiencies.json") + fixtureCount("dnd5eapi/2024/proficiencies.json"),
    );
    const before = fake.requests.length;
    const again = await runSync(store, { types: TYPES, config: cfg, http: http() });
    expect(fake.requests.length).toBe(before);
    expect(again.results.every((r) => r.status === "fresh")).toBe(true);
  });

  test("forced re-sync is idempotent: nothing duplicated, ids stable", async () => {
    await runSync(store, { types: TYPES, config: cfg, http: http() });
    const ids = store.db.query("SELECT id, key FROM entities ORDER BY id").all();
    const r = await runSync(store, { types: TYPES, config: cfg, http: http(), force: true });
    expect(r.results.every((x) => x.inserted === 0 && x.deleted === 0 && x.updated === 0)).toBe(true);
    expect(store.db.query("SELECT id, key FROM entities ORDER BY id").all()).toEqual(ids);
  });

  test("a failing content type keeps its previous data; the others still sync (partial)", async () => {
    await runSync(store, { types: TYPES, config: cfg, http: http() });
    const before = countByKind(store.db).spell;
    fake.setFault("/v2/spells/", { statuses: [500, 500, 500, 500, 500, 500] });
    const r = await runSync(store, { types: TYPES, config: cfg, http: http(), force: true });
    expect(r.status).toBe("partial");
    const spells = r.results.find((x) => x.contentType === "spells")!;
    expect(spells.status).toBe("failed");
    expect(spells.error).toMatch(/500|Open5e/);
    expect(countByKind(store.db).spell).toBe(before);
  });

  test("a page that dies midway (3rd page 500s) replaces nothing", async () => {
    await runSync(store, { types: ["spells"], config: cfg, http: http() });
    const keys = store.db.query("SELECT key FROM entities ORDER BY key").all();
    fake.setFault(/\/v2\/spells\/.*page=3/, { statuses: [503, 503, 503, 503] });
    const r = await runSync(store, { types: ["spells"], config: cfg, http: http(), force: true });
    expect(r.status).toBe("failed");
    expect(store.db.query("SELECT key FROM entities ORDER BY key").all()).toEqual(keys);
  });

  test("records the upstream failed to return are kept; only a complete listing removes them", async () => {
    const origin = "dnd5e_api:2014/rule-sections";
    const byKey = store.db.query<{ key: string }, [string]>("SELECT key FROM entities WHERE origin = ? ORDER BY key");
    const keys = () => byKey.all(origin).map((r) => r.key);
    const noRetry = () => new HttpClient({ cache: createHttpCache(store.db, cfg), retries: 0 });
    await runSync(store, { types: ["rule-sections"], sources: ["dnd5e_api"], config: cfg, http: noRetry() });
    const all = keys();
    expect(all.length).toBe(fixtureCount("dnd5eapi/2014/rule-sections.json"));
    // Two of the five detail requests fail: the type is partial and nothing is deleted.
    fake.setFault("/api/2014/rule-sections/*", { statuses: [500, 500] });
    const plan = { types: ["rule-sections"], sources: ["dnd5e_api" as const], force: true };
    const r = await runSync(store, { ...plan, config: cfg, http: noRetry() });
    const t = r.results.find((x) => x.contentType === "2014/rule-sections")!;
    expect({ status: t.status, skipped: t.skipped, deleted: t.deleted }).toEqual({
      status: "partial",
      skipped: 2,
      deleted: 0,
    });
    expect(t.warnings.join("\n")).toContain("no stored record was removed");
    expect(keys()).toEqual(all);
    // A complete listing that no longer holds a record does remove it.
    const dir = makeTempDir();
    try {
      cpSync(DATA, dir.dir, { recursive: true });
      const file = join(dir.dir, "dnd5eapi", "2014", "rule-sections.json");
      writeFileSync(file, JSON.stringify((JSON.parse(readFileSync(file, "utf8")) as unknown[]).slice(1)));
      const fewer = await startFakeUpstream({ dataDir: dir.dir });
      try {
        const c = { ...cfg, dnd5eApiBaseUrl: fewer.url };
        const again = await runSync(store, { ...plan, config: c, http: noRetry() });
        const sections = again.results.find((x) => x.contentType === "2014/rule-sections");
        expect(sections).toMatchObject({ status: "ok", deleted: 1 });
        expect(keys().length).toBe(all.length - 1);
      } finally {
        await fewer.stop();
      }
    } finally {
      dir.cleanup();
    }
  });

  test("ensureData syncs only what a tool needs, the first time", async () => {
    const ensure = createEnsureData(store, { config: cfg, backgroundRefresh: false });
    const steps: number[] = [];
    await ensure(["spell"], (p) => steps.push(p.progress));
    expect(countByKind(store.db).spell).toBeGreaterThan(0);
    expect(countByKind(store.db).proficiency).toBeUndefined();
    expect(steps.length).toBeGreaterThan(0);
    const n = fake.requests.length;
    await ensure(["spell"]);
    expect(fake.requests.length).toBe(n);
  });

  test("ensureData with an unreachable upstream explains how to fix it", async () => {
    const dead = { ...cfg, open5eBaseUrl: "http://127.0.0.1:9", httpRetries: 0, httpTimeoutMs: 2000 };
    const ensure = createEnsureData(store, { config: dead, backgroundRefresh: false });
    await expect(ensure(["creature"])).rejects.toThrow(/lorekeeper sync/);
  });
});
