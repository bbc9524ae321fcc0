/**
 * A full disk (a real tiny tmpfs, filled): the store is still read, as a read-only mount is —
 * `search`, `serve` and `doctor` answer from it — and a content pack that cannot be unpacked
 * there says the disk is full (not that the file is damaged), leaving the store as it was and
 * nothing behind. Needs root for the mount; skipped (and says so) without it.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { writePackFile } from "../../src/ingest/pack-file.ts";
import { openStore } from "../../src/store/db.ts";
import { replaceOrigin } from "../../src/store/entities.ts";
import { makePackStore } from "../binary/pack-fixture.ts";
import { sampleEntities } from "../support/entities.ts";
import { createTinyModel } from "../support/tiny-model.ts";
import { makeTempDir } from "../support/tmp.ts";
import { fillDisk, mountTinyDisk } from "./mounts.ts";
import { checkedSnapshot, cliEnv, CLI, expectCleanFailure, runCli } from "./store-health.ts";

const tmp = makeTempDir("lk-full-disk-");
const mnt = join(tmp.dir, "disk");
const db = join(mnt, "lk.db");
let unmount: (() => void) | undefined;
let filler: string | undefined;
let packGz = "";
let model = "";
const env = () => cliEnv(tmp.dir, { LOREKEEPER_MODEL_DIR: model });

beforeAll(async () => {
  model = await createTinyModel(join(tmp.dir, "model"));
  const made = await makePackStore(join(tmp.dir, "pack.db"), model);
  packGz = join(tmp.dir, "lorekeeper-content.db.gz");
  await writePackFile(made.path, packGz);
  unmount = mountTinyDisk(mnt, 4 * 1024 * 1024);
  if (!unmount) return;
  const store = openStore({ path: db });
  replaceOrigin(store.db, "open5e_v2:spells", sampleEntities(), []);
  store.db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  store.close();
}, 60_000);

afterAll(() => {
  unmount?.();
  tmp.cleanup();
});

const skipped = () => {
  if (unmount) return false;
  process.stderr.write("skipped: cannot mount a tmpfs here (needs root)\n");
  return true;
};

test("on a full disk, search, serve and doctor answer from the store read-only", async () => {
  if (skipped()) return;
  const before = checkedSnapshot(db);
  filler = fillDisk(mnt);
  try {
    const search = await runCli(["search", "fireball", "--db-path", db], env());
    expect(search.stderr).not.toMatch(/\n\s+at /);
    expect(search.code).toBe(0);
    expect(search.stdout).toContain("Fireball");
    const doctor = await runCli(["doctor", "--offline", "--json", "--db-path", db], env());
    const store = (
      JSON.parse(doctor.stdout) as { checks: Array<{ name: string; status: string; summary: string }> }
    ).checks.find((c) => c.name === "store");
    expect(store?.status).toBe("ok");
    expect(store?.summary).toContain("entries");
    const lines = [
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "0" } },
      },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "search_spell", arguments: { name: "Fireball" } },
      },
    ];
    const serve = Bun.spawnSync([process.execPath, CLI, "serve", "--db-path", db], {
      env: env(),
      stdin: Buffer.from(`${lines.map((l) => JSON.stringify(l)).join("\n")}\n`),
      stdout: "pipe",
      stderr: "pipe",
    });
    const replies = serve.stdout
      .toString()
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as { id: number; result?: { structuredContent?: { count: number } } });
    expect(replies.find((m) => m.id === 2)?.result?.structuredContent?.count).toBeGreaterThan(0);
    expect(serve.stderr.toString()).toMatch(/disk is full|disk holding .* is full/);
  } finally {
    rmSync(filler, { force: true });
  }
  expect(checkedSnapshot(db)).toEqual(before);
}, 60_000);

test("a pack that cannot be unpacked on a full disk says so; the store is as it was, nothing left behind", async () => {
  if (skipped()) return;
  const before = checkedSnapshot(db);
  // Room to open the store, not to unpack the pack beside it.
  filler = fillDisk(mnt, 96 * 1024);
  try {
    const r = await runCli(["sync", "--pack", packGz, "--db-path", db], env());
    expectCleanFailure(r);
    expect(r.stderr).toMatch(/disk holding .* is full: the content pack could not be unpacked/);
    expect(r.stderr).not.toMatch(/damaged/);
    expect(readdirSync(mnt).filter((f) => f.includes(".pack-"))).toEqual([]);
  } finally {
    rmSync(filler, { force: true });
  }
  expect(checkedSnapshot(db)).toEqual(before);
}, 60_000);
