import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { EntityKind } from "../../../src/entities/types.ts";
import { castingTimeVariants, escapeLike, vocabularyVariants } from "../../../src/search/filter/filters.ts";
import { runSearch } from "../../../src/search/hybrid.ts";
import type { SearchQuery, StructuredFilters } from "../../../src/search/types.ts";
import type { Store } from "../../../src/store/db.ts";
import { makeStore, sampleEntities } from "../../support/entities.ts";
import { ctxOf, labels, names } from "../helpers.ts";

let store: Store;
let cleanup: () => void;
beforeAll(() => {
  ({ store, cleanup } = makeStore());
});
afterAll(() => cleanup());

const run = (q: Partial<SearchQuery>) => runSearch(ctxOf(store), { kinds: ["spell"], limit: 100, ...q });
const spells = async (filters: StructuredFilters) => names(await run({ filters }));
const of = async (kinds: EntityKind[], filters: StructuredFilters) => names(await run({ kinds, filters }));

describe("pure helpers", () => {
  test("casting time spellings", () => {
    expect(castingTimeVariants("Bonus Action")).toContain("1 bonus action");
    expect(castingTimeVariants("bonus-action")).toContain("1 bonus action");
    expect(castingTimeVariants("1minute")).toContain("1 minute");
    expect(castingTimeVariants("10 Minutes")).toContain("10 minutes");
    expect(castingTimeVariants("an action")).toContain("1 action");
    expect(castingTimeVariants("action")).not.toContain("1 bonus action");
  });
  test("vocabulary spellings and LIKE escaping", () => {
    expect(vocabularyVariants(" Very-Rare ")).toEqual(expect.arrayContaining(["very-rare", "very rare"]));
    expect(escapeLike("a_b%c\\d")).toBe("a\\_b\\%c\\\\d");
  });
});

