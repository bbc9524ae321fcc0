import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { decodeText, importExitCode } from "../../src/ingest/import.ts";
import { importOrcbrewFile, importOrcbrewFiles, importOrcbrewText } from "../../src/ingest/import-orcbrew.ts";
import { listDocuments } from "../../src/store/documents.ts";
import { replaceOrigin } from "../../src/store/entities.ts";
import { openStore, type Store } from "../../src/store/db.ts";
import { makeEntity } from "../support/entities.ts";
import { makeTempDir } from "../support/tmp.ts";

const FIXTURES = join(import.meta.dir, "../fixtures/orcbrew");
const fx = (name: string) => join(FIXTURES, name);

let tmp: ReturnType<typeof makeTempDir>;
let store: Store;
beforeEach(() => {
  tmp = makeTempDir("lk-orcbrew-");
  store = openStore({ path: join(tmp.dir, "lk.db") });
});
afterEach(() => {
  store.close();
  tmp.cleanup();
});

const count = (sql: string, ...args: string[]) => (store.db.query(sql).get(...args) as { n: number }).n;
const orcbrewCount = () => count("SELECT COUNT(*) AS n FROM entities WHERE document_source = 'orcbrew'");
const names = (docKey: string) =>
  (
    store.db.query("SELECT name FROM entities WHERE document_key = ? ORDER BY name").all(docKey) as Array<{
      name: string;
    }>
  ).map((r) => r.name);

