/**
 * Shared by the hardening tests: running the CLI as a real process, and checking a store the way
 * an operator would after a crash — SQLite integrity, the full-text tables against the entities,
 * no duplicate entity, and the vector index file against the `vectors` table.
 */
import { expect } from "bun:test";
import { join } from "node:path";
import { hashPrefix } from "../../src/search/index/vector-index-file.ts";
import { closeVectorIndex, loadOrBuildIndex, syncIndex } from "../../src/search/index/vector-index.ts";
import { openStore, type Store } from "../../src/store/db.ts";
import { getEmbeddingMeta, listVectorStamps, readVectorRows } from "../../src/store/vectors.ts";
import { upstreamEnvAt } from "../../src/sources/index.ts";

export const CLI = join(import.meta.dir, "..", "..", "src", "cli", "main.ts");

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Environment for a child LoreKeeper: private XDG folders, upstreams as given, no model unless given. */
export function cliEnv(dir: string, over: Record<string, string> = {}): Record<string, string> {
  return {
    ...(process.env as Record<string, string>),
    HOME: dir,
    XDG_DATA_HOME: join(dir, "xdg-data"),
    XDG_CACHE_HOME: join(dir, "xdg-cache"),
    ...upstreamEnvAt("http://127.0.0.1:9"),
    LOREKEEPER_MODEL_DIR: join(dir, "no-model"),
    LOREKEEPER_HTTP_RETRIES: "0",
    LOREKEEPER_LOG_LEVEL: "warn",
    ...over,
  };
}

export function spawnCli(args: string[], env: Record<string, string>) {
  return Bun.spawn([process.execPath, CLI, ...args], { env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
}

export async function runCli(args: string[], env: Record<string, string>): Promise<CliResult> {
  const p = spawnCli(args, env);
  const [stdout, stderr, code] = await Promise.all([
    new Response(p.stdout).text(),
    new Response(p.stderr).text(),
    p.exited,
  ]);
  return { code, stdout, stderr };
}

/** A user-facing failure: non-zero exit, no stack trace. */
export function expectCleanFailure(r: CliResult): void {
  expect(r.code).not.toBe(0);
  expect(r.stderr + r.stdout).not.toMatch(/\n\s+at .+:\d+/);
}

export interface StoreSnapshot {
  entities: number;
  /** origin → sorted entity names. */
  byOrigin: Map<string, string[]>;
}

/**
 * Open the store and check it: `PRAGMA integrity_check` is ok, both full-text tables match the
 * entities term by term, no (source, kind, key) twice. Returns what it holds.
 */
export function checkedSnapshot(path: string): StoreSnapshot {
  const s = openStore({ path });
  try {
    const ic = s.db.query<{ integrity_check: string }, []>("PRAGMA integrity_check").all();
    expect(ic.map((r) => r.integrity_check)).toEqual(["ok"]);
    for (const t of ["entities_fts", "names_fts"])
      s.db.exec(`INSERT INTO ${t}(${t}, rank) VALUES('integrity-check', 1)`);
    const dups = s.db
      .query("SELECT document_source, kind, key, count(*) AS n FROM entities GROUP BY 1, 2, 3 HAVING n > 1")
      .all();
    expect(dups).toEqual([]);
    const byOrigin = new Map<string, string[]>();
    for (const r of s.db
      .query<{ origin: string; name: string }, []>("SELECT origin, name FROM entities ORDER BY origin, name")
      .all()) {
      const list = byOrigin.get(r.origin) ?? [];
      list.push(r.name);
      byOrigin.set(r.origin, list);
    }
    const entities = s.db.query<{ n: number }, []>("SELECT count(*) AS n FROM entities").get()!.n;
    return { entities, byOrigin };
  } finally {
    s.close();
  }
}

/**
 * The vector index beside the store agrees with the `vectors` table once loaded (rebuilt or
 * brought up to date automatically when it did not), the saved file then reloads as is, and a
 * stored vector finds itself. Returns the number of vectors.
 */
export function checkVectorIndex(store: Store): number {
  const meta = getEmbeddingMeta(store.db);
  if (!meta) return 0;
  closeVectorIndex(store);
  syncIndex(store);
  const idx = loadOrBuildIndex(store, meta.modelId, meta.dim);
  const stamps = listVectorStamps(store.db, meta.modelId);
  expect(idx.size).toBe(stamps.length);
  expect(idx.index.size()).toBe(stamps.length);
  expect([...idx.entries].sort((a, b) => a[0] - b[0])).toEqual(stamps.map((s) => [s.id, hashPrefix(s.content_hash)]));
  // A stored vector finds itself (or an identical twin: generated texts can embed alike).
  const vectors = [...readVectorRows(store.db, meta.modelId)].slice(0, 3);
  for (const [, { vector: v }] of vectors) expect(idx.search(v, 1)[0]?.similarity).toBeGreaterThan(0.999);
  // What was saved is what is loaded next time: no rebuild, nothing to add or remove.
  closeVectorIndex(store);
  expect(syncIndex(store)).toMatchObject({ rebuilt: false, added: 0, removed: 0, size: stamps.length });
  closeVectorIndex(store);
  return stamps.length;
}

/** Remove a test folder once the servers spawned in it have let go (they may save an index on exit). */
export async function removeWhenIdle(cleanup: () => void): Promise<void> {
  await Bun.sleep(300);
  cleanup();
  await Bun.sleep(200);
  cleanup();
}