describe("structured filters (each alone)", () => {
  test("level, exact and inclusive ranges", async () => {
    expect(await spells({ level: 1 })).toEqual([
      "Cure Wounds",
      "Detect Magic",
      "Healing Word",
      "Identify",
      "Magic Missile",
      "Shield",
    ]);
    expect(await spells({ level_min: 4, level_max: 5 })).toEqual([
      "Fire Shield",
      "Hellfire Orb",
      "Ice Storm",
      "Wall of Fire",
    ]);
    expect(await spells({ level_min: 5 })).toEqual(["Hellfire Orb"]);
    expect(await spells({ level_max: 0 })).toEqual(["Ember_Spark", "EmberXSpark", "Fire Bolt"]);
  });

  test("school is case-insensitive", async () => {
    expect(await spells({ school: "DIVINATION" })).toEqual(["Detect Magic", "Identify"]);
    expect(await spells({ school: "abjuration" })).toEqual(["Shield"]);
  });

  test("class_key matches one element of the class list (bare or prefixed key)", async () => {
    const druid = ["Cure Wounds", "Healing Word", "Ice Storm", "Wall of Fire"];
    expect(await spells({ class_key: "Druid" })).toEqual(druid);
    expect(await spells({ class_key: "srd_druid" })).toEqual(druid);
    expect(await spells({ class_key: "warlock" })).toEqual(["Hellfire Orb"]);
    expect(await spells({ class_key: "wiz" })).toEqual([]);
    expect(await spells({ class_key: "%" })).toEqual([]);
  });

  test("concentration and ritual", async () => {
    expect(await spells({ concentration: true })).toEqual(["Detect Magic", "Wall of Fire"]);
    expect((await spells({ concentration: false })).length).toBe(15);
    expect(await spells({ ritual: true })).toEqual(["Detect Magic", "Identify"]);
  });

  test("casting_time is tolerant of how it is written", async () => {
    for (const ct of ["bonus action", "Bonus-Action", "1 bonus action", "1 Bonus Action"])
      expect(await spells({ casting_time: ct })).toEqual(["Healing Word"]);
    for (const ct of ["reaction", "1 Reaction", "1 reaction, which you take when you are hit"])
      expect(await spells({ casting_time: ct })).toEqual(["Shield"]);
    for (const ct of ["1 minute", "1minute", "minute"])
      expect(await spells({ casting_time: ct })).toEqual(["Identify"]);
    const actions = await spells({ casting_time: "1 Action" });
    expect(actions).toEqual(await spells({ casting_time: "action" }));
    expect(actions.length).toBe(14);
    expect(actions).not.toContain("Healing Word");
  });

  test("damage_type against the damage list", async () => {
    expect(await spells({ damage_type: "COLD" })).toEqual(["Fire Shield", "Ice Storm"]);
    expect(await spells({ damage_type: "necrotic" })).toEqual(["Hellfire Orb"]);
    expect(await spells({ damage_type: "fir" })).toEqual([]);
    expect(await of(["weapon"], { damage_type: "slashing" })).toEqual(["Handaxe", "Longsword"]);
  });

  test("cr accepts numbers and fractions", async () => {
    expect(await of(["creature"], { cr: "1/4" })).toEqual(["Goblin", "Zombie"]);
    expect(await of(["creature"], { cr: 0.25 })).toEqual(["Goblin", "Zombie"]);
    expect(await of(["creature"], { cr: "1/8" })).toEqual(["Kobold"]);
    expect(await of(["creature"], { cr: "24" })).toEqual(["Ancient Red Dragon"]);
    expect(await of(["creature"], { cr_min: "1/4", cr_max: 8 })).toEqual([
      "Fire Drake",
      "Goblin",
      "Wraith",
      "Young Green Dragon",
      "Zombie",
    ]);
    expect(await of(["creature"], { cr_min: 17 })).toEqual(["Ancient Red Dragon", "Dragon Turtle"]);
  });

  test("creature type, size, AC and HP minimums (inclusive)", async () => {
    expect(await of(["creature"], { creature_type: "Undead" })).toEqual(["Vampire", "Wraith", "Zombie"]);
    expect(await of(["creature"], { size: "LARGE" })).toEqual(["Fire Drake", "Young Green Dragon"]);
    expect(await of(["creature"], { armor_class_min: 18 })).toEqual([
      "Ancient Red Dragon",
      "Dragon Turtle",
      "Young Green Dragon",
    ]);
    expect(await of(["creature"], { hit_points_min: 136 })).toEqual([
      "Ancient Red Dragon",
      "Dragon Turtle",
      "Vampire",
      "Young Green Dragon",
    ]);
  });

  test("equipment filters", async () => {
    const gear: EntityKind[] = ["weapon", "armor", "magic_item"];
    expect(await of(gear, { category: "Simple Melee" })).toEqual(["Dagger", "Handaxe"]);
    expect(await of(gear, { category: "simple-melee" })).toEqual(["Dagger", "Handaxe"]);
    expect(await of(gear, { rarity: "Very-Rare" })).toEqual(["Dwarven Thrower"]);
    expect(await of(gear, { rarity: "very rare" })).toEqual(["Dwarven Thrower"]);
    expect(await of(gear, { damage_dice: "1D8" })).toEqual(["Longsword"]);
    expect(await of(gear, { is_simple: true })).toEqual(["Dagger", "Handaxe"]);
    expect(await of(gear, { is_simple: false })).toEqual(["Longsword"]);
    expect(await of(gear, { requires_attunement: true })).toEqual(["Dwarven Thrower"]);
    expect(await of(gear, { requires_attunement: false })).toEqual(["Wand of Magic Missiles"]);
    expect(await of(gear, { cost_min: 2, cost_max: 15 })).toEqual(["Dagger", "Handaxe", "Longsword"]);
    expect(await of(gear, { cost_min: 3 })).toEqual(["Chain Mail", "Handaxe", "Longsword"]);
    expect(await of(gear, { weight_max: 2 })).toEqual(["Dagger", "Handaxe"]);
  });

  test("section (rules)", async () => {
    expect(await of(["rule"], { section: "Combat" })).toEqual(["Opportunity Attacks"]);
  });

  test("kinds restrict the search", async () => {
    expect(await of(["class"], {})).toEqual(["Paladin", "Wizard"]);
    expect(await of(["condition", "class"], {})).toEqual(["Grappled", "Paladin", "Wizard"]);
    const r = await run({ kinds: [] });
    expect(r.hits).toEqual([]);
    expect(r.message).toMatch(/content types/);
  });
});