describe("import into the store", () => {
  test("a single-plugin file: one document, every entity, documents table and list_documents", () => {
    const r = importOrcbrewFile(store.db, fx("all-types.orcbrew"));
    expect(r.ok).toBe(true);
    expect(r.imported).toBe(11);
    expect(r.skipped).toBe(2); // an unknown type and an unusable item
    expect(r.not_imported).toBe(5); // invocations, boons, selections, encounters, a disabled spell: notes
    expect(r.packs[0]!.store).toEqual({ inserted: 11, updated: 0, unchanged: 0, deleted: 0 });
    expect(orcbrewCount()).toBe(11);
    const docs = listDocuments(store.db, "orcbrew");
    expect(docs.map((d) => [d.key, d.name, d.source, d.entity_count])).toEqual([
      ["orcbrew-test-forge", "Test Forge", "orcbrew", 11],
    ]);
    expect(docs[0]!.counts).toEqual({
      spell: 2,
      creature: 1,
      class: 2,
      subclass: 1,
      species: 1,
      subspecies: 1,
      background: 1,
      feat: 1,
      language: 1,
    });
    expect(docs[0]!.url).toStartWith("file://");
    expect(count("SELECT COUNT(*) AS n FROM entities WHERE origin = ?", "orcbrew:orcbrew-test-forge")).toBe(11);
  });

  test("a valid file whose unmodeled types are left out exits 0, with the notes", () => {
    const text = `{:orcpub.dnd.e5/spells {:glow {:name "Glow" :level 0 :school "evocation" :option-pack "Lights"}}
 :orcpub.dnd.e5/encounters {:ambush {:name "Ambush" :option-pack "Lights"}}}`;
    const r = importOrcbrewText(store.db, text, join(tmp.dir, "lights.orcbrew"));
    expect([r.ok, r.imported, r.skipped, r.not_imported]).toEqual([true, 1, 0, 1]);
    expect(r.packs[0]!.skipped[0]).toMatchObject({ type: "encounters", by_design: true });
    expect(importExitCode({ files: [r], imported: r.imported, skipped: r.skipped, failed: 0, dry_run: false })).toBe(0);
  });

  test("a multi-pack file: one document per pack; empty and disabled packs hold nothing", () => {
    const r = importOrcbrewFile(store.db, fx("multi-pack.orcbrew"));
    expect(r.ok).toBe(true);
    expect(r.packs.map((p) => [p.name, p.document_key])).toEqual([
      ["Default Option Source", "orcbrew-default-option-source"],
      ["Frost Pack", "orcbrew-frost-pack"],
      ["Old Pack", "orcbrew-old-pack"],
    ]);
    expect(listDocuments(store.db, "orcbrew").map((d) => [d.key, d.entity_count])).toEqual([["orcbrew-frost-pack", 3]]);
    expect(names("orcbrew-frost-pack")).toEqual(["Fireball", "Frost Mite", "Rime Bolt"]);
    expect(importExitCode({ files: [r], imported: r.imported, skipped: r.skipped, failed: 0, dry_run: false })).toBe(2);
  });

  test("re-importing a pack replaces it: no duplicates, no orphans, unchanged rows kept", () => {
    const file = join(tmp.dir, "all-types.orcbrew");
    copyFileSync(fx("all-types.orcbrew"), file);
    importOrcbrewFile(store.db, file);
    const idBefore = count("SELECT id AS n FROM entities WHERE name = 'Emberkin'");
    const again = importOrcbrewFile(store.db, file);
    expect(again.packs[0]!.store).toEqual({ inserted: 0, updated: 0, unchanged: 11, deleted: 0 });
    // drop the language, rename a spell's text
    const text = readFileSync(file, "utf8")
      .replace(/ :orcpub\.dnd\.e5\/languages\n \{:ignan-cant\n {2}\{[^\n]*\}\}\n/, "")
      .replace("You hum a calming tune.", "You hum a soothing tune.");
    writeFileSync(file, text);
    const third = importOrcbrewFile(store.db, file);
    expect(third.packs[0]!.store).toEqual({ inserted: 0, updated: 1, unchanged: 9, deleted: 1 });
    expect(orcbrewCount()).toBe(10);
    expect(names("orcbrew-test-forge")).not.toContain("Ignan Cant");
    expect(count("SELECT id AS n FROM entities WHERE name = 'Emberkin'")).toBe(idBefore);
    expect(count("SELECT COUNT(*) AS n FROM entities_fts WHERE entities_fts MATCH 'soothing'")).toBe(1);
    expect(count("SELECT COUNT(*) AS n FROM entities_fts WHERE entities_fts MATCH 'crackling'")).toBe(0);
  });

  test("the same pack from two files is one document (the later import replaces the earlier)", () => {
    mkdirSync(join(tmp.dir, "a"));
    mkdirSync(join(tmp.dir, "b"));
    writeFileSync(
      join(tmp.dir, "a", "My Pack.orcbrew"),
      '{:orcpub.dnd.e5/languages {:one {:name "One"} :two {:name "Two"}}}',
    );
    writeFileSync(
      join(tmp.dir, "b", "my pack.orcbrew"),
      '{:orcpub.dnd.e5/languages {:two {:name "Two"} :three {:name "Three"}}}',
    );
    const rep = importOrcbrewFiles(store.db, [
      join(tmp.dir, "a", "My Pack.orcbrew"),
      join(tmp.dir, "b", "my pack.orcbrew"),
    ]);
    expect(names("orcbrew-my-pack")).toEqual(["Three", "Two"]);
    expect(rep.files[1]!.packs[0]!.warnings).toContain(
      'replaces the pack "My Pack" imported earlier under the same document key orcbrew-my-pack',
    );
    expect(listDocuments(store.db, "orcbrew").map((d) => d.name)).toEqual(["my pack"]);
  });

  test("all or nothing per file: a store failure in the second pack keeps the first pack's earlier data", () => {
    const file = join(tmp.dir, "two.orcbrew");
    writeFileSync(file, '{"Alpha" {:orcpub.dnd.e5/languages {:a1 {:name "Alpha One"}}}}');
    expect(importOrcbrewFile(store.db, file).ok).toBe(true);
    writeFileSync(
      file,
      '{"Alpha" {:orcpub.dnd.e5/languages {:a2 {:name "Alpha Two"}}}, ' +
        '"Beta" {:orcpub.dnd.e5/languages {:boom {:name "Boom"}}}}',
    );
    store.db.exec(
      "CREATE TRIGGER boom BEFORE INSERT ON entities WHEN new.name = " +
        "'Boom' BEGIN SELECT RAISE(ABORT, 'simulated disk failure'); END",
    );
    const r = importOrcbrewFile(store.db, file);
    expect(r.ok).toBe(false);
    expect(r.error!.message).toContain("nothing from this file was imported");
    expect(r.error!.message).toContain("simulated disk failure");
    expect(names("orcbrew-alpha")).toEqual(["Alpha One"]);
    expect(names("orcbrew-beta")).toEqual([]);
    expect(count("SELECT COUNT(*) AS n FROM documents WHERE key = 'orcbrew-beta'")).toBe(0);
    expect(store.db.inTransaction).toBe(false);
  });

  test("broken files fail with the problem and its place and write nothing", () => {
    for (const [file, where, what] of [
      ["truncated.orcbrew", [1, 89], "not closed"],
      ["unknown-tag.orcbrew", [5, 20], "unknown tag #my/school"],
      ["duplicate-key.orcbrew", [4, 4], "duplicate key :twice"],
      ["mixed-top.orcbrew", [2, 2], "mixes pack names"],
    ] as const) {
      const r = importOrcbrewFile(store.db, fx(file));
      expect(r.ok).toBe(false);
      expect([r.error!.line, r.error!.column]).toEqual([...where]);
      expect(r.error!.reason).toContain(what);
      expect(r.error!.message).toStartWith(`line ${where[0]}, column ${where[1]}:`);
    }
    expect(count("SELECT COUNT(*) AS n FROM entities")).toBe(0);
    expect(count("SELECT COUNT(*) AS n FROM documents")).toBe(0);
  });

  test("unreadable paths fail cleanly; other files still import", () => {
    const rep = importOrcbrewFiles(store.db, [join(tmp.dir, "missing.orcbrew"), tmp.dir, fx("namespaced-top.orcbrew")]);
    expect(rep.files.map((f) => f.ok)).toEqual([false, false, true]);
    expect(rep.files[0]!.error!.message).toContain("no such file");
    expect(rep.files[1]!.error!.message).toContain("directory");
    expect(rep.failed).toBe(2);
    expect(importExitCode(rep)).toBe(1);
    expect(names("orcbrew-night-sky")).toEqual(["Star-Touched Elf"]);
  });
});

