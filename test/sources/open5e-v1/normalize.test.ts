import { describe, expect, test } from "bun:test";
import { srd51SpellClasses } from "../../../src/entities/normalize/srd51-spell-lists.ts";
import { resolveDocumentKey } from "../../../src/entities/normalize/documents.ts";
import { OPEN5E_BASE, contentType, data, fixture, one, raw, run, v2Docs, type Raw } from "../../entities/fixtures.ts";

const t = (id: string) => contentType("open5e_v1", id);
const P = (ep: string) => `open5e/v1/${ep}.json`;

describe("open5e v1 documents on entities", () => {
  test("document slugs become v2 keys with the v2 names", () => {
    const r = run(t("spells"));
    const srd = one(r, "fireball");
    expect(srd.document_key).toBe("srd-2014");
    expect(srd.document_name).toBe(v2Docs.find((d) => d.key === "srd-2014")!.name);
    expect(srd.document_source).toBe("open5e_v1");
    expect(srd.source_url).toBe(`${OPEN5E_BASE}/v1/spells/fireball/`);
    const a5e = one(r, "fireball-a5e");
    expect(a5e.document_key).toBe(resolveDocumentKey(raw(P("spells"), "fireball-a5e", "slug").document__slug));
  });
});

describe("open5e v1 spells", () => {
  const r = run(t("spells"));
  test("flat fields map to the canonical spell", () => {
    for (const src of fixture(P("spells"))) {
      const e = one(r, src.slug);
      expect(e.filters.level).toBe(src.level_int);
      expect(e.filters.school).toBe(src.school.toLowerCase());
      expect(e.filters.concentration).toBe(src.requires_concentration);
      expect(e.filters.ritual).toBe(src.can_be_cast_as_ritual);
      const d = data(e);
      expect(d.casting_time).toBe(src.casting_time);
      expect(d.range).toBe(src.range);
      expect(d.duration).toBe(src.duration);
      expect(d.components.verbal).toBe(src.requires_verbal_components);
      expect(d.components.material).toBe(src.requires_material_components);
      expect(d.components.material_text).toBe(src.material || null);
      // SRD 5.1 spells take their classes from the SRD's class lists (v1 adds subclass spells: the 2014 Fireball
      // "Cleric" is a domain's).
      const srd = srd51SpellClasses(src.name);
      const want =
        src.document__slug === "wotc-srd" && srd
          ? srd
          : src.dnd_class.split(",").map((c: string) => c.trim().toLowerCase());
      expect([...(e.filters.classes as string[])].sort()).toEqual(
        [...want].filter((c: string) => c !== "ritual caster").sort(),
      );
    }
  });
  test("damage types and saving throws are read from the text", () => {
    const e = one(r, "fireball");
    expect(e.filters.damage_types).toEqual(["fire"]);
    expect(data(e).saving_throw).toBe("dexterity");
    expect(data(e).range_ft).toBe(raw(P("spells"), "fireball", "slug").target_range_sort);
    expect(one(r, "ice-storm").filters.damage_types).toEqual(expect.arrayContaining(["bludgeoning", "cold"]));
  });
});

