/**
 * Crash safety: kill -9 a syncing `lorekeeper sync` process at different moments; the store must
 * pass an integrity check and hold exactly the old or exactly the new set of a content type.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openStore } from "../../src/store/db.ts";
import { startFakeUpstream, type FakeUpstream } from "../support/fake-upstream.ts";
import { makeTempDir } from "../support/tmp.ts";
import { upstreamEnvAt } from "../../src/sources/index.ts";

const FIXTURES = join(import.meta.dir, "..", "fixtures", "sources");
const MAIN = join(import.meta.dir, "..", "..", "src", "cli", "main.ts");

function names(dbPath: string): string[] {
  const s = openStore({ path: dbPath });
  try {
    const ok = s.db.query<{ integrity_check: string }, []>("PRAGMA integrity_check").get();
    expect(ok?.integrity_check).toBe("ok");
    const fts = s.db.query<{ n: number }, []>("SELECT count(*) AS n FROM entities_fts").get()!.n;
    const rows = s.db
      .query<{ name: string }, []>("SELECT name FROM entities WHERE kind = 'spell' ORDER BY name")
      .all()
      .map((r) => r.name);
    expect(fts).toBe(s.db.query<{ n: number }, []>("SELECT count(*) AS n FROM entities").get()!.n);
    return rows;
  } finally {
    s.close();
  }
}

function syncProc(dbPath: string, url: string) {
  return Bun.spawn(["bun", MAIN, "sync", "--types", "spells", "--force", "--no-embed", "--db-path", dbPath], {
    env: { ...process.env, ...upstreamEnvAt(url), LOREKEEPER_PAGE_SIZE: "2", LOREKEEPER_HTTP_RETRIES: "0" },
    stdout: "ignore",
    stderr: "ignore",
  });
}

describe("crash safety", () => {
  const tmp = makeTempDir();
  let fake: FakeUpstream;
  const data = join(tmp.dir, "data");
  let oldNames: string[] = [];
  let _newNames: string[] = [];
  beforeAll(async () => {
    cpSync(FIXTURES, data, { recursive: true });
    fake = await startFakeUpstream({ dataDir: data });
  });
  afterAll(async () => {
    await fake.stop();
    tmp.cleanup();
  });

  test("kill -9 while fetching keeps the previous data", async () => {
    const db = join(tmp.dir, "a.db");
    const first = syncProc(db, fake.url);
    expect(await first.exited).toBe(0);
    oldNames = names(db);
    expect(oldNames.length).toBeGreaterThan(0);
    fake.requests.length = 0;
    fake.setFault(/\/v2\/spells\/.*page=3/, { delayMs: 30_000 });
    const p = syncProc(db, fake.url);
    const t0 = Date.now();
    while (!fake.requests.some((r) => r.search.includes("page=3")) && Date.now() - t0 < 20_000) await Bun.sleep(20);
    p.kill(9);
    await p.exited;
    fake.clearFaults();
    expect(names(db)).toEqual(oldNames);
  });

  test("kill -9 at random moments: always exactly the old or the new set", async () => {
    const db = join(tmp.dir, "b.db");
    const first = syncProc(db, fake.url);
    expect(await first.exited).toBe(0);
    oldNames = names(db);
    // upstream changes: every spell renamed (served from a second data folder)
    const data2 = join(tmp.dir, "data2");
    cpSync(FIXTURES, data2, { recursive: true });
    const file = join(data2, "open5e", "v2", "spells.json");
    const recs = JSON.parse(readFileSync(file, "utf8")) as Array<Record<string, unknown>>;
    writeFileSync(file, JSON.stringify(recs.map((r) => ({ ...r, name: `${String(r.name)} Revised` }))));
    const fresh = await startFakeUpstream({ dataDir: data2 });
    fresh.setFault("/v2/spells/", { delayMs: 40 });
    try {
      let sawOld = 0;
      let sawNew = 0;
      for (let i = 0; i < 8; i++) {
        const p = syncProc(db, fresh.url);
        await Bun.sleep(60 + Math.floor(Math.random() * 300));
        p.kill(9);
        await p.exited;
        const now = names(db);
        const isOld = JSON.stringify(now) === JSON.stringify(oldNames);
        if (!isOld) {
          _newNames = now;
          expect(now.every((n) => n.endsWith(" Revised"))).toBe(true);
          expect(now.length).toBe(oldNames.length);
          sawNew++;
          // back to the old data for the next round
          const back = syncProc(db, fake.url);
          await back.exited;
        } else sawOld++;
      }
      expect(sawOld + sawNew).toBe(8);
      process.stderr.write(`crash test: ${sawOld} kills kept the old set, ${sawNew} landed the new set\n`);
      fresh.clearFaults();
      const done = syncProc(db, fresh.url);
      expect(await done.exited).toBe(0);
      expect(names(db).every((n) => n.endsWith(" Revised"))).toBe(true);
    } finally {
      await fresh.stop();
    }
  });
});
