/**
 * Concurrency: the MCP server (a real `lorekeeper serve` process over stdio)
 * answers tool calls in a loop while `lorekeeper sync --force` and `lorekeeper import` processes
 * write to the same store — every call must succeed and see whole sets; two syncs and two imports
 * at once both finish (or one fails with a clear message) and leave a consistent store; and the
 * WAL stays bounded under sustained writes while readers never stop.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { type FakeUpstream, startFakeUpstream } from "../support/fake-upstream.ts";
import { answerOf, connectStdio, textOf } from "../support/mcp.ts";
import { createTinyModel } from "../support/tiny-model.ts";
import { makeTempDir } from "../support/tmp.ts";
import { spellName, writeOrcbrew, writeUpstream } from "./generated.ts";
import { checkedSnapshot, checkVectorIndex, type CliResult, cliEnv, removeWhenIdle, runCli } from "./store-health.ts";
import { Database } from "bun:sqlite";
import { loadConfig } from "../../src/config.ts";
import { runSync } from "../../src/ingest/sync.ts";
import { openStore, WAL_SIZE_LIMIT } from "../../src/store/db.ts";
import { upstreamEnvAt, upstreamsAt } from "../../src/sources/index.ts";

const N_SPELLS = 600;
const N_BREW = 400;
const PACK = "Busy Pack";
const SPELLS_ORIGIN = "open5e_v2:spells";
const BREW_ORIGIN = "orcbrew:orcbrew-busy-pack";

type Variant = "A" | "B";

describe("concurrent readers and writers", () => {
  const tmp = makeTempDir("lk-conc-");
  const db = join(tmp.dir, "lk.db");
  const modelDir = join(tmp.dir, "tiny");
  const brew = { A: join(tmp.dir, "busy-a.orcbrew"), B: join(tmp.dir, "busy-b.orcbrew") };
  const fakes = {} as Record<Variant, FakeUpstream>;
  const env = (v: Variant) =>
    cliEnv(tmp.dir, {
      ...upstreamEnvAt(fakes[v].url),
      LOREKEEPER_MODEL_DIR: modelDir,
      LOREKEEPER_PAGE_SIZE: "50",
    });
  const sync = (v: Variant) => runCli(["sync", "--force", "--db-path", db], env(v));
  const importBrew = (v: Variant) => runCli(["import", brew[v], "--db-path", db], env("A"));
  let baseline = 0;
  const served = { calls: 0 };

  /** Which generated set an origin holds (fails on a mix). */
  function variantOf(origin: string, name: (v: Variant, i: number) => string, n: number): Variant {
    const names = checkedSnapshot(db).byOrigin.get(origin) ?? [];
    for (const v of ["A", "B"] as const) {
      if (JSON.stringify(names) === JSON.stringify(Array.from({ length: n }, (_, i) => name(v, i)).sort())) return v;
    }
    throw new Error(`${origin} holds ${names.length} entities that are not one whole set`);
  }
  const spells = () => variantOf(SPELLS_ORIGIN, spellName, N_SPELLS);
  const brews = () => variantOf(BREW_ORIGIN, (v, i) => `${v} Brew ${i}`, N_BREW);

  const ok = (r: CliResult, what: string) => {
    if (r.code !== 0) throw new Error(`${what} exited ${r.code}: ${r.stderr}`);
  };

  beforeAll(async () => {
    await createTinyModel(modelDir);
    for (const v of ["A", "B"] as const) {
      fakes[v] = await startFakeUpstream({ dataDir: writeUpstream(join(tmp.dir, `upstream-${v}`), N_SPELLS, v) });
      // Slow pages keep the sync busy for a while.
      fakes[v].setFault("/v2/spells/", { delayMs: 40 });
      writeOrcbrew(brew[v], PACK, N_BREW, v);
    }
    ok(await sync("A"), "first sync");
    ok(await importBrew("A"), "first import");
    baseline = checkedSnapshot(db).entities;
    expect(spells()).toBe("A");
    expect(brews()).toBe("A");
  }, 60_000);

  afterAll(async () => {
    for (const f of Object.values(fakes)) await f.stop();
    await removeWhenIdle(tmp.cleanup);
    process.stderr.write(`concurrency: ${served.calls} tool calls served while other processes wrote, none failed\n`);
  });

  test("tool calls keep succeeding while a forced sync and imports write; the WAL stays bounded", async () => {
    const conn = await connectStdio(["serve", "--db-path", db], env("A"));
    try {
      await conn.client.listTools();
      let writing = true;
      let semanticOff = 0;
      let walMax = 0;
      const sampleWal = () => {
        if (existsSync(`${db}-wal`)) walMax = Math.max(walMax, statSync(`${db}-wal`).size);
      };
      const writers = (async () => {
        try {
          const [s, i] = await Promise.all([
            sync("B"),
            (async () => {
              const out: CliResult[] = [];
              for (const v of ["B", "A", "B"] as const) out.push(await importBrew(v));
              return out;
            })(),
          ]);
          return { s, i };
        } finally {
          writing = false;
        }
      })();

      const calls: Array<{ name: string; arguments: Record<string, unknown>; check: (r: unknown) => void }> = [
        {
          name: "search_spell",
          arguments: { search: "cold ice frost", limit: 5 },
          check: (r) => {
            const a = answerOf(r);
            expect(a.results.length).toBe(5);
            // While every spell is being re-embedded, ranking falls back to keywords, and says so.
            if (a.search_mode !== "hybrid") {
              expect(a.search_mode).toBe("lexical");
              expect(a.message).toMatch(/Semantic ranking is off/);
              semanticOff++;
            }
          },
        },
        {
          name: "search_creature",
          arguments: { name: "Goblin" },
          check: (r) => expect(answerOf(r).results.map((x) => x.name)).toContain("Goblin"),
        },
        {
          name: "search_spell",
          arguments: { documents: ["orcbrew-busy-pack"], limit: 50 },
          // the pack is always one whole set: 50 of its spells, all from the same variant
          check: (r) => {
            const names = answerOf(r).results.map((x) => String(x.name));
            expect(names.length).toBe(50);
            expect(new Set(names.map((n) => n.split(" ")[0])).size).toBe(1);
          },
        },
        {
          name: "search_all",
          arguments: { query: "fire flame burn" },
          check: (r) => expect(answerOf(r).results.length).toBeGreaterThan(0),
        },
        {
          name: "list_documents",
          arguments: {},
          check: (r) => expect(textOf(r)).toContain("orcbrew-busy-pack"),
        },
      ];
      while (writing) {
        const batch = await Promise.all(
          calls.map((c) => conn.client.callTool({ name: c.name, arguments: c.arguments }).then((r) => ({ c, r }))),
        );
        for (const { c, r } of batch) {
          if ((r as { isError?: boolean }).isError) throw new Error(`${c.name} failed during writes: ${textOf(r)}`);
          c.check(r);
          served.calls++;
        }
        sampleWal();
      }
      const { s, i } = await writers;
      ok(s, "sync during tool calls");
      for (const r of i) ok(r, "import during tool calls");
      expect(served.calls).toBeGreaterThanOrEqual(50);
      process.stderr.write(
        `concurrency: ${semanticOff} searches ranked by keywords only while their spells were re-embedded\n`,
      );
      expect(conn.stderr()).not.toMatch(/SQLITE_BUSY|database is locked/);

      // The server still answers, and sees the new data.
      const after = answerOf(
        await conn.client.callTool({ name: "search_spell", arguments: { name: spellName("B", 3) } }),
      );
      expect(after.results.map((x) => x.name)).toContain(spellName("B", 3));

      // The WAL never held much more than the largest single write, and is reset after the writers close.
      const dbBytes = statSync(db).size;
      expect(walMax).toBeLessThan(Math.max(dbBytes * 2, 8 * 1024 * 1024));
      const walAfter = existsSync(`${db}-wal`) ? statSync(`${db}-wal`).size : 0;
      process.stderr.write(
        `concurrency: database ${dbBytes} bytes, WAL at most ${walMax} bytes during the writes, ${walAfter} after\n`,
      );
      expect(walAfter).toBeLessThanOrEqual(4 * 1024 * 1024);
    } finally {
      await conn.close();
    }
    expect(spells()).toBe("B");
    expect(brews()).toBe("B");
    expect(checkedSnapshot(db).entities).toBe(baseline);
    const store = openStore({ path: db });
    try {
      checkVectorIndex(store);
    } finally {
      store.close();
    }
  }, 120_000);

  test("sustained writes while a server reads: the WAL is checkpointed and never grows past one write", async () => {
    const conn = await connectStdio(["serve", "--db-path", db], env("A"));
    const wal = () => (existsSync(`${db}-wal`) ? statSync(`${db}-wal`).size : 0);
    try {
      let running = true;
      let reads = 0;
      let peak = 0;
      const reader = (async () => {
        while (running) {
          const r = await conn.client.callTool({
            name: "search_spell",
            arguments: { search: "lightning storm", limit: 3 },
          });
          if ((r as { isError?: boolean }).isError) throw new Error(textOf(r));
          reads++;
          peak = Math.max(peak, wal());
        }
      })();
      const after: number[] = [];
      for (let i = 0; i < 8; i++) {
        ok(await importBrew(i % 2 === 0 ? "A" : "B"), `import ${i}`);
        after.push(wal());
        peak = Math.max(peak, wal());
      }
      running = false;
      await reader;
      served.calls += reads;
      process.stderr.write(
        `concurrency: 8 imports under ${reads} reads: WAL peak ${peak} bytes, after each import ${after.join(", ")}\n`,
      );
      // each import leaves the WAL empty behind it (checkpoint), so it cannot accumulate across writes
      for (const n of after) expect(n).toBeLessThanOrEqual(WAL_SIZE_LIMIT);
      expect(peak).toBeLessThan(statSync(db).size * 2);
      expect(reads).toBeGreaterThan(8);
    } finally {
      await conn.close();
    }
    expect(checkedSnapshot(db).entities).toBe(baseline);
  }, 60_000);

  test("two syncs at once: both finish (or one says clearly the store is busy); the store is consistent", async () => {
    const [a, b] = await Promise.all([sync("A"), sync("A")]);
    process.stderr.write(`concurrency: two syncs at once exited ${a.code} and ${b.code}\n`);
    for (const r of [a, b]) {
      if (r.code !== 0) {
        expect(r.stderr).toMatch(/locked by another process.*wait for it to finish/s);
        expect(r.stderr).not.toMatch(/\n\s+at /);
      }
    }
    expect(a.code === 0 || b.code === 0).toBe(true);
    expect(spells()).toBe("A");
    expect(checkedSnapshot(db).entities).toBe(baseline);
  }, 60_000);

  test("two imports at once (the same pack from two files): one whole set wins, nothing doubled", async () => {
    const [a, b] = await Promise.all([importBrew("A"), importBrew("B")]);
    process.stderr.write(`concurrency: two imports at once exited ${a.code} and ${b.code}\n`);
    for (const r of [a, b]) {
      if (r.code !== 0) expect(r.stderr + r.stdout).toMatch(/locked by another process/);
    }
    expect(a.code === 0 || b.code === 0).toBe(true);
    expect(["A", "B"]).toContain(brews());
    expect(checkedSnapshot(db).entities).toBe(baseline);
    const store = openStore({ path: db });
    try {
      checkVectorIndex(store);
    } finally {
      store.close();
    }
  }, 60_000);

  test("a writer that cannot get the lock in time fails with a clear message and changes nothing", async () => {
    const before = checkedSnapshot(db).entities;
    const store = openStore({ path: db, busyTimeoutMs: 200 });
    const holder = new Database(db);
    holder.exec("PRAGMA busy_timeout = 5000; BEGIN IMMEDIATE");
    try {
      const cfg = { ...loadConfig(), ...upstreamsAt(fakes.A.url) };
      const err = await runSync(store, { types: ["conditions"], force: true, config: cfg }).then(
        () => undefined,
        (e: unknown) => e as { name?: string; message?: string; hint?: string },
      );
      expect(err?.name).toBe("StoreError");
      expect(err?.message).toContain(db);
      expect(err?.message).toMatch(/locked by another process/);
      expect(err?.hint).toMatch(/wait for it to finish/);
      holder.exec("ROLLBACK");
      expect(checkedSnapshot(db).entities).toBe(before);
    } finally {
      store.close();
      if (holder.inTransaction) holder.exec("ROLLBACK");
      holder.close();
    }
  });
});