describe("combined filters", () => {
  test("ANDed", async () => {
    expect(await spells({ level: 4, school: "evocation", class_key: "druid", concentration: true })).toEqual([
      "Wall of Fire",
    ]);
    expect(await spells({ damage_type: "fire", level_max: 0 })).toEqual(["Ember_Spark", "EmberXSpark", "Fire Bolt"]);
    expect(await of(["creature"], { creature_type: "dragon", cr_min: 10, size: "gargantuan" })).toEqual([
      "Ancient Red Dragon",
      "Dragon Turtle",
    ]);
    expect(await spells({ level: 1, ritual: true, casting_time: "1 minute" })).toEqual(["Identify"]);
  });
});

describe("invalid values give a message, not an exception", () => {
  test.each([
    [{ level_min: 5, level_max: 3 }, /level_min .* greater than level_max/],
    [{ cr_min: 10, cr_max: "1/2" }, /cr_min .* greater than cr_max/],
    [{ cost_min: 100, cost_max: 1 }, /cost_min .* greater than cost_max/],
    [{ cr: "abc" }, /not a challenge rating/],
    [{ level: Number.NaN }, /level must be a number/],
  ] as Array<[StructuredFilters, RegExp]>)("%p", async (filters, re) => {
    const r = await run({ filters });
    expect(r.hits).toEqual([]);
    expect(r.mode).toBe("structured");
    expect(r.message).toMatch(re);
  });

  test("limit below 1", async () => {
    const r = await run({ limit: 0 });
    expect(r.hits).toEqual([]);
    expect(r.message).toMatch(/limit/);
  });
});

describe("limit and order", () => {
  test("limit is exact when few rows match", async () => {
    expect((await run({ kinds: ["creature"], filters: { creature_type: "undead" }, limit: 2 })).hits.length).toBe(2);
    expect((await run({ kinds: ["creature"], filters: { creature_type: "undead" }, limit: 10 })).hits.length).toBe(3);
    expect((await run({ kinds: ["creature"], filters: { creature_type: "undead" }, limit: 3 })).hits.length).toBe(3);
    expect((await run({ limit: 5 })).hits.length).toBe(5);
  });

  test(
    "structured results: by name, then document preference " +
      "(official SRDs, newer first), then document_key, key; no score",
    async () => {
      const r = await run({});
      expect(r.mode).toBe("structured");
      expect(r.message).toBeUndefined();
      const pref = (d: string) => (d === "srd-2024" ? 0 : d === "srd-2014" ? 1 : 2);
      const expected = sampleEntities()
        .filter((e) => e.kind === "spell")
        .sort((a, b) => {
          const an = a.name.toLowerCase();
          const bn = b.name.toLowerCase();
          if (an !== bn) return an < bn ? -1 : 1;
          return (
            pref(a.document_key) - pref(b.document_key) ||
            (a.document_key < b.document_key ? -1 : a.document_key > b.document_key ? 1 : a.key < b.key ? -1 : 1)
          );
        })
        .map((e) => `${e.name} [${e.document_key}]`);
      expect(labels(r)).toEqual(expected);
      expect(r.total).toBe(expected.length);
      const fb = labels(r).indexOf("Fireball [srd-2024]");
      expect(labels(r)[fb + 1]).toBe("Fireball [srd-2014]");
      for (const h of r.hits) expect(h.similarity_score).toBeUndefined();
      // paging through with a smaller limit gives a prefix of the same order
      expect(labels(await run({ limit: 4 }))).toEqual(expected.slice(0, 4));
    },
  );

  test("hits carry the full entity with data and filters", async () => {
    const r = await run({ kinds: ["creature"], filters: { cr: "1/4" }, limit: 1 });
    const e = r.hits[0]!.entity;
    expect(e.name).toBe("Goblin");
    expect(e.id).toBeGreaterThan(0);
    expect(e.filters.cr).toBe(0.25);
    expect(e.data.name).toBe("Goblin");
    expect(e.document_source).toBe("open5e_v2");
  });
});
