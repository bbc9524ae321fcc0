/**
 * The magic item profiles file as a whole (src/entities/data/item-profiles.json), and the way an
 * item record finds its profile, a variant finding its family's. The whole-corpus check (every
 * SRD magic item has one, recorded rarities match the real records) is scripts/check-profiles.ts;
 * here the fixtures' SRD magic items of every source stand in for it.
 */
import { describe, expect, test } from "bun:test";
import { RARITIES } from "../../src/entities/catalog.ts";
import { CORE_PROFILE_DOCUMENTS, ITEM_PROFILES, itemFamilyKey, itemProfile } from "../../src/entities/profiles.ts";
import type { Entity } from "../../src/entities/types.ts";
import { ALL_TYPES, run } from "./fixtures.ts";

/** Rarity words that read as a rarity wherever they appear ("rare" and "common" are everyday words too). */
const RARITY_WORDS = ["uncommon", "very rare", "legendary", "artifact"];

describe("the magic item profiles file", () => {
  test("has an entry per core item or family: no empty entries, no duplicates", () => {
    expect(ITEM_PROFILES.length).toBeGreaterThan(200);
    const names = new Set<string>();
    const texts = new Set<string>();
    for (const p of ITEM_PROFILES) {
      expect(p.name.trim()).toBe(p.name);
      expect(p.name.length).toBeGreaterThan(0);
      for (const n of [p.name, ...(p.also ?? [])]) {
        expect(names.has(n.toLowerCase()), `${n} is filed twice`).toBe(false);
        names.add(n.toLowerCase());
      }
      expect(texts.has(p.profile), `${p.name}: same profile as another entry`).toBe(false);
      texts.add(p.profile);
      expect(p.profile.length, `${p.name}: profile too short or too long`).toBeGreaterThanOrEqual(40);
      expect(p.profile.length, `${p.name}: profile too short or too long`).toBeLessThanOrEqual(420);
      expect(p.profile, `${p.name}: a profile is plain sentences`).toMatch(/^[A-Z].*[.!]$/);
      expect(p.names.length, `${p.name}: no common names`).toBeGreaterThan(0);
      expect(new Set(p.names.map((n) => n.toLowerCase())).size, `${p.name}: a common name twice`).toBe(p.names.length);
      for (const n of p.names) expect(n.trim().length, `${p.name}: an empty common name`).toBeGreaterThan(0);
      expect(p.documents.length).toBeGreaterThan(0);
      for (const d of p.documents) expect(CORE_PROFILE_DOCUMENTS).toContain(d);
      expect(p.rarities.length).toBeGreaterThan(0);
      for (const r of p.rarities) expect(RARITIES as readonly string[]).toContain(r);
      if (p.variants !== undefined) expect(p.variants).toBe(true);
    }
  });

  test("no profile can contradict its item: no numbers, and rarity words agree", () => {
    const bad: string[] = [];
    for (const p of ITEM_PROFILES) {
      const text = p.profile.toLowerCase();
      if (/\d/.test(p.profile)) bad.push(`${p.name}: a number ("${/\S*\d\S*/.exec(p.profile)![0]}")`);
      for (const r of RARITY_WORDS) {
        const said = new RegExp(`\\b${r}\\b`).test(text);
        const fits = p.rarities.includes(r) || p.rarities.includes("varies");
        if (said && !fits) bad.push(`${p.name}: "${r}" but it is ${p.rarities.join("/")}`);
      }
    }
    expect(bad).toEqual([]);
  });

  test("a variant record finds its family's entry; other names find none", () => {
    expect(itemFamilyKey("Flame Tongue (Longsword)")).toBe("flame tongue");
    expect(itemFamilyKey("Flame Tongue")).toBeNull();
    expect(itemProfile("Flame Tongue (Longsword)", "srd-2014")?.name).toBe("Flame Tongue");
    expect(itemProfile("flame tongue (rapier)", "srd-2024")?.name).toBe("Flame Tongue");
    expect(itemProfile("Flame Tongue Longsword", "srd-2024")?.name).toBe("Flame Tongue");
    expect(itemProfile("Flame Tongue", "srd-2014")?.variants).toBe(true);
    expect(itemProfile("Potion of Greater Healing", "srd-2014")?.name).toBe("Potion of Healing");
    expect(itemProfile("Longsword (+1)", "srd-2024")?.name).toBe("Weapon, +1, +2, or +3");
    expect(itemProfile("Belt of Giant Strength (Frost or Stone)", "srd-2024")?.name).toBe("Belt of Giant Strength");
    // A family entry serves "(Variant)" records only when it says so.
    expect(itemProfile("Bag of Holding", "srd-2014")?.variants).toBeUndefined();
    expect(itemProfile("Bag of Holding (Huge)", "srd-2014")).toBeNull();
    expect(itemProfile("Flame Tongue (Longsword)", "a5e-ddg")).toBeNull();
    expect(itemProfile("Not An Item", "srd-2014")).toBeNull();
  });
});

describe("profiles reach the magic items of every source", () => {
  const items: Entity[] = ALL_TYPES.filter((t) => t.kinds.includes("magic_item")).flatMap((t) =>
    run(t).entities.filter((e) => e.kind === "magic_item"),
  );
  const core = items.filter((e) => CORE_PROFILE_DOCUMENTS.includes(e.document_key));

  test("every core magic item of the fixtures has a profile whose recorded rarity matches the record", () => {
    expect(new Set(core.map((e) => e.document_key))).toEqual(new Set(CORE_PROFILE_DOCUMENTS));
    expect(new Set(core.map((e) => e.document_source)).size).toBeGreaterThanOrEqual(3);
    expect(core.some((e) => /\(.+\)$/.test(e.name))).toBe(true);
    for (const e of core) {
      const p = itemProfile(e.name, e.document_key);
      expect(p, `${e.document_source} ${e.key} has no profile`).not.toBeNull();
      expect(p!.documents).toContain(e.document_key);
      if (e.filters.rarity) expect(p!.rarities).toContain(String(e.filters.rarity));
    }
  });
});