describe("API content is never overwritten", () => {
  beforeEach(() => {
    replaceOrigin(store.db, "open5e_v2:spell", [makeEntity("spell", "Fireball", { level: 3, school: "evocation" })]);
  });

  test("an OrcBrew item with an API entity's name is skipped with the reason and its place", () => {
    const r = importOrcbrewFile(store.db, fx("multi-pack.orcbrew"));
    const frost = r.packs.find((p) => p.name === "Frost Pack")!;
    expect(frost.types.find((t) => t.type === "spells")).toMatchObject({ found: 2, imported: 1, skipped: 1 });
    const s = frost.skipped.find((x) => x.key === "fireball")!;
    expect(s.reason).toContain('API spell "Fireball" (srd-2014, open5e_v2)');
    expect(s.reason).toContain("--force");
    expect(s.line).toBe(1);
    expect(names("orcbrew-frost-pack")).toEqual(["Frost Mite", "Rime Bolt"]);
    expect(names("srd-2014")).toEqual(["Fireball"]);
  });

  test("only the name counts: an item keyed :fireball but named otherwise is imported", () => {
    const r = importOrcbrewText(
      store.db,
      '{"P" {:orcpub.dnd.e5/spells {:fireball {:name "Blue Fireball" :level 3 :school "evocation"}}}}',
      "p.orcbrew",
    );
    expect(r.skipped).toBe(0);
    expect(names("orcbrew-p")).toEqual(["Blue Fireball"]);
  });

  test("--force imports it beside the API entity, which stays as it was", () => {
    const before = store.db.query("SELECT * FROM entities WHERE document_key = 'srd-2014'").get();
    const r = importOrcbrewFile(store.db, fx("multi-pack.orcbrew"), { force: true });
    expect(r.packs.find((p) => p.name === "Frost Pack")!.warnings.join("\n")).toContain("imported anyway (--force)");
    expect(names("orcbrew-frost-pack")).toEqual(["Fireball", "Frost Mite", "Rime Bolt"]);
    expect(store.db.query("SELECT * FROM entities WHERE document_key = 'srd-2014'").get()).toEqual(before);
  });
});

describe("dry run", () => {
  test("reports per type what would be imported and skipped, and writes nothing", () => {
    const r = importOrcbrewFile(store.db, fx("all-types.orcbrew"), { dryRun: true });
    expect(r.ok).toBe(true);
    expect(r.dry_run).toBe(true);
    expect(r.imported).toBe(11);
    expect(r.packs[0]!.existing).toBe(0);
    expect(r.packs[0]!.store).toBeUndefined();
    expect(count("SELECT COUNT(*) AS n FROM entities")).toBe(0);
    expect(count("SELECT COUNT(*) AS n FROM documents")).toBe(0);
    importOrcbrewFile(store.db, fx("all-types.orcbrew"));
    expect(importOrcbrewFile(store.db, fx("all-types.orcbrew"), { dryRun: true }).packs[0]!.existing).toBe(11);
  });

  test("works without any store", () => {
    const r = importOrcbrewText(null, readFileSync(fx("namespaced-top.orcbrew"), "utf8"), "namespaced-top.orcbrew", {
      dryRun: true,
    });
    expect(r.ok).toBe(true);
    expect(r.imported).toBe(1);
  });
});

describe("decoding", () => {
  test("UTF-8 with BOM, UTF-16 LE with BOM, and Windows-1252 with a note", () => {
    const w: string[] = [];
    expect(decodeText(new Uint8Array([0xef, 0xbb, 0xbf, 0x7b, 0x7d]), w)).toBe("\uFEFF{}");
    const utf16 = new Uint8Array([0xff, 0xfe, ...[..."{}"].flatMap((c) => [c.charCodeAt(0), 0])]);
    expect(decodeText(utf16, w)).toBe("{}");
    expect(w).toEqual([]);
    expect(decodeText(new Uint8Array([0x22, 0x92, 0x22]), w)).toBe('"\u2019"');
    expect(w[0]).toContain("Windows-1252");
  });
});
