import { Database } from "bun:sqlite";
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { installContentPack, PACK_DB } from "../../src/native/content-pack.ts";
import { ExtractError } from "../../src/native/extract.ts";
import type { EmbeddedBundle } from "../../src/native/manifest.ts";
import { openStore } from "../../src/store/db.ts";
import { replaceOrigin } from "../../src/store/entities.ts";
import { makeEntity, sampleEntities } from "../support/entities.ts";
import { makeTempDir } from "../support/tmp.ts";
import { makeBundle, randomBytes } from "./bundle-fixture.ts";

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});
function tmp(): string {
  const t = makeTempDir("lk-pack-");
  cleanups.push(t.cleanup);
  return t.dir;
}

/** A real store file made the way `lorekeeper sync` makes it, packed like build.ts does. */
function makePack(base: string): { bundle: EmbeddedBundle; ids: Map<string, number>; n: number } {
  const src = join(base, "pack-src.db");
  const store = openStore({ path: src });
  const entities = sampleEntities();
  replaceOrigin(store.db, "open5e_v2:mixed", entities);
  const ids = new Map(
    (store.db.query("SELECT key, id FROM entities").all() as { key: string; id: number }[]).map((r) => [r.key, r.id]),
  );
  const packed = join(base, "packed.db");
  store.db.exec(`VACUUM INTO '${packed}'`);
  store.close();
  const bundle = makeBundle(join(base, "bundle"), [
    { name: PACK_DB, role: "pack-db", bytes: readFileSync(packed) },
    { name: `${PACK_DB}.usearch`, role: "pack-index", bytes: randomBytes(4096, 3) },
    { name: `${PACK_DB}.usearch.json`, role: "pack-index", bytes: new TextEncoder().encode('{"format":1}') },
  ]);
  bundle.manifest.pack = { entities: entities.length, vectors: 0, model_ids: [], schema_version: 1 };
  return { bundle, ids, n: entities.length };
}

function storeRows(path: string): { n: number; ids: Map<string, number>; ftsHit: number } {
  const db = new Database(path, { readonly: true });
  try {
    const n = (db.query("SELECT count(*) AS n FROM entities").get() as { n: number }).n;
    const ids = new Map(
      (db.query("SELECT key, id FROM entities").all() as { key: string; id: number }[]).map((r) => [r.key, r.id]),
    );
    const ftsHit = (
      db.query("SELECT count(*) AS n FROM entities_fts WHERE entities_fts MATCH 'fireball'").get() as { n: number }
    ).n;
    return { n, ids, ftsHit };
  } finally {
    db.close();
  }
}

describe("installContentPack", () => {
  test("a missing store gets the pack, with its vector index files beside it", async () => {
    const base = tmp();
    const { bundle, ids, n } = makePack(base);
    const db = join(base, "user", "data", "lorekeeper.db");
    const res = await installContentPack(bundle, db);
    expect(res.installed).toBe(true);
    const rows = storeRows(db);
    expect(rows.n).toBe(n);
    expect(rows.ids).toEqual(ids); // ids kept: the index sidecar refers to them
    expect(rows.ftsHit).toBeGreaterThan(0);
    expect(readFileSync(`${db}.usearch`)).toEqual(Buffer.from(randomBytes(4096, 3)));
    expect(existsSync(`${db}.usearch.json`)).toBe(true);
    // the store opens normally afterwards (migrations, WAL)
    openStore({ path: db }).close();
    // second run: nothing to do
    const again = await installContentPack(bundle, db);
    expect(again.installed).toBe(false);
    expect(again.detail).toContain(`${n} entities`);
  });

  test("an existing but empty store is filled in place (FTS included)", async () => {
    const base = tmp();
    const { bundle, ids, n } = makePack(base);
    const db = join(base, "user.db");
    openStore({ path: db }).close(); // e.g. created by an earlier run without content
    const res = await installContentPack(bundle, db);
    expect(res.installed).toBe(true);
    const rows = storeRows(db);
    expect(rows.n).toBe(n);
    expect(rows.ids).toEqual(ids);
    expect(rows.ftsHit).toBeGreaterThan(0);
    expect(existsSync(`${db}.usearch`)).toBe(true);
  });

  test("a store with content is left alone", async () => {
    const base = tmp();
    const { bundle } = makePack(base);
    const db = join(base, "user.db");
    const store = openStore({ path: db });
    replaceOrigin(store.db, "orcbrew:mine", [
      makeEntity("spell", "My Own Spell", { level: 1 }, { doc: "homebrew-pack" }),
    ]);
    store.close();
    const res = await installContentPack(bundle, db);
    expect(res.installed).toBe(false);
    expect(storeRows(db).n).toBe(1);
    expect(existsSync(`${db}.usearch`)).toBe(false);
  });

  test("a damaged pack is refused and the store stays absent", async () => {
    const base = tmp();
    const { bundle } = makePack(base);
    writeFileSync(bundle.paths[PACK_DB]!, randomBytes(1000, 1));
    const db = join(base, "user.db");
    const err = await installContentPack(bundle, db).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExtractError);
    expect(existsSync(db)).toBe(false);
  });

  test("two processes installing at once: exactly one installs, the store is complete", async () => {
    const base = tmp();
    const { bundle, n } = makePack(base);
    const bundleJson = join(base, "bundle.json");
    writeFileSync(bundleJson, JSON.stringify(bundle));
    const db = join(base, "race", "lorekeeper.db");
    const procs = [0, 1].map(() =>
      Bun.spawn([process.execPath, join(import.meta.dir, "pack-worker.ts"), bundleJson, db], {
        stdout: "pipe",
        stderr: "pipe",
      }),
    );
    const outs = await Promise.all(
      procs.map(async (p) => ({ code: await p.exited, out: await new Response(p.stdout).text() })),
    );
    for (const o of outs) expect(o.code).toBe(0);
    const installed = outs.map((o) => (JSON.parse(o.out) as { installed: boolean }).installed);
    expect(installed.filter(Boolean).length).toBe(1);
    expect(storeRows(db).n).toBe(n);
  }, 30_000);
});
