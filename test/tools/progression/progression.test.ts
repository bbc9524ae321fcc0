/**
 * Class level tables against the raw upstream shapes: the D&D 5e API's level records (fetched per
 * class by a real sync from the fake upstream), Open5e v2 class-table columns and the Open5e v1
 * markdown table, each read back through class_progression's lookup.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { loadConfig } from "../../../src/config.ts";
import { runSync } from "../../../src/ingest/sync.ts";
import { HttpClient } from "../../../src/sources/http.ts";
import { openStore, type Store } from "../../../src/store/db.ts";
import { replaceOrigin } from "../../../src/store/entities.ts";
import { createHttpCache } from "../../../src/store/http-cache.ts";
import { classLevels, type ClassLevels } from "../../../src/tools/progression/lookup.ts";
import { parseMarkdownTable, rowsFromTable } from "../../../src/tools/progression/table.ts";
import { contentType, fixture, run, UPSTREAM } from "../../entities/fixtures.ts";
import { startFakeUpstream, type FakeUpstream } from "../../support/fake-upstream.ts";
import { makeTempDir } from "../../support/tmp.ts";
import { upstreamsAt } from "../../../src/sources/index.ts";

type Raw = Record<string, any>;

function levelsOf(r: ClassLevels | string): ClassLevels {
  if (typeof r === "string") throw new Error(r);
  return r;
}

/** Slots of one raw D&D 5e API level record, trailing zeros dropped. */
function rawSlots(rec: Raw): number[] {
  const s = Array.from({ length: 9 }, (_, i) => Number(rec.spellcasting?.[`spell_slots_level_${i + 1}`] ?? 0));
  while (s.length && s[s.length - 1] === 0) s.pop();
  return s;
}

describe("D&D 5e API: /classes/{index}/levels through a real sync", () => {
  let fake: FakeUpstream;
  let tmp: ReturnType<typeof makeTempDir>;
  let store: Store;
  beforeAll(async () => {
    fake = await startFakeUpstream({ dataDir: UPSTREAM });
    tmp = makeTempDir();
    store = openStore({ path: join(tmp.dir, "lk.db") });
    const cfg = { ...loadConfig(), ...upstreamsAt(fake.url), httpRetries: 0 };
    const http = new HttpClient({ cache: createHttpCache(store.db, cfg), retries: 0, baseDelayMs: 1, maxDelayMs: 5 });
    const report = await runSync(store, {
      sources: ["dnd5e_api"],
      types: ["classes", "subclasses"],
      config: cfg,
      http,
    });
    expect(report.results.filter((r) => r.contentType.endsWith("/classes")).map((r) => r.status)).toEqual(["ok", "ok"]);
  });
  afterAll(async () => {
    store.close();
    tmp.cleanup();
    await fake.stop();
  });

  test("the level route was asked once per class and year", () => {
    const paths = fake.requests.map((r) => r.path).filter((p) => p.endsWith("/levels"));
    expect(new Set(paths)).toEqual(
      new Set([
        "/api/2014/classes/wizard/levels",
        "/api/2014/classes/paladin/levels",
        "/api/2024/classes/wizard/levels",
      ]),
    );
  });

  for (const [year, doc] of [
    ["2014", "srd-2014"],
    ["2024", "srd-2024"],
  ] as const) {
    test(`${year} Wizard: every level's proficiency bonus, cantrips and slots equal the raw records`, () => {
      const raw = fixture(`dnd5eapi/${year}/levels.json`).filter((r) => r.class.index === "wizard" && !r.subclass);
      expect(raw).toHaveLength(20);
      const t = levelsOf(classLevels(store.db, { class: "Wizard", documents: [doc] }));
      expect(t.class.key).toBe(`${year}-wizard`);
      expect(t.levels).toHaveLength(20);
      for (const rec of raw) {
        const row = t.levels[rec.level - 1]!;
        expect(row.level).toBe(rec.level);
        expect(row.proficiency_bonus).toBe(`+${rec.prof_bonus}`);
        expect(row.cantrips_known).toBe(String(rec.spellcasting.cantrips_known));
        expect(row.spell_slots ?? []).toEqual(rawSlots(rec));
        expect(row.features).toEqual(rec.features.map((f: Raw) => f.name));
        if (year === "2024") expect(row.prepared_spells).toBe(String(rec.spellcasting.prepared_spells));
      }
      // The book's numbers, independently: a 5th-level wizard has 4/3/2 slots, a 20th-level one 4/3/3/3/3/2/2/1/1.
      expect(t.levels[4]!.spell_slots).toEqual([4, 3, 2]);
      expect(t.levels[19]!.spell_slots).toEqual([4, 3, 3, 3, 3, 2, 2, 1, 1]);
    });
  }

  test("2014 Wizard has its class column (Arcane Recovery Levels); a subclass adds its features", () => {
    const t = levelsOf(classLevels(store.db, { class: "wizard", subclass: "Evocation", documents: ["srd-2014"] }));
    expect(t.columns).toContain("Arcane Recovery Levels");
    expect(t.levels[4]!.other?.["Arcane Recovery Levels"]).toBe("3");
    expect(t.subclass?.name).toBe("Evocation");
    expect(t.levels[1]!.features.some((f) => f.endsWith("(Evocation)"))).toBe(true);
  });

  test("Paladin (a half caster) gets slots from level 2; unknown class and subclass say what exists", () => {
    const t = levelsOf(classLevels(store.db, { class: "Paladin" }));
    expect(t.levels[0]!.spell_slots).toBeUndefined();
    expect(t.levels[1]!.spell_slots).toEqual([2]);
    const none = classLevels(store.db, { class: "Artificer" });
    expect(none).toContain('No class "Artificer"');
    expect(none).toContain("Wizard");
    expect(classLevels(store.db, { class: "Wizard", subclass: "Nope" })).toContain("Wizard subclasses:");
  });
});

