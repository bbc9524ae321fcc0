import { describe, expect, test } from "bun:test";
import { RARITIES } from "../../src/entities/catalog.ts";
import { MAX_TEXT_CHARS } from "../../src/entities/normalize/text.ts";
import type { ContentType } from "../../src/entities/normalize/types.ts";
import { dnd5eApiUrl } from "../../src/sources/dnd5eapi/urls.ts";
import { open5eUrl } from "../../src/sources/open5e/urls.ts";
import { ENTITY_KINDS, type Entity } from "../../src/entities/types.ts";
import { ALL_TYPES, baseFor, docsFor, fixture, fixturePath, hasFixture, run } from "./fixtures.ts";

const results = ALL_TYPES.map((t) => ({ t, r: run(t) }));

/** A list (`endpoint`) or record (`endpoint` + `key`) address of `t`, in its API's URL layout. */
function urlOf(t: ContentType, base: string, endpoint = t.endpoint, key?: string): string {
  if (t.source === "dnd5e_api") return dnd5eApiUrl(base, t.year!, endpoint, key);
  return open5eUrl(base, t.source === "open5e_v1" ? "v1" : "v2", endpoint, key);
}
const all: Entity[] = results.flatMap((x) => x.r.entities);

describe("content type registry", () => {
  test("ids are unique per source; every type has a fixture for its endpoint and related endpoints", () => {
    const ids = ALL_TYPES.map((t) => `${t.source}:${t.id}`);
    expect(new Set(ids).size).toBe(ids.length);
    for (const t of ALL_TYPES) {
      expect(hasFixture(t)).toBe(true);
      for (const ep of t.related ?? []) expect(hasFixture(t, ep)).toBe(true);
      if (t.source === "dnd5e_api") expect(t.year).toMatch(/^(2014|2024)$/);
    }
  });
  test("each source's URL layout: lists and records", () => {
    const find = (source: string, id: string) => ALL_TYPES.find((t) => t.source === source && t.id === id)!;
    const url = (source: "open5e_v2" | "open5e_v1" | "dnd5e_api", id: string, endpoint?: string, key?: string) =>
      urlOf(find(source, id), "B", endpoint, key);
    expect(url("open5e_v2", "spells")).toBe("B/v2/spells/");
    expect(url("open5e_v2", "items", "weapons", "srd_club")).toBe("B/v2/weapons/srd_club/");
    expect(url("open5e_v1", "monsters")).toBe("B/v1/monsters/");
    expect(url("dnd5e_api", "2024/species", undefined, "elf")).toBe("B/api/2024/species/elf");
  });
  test("fixtures normalize without skips and every declared kind is produced", () => {
    for (const { t, r } of results) {
      expect({ type: `${t.source}:${t.id}`, skipped: r.skipped }).toEqual({ type: `${t.source}:${t.id}`, skipped: [] });
      expect(r.entities.length).toBeGreaterThanOrEqual(Math.min(1, fixture(fixturePath(t)).length));
      for (const e of r.entities) expect(t.kinds).toContain(e.kind);
    }
    const produced = new Set(all.map((e) => e.kind));
    // Trait reference rows are derived from the stored creatures (entities/traits.ts), not normalized from a source.
    for (const k of ENTITY_KINDS) if (k !== "trait") expect(produced.has(k)).toBe(true);
  });
  test("(document_source, kind, key) is unique across all content types", () => {
    const ids = all.map((e) => `${e.document_source}|${e.kind}|${e.key}`);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe("every entity", () => {
  test("has identity, a known document, a detail URL on the configured base and bounded text", () => {
    for (const { t, r } of results) {
      const docs = new Set(docsFor(t).map((d) => d.key));
      for (const e of r.entities) {
        expect(e.key.length).toBeGreaterThan(0);
        expect(e.name.length).toBeGreaterThan(0);
        expect(e.document_source).toBe(t.source);
        expect(docs.has(e.document_key)).toBe(true);
        expect(e.document_name.length).toBeGreaterThan(0);
        const listUrl = urlOf(t, baseFor(t));
        expect(e.source_url.startsWith(listUrl.replace(/[^/]+\/?$/, ""))).toBe(true);
        expect(e.text.startsWith(`${e.name}\n`)).toBe(true);
        expect(e.text.length).toBeLessThanOrEqual(MAX_TEXT_CHARS + 1);
        expect(e.text).not.toMatch(/\*\*|^#+ /m);
        expect(JSON.parse(JSON.stringify(e.data))).toEqual(e.data);
      }
    }
  });
  test("filter vocabularies are lower-case and in range", () => {
    for (const e of all) {
      const f = e.filters;
      for (const v of [
        f.school,
        f.creature_type,
        f.size,
        f.rarity,
        f.category,
        f.section,
        f.casting_time,
        f.damage_dice,
      ]) {
        if (typeof v === "string") expect(v).toBe(v.toLowerCase());
      }
      for (const list of [f.classes, f.damage_types]) for (const v of list ?? []) expect(v).toBe(v.toLowerCase());
      if (f.classes) for (const c of f.classes) expect(c).not.toMatch(/_|^\d{4}-/);
      if (e.kind === "spell") expect(f.level).toBeGreaterThanOrEqual(0);
      if (f.rarity) expect([...RARITIES, "varies"]).toContain(f.rarity);
      if (e.kind === "weapon" && f.category) expect(f.category).toMatch(/^(simple|martial)( melee| ranged)?$/);
      if (e.kind === "armor") expect(["light", "medium", "heavy", "shield"]).toContain(f.category!);
    }
  });
  test("the same kind has the same data fields whatever the source", () => {
    const byKind = new Map<string, Map<string, string>>();
    for (const e of all) {
      // `upstream_notes` is there only where an upstream record was corrected; `profile` and
      // `common_names` only on core entries the profile files name (any source).
      const keys = Object.keys(e.data)
        .filter((k) => !["group", "upstream_notes", "profile", "common_names"].includes(k))
        .sort()
        .join(",");
      const m = byKind.get(e.kind) ?? byKind.set(e.kind, new Map()).get(e.kind)!;
      m.set(e.document_source, keys);
    }
    for (const [kind, m] of byKind) expect({ kind, shapes: new Set(m.values()).size }).toEqual({ kind, shapes: 1 });
  });
});

describe("spec scenarios are covered by the fixtures", () => {
  const find = (kind: string, name: string) => all.filter((e) => e.kind === kind && e.name === name);
  test("spells, creatures, classes, equipment, rules", () => {
    for (const n of ["Fireball", "Fire Shield", "Ice Storm", "Cure Wounds"])
      expect(find("spell", n).length).toBeGreaterThan(0);
    expect(new Set(find("spell", "Fireball").map((e) => e.document_key)).size).toBeGreaterThanOrEqual(3);
    expect(
      all.some(
        (e) =>
          e.kind === "spell" &&
          e.filters.level === 3 &&
          e.filters.school === "evocation" &&
          e.filters.classes?.includes("wizard"),
      ),
    ).toBe(true);
    for (const n of ["Vampire", "Wraith", "Specter"])
      expect(find("creature", n).some((e) => e.filters.creature_type === "undead")).toBe(true);
    expect(all.some((e) => e.kind === "creature" && e.filters.creature_type === "dragon" && e.filters.cr === 10)).toBe(
      true,
    );
    expect(all.some((e) => e.kind === "creature" && e.filters.cr === 0.25)).toBe(true);
    for (const n of ["Wizard", "Sorcerer", "Fighter", "Paladin", "Cleric", "Rogue"])
      expect(find("class", n).length).toBeGreaterThan(0);
    expect(all.some((e) => e.kind === "subclass")).toBe(true);
    expect(all.some((e) => e.kind === "subspecies")).toBe(true);
    for (const n of ["Longsword"]) expect(find("weapon", n).length).toBeGreaterThan(0);
    expect(
      all.some(
        (e) =>
          e.kind === "weapon" &&
          e.filters.is_simple === true &&
          (e.data as { properties: { name: string }[] }).properties.some((p) => p.name === "Thrown"),
      ),
    ).toBe(true);
    for (const n of ["Shield", "Leather Armor", "Plate Armor"]) expect(find("armor", n).length).toBeGreaterThan(0);
    for (const n of ["Dwarven Thrower", "Arrow-Catching Shield"])
      expect(find("magic_item", n).length).toBeGreaterThan(0);
    expect(
      all.some((e) => e.kind === "magic_item" && e.filters.rarity === "rare" && e.filters.requires_attunement),
    ).toBe(true);
    expect(find("rule", "Falling").length).toBeGreaterThan(0);
    expect(
      all.some((e) => e.kind === "rule" && e.name === "Unseen Attackers and Targets" && e.filters.section === "combat"),
    ).toBe(true);
    expect(find("condition", "Grappled").length).toBeGreaterThan(0);
  });
});
