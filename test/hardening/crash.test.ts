/**
 * kill -9 at random points: during `lorekeeper sync` (fetch, write, embedding,
 * index save), during `lorekeeper import` (parse, write, embedding, index save), and exactly while
 * the vector index file is being saved. After every kill: SQLite integrity ok, both full-text
 * tables match the entities, every origin holds exactly its old or its new set (nothing lost, nothing
 * twice), the vector index agrees with the `vectors` table once loaded (repaired automatically when
 * the file was stale or half-written), no temp file is left behind, and a search still works.
 * Complements test/ingest/crash.test.ts (sync-only, names only).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { createEmbedderProvider } from "../../src/search/model/embedder.ts";
import { runSearch } from "../../src/search/hybrid.ts";
import { indexPaths, readSidecar } from "../../src/search/index/vector-index-file.ts";
import { openStore } from "../../src/store/db.ts";
import { countVectors, getEmbeddingMeta, listVectorStamps } from "../../src/store/vectors.ts";
import { type FakeUpstream, startFakeUpstream } from "../support/fake-upstream.ts";
import { createTinyModel } from "../support/tiny-model.ts";
import { makeTempDir } from "../support/tmp.ts";
import { spellName, writeOrcbrew, writeUpstream } from "./generated.ts";
import { checkedSnapshot, checkVectorIndex, cliEnv, spawnCli } from "./store-health.ts";
import { upstreamEnvAt } from "../../src/sources/index.ts";

const N_SPELLS = 800;
const N_BREW = 600;
const PACK = "Crash Pack";
const SPELLS_ORIGIN = "open5e_v2:spells";
const BREW_ORIGIN = "orcbrew:orcbrew-crash-pack";
/** Kills that must land per phase (24 in all). */
const ROUNDS = { sync: 8, import: 8, indexSave: 8 };

type Variant = "A" | "B";
const other = (v: Variant): Variant => (v === "A" ? "B" : "A");

