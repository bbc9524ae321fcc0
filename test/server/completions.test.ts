/**
 * completion/complete over a real store: the 100-value cap with total / hasMore, prefix matching, wildcards taken
 * literally.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { complete } from "../../src/server/features/completions.ts";
import type { Store } from "../../src/store/db.ts";
import { makeEntity, makeStore } from "../support/entities.ts";

let store: Store;
/** Keys of `kind` by prefix, through the entity template's `key` argument. */
const completeKeys = (db: Store["db"], kind: string, value: string) =>
  complete(db, {
    ref: { type: "ref/resource", uri: "lorekeeper://{kind}/{key}" },
    argument: { name: "key", value },
    context: { arguments: { kind } },
  });
/** Spell names by prefix, through the spell_card prompt's `name` argument. */
const spellNames = (db: Store["db"], value: string) =>
  complete(db, { ref: { type: "ref/prompt", name: "spell_card" }, argument: { name: "name", value } });
let cleanup: () => void;

beforeAll(() => {
  const spells = Array.from({ length: 150 }, (_, i) =>
    makeEntity("spell", `Flame ${String(i).padStart(3, "0")}`, { level: 1 }),
  );
  const odd = [
    makeEntity("spell", "100% Fire", { level: 1 }),
    makeEntity("spell", "100 Fires", { level: 1 }),
    makeEntity("spell", "Ember_Spark", { level: 0 }),
    makeEntity("spell", "Emberglow", { level: 0 }),
  ];
  const creatures = [
    makeEntity("creature", "Flame Skull", { cr: 4 }),
    makeEntity("creature", "Flameborn", { cr: 2 }, { doc: "tob" }),
  ];
  const subclasses = [makeEntity("subclass", "Flame Domain", {})];
  ({ store, cleanup } = makeStore([...spells, ...odd, ...creatures, ...subclasses]));
});
afterAll(() => cleanup());

describe("completions", () => {
  test("more than 100 matches: 100 values in name order, the total, hasMore", () => {
    const c = completeKeys(store.db, "spell", "flame");
    expect(c.values).toHaveLength(100);
    expect(c.values[0]).toBe("srd_flame-000");
    expect(c.values[99]).toBe("srd_flame-099");
    expect(c.total).toBe(150);
    expect(c.hasMore).toBe(true);
    const names = spellNames(store.db, "Flame 14");
    expect(names).toEqual({ values: Array.from({ length: 10 }, (_, i) => `Flame 14${i}`), total: 10, hasMore: false });
  });

  test("prefix by name or by key; other kinds stay out", () => {
    expect(completeKeys(store.db, "creature", "flame").values).toEqual(["srd_flame-skull", "tob_flameborn"]);
    expect(completeKeys(store.db, "creature", "tob_").values).toEqual(["tob_flameborn"]);
    expect(completeKeys(store.db, "creature", "zzz")).toEqual({ values: [], total: 0, hasMore: false });
  });

  test("% and _ in the value match themselves", () => {
    expect(spellNames(store.db, "100%").values).toEqual(["100% Fire"]);
    expect(spellNames(store.db, "Ember_").values).toEqual(["Ember_Spark"]);
  });

  test("through complete(): kinds, keys need a kind in the context, unknown refs are -32602", () => {
    const uri = "lorekeeper://{kind}/{key}";
    expect(
      complete(store.db, { ref: { type: "ref/resource", uri }, argument: { name: "kind", value: "magic-" } }).values,
    ).toEqual(["magic_item", "magic_school"]);
    expect(
      complete(store.db, { ref: { type: "ref/resource", uri }, argument: { name: "key", value: "flame" } }).values,
    ).toEqual([]);
    expect(
      complete(store.db, {
        ref: { type: "ref/resource", uri },
        argument: { name: "key", value: "flame" },
        context: { arguments: { kind: "Creature" } },
      }).total,
    ).toBe(2);
    expect(() =>
      complete(store.db, {
        ref: { type: "ref/resource", uri: "lorekeeper://nope/{x}" },
        argument: { name: "x", value: "" },
      }),
    ).toThrow(/Unknown resource template/);
    expect(() =>
      complete(store.db, { ref: { type: "ref/prompt", name: "nope" }, argument: { name: "x", value: "" } }),
    ).toThrow(/Unknown prompt "nope". Prompts: prepare_encounter/);
  });

  test("compare_editions names: the kinds it compares, not subclasses (its prompt refuses them)", () => {
    const names = (value: string) =>
      complete(store.db, { ref: { type: "ref/prompt", name: "compare_editions" }, argument: { name: "name", value } })
        .values;
    expect(names("Flame S")).toEqual(["Flame Skull"]);
    expect(names("Flame D")).toEqual([]);
  });
});
