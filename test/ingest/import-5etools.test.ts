/**
 * 5etools homebrew into a real store: documents per source, re-import without changes, the
 * filters and searches of the tools over a real MCP client, mixed folders, and — when
 * ../shared/data/5etools exists — every real file there.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { copyFileSync, existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { importHomebrewFile, importHomebrewFiles } from "../../src/ingest/import-5etools.ts";
import type { SpellData } from "../../src/entities/kinds.ts";
import type { JsonObject } from "../../src/entities/types.ts";
import { listDocuments } from "../../src/store/documents.ts";
import { replaceOrigin } from "../../src/store/entities.ts";
import { openStore, type Store } from "../../src/store/db.ts";
import { connectInMemory, makeDeps, namesOf, textOf } from "../support/mcp.ts";
import { makeEntity } from "../support/entities.ts";
import { makeTempDir } from "../support/tmp.ts";

const FIXTURE = join(import.meta.dir, "../fixtures/5etools/ember-forge.json");
const ORCBREW = join(import.meta.dir, "../fixtures/orcbrew/all-types.orcbrew");
const SHARED = join(import.meta.dir, "../../../shared/data/5etools");

let tmp: ReturnType<typeof makeTempDir>;
let store: Store;
let client: Client;
let close: () => Promise<void>;

beforeAll(async () => {
  tmp = makeTempDir("lk-5etools-");
  store = openStore({ path: join(tmp.dir, "lk.db") });
  const r = importHomebrewFile(store.db, FIXTURE);
  expect(r.ok).toBe(true);
  ({ client, close } = await connectInMemory(makeDeps(store)));
});

afterAll(async () => {
  await close();
  store.close();
  tmp.cleanup();
});

const call = async (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args });

describe("import into the store", () => {
  test("each source is a homebrew document of source 5etools", () => {
    const docs = listDocuments(store.db, "5etools");
    expect(docs.map((d) => [d.key, d.name, d.source]).sort()).toEqual([
      ["5etools-ember-beasts", "Beasts of the Ember Forge", "5etools"],
      ["5etools-ember-forge", "The Ember Forge", "5etools"],
    ]);
    const row = store.db
      .query<{ url: string; description: string }, []>(
        "SELECT url, description FROM documents WHERE key = '5etools-ember-forge'",
      )
      .get()!;
    expect(row.url).toStartWith("file://");
    expect(row.description).toContain('5etools homebrew source "EmberForge" v1.0 by Test Author');
  });

  test("a second import changes nothing", () => {
    const before = store.db
      .query<{ n: number }, []>("SELECT COUNT(*) AS n FROM entities WHERE document_source = '5etools'")
      .get()!.n;
    const r = importHomebrewFile(store.db, FIXTURE);
    expect(r.ok).toBe(true);
    for (const p of r.packs) expect(p.store).toMatchObject({ inserted: 0, updated: 0, deleted: 0 });
    expect(
      store.db.query<{ n: number }, []>("SELECT COUNT(*) AS n FROM entities WHERE document_source = '5etools'").get()!
        .n,
    ).toBe(before);
  });

  test("found by name, by filters and by words, with rendered text and no raw tags", async () => {
    const byName = await call("search_spell", { name: "Cinder Bloom" });
    expect(textOf(byName)).toContain("DC 14 Dexterity saving throw");
    const spells = await call("search_spell", { level: 3, school: "evocation", documents: ["5etools-ember-forge"] });
    expect(namesOf(spells)).toEqual(["Cinder Bloom"]);
    const creatures = await call("search_creature", {
      cr: 7,
      type: "dragon",
      environment: "mountain",
      legendary: true,
      casts: "fireball",
      inflicts: "prone",
      sense: "blindsight",
    });
    expect(namesOf(creatures)).toContain("Forge Drake");
    const items = await call("search_equipment", { rarity: "rare", documents: ["5etools-ember-forge"] });
    expect(namesOf(items)).toEqual(["Emberheart Hammer"]);
    const words = await call("search_creature", { search: "molten slag breath" });
    expect(namesOf(words)[0]).toBe("Forge Drake");
    const full = await call("search_creature", { name: "Forge Drake", detail: "full" });
    expect(textOf(full)).toContain("Melee Weapon Attack: +8 to hit");
    for (const r of [byName, spells, creatures, items, words, full]) expect(JSON.stringify(r)).not.toContain("{@");
  });

  test("list_documents names the format", async () => {
    const r = await call("list_documents", { source: "5etools" });
    expect(textOf(r)).toContain('"source":"5etools"');
  });
});

describe("files and folders of both formats", () => {
  test("a folder imports every .json and .orcbrew file in it, each by its own importer", () => {
    const dir = makeTempDir("lk-5etools-dir-");
    try {
      copyFileSync(FIXTURE, join(dir.dir, "ember.json"));
      copyFileSync(ORCBREW, join(dir.dir, "forge.orcbrew"));
      const s = openStore({ path: join(dir.dir, "lk.db") });
      try {
        const r = importHomebrewFiles(s.db, [dir.dir]);
        expect(r.files.map((f) => [f.file.split("/").pop(), f.format, f.ok])).toEqual([
          ["ember.json", "5etools", true],
          ["forge.orcbrew", "orcbrew", true],
        ]);
        const sources = s.db
          .query<{ source: string }, []>("SELECT DISTINCT source FROM documents ORDER BY source")
          .all()
          .map((x) => x.source);
        expect(sources).toEqual(["5etools", "orcbrew"]);
      } finally {
        s.close();
      }
    } finally {
      dir.cleanup();
    }
  });
});

describe.if(existsSync(SHARED))("the real community files in ../shared/data/5etools", () => {
  test(
    "every file imports with ≥ 98 % of its records stored, each " +
      "one not stored with a reason; a second import changes nothing",
    () => {
      const dir = makeTempDir("lk-5etools-shared-");
      const s = openStore({ path: join(dir.dir, "lk.db") });
      try {
        const files = readdirSync(SHARED).filter((f) => f.endsWith(".json"));
        expect(files.length).toBeGreaterThan(0);
        const first = importHomebrewFiles(
          s.db,
          files.map((f) => join(SHARED, f)),
        );
        for (const f of first.files) {
          expect(f.ok).toBe(true);
          const types = f.packs.flatMap((p) => p.types);
          const found = types.reduce((n, t) => n + t.found, 0);
          const stored = types.reduce((n, t) => n + t.imported + ((t as { folded?: number }).folded ?? 0), 0);
          expect(stored / found).toBeGreaterThanOrEqual(0.98);
          for (const p of f.packs) for (const sk of p.skipped) expect(sk.reason.length).toBeGreaterThan(10);
        }
        const raw = s.db
          .query<{ n: number }, []>(
            "SELECT COUNT(*) AS n FROM entities WHERE document_source " +
              "= '5etools' AND (text LIKE '%{@%' OR data LIKE '%{@%')",
          )
          .get()!.n;
        expect(raw).toBe(0);
        const again = importHomebrewFiles(
          s.db,
          files.map((f) => join(SHARED, f)),
        );
        for (const f of again.files)
          for (const p of f.packs) expect(p.store).toMatchObject({ inserted: 0, updated: 0, deleted: 0 });
      } finally {
        s.close();
        dir.cleanup();
      }
    },
  );
});

describe("a _copy of an official spell that is not in the file", () => {
  const COPY = join(import.meta.dir, "../fixtures/5etools/copy-of-official.json");
  const fireball: SpellData = {
    level: 3,
    school: "evocation",
    casting_time: "1 action",
    range: "150 feet",
    range_ft: 150,
    duration: "Instantaneous",
    concentration: false,
    ritual: false,
    components: {
      verbal: true,
      somatic: true,
      material: true,
      material_text: "a ball of bat guano",
      material_cost: null,
      material_consumed: null,
    },
    desc: "A streak of flame blossoms into a fiery blast.",
    higher_level: null,
    classes: ["sorcerer", "wizard"],
    damage_types: ["fire"],
    saving_throw: "dexterity",
    attack_roll: null,
    damage_roll: "8d6",
    area: null,
    reaction_condition: null,
  };

  test("takes what it does not state from the store's spell of that name, with a note", () => {
    const dir = makeTempDir("lk-5etools-copy-");
    const s = openStore({ path: join(dir.dir, "lk.db") });
    try {
      const official = {
        ...makeEntity("spell", "Fireball", { level: 3, school: "evocation" }),
        data: fireball as unknown as JsonObject,
      };
      replaceOrigin(
        s.db,
        "open5e_v2:spells",
        [official],
        [{ key: "srd-2014", name: "System Reference Document 5.1", source: "open5e_v2" }],
      );
      const r = importHomebrewFile(s.db, COPY);
      expect(r.ok).toBe(true);
      const pack = r.packs[0]!;
      expect(pack.warnings.join("\n")).toContain(
        '"Fireball" (PHB) is not in this file; what the copy does ' +
          "not state comes from Fireball (srd-2014) in the store",
      );
      const row = s.db
        .query<{ data: string; text: string }, []>("SELECT data, text FROM entities WHERE name = 'Frostburst'")
        .get()!;
      const d = JSON.parse(row.data) as SpellData;
      expect([d.level, d.school, d.casting_time, d.range, d.duration]).toEqual([
        3,
        "evocation",
        "1 action",
        "150 feet",
        "Instantaneous",
      ]);
      expect(d.components.material_text).toBe("a chip of blue glass");
      expect(d.damage_types).toEqual(["cold"]);
      expect(row.text).toContain("ring of sleet");
      expect(row.text).not.toContain("{@");
      // The copy of a spell the store does not hold either is reported, not stored.
      expect(pack.skipped.map((x) => [x.name, x.reason])).toEqual([
        [
          "Echo of Nothing",
          expect.stringContaining('its _copy base "Spell Nobody Wrote" (PHB) is neither in this file nor in the store'),
        ],
      ]);
    } finally {
      s.close();
      dir.cleanup();
    }
  });
});
