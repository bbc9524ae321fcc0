/**
 * a store in a folder owned by another user (file 644, folder 755). SQLite then
 * says SQLITE_READONLY_DIRECTORY (it cannot make the -shm file), not SQLITE_CANTOPEN; `documents`,
 * `search` and `serve` must still answer from the store, read-only. As root the commands run as
 * user nobody (setpriv), which is exactly "owned by another user"; otherwise the folder and file
 * are made read-only with permission bits.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { chmodSync, chownSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { openStore } from "../../src/store/db.ts";
import { replaceOrigin } from "../../src/store/entities.ts";
import { sampleEntities } from "../support/entities.ts";
import { isolatedEnv, REPO_ROOT } from "../support/mcp.ts";
import { makeTempDir } from "../support/tmp.ts";

const isRoot = process.getuid?.() === 0;
const NOBODY = 65534;
let tmp: ReturnType<typeof makeTempDir>;
let dbFile: string;
let env: Record<string, string>;

beforeAll(async () => {
  tmp = makeTempDir("lk-ro-foreign-");
  chmodSync(tmp.dir, 0o755);
  const storeDir = join(tmp.dir, "store");
  mkdirSync(storeDir);
  dbFile = join(storeDir, "lorekeeper.db");
  const store = openStore({ path: dbFile });
  replaceOrigin(store.db, "open5e_v2:spells", sampleEntities(), []);
  store.db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  store.close();
  const home = join(tmp.dir, "home");
  mkdirSync(home);
  if (isRoot) chownSync(home, NOBODY, NOBODY);
  env = { ...(await isolatedEnv(home)), LOREKEEPER_LOG_LEVEL: "warn" };
  chmodSync(dbFile, 0o644);
  chmodSync(storeDir, isRoot ? 0o755 : 0o555);
  if (!isRoot) chmodSync(dbFile, 0o444);
});

afterAll(() => {
  chmodSync(join(tmp.dir, "store"), 0o755);
  tmp.cleanup();
});

function asOtherUser(args: string[]): string[] {
  const cli = [process.execPath, join(REPO_ROOT, "src", "cli", "main.ts"), ...args];
  return isRoot ? ["setpriv", `--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups", ...cli] : cli;
}

function run(args: string[], stdin?: string) {
  const r = Bun.spawnSync(asOtherUser(args), {
    env,
    cwd: REPO_ROOT,
    stdin: stdin === undefined ? "ignore" : Buffer.from(stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() };
}

test("documents and search answer from a store in another user's folder (SQLITE_READONLY_DIRECTORY)", () => {
  const docs = run(["documents", "--db-path", dbFile]);
  expect(docs.err).not.toContain("attempt to write a readonly database\n");
  expect(docs.code).toBe(0);
  expect(docs.out).toContain("srd-2014");
  const search = run(["search", "fireball", "--db-path", dbFile]);
  expect(search.code).toBe(0);
  expect(search.out).toContain("Fireball");
});

test("serve (stdio) answers tool calls from that store", () => {
  const lines = [
    {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "0" } },
    },
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "search_spell", arguments: { name: "Fireball" } } },
  ];
  const r = run(["serve", "--db-path", dbFile], `${lines.map((l) => JSON.stringify(l)).join("\n")}\n`);
  const replies = r.out
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as { id: number; result?: { structuredContent?: { count: number } } });
  const call = replies.find((m) => m.id === 2);
  expect(call?.result?.structuredContent?.count).toBeGreaterThan(0);
}, 30_000);