describe("Open5e class tables", () => {
  let tmp: ReturnType<typeof makeTempDir>;
  let store: Store;
  beforeAll(() => {
    tmp = makeTempDir();
    store = openStore({ path: join(tmp.dir, "lk.db") });
    replaceOrigin(store.db, "open5e_v2:classes", run(contentType("open5e_v2", "classes")).entities);
    replaceOrigin(store.db, "open5e_v1:classes", run(contentType("open5e_v1", "classes")).entities);
  });
  afterAll(() => {
    store.close();
    tmp.cleanup();
  });

  test("v2 SRD 5.2 Wizard: columns from data_for_class_table, features from gained_at", () => {
    const raw = fixture("open5e/v2/classes.json").find((c) => c.key === "srd-2024_wizard")!;
    const column = (name: string) =>
      new Map<number, string>(
        raw.features.find((f: Raw) => f.name === name).data_for_class_table.map((c: Raw) => [c.level, c.column_value]),
      );
    const t = levelsOf(classLevels(store.db, { class: "srd-2024_wizard" }));
    expect(t.class.document_key).toBe("srd-2024");
    const slots1 = column("1st");
    expect(slots1.size).toBe(20);
    const cantrips = column("Cantrips");
    for (const row of t.levels) {
      expect(row.cantrips_known).toBe(cantrips.get(row.level));
      expect(row.spell_slots?.[0]).toBe(Number(slots1.get(row.level)));
    }
    const gainedAt = (name: string) =>
      raw.features
        .find((f: Raw) => f.name === name)
        .gained_at.map((g: Raw) => g.level)
        .sort((a: number, b: number) => a - b);
    for (const l of gainedAt("Ability Score Improvement"))
      expect(t.levels[l - 1]!.features).toContain("Ability Score Improvement");
  });

  test("v1 Wizard: the published markdown table", () => {
    const rawTable = fixture("open5e/v1/classes.json")[0]!.table as string;
    const parsed = parseMarkdownTable(rawTable)!;
    expect(parsed.head[0]).toBe("Level");
    const rows = rowsFromTable(rawTable)!;
    expect(rows.hasFeatures).toBe(true);
    const t = levelsOf(classLevels(store.db, { class: "Wizard", documents: ["wotc-srd"] }));
    const first = parsed.rows[0]!;
    expect(t.levels[0]!.features).toEqual(first[2]!.split(",").map((s) => s.trim()));
    expect(t.levels[0]!.proficiency_bonus).toBe(first[1]!);
  });
});

describe("markdown level tables", () => {
  test("OrcBrew's per-level 'new' columns stay class columns, not totals", () => {
    const md = [
      "| Level | Cantrips Known (new) | Spells Known (new) |",
      "| --- | --- | --- |",
      "| 1 | 2 | 4 |",
      "| 3 |  | 1 |",
    ].join("\n");
    const t = rowsFromTable(md)!;
    expect(t.columns).toEqual(["Cantrips Known (new)", "Spells Known (new)"]);
    expect(t.rows.get(1)).toEqual({
      level: 1,
      proficiency_bonus: null,
      features: [],
      other: { "Cantrips Known (new)": "2", "Spells Known (new)": "4" },
    });
    expect(t.rows.get(3)?.cantrips_known).toBeUndefined();
    expect(t.hasFeatures).toBe(false);
  });

  test("ordinal levels, dashes for no slots, a pact-magic style table", () => {
    const md = [
      "| Level | Proficiency Bonus | Features | Spells Known | Spell Slots | Slot Level | 1st | 2nd |",
      "|-------|---|---|---|---|---|---|---|",
      "| 1st | +2 | Otherworldly Patron, Pact Magic | 2 | 1 | 1st | - | - |",
      "| 2nd | +2 | - | 3 | 2 | 1st | 0 | — |",
      "| 3rd | 2 | Pact Boon | 4 | 2 | 2nd | 3 | 1 |",
      "| 21st | +7 | nonsense | 1 | 1 | 1st | 1 | 1 |",
    ].join("\n");
    const t = rowsFromTable(md)!;
    expect([...t.rows.keys()]).toEqual([1, 2, 3]);
    expect(t.rows.get(1)).toMatchObject({
      proficiency_bonus: "+2",
      features: ["Otherworldly Patron", "Pact Magic"],
      spells_known: "2",
      other: { "Spell Slots": "1", "Slot Level": "1st" },
    });
    expect(t.rows.get(1)!.spell_slots).toBeUndefined();
    expect(t.rows.get(2)!.features).toEqual([]);
    expect(t.rows.get(3)).toMatchObject({ proficiency_bonus: "+2", spell_slots: [3, 1] });
    expect(rowsFromTable("no table here")).toBeNull();
    expect(rowsFromTable("| A | B |\n|---|---|\n| 1 | 2 |")).toBeNull();
  });
});

