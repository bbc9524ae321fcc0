/**
 * Hostile 5etools files: nested too deep, too many records, too large, broken JSON, control and
 * bidi characters in names, names that pass for official ones (look-alike letters included). A
 * refused file writes nothing; the others of the same import still go in.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { importFivetoolsText, importHomebrewFiles } from "../../src/ingest/import-5etools.ts";
import { FIVETOOLS_LIMITS } from "../../src/sources/5etools/file.ts";
import { upsertDocuments } from "../../src/store/documents.ts";
import type { Store } from "../../src/store/db.ts";
import { makeStore, sampleEntities } from "../support/entities.ts";
import { makeTempDir } from "../support/tmp.ts";

let made: { store: Store; cleanup: () => void };
let tmp: ReturnType<typeof makeTempDir>;
beforeEach(() => {
  made = makeStore(sampleEntities());
  upsertDocuments(made.store.db, [
    { key: "srd-2024", name: "System Reference Document 5.2", source: "open5e_v2", publisher: "Wizards of the Coast" },
  ]);
  tmp = makeTempDir("lk-5etools-hostile-");
});
afterEach(() => {
  made.cleanup();
  tmp.cleanup();
});

const homebrew = () =>
  made.store.db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM entities WHERE document_source = '5etools'").get()!
    .n;
const spell = (name: string, extra: object = {}) => ({
  name,
  source: "Hx",
  level: 3,
  school: "V",
  entries: ["A homebrew blast."],
  ...extra,
});
const file = (spells: object[], full = "Hostile Brew") =>
  JSON.stringify({ _meta: { sources: [{ json: "Hx", full }] }, spell: spells });

describe("refused files write nothing", () => {
  test("nesting deeper than the limit is refused before parsing, with its place", () => {
    const deep = `{"_meta":{"sources":[{"json":"Hx"}]},"spell":[${"[".repeat(100_000)}${"]".repeat(100_000)}]}`;
    const r = importFivetoolsText(made.store.db, deep, "deep.json");
    expect(r.ok).toBe(false);
    expect(r.error?.message).toContain(`nested deeper than ${FIVETOOLS_LIMITS.depth} levels`);
    expect(r.error?.line).toBe(1);
    expect(homebrew()).toBe(0);
  });

  test("more records than the limit", () => {
    const many = file(Array.from({ length: FIVETOOLS_LIMITS.records + 1 }, (_, i) => spell(`Spell ${i}`)));
    const r = importFivetoolsText(made.store.db, many, "many.json");
    expect(r.error?.message).toContain(`the limit is ${FIVETOOLS_LIMITS.records}`);
    expect(homebrew()).toBe(0);
  });

  test("broken JSON, a top level that is not an object, a bad _meta", () => {
    for (const [text, words] of [
      ['{"_meta": {"sources": [', "not valid JSON"],
      ["[1, 2]", "top level is not a JSON object"],
      ['{"_meta": {"sources": [{"json": ""}]}, "spell": []}', "_meta.sources.0.json"],
      ['{"name": "x"}', "neither"],
    ] as const) {
      const r = importFivetoolsText(made.store.db, text, "bad.json");
      expect(r.ok).toBe(false);
      expect(r.error?.message).toContain(words);
    }
    expect(homebrew()).toBe(0);
  });

  test("a file over the size limit is refused; the other file of the import still goes in", () => {
    const big = join(tmp.dir, "big.json");
    const good = join(tmp.dir, "good.json");
    writeFileSync(big, file([spell("Big", { entries: ["x".repeat(300_000)] })]));
    writeFileSync(good, file([spell("Good Blast")]));
    const r = importHomebrewFiles(made.store.db, [big, good], { maxFileBytes: 200_000 });
    expect(r.files.map((f) => f.ok)).toEqual([false, true]);
    expect(r.files[0]!.error?.message).toContain("LOREKEEPER_IMPORT_MAX_MB");
    expect(homebrew()).toBe(1);
  });

  test("an entity over the size limits is skipped with the reason, the rest imported", () => {
    const r = importFivetoolsText(
      made.store.db,
      file([spell("Huge", { entries: ["word ".repeat(50_000)] }), spell("Small")]),
      "huge.json",
    );
    expect(r.ok).toBe(true);
    expect(r.packs[0]!.skipped.map((s) => s.reason)).toEqual([expect.stringContaining("too large to import")]);
    expect(homebrew()).toBe(1);
  });
});

describe("names", () => {
  test("control, bidi and zero-width characters are dropped from names and text", () => {
    const r = importFivetoolsText(
      made.store.db,
      file(
        [spell("Mirror\u202e Bolt\u200b\u0007", { entries: ["Text\u2066 with\u202e controls."] })],
        "Bidi\u202e Brew",
      ),
      "bidi.json",
    );
    expect(r.ok).toBe(true);
    const row = made.store.db
      .query<{ name: string; document_name: string; text: string; data: string }, []>(
        "SELECT name, document_name, text, data FROM entities WHERE document_source = '5etools'",
      )
      .get()!;
    expect(row.name).toBe("Mirror Bolt");
    expect(row.document_name).toBe("Bidi Brew");
    for (const s of [row.text, row.data])
      expect(s).not.toMatch(/[\u0000-\u0008\u200b-\u200f\u202a-\u202e\u2066-\u2069]/);
  });

  test("look-alike names of official entities are skipped without --force and kept beside them with it", () => {
    const spoofs = [spell("F\u0456reball"), spell("Fire\u200bball"), spell("F\u0131reball"), spell("Ember Lance")];
    const r = importFivetoolsText(made.store.db, file(spoofs), "spoof.json");
    expect(r.packs[0]!.skipped.map((s) => s.reason)).toEqual(Array(3).fill(expect.stringContaining('"Fireball"')));
    expect(r.imported).toBe(1);
    const official = () =>
      made.store.db
        .query<{ n: number }, []>(
          "SELECT COUNT(*) AS n FROM entities WHERE name = 'Fireball' AND document_source <> '5etools'",
        )
        .get()!.n;
    const before = official();
    const forced = importFivetoolsText(made.store.db, file(spoofs), "spoof.json", { force: true });
    expect(forced.imported).toBe(4);
    expect(official()).toBe(before);
  });

  test("a source named like an official document is marked homebrew", () => {
    for (const full of ["System Reference Document 5.2", "Sуstem Reference Document 5.2", "SRD Extras"]) {
      const r = importFivetoolsText(made.store.db, file([spell(`Odd ${full.length}`)], full), "official.json");
      expect(r.packs[0]!.name).toEndWith("(homebrew)");
      const doc = made.store.db
        .query<{ name: string }, []>("SELECT name FROM documents WHERE key = '5etools-hx'")
        .get();
      expect(doc?.name).toEndWith("(homebrew)");
    }
  });
});