describe("open5e v1 monsters", () => {
  const r = run(t("monsters"));
  test("stat block fields", () => {
    for (const src of fixture(P("monsters"))) {
      const e = one(r, src.slug);
      const d = data(e);
      expect(e.filters).toMatchObject({
        cr: src.cr,
        creature_type: src.type.toLowerCase(),
        size: src.size.toLowerCase(),
        armor_class: src.armor_class,
        hit_points: src.hit_points,
      });
      expect(d.ability_scores.strength).toBe(src.strength);
      expect(d.senses).toBe(src.senses);
      expect(d.languages).toBe(src.languages);
      expect(d.damage_immunities).toBe(src.damage_immunities || null);
      expect(d.actions.map((a: Raw) => a.name)).toEqual((src.actions ?? []).map((a: Raw) => a.name));
      expect(d.traits.map((a: Raw) => a.name)).toEqual((src.special_abilities ?? []).map((a: Raw) => a.name));
      expect(d.legendary_actions.length).toBe((src.legendary_actions ?? []).length);
      for (const [k, val] of Object.entries(src.skills)) expect(d.skills[k.toLowerCase()]).toBe(val);
    }
  });
  test("CR 1/4 keeps its fraction and gets XP from the CR table", () => {
    const e = one(r, "goblin");
    expect(e.filters.cr).toBe(0.25);
    expect(data(e).cr_display).toBe(raw(P("monsters"), "goblin", "slug").challenge_rating);
    expect(data(e).xp).toBe(50);
  });
  test("legendary text and saving throws", () => {
    const src = raw(P("monsters"), "ancient-red-dragon", "slug");
    const d = data(one(r, "ancient-red-dragon"));
    expect(d.legendary_desc).toBe(src.legendary_desc);
    expect(d.saving_throws.dexterity).toBe(src.dexterity_save);
    expect(d.saving_throws.strength).toBeUndefined();
  });
});

