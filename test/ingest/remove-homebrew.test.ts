/**
 * Removing an imported homebrew document (`lorekeeper documents remove KEY`): a 5etools source or
 * an OrcBrew pack goes with its entities, vectors, FTS rows and documents row; the other documents
 * stay as they were; synced (official) documents are refused with the reason; unknown keys get the
 * nearest homebrew keys. In a real store, in-process and through the CLI.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { importHomebrewFile } from "../../src/ingest/import-5etools.ts";
import { importOrcbrewFile } from "../../src/ingest/import-orcbrew.ts";
import { removeHomebrewDocument } from "../../src/ingest/remove-homebrew.ts";
import { SOURCES } from "../../src/sources/index.ts";
import { openStore, type Store } from "../../src/store/db.ts";
import { replaceOrigin } from "../../src/store/entities.ts";
import { writeVectors } from "../../src/store/vectors.ts";
import { makeEntity } from "../support/entities.ts";
import { isolatedEnv, REPO_ROOT } from "../support/mcp.ts";
import { makeTempDir } from "../support/tmp.ts";

const EMBER = join(import.meta.dir, "../fixtures/5etools/ember-forge.json");
const SHAPES = join(import.meta.dir, "../fixtures/5etools/hand-made-shapes.json");
const ORCBREW = join(import.meta.dir, "../fixtures/orcbrew/all-types.orcbrew");

let tmp: ReturnType<typeof makeTempDir>;
let store: Store;
let dbFile: string;

const count = (sql: string, ...args: string[]) => store.db.query<{ n: number }, string[]>(sql).get(...args)!.n;
const entitiesOf = (key: string) => count("SELECT COUNT(*) AS n FROM entities WHERE document_key = ?", key);
const idsOf = (key: string) =>
  store.db
    .query<{ id: number }, [string]>("SELECT id FROM entities WHERE document_key = ?")
    .all(key)
    .map((r) => r.id);

beforeEach(() => {
  tmp = makeTempDir("lk-remove-");
  dbFile = join(tmp.dir, "lk.db");
  store = openStore({ path: dbFile });
  // An official document beside the homebrew.
  replaceOrigin(
    store.db,
    "open5e_v2:spells",
    [makeEntity("spell", "Fireball", { level: 3, school: "evocation" })],
    [{ key: "srd-2014", name: "System Reference Document 5.1", source: "open5e_v2" }],
  );
  expect(importHomebrewFile(store.db, EMBER).ok).toBe(true);
  expect(importOrcbrewFile(store.db, ORCBREW).ok).toBe(true);
  // A vector for every entity, as the embed step would write.
  const rows = store.db.query<{ id: number; content_hash: string }, []>("SELECT id, content_hash FROM entities").all();
  const vector = new Float32Array([1, 0, 0, 0]);
  writeVectors(
    store.db,
    "test:model",
    rows.map((r) => ({ id: r.id, contentHash: r.content_hash, vector })),
  );
});

afterEach(() => {
  store.close();
  tmp.cleanup();
});

describe("removeHomebrewDocument", () => {
  test("a 5etools source goes with its entities, vectors, FTS rows and documents row; nothing else changes", () => {
    const ids = idsOf("5etools-ember-forge");
    expect(ids.length).toBeGreaterThan(10);
    const bloom = "SELECT COUNT(*) AS n FROM entities_fts WHERE entities_fts MATCH '\"cinder bloom\"'";
    expect(count(bloom)).toBe(1);
    const others = count("SELECT COUNT(*) AS n FROM entities WHERE document_key <> '5etools-ember-forge'");
    const otherVectors = count("SELECT COUNT(*) AS n FROM vectors") - ids.length;
    const [removed] = removeHomebrewDocument(store.db, "5etools-ember-forge");
    expect(removed).toMatchObject({ key: "5etools-ember-forge", name: "The Ember Forge", source: "5etools" });
    expect([removed!.entities, removed!.vectors]).toEqual([ids.length, ids.length]);
    expect(entitiesOf("5etools-ember-forge")).toBe(0);
    const idList = ids.join(",");
    expect(count(`SELECT COUNT(*) AS n FROM vectors WHERE entity_id IN (${idList})`)).toBe(0);
    expect(count(`SELECT COUNT(*) AS n FROM entities_fts WHERE rowid IN (${idList})`)).toBe(0);
    expect(count(bloom)).toBe(0);
    expect(count("SELECT COUNT(*) AS n FROM documents WHERE key = '5etools-ember-forge'")).toBe(0);
    // The file's other source, the OrcBrew pack and the official document are untouched.
    expect(count("SELECT COUNT(*) AS n FROM entities")).toBe(others);
    expect(count("SELECT COUNT(*) AS n FROM vectors")).toBe(otherVectors);
    expect(entitiesOf("5etools-ember-beasts")).toBe(4);
    expect(entitiesOf("srd-2014")).toBe(1);
    expect(count("SELECT COUNT(*) AS n FROM documents WHERE key = '5etools-ember-beasts'")).toBe(1);
  });

  test("an OrcBrew pack is removed the same way, its key in any case; importing it again brings it back", () => {
    const before = entitiesOf("orcbrew-test-forge");
    expect(before).toBeGreaterThan(5);
    const [removed] = removeHomebrewDocument(store.db, "OrcBrew-Test-Forge");
    expect(removed).toMatchObject({ source: "orcbrew", entities: before });
    expect(entitiesOf("orcbrew-test-forge")).toBe(0);
    const again = importOrcbrewFile(store.db, ORCBREW);
    expect(again.packs[0]!.store).toMatchObject({ inserted: before, deleted: 0 });
  });

  test("a dry run says what would go and changes nothing", () => {
    const total = count("SELECT COUNT(*) AS n FROM entities");
    const [would] = removeHomebrewDocument(store.db, "5etools-ember-forge", { dryRun: true });
    expect(would!.entities).toBe(entitiesOf("5etools-ember-forge"));
    expect(count("SELECT COUNT(*) AS n FROM entities")).toBe(total);
  });

  test("a synced document is refused with the reason, and nothing is removed", () => {
    const total = count("SELECT COUNT(*) AS n FROM entities");
    const why = /"srd-2014" is not homebrew: it comes from Open5e v2 \(synced content\)/;
    expect(() => removeHomebrewDocument(store.db, "srd-2014")).toThrow(why);
    const asV2 = () => removeHomebrewDocument(store.db, "srd-2014", { source: "open5e_v2" });
    expect(asV2).toThrow(/not a homebrew source/);
    expect(count("SELECT COUNT(*) AS n FROM entities")).toBe(total);
  });

  test("a document held by several synced sources names them in preference order", () => {
    // Stored least preferred first: the answer must not follow the storage order.
    replaceOrigin(
      store.db,
      "open5e_v1:spells",
      [makeEntity("spell", "Fireball", { level: 3 }, { source: "open5e_v1", key: "fireball" })],
      [],
    );
    replaceOrigin(
      store.db,
      "dnd5e_api:spells",
      [makeEntity("spell", "Fireball", { level: 3 }, { source: "dnd5e_api", key: "fireball" })],
      [],
    );
    const labels = ["open5e_v2", "dnd5e_api", "open5e_v1"].map((id) => SOURCES.find((s) => s.id === id)!.label);
    expect(() => removeHomebrewDocument(store.db, "srd-2014")).toThrow(
      `it comes from ${labels.join(", ")} (synced content)`,
    );
  });

  test("an unknown key names the nearest homebrew keys", () => {
    let hint = "";
    try {
      removeHomebrewDocument(store.db, "ember-forge");
    } catch (err) {
      expect((err as Error).message).toBe('no imported homebrew document has the key "ember-forge"');
      hint = (err as { hint?: string }).hint ?? "";
    }
    expect(hint).toContain('"5etools-ember-forge"');
    try {
      removeHomebrewDocument(store.db, "The Ember Forge");
    } catch (err) {
      hint = (err as { hint?: string }).hint ?? "";
    }
    expect(hint).toContain('"5etools-ember-forge"');
  });
});

describe("lorekeeper documents remove (CLI)", () => {
  const cli = async (args: string[]) => {
    const env = await isolatedEnv(tmp.dir);
    const main = join(REPO_ROOT, "src", "cli", "main.ts");
    const r = Bun.spawnSync([process.execPath, main, ...args, "--db-path", dbFile], {
      env: { ...env, LOREKEEPER_LOG_LEVEL: "error" },
      cwd: REPO_ROOT,
      stdout: "pipe",
      stderr: "pipe",
      timeout: 20_000,
    });
    return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() };
  };

  test("removes a homebrew document, refuses an official one with a clear message and no stack trace", async () => {
    store.close();
    const ok = await cli(["documents", "remove", "5etools-ember-forge"]);
    expect(ok.code).toBe(0);
    expect(ok.out).toMatch(
      /^Removed the 5etools document 5etools-ember-forge \("The Ember Forge"\): \d+ entities \(.+\)/,
    );
    expect(ok.out).toMatch(/ and \d+ embeddings\.\n$/);
    const gone = await cli(["documents", "--json"]);
    expect(JSON.parse(gone.out).documents.map((d: { key: string }) => d.key)).not.toContain("5etools-ember-forge");

    const official = await cli(["documents", "remove", "srd-2014"]);
    expect(official.code).toBe(1);
    expect(official.err).toContain('"srd-2014" is not homebrew: it comes from Open5e v2 (synced content)');
    expect(official.err).toContain("lorekeeper sync");
    expect(official.err).not.toMatch(/\n\s+at /);

    const none = await cli(["documents", "remove"]);
    expect(none.code).toBe(64);
    expect(none.err).toContain("give the key of the homebrew document to remove");
    // A mistyped --db-path is an error, not a new empty store.
    const elsewhere = join(tmp.dir, "no-such", "lk.db");
    const main = join(REPO_ROOT, "src", "cli", "main.ts");
    const typo = Bun.spawnSync(
      [process.execPath, main, "documents", "remove", "5etools-ember-beasts", "--db-path", elsewhere],
      {
        env: { ...(await isolatedEnv(tmp.dir)), LOREKEEPER_LOG_LEVEL: "error" },
        stdout: "pipe",
        stderr: "pipe",
      },
    );
    expect(typo.exitCode).toBe(64);
    expect(typo.stderr.toString()).toContain(`there is no LoreKeeper store at ${elsewhere}`);
    expect(existsSync(elsewhere)).toBe(false);
    store = openStore({ path: dbFile });
    expect(entitiesOf("srd-2014")).toBe(1);
  }, 30_000);

  test("the import report shows the kinds each 5etools list became", async () => {
    store.close();
    const r = await cli(["import", SHAPES, "--dry-run", "--no-embed"]);
    store = openStore({ path: dbFile });
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/ item +weapon 3, magic_item 1 +4 +4 +0/);
  }, 30_000);
});
