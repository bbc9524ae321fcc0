/**
 * Damaged files: a database that is no database, a truncated one, one damaged
 * deep inside, full-text tables out of step, a damaged vector index file, a read-only data folder
 * and a full disk. Every command then says what is wrong with which file and how to get out
 * (`lorekeeper doctor` names it, `lorekeeper doctor --repair` rebuilds or moves the file aside),
 * and nothing answers wrongly in silence. `serve` refuses to start on a database it cannot open,
 * and answers tools with the same message when the damage shows up later.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { loadConfig } from "../../src/config.ts";
import { embedPending } from "../../src/ingest/embed.ts";
import { importOrcbrewFile } from "../../src/ingest/import-orcbrew.ts";
import { runSync } from "../../src/ingest/sync.ts";
import { createEmbedderProvider } from "../../src/search/model/embedder.ts";
import { closeVectorIndex } from "../../src/search/index/vector-index.ts";
import { openStore } from "../../src/store/db.ts";
import { type FakeUpstream, startFakeUpstream } from "../support/fake-upstream.ts";
import { answerOf, connectStdio, textOf } from "../support/mcp.ts";
import { createTinyModel } from "../support/tiny-model.ts";
import { makeTempDir } from "../support/tmp.ts";
import { ORCBREW_FIXTURES, SOURCES_FIXTURES } from "./generated.ts";
import { fillDisk, makeReadOnly, mountTinyDisk } from "./mounts.ts";
import { type CliResult, checkedSnapshot, cliEnv, expectCleanFailure, removeWhenIdle, runCli } from "./store-health.ts";
import { upstreamEnvAt, upstreamsAt } from "../../src/sources/index.ts";

/** What the fixture upstream serves (the default plan also asks for types it does not have). */
const TYPES = ["spells", "rules", "rule-sections", "proficiencies"];

interface DoctorJson {
  ok: boolean;
  checks: Array<{ name: string; status: string; summary: string; fix?: string }>;
  repair?: { outcome: string; steps: string[]; next: string[] };
}