describe("open5e v1 classes and races", () => {
  const r = run(t("classes"));
  test("class fields and features by level (levels from the class table)", () => {
    const src = raw(P("classes"), "wizard", "slug");
    const e = one(r, "wizard", "class");
    const d = data(e);
    expect(d.hit_die).toBe("d6");
    expect(d.proficiencies).toEqual({
      armor: src.prof_armor,
      weapons: src.prof_weapons,
      tools: src.prof_tools,
      saving_throws: src.prof_saving_throws,
      skills: src.prof_skills,
    });
    expect(d.spellcasting_ability).toBe(src.spellcasting_ability);
    const headings = [...(src.desc as string).matchAll(/^### (.+?)\s*$/gm)].map((m) => m[1]);
    expect(d.features.map((f: Raw) => f.name).sort()).toEqual(headings.sort());
    expect(d.features.find((f: Raw) => f.name === "Arcane Recovery").level).toBe(1);
    expect(d.features.find((f: Raw) => f.name === "Arcane Tradition").level).toBe(2);
    expect(d.table).toBe(src.table);
  });
  test("archetypes become subclasses of their class", () => {
    for (const c of fixture(P("classes"))) {
      for (const a of c.archetypes) {
        const e = one(r, a.slug, "subclass");
        expect(data(e).subclass_of).toEqual({ key: c.slug, name: c.name });
        expect(e.source_url).toBe(`${OPEN5E_BASE}/v1/classes/${c.slug}/`);
        expect(data(one(r, c.slug, "class")).subclasses).toContainEqual({ key: a.slug, name: a.name });
      }
    }
    const evo = data(one(r, "school-of-evocation"));
    expect(evo.features.find((f: Raw) => f.name === "Sculpt Spells").level).toBe(2);
  });
  test("races: traits from the bold-headed markdown, subraces as subspecies", () => {
    const rr = run(t("races"));
    const src = raw(P("races"), "elf", "slug");
    const elf = one(rr, "elf");
    const d = data(elf);
    expect(d.size).toBe(src.size_raw);
    expect(d.speed).toBe(src.speed.walk);
    const names = d.traits.map((x: Raw) => x.name);
    for (const n of ["Ability Score Increase", "Age", "Darkvision", "Keen Senses", "Fey Ancestry", "Trance"])
      expect(names).toContain(n);
    expect(d.traits.find((x: Raw) => x.name === "Keen Senses").desc).toBe(
      "You have proficiency in the Perception skill.",
    );
    const high = one(rr, "high-elf");
    expect(high.kind).toBe("subspecies");
    expect(data(high).subspecies_of).toEqual({ key: "elf", name: src.name });
    expect(d.subspecies).toEqual([{ key: "high-elf", name: "High Elf" }]);
  });
});

describe("open5e v1 backgrounds, feats", () => {
  test("background fields", () => {
    const src = raw(P("backgrounds"), "acolyte", "slug");
    const d = data(one(run(t("backgrounds")), "acolyte"));
    expect(d.skill_proficiencies).toBe(src.skill_proficiencies);
    expect(d.equipment).toBe(src.equipment);
    expect(d.feature).toEqual({ name: src.feature, desc: src.feature_desc });
  });
  test("feat prerequisite loses its label; effects become benefits", () => {
    const r = run(t("feats"));
    for (const src of fixture(P("feats"))) {
      const d = data(one(r, src.slug));
      expect(d.benefits).toEqual(src.effects_desc);
      if (src.prerequisite) expect(src.prerequisite).toContain(d.prerequisite);
    }
  });
});

describe("open5e v1 equipment", () => {
  test("weapons: category string, properties with detail, cost in gp", () => {
    const r = run(t("weapons"));
    const jav = one(r, "javelin");
    const src = raw(P("weapons"), "javelin", "slug");
    expect(jav.filters).toMatchObject({
      category: "simple melee",
      is_simple: true,
      damage_dice: src.damage_dice,
      damage_types: [src.damage_type],
      cost_gp: 0.5,
      weight_lb: 2,
    });
    expect(data(jav).properties).toEqual([{ name: "Thrown", detail: "range 30/120" }]);
    expect([data(jav).range, data(jav).long_range]).toEqual([30, 120]);
    expect(data(one(r, "longsword")).versatile_dice).toBe("1d10");
    expect(one(r, "longbow").filters.category).toBe("martial ranged");
  });
  test("armor: base + flat bonus, dex cap, shield", () => {
    const r = run(t("armor"));
    const shield = one(r, "shield");
    expect(shield.filters.category).toBe("shield");
    expect(data(shield).ac_base).toBe(raw(P("armor"), "shield", "slug").plus_flat_mod);
    const plate = data(one(r, "plate"));
    expect(plate.strength_required).toBe(raw(P("armor"), "plate", "slug").strength_requirement);
    expect(plate.stealth_disadvantage).toBe(true);
    expect(one(r, "plate").filters.cost_gp).toBe(1500);
    expect(data(one(r, "leather")).ac_add_dex).toBe(true);
  });
  test("magic items: type, rarity, attunement detail", () => {
    const r = run(t("magicitems"));
    for (const src of fixture(P("magicitems"))) {
      const e = one(r, src.slug);
      expect(e.filters.rarity).toBe(src.rarity.toLowerCase());
      expect(e.filters.requires_attunement).toBe(/attunement/.test(src.requires_attunement));
    }
    expect(one(r, "cloak-of-displacement").filters.category).toBe("wondrous-item");
    expect(data(one(r, "dwarven-thrower")).attunement_detail).toBe("by a dwarf");
    expect(data(one(r, "flame-tongue")).base_item).toBe("any sword");
  });
});

describe("open5e v1 conditions and sections", () => {
  test("sections are rules whose section is the parent", () => {
    const r = run(t("sections"));
    for (const src of fixture(P("sections"))) {
      const e = one(r, src.slug);
      expect(e.kind).toBe("rule");
      expect(e.filters.section).toBe(src.parent.toLowerCase());
    }
    expect(one(r, "environment").text).toContain("Falling");
  });
  test("conditions", () => {
    const r = run(t("conditions"));
    expect(data(one(r, "grappled")).desc).toBe(raw(P("conditions"), "grappled", "slug").desc);
  });
  test("records without a document slug are skipped with a reason", () => {
    const { document__slug: _d, ...bad } = raw(P("conditions"), "grappled", "slug");
    const out = run(t("conditions"), [bad]);
    expect(out.entities).toEqual([]);
    expect(out.skipped[0]).toMatchObject({ key: "grappled" });
    expect(out.skipped[0]!.reason).toContain("document__slug");
  });
});