describe("kill -9 at random points", () => {
  const tmp = makeTempDir("lk-crash-");
  const db = join(tmp.dir, "lk.db");
  const modelDir = join(tmp.dir, "tiny");
  const brew: Record<Variant, string> = { A: join(tmp.dir, "brew-a.orcbrew"), B: join(tmp.dir, "brew-b.orcbrew") };
  const fakes = {} as Record<Variant, FakeUpstream>;
  const env = (v: Variant) =>
    cliEnv(tmp.dir, { ...upstreamEnvAt(fakes[v].url), LOREKEEPER_MODEL_DIR: modelDir, LOREKEEPER_PAGE_SIZE: "250" });
  const syncArgs = ["sync", "--types", "spells", "--force", "--db-path", db];
  const importArgs = (v: Variant) => ["import", brew[v], "--db-path", db];
  const stats = { kills: 0, completedBeforeKill: 0, landedNew: 0, keptOld: 0, indexRepaired: 0, noVectors: 0 };
  const durations = { sync: 0, import: 0 };

  /** Which variant each origin holds; fails unless it is exactly one whole set. */
  function state(): { spells: Variant; brew: Variant } {
    const snap = checkedSnapshot(db);
    expect(snap.entities).toBe(N_SPELLS + N_BREW);
    const which = (origin: string, name: (v: Variant, i: number) => string, n: number): Variant => {
      const names = snap.byOrigin.get(origin) ?? [];
      expect(names.length).toBe(n);
      for (const v of ["A", "B"] as const) {
        const want = Array.from({ length: n }, (_, i) => name(v, i)).sort();
        if (JSON.stringify(names) === JSON.stringify(want)) return v;
      }
      throw new Error(`${origin} holds a mix of old and new entities: ${names.slice(0, 3).join(", ")}…`);
    };
    expect([...snap.byOrigin.keys()].sort()).toEqual([BREW_ORIGIN, SPELLS_ORIGIN].sort());
    return {
      spells: which(SPELLS_ORIGIN, spellName, N_SPELLS),
      brew: which(BREW_ORIGIN, (v, i) => `${v} Brew ${i}`, N_BREW),
    };
  }

  /** The index as left on disk by the killed process: does it already hold every stored vector? */
  function indexFileCurrent(): boolean {
    const store = openStore({ path: db, readonly: true });
    try {
      const meta = getEmbeddingMeta(store.db);
      const side = readSidecar(indexPaths(db)!);
      if (!meta || "problem" in side) return false;
      const stamps = listVectorStamps(store.db, meta.modelId);
      return (
        side.entries.length === stamps.length &&
        side.entries.every(([id, h], i) => stamps[i]?.id === id && stamps[i]!.content_hash.startsWith(h))
      );
    } finally {
      store.close();
    }
  }

  async function afterKill(): Promise<{ spells: Variant; brew: Variant }> {
    const s = state();
    if (!indexFileCurrent()) stats.indexRepaired++;
    const store = openStore({ path: db });
    try {
      checkVectorIndex(store);
      expect(readdirSync(tmp.dir).filter((f) => f.includes(".tmp-"))).toEqual([]);
      const ctx = {
        store,
        embedder: createEmbedderProvider({ modelDir, embeddedDir: null, allowDownload: false }),
        embeddingTimeoutMs: 10_000,
      };
      const res = await runSearch(ctx, { kinds: ["spell"], search: "fire flame burn", limit: 5 });
      // Ranked by meaning whenever a vector is stored. A sync and then an import both killed after
      // committing their entities but before embedding them leave none: then keyword ranking, saying why.
      const meta = getEmbeddingMeta(store.db);
      if (meta && countVectors(store.db, meta.modelId) > 0) {
        expect({ mode: res.mode, message: res.message }).toEqual({ mode: "hybrid", message: undefined });
      } else {
        stats.noVectors++;
        expect({ mode: res.mode, message: res.message }).toEqual({
          mode: "lexical",
          message: expect.stringContaining("no embeddings are stored"),
        });
      }
      expect(res.hits.length).toBe(5);
      const exact = await runSearch(ctx, { kinds: ["spell"], name: spellName(s.spells, 7), limit: 5 });
      expect(exact.hits.map((h) => h.entity.name)).toContain(spellName(s.spells, 7));
    } finally {
      store.close();
    }
    return s;
  }

  /** Run the CLI and kill it after `delayMs`, or as soon as `when()` is true; true when the kill landed. */
  async function killDuring(
    args: string[],
    e: Record<string, string>,
    at: { delayMs?: number; when?: () => boolean },
  ): Promise<boolean> {
    const p = spawnCli(args, e);
    const t0 = performance.now();
    for (;;) {
      if (p.exitCode !== null) break;
      if (at.delayMs !== undefined && performance.now() - t0 >= at.delayMs) break;
      if (at.when?.()) break;
      await Bun.sleep(at.when ? 1 : 5);
    }
    const landed = p.exitCode === null;
    p.kill(9);
    await p.exited;
    if (landed) stats.kills++;
    else stats.completedBeforeKill++;
    return landed;
  }

  async function timed(args: string[], e: Record<string, string>): Promise<number> {
    const t0 = performance.now();
    const p = spawnCli(args, e);
    const [code, err] = await Promise.all([p.exited, new Response(p.stderr).text()]);
    if (code !== 0) throw new Error(`${args.join(" ")} exited ${code}: ${err}`);
    return performance.now() - t0;
  }

  beforeAll(async () => {
    await createTinyModel(modelDir);
    for (const v of ["A", "B"] as const) {
      fakes[v] = await startFakeUpstream({ dataDir: writeUpstream(join(tmp.dir, `upstream-${v}`), N_SPELLS, v) });
      writeOrcbrew(brew[v], PACK, N_BREW, v);
    }
    // The old sets, complete and embedded. Also how long a whole run takes (kills are spread over it).
    await timed(syncArgs, env("A"));
    await timed(importArgs("A"), env("A"));
    durations.sync = await timed(syncArgs, env("B"));
    durations.import = await timed(importArgs("B"), env("A"));
    process.stderr.write(
      `crash suite: a whole sync takes ${Math.round(durations.sync)} ` +
        `ms, an import ${Math.round(durations.import)} ms\n`,
    );
    expect(await afterKill()).toEqual({ spells: "B", brew: "B" });
  }, 60_000);

  afterAll(async () => {
    for (const f of Object.values(fakes)) await f.stop();
    tmp.cleanup();
    process.stderr.write(
      `crash suite: ${stats.kills} kill -9 survived (over all rounds, ${stats.keptOld} ` +
        `kept the old set and ${stats.landedNew} had landed the new one; ` +
        `vector index found stale/half-written and repaired ${stats.indexRepaired} times; no vector stored ` +
        `at all ${stats.noVectors} times); ${stats.completedBeforeKill} runs finished before their kill\n`,
    );
  });

  test("sync, import and index saves killed at random points: " +
    "never a damaged store, a mixed set or a wrong index", async () => {
    let cur = state();
    const note = (
      before: { spells: Variant; brew: Variant },
      after: { spells: Variant; brew: Variant },
      key: "spells" | "brew",
    ) => {
      if (after[key] === before[key]) stats.keptOld++;
      else stats.landedNew++;
    };
    /**
     * Repeat a round until `n` kills have landed. A run that finished before its kill does not
     * count, and makes the next delays shorter: on a busy machine the runs of the set-up may have
     * been slower than these (the delays are drawn from the set-up's duration).
     */
    const repeat = async (n: number, phase: "sync" | "import" | null, round: () => Promise<boolean>) => {
      let landed = 0;
      for (let tries = 0; landed < n && tries < n * 5; tries++) {
        if (await round()) landed++;
        else if (phase) durations[phase] = Math.max(100, durations[phase] * 0.7);
      }
      expect(landed).toBe(n);
    };
    await repeat(ROUNDS.sync, "sync", async () => {
      const landed = await killDuring(syncArgs, env(other(cur.spells)), {
        delayMs: 30 + Math.random() * durations.sync,
      });
      const now = await afterKill();
      note(cur, now, "spells");
      expect(now.brew).toBe(cur.brew);
      cur = now;
      return landed;
    });
    await repeat(ROUNDS.import, "import", async () => {
      const landed = await killDuring(importArgs(other(cur.brew)), env("A"), {
        delayMs: 30 + Math.random() * durations.import,
      });
      const now = await afterKill();
      note(cur, now, "brew");
      expect(now.spells).toBe(cur.spells);
      cur = now;
      return landed;
    });
    // Exactly while the vector index is being written: as soon as a temp file of the save appears.
    const saving = () => readdirSync(tmp.dir).some((f) => f.includes(".usearch") && f.includes(".tmp-"));
    await repeat(ROUNDS.indexSave, null, async () => {
      const to = other(cur.brew);
      const landed = await killDuring(importArgs(to), env("A"), { when: saving, delayMs: durations.import * 3 });
      const now = await afterKill();
      expect(now.brew).toBe(to); // the entities were committed before the embedding started
      note(cur, now, "brew");
      cur = now;
      return landed;
    });
    expect(stats.kills).toBeGreaterThanOrEqual(20);

    // Afterwards, uninterrupted runs complete and land exactly the new sets.
    await timed(syncArgs, env(other(cur.spells)));
    await timed(importArgs(other(cur.brew)), env("A"));
    expect(await afterKill()).toEqual({ spells: other(cur.spells), brew: other(cur.brew) });
  }, 120_000);
});
