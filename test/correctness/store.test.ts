/**
 * Correctness in the store: `dup_of` follows the sources as they come and go, migration 4 fills its
 * columns for rows stored before it, the derived filters from canonical data, and
 * `lorekeeper search` with the new filter options.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { loadConfig } from "../../src/config.ts";
import { searchCommand } from "../../src/cli/commands/search.ts";
import { UsageError } from "../../src/cli/command.ts";
import { derivedValues } from "../../src/entities/filters.ts";
import { OPEN5E_V1_TYPES } from "../../src/sources/open5e-v1/content-types.ts";
import type { Entity } from "../../src/entities/types.ts";
import { entityUri, parseUriKey } from "../../src/entities/uri.ts";
import { openStore } from "../../src/store/db.ts";
import { duplicatesOf, mergeDuplicates } from "../../src/store/duplicates.ts";
import { deleteOrigin, replaceOrigin } from "../../src/store/entities.ts";
import { makeEntity, undoMigration5 } from "../support/entities.ts";
import { recordQueries } from "../support/sql-seen.ts";
import { runSearch } from "../../src/search/hybrid.ts";
import { noModel } from "../support/mcp.ts";
import { makeTempDir } from "../support/tmp.ts";

const dirs: Array<() => void> = [];
afterEach(() => {
  while (dirs.length) dirs.pop()!();
});

function tempStore() {
  const t = makeTempDir("lk-dup-");
  dirs.push(t.cleanup);
  const path = join(t.dir, "lk.db");
  return { path, store: openStore({ path }) };
}

function fireball(
  source: "open5e_v2" | "open5e_v1" | "dnd5e_api" | "orcbrew",
  key: string,
  data: Record<string, string | null>,
  doc = "srd-2014",
): Entity {
  const e = makeEntity("spell", "Fireball", { level: 3 }, { key, source, doc });
  e.data = { level: 3, desc: "A bright streak.", ...data };
  return e;
}

const dupOf = (db: Database) =>
  Object.fromEntries(
    db
      .query<{ key: string; document_source: string; dup_of: number | null }, []>(
        "SELECT key, document_source, dup_of FROM entities ORDER BY id",
      )
      .all()
      .map((r) => [`${r.document_source}:${r.key}`, r.dup_of]),
  );

describe("one entity per thing per document", () => {
  test("the preferred source answers; the other is marked, and unmarked when the preferred one goes", () => {
    const { store } = tempStore();
    const db = store.db;
    replaceOrigin(db, "open5e_v1:spells", [
      fireball("open5e_v1", "fireball", { higher_level: "More damage." }),
      fireball("open5e_v1", "fireball-a5e", {}, "a5e-ag"),
    ]);
    expect(Object.values(dupOf(db))).toEqual([null, null]);
    replaceOrigin(db, "open5e_v2:spells", [fireball("open5e_v2", "srd_fireball", { higher_level: null })]);
    const v2Id = db.query<{ id: number }, []>("SELECT id FROM entities WHERE key = 'srd_fireball'").get()!.id;
    // Same document: the v1 copy points at v2. Another document (a5e-ag) is another entity.
    expect(dupOf(db)).toEqual({
      "open5e_v1:fireball": v2Id,
      "open5e_v1:fireball-a5e": null,
      "open5e_v2:srd_fireball": null,
    });
    // duplicatesOf (remembered per store version) says the same, and follows each change below.
    const v1Id = db
      .query<{ id: number }, []>("SELECT id FROM entities WHERE key = 'fireball' AND document_source = 'open5e_v1'")
      .get()!.id;
    expect(duplicatesOf(db, [v2Id, v1Id])).toEqual(new Map([[v2Id, [v1Id]]]));
    // A homebrew pack with its own Fireball is its own document: never folded.
    replaceOrigin(db, "orcbrew:pack", [fireball("orcbrew", "fireball", {}, "my-pack")]);
    expect(dupOf(db)["orcbrew:fireball"]).toBeNull();
    expect(duplicatesOf(db, [v2Id])).toEqual(new Map([[v2Id, [v1Id]]]));
    deleteOrigin(db, "open5e_v2:spells");
    expect(dupOf(db)["open5e_v1:fireball"]).toBeNull();
    expect(duplicatesOf(db, [v2Id, v1Id]).size).toBe(0);
    store.close();
  });

  test("a name lookup reads its entry and the entry's copies in one statement, and merges them", async () => {
    const { store } = tempStore();
    replaceOrigin(store.db, "open5e_v1:spells", [fireball("open5e_v1", "fireball", { higher_level: "More damage." })]);
    replaceOrigin(store.db, "open5e_v2:spells", [fireball("open5e_v2", "srd_fireball", { higher_level: null })]);
    const rec = recordQueries(store.db);
    const res = await runSearch(
      { store, embedder: noModel(), embeddingTimeoutMs: 1000 },
      { kinds: ["spell"], name: "fireball", limit: 5, collapse: true, omitText: true },
    );
    rec.stop();
    expect(
      res.hits.map((h) => [
        h.entity.key,
        h.entity.data.higher_level,
        (h.entity.data.merged_from as Array<{ source: string }>).map((m) => m.source),
      ]),
    ).toEqual([["srd_fireball", "More damage.", ["open5e_v1"]]]);
    // What the hit carries goes no further than the merge.
    expect(res.hits.every((h) => h.duplicates === undefined)).toBe(true);
    expect(rec.seen.filter((q) => q.includes("WHERE e.id IN")).length).toBe(1);
    expect(rec.seen.filter((q) => /dup_of IN/.test(q))).toEqual([]);
    store.close();
  });

  test("merging keeps the primary's fields and fills its empty ones, naming their source", () => {
    const primary = fireball("open5e_v2", "srd_fireball", { higher_level: null, range: "150 feet" });
    const v1 = fireball("open5e_v1", "fireball", { higher_level: "More damage.", range: "150 ft" });
    const m = mergeDuplicates(primary, [v1]);
    expect(m.data.higher_level).toBe("More damage.");
    expect(m.data.range).toBe("150 feet");
    expect(m.merged_from).toEqual([{ source: "open5e_v1", key: "fireball", kind: "spell", fields: ["higher_level"] }]);
  });
});

describe("migration 4", () => {
  test("a store written before it gets the derived columns and dup_of filled on open", () => {
    const { path, store } = tempStore();
    const dragon = makeEntity("creature", "Red Dragon", { cr: 17 }, { key: "srd_red-dragon" });
    dragon.data = {
      speed: { walk: 40, fly: 80 },
      senses: "blindsight 60 ft., darkvision 120 ft.",
      damage_immunities: "fire",
      damage_resistances: null,
      condition_immunities: null,
      legendary_actions: [{ name: "Tail" }],
    };
    replaceOrigin(store.db, "open5e_v2:creatures", [dragon]);
    replaceOrigin(store.db, "open5e_v2:spells", [fireball("open5e_v2", "srd_fireball", {})]);
    replaceOrigin(store.db, "open5e_v1:spells", [fireball("open5e_v1", "fireball", {})]);
    store.close();
    // Turn it back into a version 3 store.
    const raw = new Database(path);
    undoMigration5(raw);
    raw.exec("DROP INDEX entities_dup_of");
    for (const c of [
      "speeds",
      "senses",
      "damage_immunities",
      "damage_resistances",
      "condition_immunities",
      "legendary",
      "properties",
      "components",
      "magic",
      "dup_of",
    ])
      raw.exec(`ALTER TABLE entities DROP COLUMN ${c}`);
    raw.exec("UPDATE meta SET value = '3' WHERE key = 'schema_version'");
    raw.close();
    const again = openStore({ path });
    const row = again.db
      .query<{ speeds: string; senses: string; damage_immunities: string; legendary: number }, []>(
        "SELECT speeds, senses, damage_immunities, legendary FROM entities WHERE key = 'srd_red-dragon'",
      )
      .get()!;
    expect(row).toEqual({
      speeds: "|fly|",
      senses: "|blindsight|darkvision|",
      damage_immunities: "|fire|",
      legendary: 1,
    });
    expect(dupOf(again.db)["open5e_v1:fireball"]).toBeNumber();
    again.close();
  });
});

describe("derived filters from canonical data (any source)", () => {
  test("stat-block text: nonmagical B/P/S, cold iron is not cold, A5E fatigue is exhaustion", () => {
    const c = makeEntity("creature", "Fey Knight", {});
    c.data = {
      speed: { walk: 30, swim: 0, burrow: 10, hover: true },
      senses: "truesight 30 ft.",
      damage_resistances: "bludgeoning, piercing, and slashing from nonmagical attacks not made with cold iron",
      damage_immunities: null,
      condition_immunities: "fatigue, charmed",
      legendary_actions: [],
    };
    const v = derivedValues(c);
    expect(v.speeds).toEqual(["burrow", "hover"]);
    expect(v.senses).toEqual(["truesight"]);
    expect(v.damage_resistances).toEqual(["bludgeoning", "piercing", "slashing"]);
    expect(v.condition_immunities).toEqual(["charmed", "exhaustion"]);
    expect(v.legendary).toBe(false);
    expect(v.properties).toBeNull();
  });
});

describe("Open5e v1 spellings", () => {
  const v1 = (endpoint: string, rec: Record<string, unknown>) =>
    OPEN5E_V1_TYPES.find((t) => t.endpoint === endpoint)!.normalize([rec], {
      baseUrl: "http://127.0.0.1",
      documents: new Map(),
    }).entities[0]!;
  const doc = { document__slug: "wotc-srd", document__title: "5e Core Rules" };
  test('"two-handed" stays hyphenated; "bur." is a burrow speed', () => {
    const w = v1("weapons", {
      name: "Crossbow, heavy",
      slug: "crossbow-heavy",
      category: "Martial Ranged Weapons",
      ...doc,
      cost: "50 gp",
      damage_dice: "1d10",
      damage_type: "piercing",
      weight: "18 lb.",
      properties: ["ammunition (range 100/400)", "heavy", "loading", "two-handed"],
    });
    expect((w.data.properties as Array<{ name: string }>).map((p) => p.name)).toEqual([
      "Ammunition",
      "Heavy",
      "Loading",
      "Two-Handed",
    ]);
    expect(derivedValues(w).properties).toEqual(["ammunition", "heavy", "loading", "two-handed"]);
    const m = v1("monsters", {
      name: "Scarab Ruin",
      slug: "scarab-ruin",
      ...doc,
      size: "Large",
      type: "Construct",
      armor_class: 15,
      hit_points: 90,
      speed: { walk: 30, "bur.": 15, climb: 15, fly: 15 },
      challenge_rating: "5",
      cr: 5,
    });
    expect(m.data.speed).toMatchObject({ walk: 30, burrow: 15 });
    expect(derivedValues(m).speeds).toContain("burrow");
  });
});

describe("addresses", () => {
  test("v2 and D&D 5e API keys are bare; v1 and homebrew keys carry their source", () => {
    expect(entityUri("condition", "grappled", "open5e_v2")).toBe("lorekeeper://condition/grappled");
    expect(entityUri("rule", "2014-cover", "dnd5e_api")).toBe("lorekeeper://rule/2014-cover");
    expect(entityUri("condition", "grappled", "open5e_v1")).toBe("lorekeeper://condition/open5e_v1:grappled");
    expect(entityUri("spell", "a b/c", "orcbrew")).toBe("lorekeeper://spell/orcbrew:a%20b%2Fc");
    expect(parseUriKey("open5e_v1:grappled")).toEqual({ sources: ["open5e_v1"], key: "grappled" });
    expect(parseUriKey("grappled")).toEqual({ sources: ["open5e_v2", "dnd5e_api"], key: "grappled" });
    expect(parseUriKey("srd-2014:prone").key).toBe("srd-2014:prone");
  });
});

describe("lorekeeper search with the new filters", () => {
  async function cli(path: string, args: string[]): Promise<{ code: number; out: string }> {
    const out: string[] = [];
    const o = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((c: string | Uint8Array) =>
      out.push(typeof c === "string" ? c : new TextDecoder().decode(c)) > 0) as typeof process.stdout.write;
    try {
      const code = await searchCommand.run([...args, "--db-path", path, "--json"], {
        config: loadConfig(),
        embedder: () => noModel(),
      });
      return { code, out: out.join("") };
    } finally {
      process.stdout.write = o;
    }
  }

  test("--property, --legendary, --class-key; bad values are usage errors", async () => {
    const { path, store } = tempStore();
    const dagger = makeEntity("weapon", "Dagger", {}, { key: "srd_dagger" });
    dagger.data = {
      properties: [
        { name: "Finesse", detail: null },
        { name: "Light", detail: null },
      ],
    };
    const club = makeEntity("weapon", "Club", {}, { key: "srd_club" });
    club.data = { properties: [{ name: "Light", detail: null }] };
    const evoc = makeEntity(
      "subclass",
      "School of Evocation",
      { classes: ["wizard"] },
      { key: "srd_school-of-evocation" },
    );
    const life = makeEntity("subclass", "Life Domain", { classes: ["cleric"] }, { key: "srd_life-domain" });
    replaceOrigin(store.db, "t:w", [dagger, club, evoc, life]);
    store.close();
    const keys = async (args: string[]) =>
      (JSON.parse((await cli(path, args)).out) as { results: Array<{ key: string }> }).results.map((r) => r.key).sort();
    expect(await keys(["--type", "weapon", "--property", "finesse"])).toEqual(["srd_dagger"]);
    expect(await keys(["--type", "weapon", "--property", "light"])).toEqual(["srd_club", "srd_dagger"]);
    expect(await keys(["--type", "subclass", "--class-key", "wizard"])).toEqual(["srd_school-of-evocation"]);
    const bad = JSON.parse((await cli(path, ["--type", "weapon", "--property", "pointy"])).out) as {
      message: string;
      count: number;
    };
    expect(bad.count).toBe(0);
    expect(bad.message).toContain('property "pointy" is not one of');
    await expect(cli(path, ["--type", "creature", "--legendary", "maybe"])).rejects.toThrow(UsageError);
  }, 30_000);
});