describe("damaged files", () => {
  const tmp = makeTempDir("lk-damaged-");
  const modelDir = join(tmp.dir, "tiny");
  const template = join(tmp.dir, "template");
  const brewFile = join(tmp.dir, "frost.orcbrew");
  let fake: FakeUpstream;
  let n = 0;
  const env = (over: Record<string, string> = {}) =>
    cliEnv(tmp.dir, { ...upstreamEnvAt(fake.url), LOREKEEPER_MODEL_DIR: modelDir, ...over });

  /** A fresh copy of the healthy store (database + vector index) in its own folder. */
  function healthyCopy(): { dir: string; db: string } {
    const dir = join(tmp.dir, `case-${++n}`);
    cpSync(template, dir, { recursive: true });
    return { dir, db: join(dir, "lk.db") };
  }

  async function doctor(db: string, ...extra: string[]): Promise<{ r: CliResult; report: DoctorJson }> {
    const r = await runCli(["doctor", "--offline", "--json", "--db-path", db, ...extra], env());
    return { r, report: JSON.parse(r.stdout) as DoctorJson };
  }
  const check = (rep: DoctorJson, name: string) => rep.checks.find((c) => c.name === name);

  /** Every command fails cleanly, naming the file and the way out. */
  async function expectEveryCommandExplains(db: string, what: RegExp): Promise<void> {
    const commands = [
      ["sync", "--types", TYPES.join(",")],
      ["import", brewFile],
      ["search", "fireball"],
      ["documents"],
      ["serve"],
    ];
    for (const args of commands) {
      const r = await runCli([...args, "--db-path", db], env());
      expectCleanFailure(r);
      expect(r.stderr).toContain(db);
      expect(r.stderr).toMatch(what);
      expect(r.stderr).toContain("lorekeeper doctor --repair");
    }
    const d = await doctor(db);
    expect(d.r.code).toBe(1);
    expect(check(d.report, "store")?.status).toBe("fail");
    expect(check(d.report, "store")?.fix).toContain("lorekeeper doctor --repair");
  }

  /** `doctor --repair` moves the damaged files aside; `sync` + the listed `import` then rebuild it. */
  async function expectRepairStartsOver(db: string): Promise<void> {
    const { r, report } = await doctor(db, "--repair");
    expect(report.repair?.outcome).toBe("moved-aside");
    expect(existsSync(db)).toBe(false);
    expect(readdirSync(join(db, "..")).some((f) => f.startsWith("lk.db.damaged-"))).toBe(true);
    expect(r.stdout).toContain("lorekeeper sync");
    const sync = await runCli(["sync", "--types", TYPES.join(","), "--db-path", db], env());
    expect(sync.code).toBe(0);
    const reimport = report.repair!.next.find((l) => l.startsWith("lorekeeper import"));
    expect(reimport).toBeDefined();
    const again = await runCli(["import", "--db-path", db, brewFile], env());
    expect([0, 2]).toContain(again.code);
    expect(checkedSnapshot(db).entities).toBe(healthyEntities);
  }

  let healthyEntities = 0;

  beforeAll(async () => {
    await createTinyModel(modelDir);
    fake = await startFakeUpstream({ dataDir: SOURCES_FIXTURES });
    copyFileSync(join(ORCBREW_FIXTURES, "multi-pack.orcbrew"), brewFile);
    const store = openStore({ path: join(template, "lk.db") });
    try {
      const cfg = { ...loadConfig(), ...upstreamsAt(fake.url) };
      expect((await runSync(store, { config: cfg, types: TYPES })).status).toBe("ok");
      expect(importOrcbrewFile(store.db, brewFile).ok).toBe(true);
      const e = await embedPending(
        store,
        createEmbedderProvider({ modelDir, embeddedDir: null, allowDownload: false }),
      );
      expect(e.embedded).toBeGreaterThan(0);
    } finally {
      closeVectorIndex(store);
      store.close();
    }
    healthyEntities = checkedSnapshot(join(template, "lk.db")).entities;
    expect(existsSync(join(template, "lk.db.usearch"))).toBe(true);
  }, 60_000);

  afterAll(async () => {
    await fake.stop();
    await removeWhenIdle(tmp.cleanup);
  });

  test("not a database file: every command says so, names it and the fix; doctor --repair starts over", async () => {
    const { db } = healthyCopy();
    const bytes = new Uint8Array(readFileSync(db));
    bytes.fill(0x41, 0, 100);
    writeFileSync(db, bytes);
    await expectEveryCommandExplains(db, /is damaged \(file is not a database\)/);
    await expectRepairStartsOver(db);
  }, 60_000);

  test("a truncated database: the same clear failure and the same way out", async () => {
    const { db } = healthyCopy();
    const bytes = readFileSync(db);
    writeFileSync(db, bytes.subarray(0, Math.floor(bytes.length / 2)));
    await expectEveryCommandExplains(db, /is damaged \(database disk image is malformed\)/);
    await expectRepairStartsOver(db);
  }, 60_000);

  test("damage deep inside (the entities table): opens, but searches " +
    "and tools fail clearly; doctor finds it; repair moves it aside", async () => {
    const { db, dir } = healthyCopy();
    const ro = new Database(db, { readonly: true });
    const pageSize = ro.query<{ page_size: number }, []>("PRAGMA page_size").get()!.page_size;
    const root = ro
      .query<{ rootpage: number }, []>("SELECT rootpage FROM sqlite_master WHERE name = 'entities'")
      .get()!.rootpage;
    ro.close();
    const bytes = new Uint8Array(readFileSync(db));
    bytes[(root - 1) * pageSize] = 0; // the page type byte: no valid b-tree page is type 0
    writeFileSync(db, bytes);

    const search = await runCli(["search", "fireball", "--db-path", db], env());
    expectCleanFailure(search);
    expect(search.stderr).toContain(`The LoreKeeper database at ${db} is damaged`);
    expect(search.stderr).toContain("lorekeeper doctor --repair");

    const conn = await connectStdio(["serve", "--db-path", db], env());
    try {
      const r = await conn.client.callTool({ name: "search_spell", arguments: { name: "Fireball" } });
      expect(r.isError).toBe(true);
      expect(textOf(r)).toContain(`The LoreKeeper database at ${db} is damaged`);
      expect(textOf(r)).toContain("lorekeeper doctor --repair");
      expect(textOf(r)).not.toMatch(/upstream|\n\s+at /);
    } finally {
      await conn.close();
    }

    const d = await doctor(db);
    expect(check(d.report, "store")).toMatchObject({ status: "fail" });
    expect(check(d.report, "store")?.summary).toMatch(/is damaged/);
    expect(d.r.code).toBe(1);
    await expectRepairStartsOver(db);
    expect(readdirSync(dir).filter((f) => f.startsWith("lk.db.damaged-")).length).toBeGreaterThanOrEqual(1);
  }, 60_000);

  test("full-text tables out of step: doctor names the table, " +
    "doctor --repair rebuilds them and the entity is found again", async () => {
    const { db } = healthyCopy();
    const s = new Database(db);
    const row = s
      .query<{ id: number; name: string; text: string }, []>(
        "SELECT id, name, text FROM entities WHERE name = 'Ice Storm'",
      )
      .get()!;
    s.query("INSERT INTO entities_fts(entities_fts, rowid, name, text) VALUES ('delete', ?, ?, ?)").run(
      row.id,
      row.name,
      row.text,
    );
    const matches = () =>
      s
        .query<{ rowid: number }, []>("SELECT rowid FROM entities_fts WHERE entities_fts MATCH 'storm'")
        .all()
        .map((r) => r.rowid);
    expect(matches()).not.toContain(row.id); // keyword search no longer finds it, and nothing says so

    const d = await doctor(db);
    expect(check(d.report, "store")?.status).toBe("fail");
    expect(check(d.report, "store")?.summary).toContain("entities_fts");
    expect(check(d.report, "store")?.fix).toContain("doctor --repair");

    const fixed = await doctor(db, "--repair");
    expect(fixed.report.repair?.outcome).toBe("repaired");
    expect(fixed.report.repair?.steps.join("\n")).toMatch(
      /rebuilt the full-text search tables.*rebuilt the vector index/s,
    );
    expect(check(fixed.report, "store")?.status).toBe("ok");
    expect(check(fixed.report, "vector index")?.status).toBe("ok");
    checkedSnapshot(db);
    expect(matches()).toContain(row.id);
    s.close();
  }, 60_000);

  test("a damaged vector index file: doctor warns; the server " +
    "rebuilds it and ranks semantically; repair rebuilds it too", async () => {
    const { db } = healthyCopy();
    const index = `${db}.usearch`;
    const bytes = new Uint8Array(readFileSync(index));
    for (let i = Math.floor(bytes.length / 3); i < Math.floor(bytes.length / 3) + 256; i++) bytes[i] = 0xa5;
    writeFileSync(index, bytes);
    const d = await doctor(db);
    expect(check(d.report, "vector index")).toMatchObject({ status: "warn" });
    expect(check(d.report, "vector index")?.summary).toMatch(/checksum|damaged/);
    expect(check(d.report, "vector index")?.fix).toContain("doctor --repair");

    const conn = await connectStdio(["serve", "--db-path", db], env());
    try {
      const a = answerOf(await conn.client.callTool({ name: "search_all", arguments: { query: "cold frost ice" } }));
      expect(a.search_mode).toBe("hybrid");
      expect(a.results.length).toBeGreaterThan(0);
    } finally {
      await conn.close();
    }
    expect(check((await doctor(db)).report, "vector index")?.status).toBe("ok");

    writeFileSync(`${db}.usearch.json`, "{ truncated");
    const repaired = await doctor(db, "--repair");
    expect(repaired.report.repair?.outcome).toBe("repaired");
    expect(check(repaired.report, "vector index")?.status).toBe("ok");
  }, 60_000);

  const roDir = join(tmp.dir, "ro-probe");
  test("a read-only data folder: serve, search and documents " +
    "answer from the store; sync and import fail clearly", async () => {
    const { dir, db } = healthyCopy();
    rmSync(`${db}.usearch`);
    const undo = makeReadOnly(dir);
    if (!undo) {
      process.stderr.write(`skipped: cannot make ${roDir} read-only here (needs mount as root)\n`);
      return;
    }
    try {
      const conn = await connectStdio(["serve", "--db-path", db], env());
      try {
        const a = answerOf(await conn.client.callTool({ name: "search_spell", arguments: { name: "Fireball" } }));
        expect(a.results.map((x) => x.name)).toContain("Fireball");
        const all = answerOf(await conn.client.callTool({ name: "search_all", arguments: { query: "healing" } }));
        expect(all.results.length).toBeGreaterThan(0);
        // nothing of this kind stored, and no download possible: an empty answer that says what to do
        const none = answerOf(
          await conn.client.callTool({ name: "search_equipment", arguments: { name: "Longsword" } }),
        );
        expect(none.results).toEqual([]);
        expect(none.message).toMatch(/lorekeeper sync/);
        expect(conn.stderr()).toMatch(/read-only/);
      } finally {
        await conn.close();
      }
      const search = await runCli(["search", "fireball", "--db-path", db], env());
      expect(search.code).toBe(0);
      expect(search.stdout).toContain("Fireball");
      expect((await runCli(["documents", "--db-path", db], env())).code).toBe(0);
      for (const args of [
        ["sync", "--types", TYPES.join(","), "--force"],
        ["import", brewFile],
      ]) {
        const r = await runCli([...args, "--db-path", db], env());
        expectCleanFailure(r);
        expect(r.stderr + r.stdout).toMatch(/cannot be written.*writable/s);
        expect(r.stderr + r.stdout).toContain(db);
      }
      const d = await doctor(db);
      expect(check(d.report, "store")?.status).toBe("ok");
    } finally {
      undo();
    }
    expect(checkedSnapshot(db).entities).toBe(healthyEntities);
  }, 60_000);

  test("a full disk (SQLite page limit): the sync fails clearly " +
    "and changes nothing; with room again it completes", async () => {
    const { db } = healthyCopy();
    // Upstream B renames every spell: the sync must write new rows.
    const dataB = join(tmp.dir, "upstream-renamed");
    cpSync(SOURCES_FIXTURES, dataB, { recursive: true });
    const spellsFile = join(dataB, "open5e", "v2", "spells.json");
    writeFileSync(
      spellsFile,
      JSON.stringify(
        (JSON.parse(readFileSync(spellsFile, "utf8")) as Array<{ name: string }>).map((s) => ({
          ...s,
          name: `${s.name} Revised`,
        })),
      ),
    );
    const b = await startFakeUpstream({ dataDir: dataB });
    const store = openStore({ path: db });
    try {
      const rows = () =>
        JSON.stringify(store.db.query("SELECT id, name, content_hash FROM entities ORDER BY id").all());
      const before = rows();
      const pages = store.db.query<{ page_count: number }, []>("PRAGMA page_count").get()!.page_count;
      store.db.exec(`PRAGMA max_page_count = ${pages}`);
      const cfg = { ...loadConfig(), ...upstreamsAt(b.url) };
      const err = await runSync(store, { config: cfg, force: true, types: TYPES }).then(
        () => undefined,
        (e: unknown) => e as { name?: string; message?: string; hint?: string },
      );
      expect(err?.name).toBe("StoreError");
      expect(err?.message).toMatch(/disk holding the LoreKeeper database .* is full/);
      expect(err?.hint).toMatch(/Free some disk space.*intact/);
      expect(rows()).toBe(before);
      const imp = importOrcbrewFile(store.db, join(ORCBREW_FIXTURES, "all-types.orcbrew"));
      expect(imp.ok).toBe(false);
      expect(imp.error?.reason).toMatch(/nothing from this file was imported.*is full/);
      expect(rows()).toBe(before);

      store.db.exec("PRAGMA max_page_count = 1073741823");
      const done = await runSync(store, { config: cfg, force: true, types: TYPES });
      expect(done.status).toBe("ok");
      expect(
        store.db.query<{ n: number }, []>("SELECT count(*) AS n FROM entities WHERE name LIKE '% Revised'").get()!.n,
      ).toBeGreaterThan(0);
    } finally {
      store.close();
      await b.stop();
    }
  }, 60_000);

  test("a really full disk (tiny tmpfs): `lorekeeper sync` exits 1 saying the " +
    "disk is full, the data survives, and it completes once there is room", async () => {
    const mnt = join(tmp.dir, "tiny-disk");
    const unmount = mountTinyDisk(mnt, 4 * 1024 * 1024);
    if (!unmount) {
      process.stderr.write("skipped: cannot mount a tmpfs here (needs root)\n");
      return;
    }
    const dataB = join(tmp.dir, "upstream-renamed-2");
    cpSync(SOURCES_FIXTURES, dataB, { recursive: true });
    const spellsFile = join(dataB, "open5e", "v2", "spells.json");
    writeFileSync(
      spellsFile,
      JSON.stringify(
        (JSON.parse(readFileSync(spellsFile, "utf8")) as Array<{ name: string }>).map((s) => ({
          ...s,
          name: `${s.name} Revised`,
        })),
      ),
    );
    const b = await startFakeUpstream({ dataDir: dataB });
    try {
      const db = join(mnt, "lk.db");
      expect((await runCli(["sync", "--types", TYPES.join(","), "--db-path", db], env())).code).toBe(0);
      const before = checkedSnapshot(db);
      const filler = fillDisk(mnt);
      const r = await runCli(
        ["sync", "--types", TYPES.join(","), "--force", "--db-path", db],
        env(upstreamEnvAt(b.url)),
      );
      expectCleanFailure(r);
      expect(r.stderr).toMatch(/disk holding the LoreKeeper database .* is full/);
      expect(r.stderr).toContain(db);
      expect(r.stderr).toMatch(/Free some disk space/);
      rmSync(filler);
      expect(checkedSnapshot(db)).toEqual(before);
      const again = await runCli(
        ["sync", "--types", TYPES.join(","), "--force", "--db-path", db],
        env(upstreamEnvAt(b.url)),
      );
      expect(again.code).toBe(0);
      expect([...checkedSnapshot(db).byOrigin.get("open5e_v2:spells")!].every((x) => x.endsWith(" Revised"))).toBe(
        true,
      );
    } finally {
      await b.stop();
      unmount();
    }
  }, 60_000);
});