describe("OrcBrew homebrew class (no table, a caster level factor)", () => {
  test("slots from the multiclass table by caster level; it equals the full caster's raw level data", async () => {
    const { importOrcbrewFile } = await import("../../../src/ingest/import-orcbrew.ts");
    const { SLOTS_BY_CASTER_LEVEL } = await import("../../../src/tools/progression/slots.ts");
    const wizard = fixture("dnd5eapi/2014/levels.json").filter((r) => r.class.index === "wizard" && !r.subclass);
    for (const rec of wizard) expect([...SLOTS_BY_CASTER_LEVEL[rec.level - 1]!]).toEqual(rawSlots(rec));
    const tmp = makeTempDir();
    const store = openStore({ path: join(tmp.dir, "lk.db") });
    try {
      importOrcbrewFile(store.db, join(import.meta.dir, "..", "..", "fixtures", "orcbrew", "all-types.orcbrew"));
      const t = levelsOf(classLevels(store.db, { class: "Ember Knight", subclass: "Cinder Oath" }));
      expect(t.note).toContain("caster type");
      expect(t.levels[0]).toMatchObject({ level: 1, proficiency_bonus: "+2" });
      expect(t.levels[0]!.features).toContain("Kindled Blade");
      expect(t.levels[0]!.spell_slots).toBeUndefined(); // half caster: caster level 0
      expect(t.levels[1]!.spell_slots).toEqual([2]);
      expect(t.levels[4]!.spell_slots).toEqual([3]);
      expect(t.levels[19]!.spell_slots).toEqual([4, 3, 3, 3, 2]);
      expect(t.levels[2]!.features).toContain("Ash Ward (Cinder Oath)");
    } finally {
      store.close();
      tmp.cleanup();
    }
  });
});

describe("D&D 5e API level records → table", () => {
  test(
    "class columns as printed: 9999 rages are Unlimited, " + "zero columns and spell columns without values left out",
    async () => {
      const { dndLevelTable } = await import("../../../src/sources/dnd5eapi/normalize/levels.ts");
      // Two real 2014 barbarian records (5e-database), spellcasting-free.
      const recs = [
        {
          level: 1,
          ability_score_bonuses: 0,
          prof_bonus: 2,
          features: [
            { index: "rage", name: "Rage", url: "/api/2014/features/rage" },
            {
              index: "barbarian-unarmored-defense",
              name: "Unarmored Defense",
              url: "/api/2014/features/barbarian-unarmored-defense",
            },
          ],
          class_specific: { rage_count: 2, rage_damage_bonus: 2, brutal_critical_dice: 0 },
          index: "barbarian-1",
          class: { index: "barbarian", name: "Barbarian", url: "/api/2014/classes/barbarian" },
          url: "/api/2014/classes/barbarian/levels/1",
        },
        {
          level: 20,
          ability_score_bonuses: 5,
          prof_bonus: 6,
          features: [{ index: "primal-champion", name: "Primal Champion", url: "/api/2014/features/primal-champion" }],
          class_specific: { rage_count: 9999, rage_damage_bonus: 4, brutal_critical_dice: 3 },
          index: "barbarian-20",
          class: { index: "barbarian", name: "Barbarian", url: "/api/2014/classes/barbarian" },
          url: "/api/2014/classes/barbarian/levels/20",
        },
      ];
      const md = dndLevelTable(recs, "barbarian")!;
      const t = rowsFromTable(md)!;
      // Under the SRD table's headers and as it prints them (Rages, Rage Damage "+2").
      expect(t.columns).toEqual(["Rages", "Rage Damage", "Brutal Critical Dice"]);
      const other = { Rages: "2", "Rage Damage": "+2", "Brutal Critical Dice": "—" };
      const features = ["Rage", "Unarmored Defense"];
      expect(t.rows.get(1)).toEqual({ level: 1, proficiency_bonus: "+2", features, other });
      expect(t.rows.get(20)!.other!.Rages).toBe("Unlimited");
      expect(dndLevelTable(recs, "wizard")).toBeNull();
    },
  );
});
