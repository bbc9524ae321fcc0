import { describe, expect, test } from "bun:test";
import { DND_BASE, contentType, data, fixture, one, raw, run, type Raw } from "../../entities/fixtures.ts";

const t = (id: string) => contentType("dnd5e_api", id);
const P = (year: string, ep: string) => `dnd5eapi/${year}/${ep}.json`;
const R = (year: string, ep: string, index: string) => raw(P(year, ep), index, "index");

describe("dnd5eapi identity", () => {
  test("keys are year-prefixed, documents are the SRDs, URLs point at the configured base", () => {
    const r14 = run(t("2014/conditions"));
    const r24 = run(t("2024/conditions"));
    const g14 = one(r14, "2014-grappled");
    const g24 = one(r24, "2024-grappled");
    expect([g14.document_key, g24.document_key]).toEqual(["srd-2014", "srd-2024"]);
    expect(g14.document_name).toBe("System Reference Document 5.1");
    expect(g14.document_source).toBe("dnd5e_api");
    expect(g14.source_url).toBe(`${DND_BASE}${R("2014", "conditions", "grappled").url}`);
    expect(data(g24).desc).toBe(R("2024", "conditions", "grappled").description);
    expect(data(g14).desc).toBe(R("2014", "conditions", "grappled").desc.join("\n\n"));
  });
});

describe("dnd5eapi spells", () => {
  const r = run(t("2014/spells"));
  test("fields from the detail body", () => {
    for (const src of fixture(P("2014", "spells"))) {
      const e = one(r, `2014-${src.index}`);
      expect(e.filters.level).toBe(src.level);
      expect(e.filters.school).toBe(src.school.index);
      expect(e.filters.classes).toEqual(src.classes.map((c: Raw) => c.index));
      expect(e.filters.concentration).toBe(src.concentration);
      expect(e.filters.ritual).toBe(src.ritual);
      expect(data(e).components.verbal).toBe(src.components.includes("V"));
      expect(data(e).components.material_text).toBe(src.material ?? null);
      expect(data(e).desc).toBe(src.desc.join("\n\n"));
    }
    const fb = one(r, "2014-fireball");
    const src = R("2014", "spells", "fireball");
    expect(fb.filters.damage_types).toEqual([src.damage.damage_type.index]);
    expect(data(fb).saving_throw).toBe("dexterity");
    expect(data(fb).damage_roll).toBe(src.damage.damage_at_slot_level[String(src.level)]);
    expect(data(fb).area).toEqual({ type: src.area_of_effect.type, size_ft: src.area_of_effect.size });
    expect(one(r, "2014-cure-wounds").filters.damage_types).toEqual([]);
    expect(one(r, "2014-shield").filters.casting_time).toBe("1 reaction");
  });
});

describe("dnd5eapi monsters", () => {
  const r = run(t("2014/monsters"));
  test("stat block fields", () => {
    for (const src of fixture(P("2014", "monsters"))) {
      const e = one(r, `2014-${src.index}`);
      const d = data(e);
      expect(e.filters).toMatchObject({
        cr: src.challenge_rating,
        creature_type: src.type.toLowerCase(),
        size: src.size.toLowerCase(),
        armor_class: src.armor_class[0].value,
        hit_points: src.hit_points,
      });
      expect(d.xp).toBe(src.xp);
      expect(d.hit_dice).toBe(src.hit_points_roll);
      expect(d.passive_perception).toBe(src.senses.passive_perception);
      expect(d.damage_immunities).toBe(src.damage_immunities.join(", ") || null);
      expect(d.condition_immunities).toBe(src.condition_immunities.map((c: Raw) => c.name).join(", ") || null);
      expect(d.actions.map((a: Raw) => a.name)).toEqual(src.actions.map((a: Raw) => a.name));
      expect(d.legendary_actions.map((a: Raw) => a.name)).toEqual(
        (src.legendary_actions ?? []).map((a: Raw) => a.name),
      );
    }
  });
  test("proficiencies split into saving throws and skills; speeds in feet", () => {
    const src = R("2014", "monsters", "adult-red-dragon");
    const d = data(one(r, "2014-adult-red-dragon"));
    const dexSave = src.proficiencies.find((p: Raw) => p.proficiency.index === "saving-throw-dex").value;
    expect(d.saving_throws.dexterity).toBe(dexSave);
    const perception = src.proficiencies.find((p: Raw) => p.proficiency.index === "skill-perception").value;
    expect(d.skills.perception).toBe(perception);
    expect(d.speed.fly).toBe(Number.parseInt(src.speed.fly, 10));
    expect(d.armor_detail).toBe("natural armor");
    const breath = d.actions.find((a: Raw) => a.name.startsWith("Fire Breath"));
    expect(breath.usage ?? breath.name).toMatch(/Recharge 5/);
  });
  test("CR 1/4", () => {
    const e = one(r, "2014-goblin");
    expect(e.filters.cr).toBe(0.25);
    expect(data(e).cr_display).toBe("1/4");
    expect(e.text.split("\n")[1]).toContain("CR 1/4");
  });
});

describe("dnd5eapi classes and subclasses", () => {
  test("class: hit die, saves, proficiencies, spellcasting, features from /features", () => {
    const r = run(t("2014/classes"));
    const src = R("2014", "classes", "wizard");
    const d = data(one(r, "2014-wizard"));
    expect(d.hit_die).toBe(`d${src.hit_die}`);
    expect(d.saving_throws).toEqual(["Intelligence", "Wisdom"]);
    expect(d.spellcasting_ability).toBe("Intelligence");
    expect(d.proficiencies.skills).toBe(src.proficiency_choices[0].desc);
    const feats = fixture(P("2014", "features")).filter((f) => f.class.index === "wizard" && !f.subclass);
    expect(d.features.map((f: Raw) => f.name).sort()).toEqual(feats.map((f) => f.name).sort());
    for (const f of d.features) expect(f.level).toBe(feats.find((x) => x.name === f.name)!.level);
    expect(d.subclasses).toEqual(src.subclasses.map((s: Raw) => ({ key: `2014-${s.index}`, name: s.name })));
    const pal = data(one(r, "2014-paladin"));
    expect(pal.proficiencies.armor).toContain("Shields");
  });
  test("without related features the class still normalizes", () => {
    const out = run({ ...t("2014/classes"), related: [] });
    expect(out.skipped).toEqual([]);
    expect(data(one(out, "2014-wizard")).features).toEqual([]);
  });
  test("subclasses: 2014 features from /features, 2024 inline", () => {
    const s14 = one(run(t("2014/subclasses")), "2014-evocation");
    expect(s14.kind).toBe("subclass");
    expect(data(s14).subclass_of).toEqual({ key: "2014-wizard", name: "Wizard" });
    expect(data(s14).features.map((f: Raw) => f.name)).toEqual(
      fixture(P("2014", "features"))
        .filter((f) => f.subclass?.index === "evocation")
        .map((f) => f.name),
    );
    const s24 = one(run(t("2024/subclasses")), "2024-evoker");
    const src = R("2024", "subclasses", "evoker");
    expect(data(s24).features.map((f: Raw) => f.level)).toEqual(
      src.features.map((f: Raw) => f.level).sort((a: number, b: number) => a - b),
    );
    expect(s24.filters.classes).toEqual(["wizard"]);
  });
  test("2024 class features take their level from the level reference", () => {
    const d = data(one(run(t("2024/classes")), "2024-wizard"));
    for (const f of fixture(P("2024", "features"))) {
      expect(d.features.find((x: Raw) => x.name === f.name).level).toBe(Number(f.level.index.split("-").pop()));
    }
    expect(d.primary_abilities).toEqual(["Intelligence"]);
  });
});

describe("dnd5eapi species", () => {
  test("2014 races and subraces with trait texts from /traits", () => {
    const elf = one(run(t("2014/races")), "2014-elf");
    const src = R("2014", "races", "elf");
    const d = data(elf);
    expect(d.size).toBe(src.size);
    expect(d.speed).toBe(src.speed);
    expect(d.subspecies).toEqual(src.subraces.map((s: Raw) => ({ key: `2014-${s.index}`, name: s.name })));
    const dv = R("2014", "traits", "darkvision");
    expect(d.traits.find((x: Raw) => x.name === dv.name).desc).toBe(dv.desc.join("\n\n"));
    expect(d.traits[0]).toEqual({ name: "Ability Score Increase", desc: "Dexterity +2" });
    const high = one(run(t("2014/subraces")), "2014-high-elf");
    expect(high.kind).toBe("subspecies");
    expect(data(high).subspecies_of).toEqual({ key: "2014-elf", name: "Elf" });
  });
  test("2024 species and subspecies", () => {
    const elf = data(one(run(t("2024/species")), "2024-elf"));
    expect(elf.subspecies.map((s: Raw) => s.key)).toContain("2024-elven-lineage-wood-elf");
    const wood = one(run(t("2024/subspecies")), "2024-elven-lineage-wood-elf");
    expect(wood.name).toBe(R("2024", "subspecies", "elven-lineage-wood-elf").name);
    expect(data(wood).subspecies_of).toEqual({ key: "2024-elf", name: "Elf" });
  });
});

describe("dnd5eapi equipment", () => {
  test("2014 weapons: category, range, thrown, versatile, cost conversion", () => {
    const r = run(t("2014/equipment"));
    const jav = one(r, "2014-javelin", "weapon");
    const src = R("2014", "equipment", "javelin");
    expect(jav.filters).toMatchObject({
      category: "simple melee",
      is_simple: true,
      damage_dice: src.damage.damage_dice,
      damage_types: [src.damage.damage_type.index],
      cost_gp: src.cost.quantity / 10,
      weight_lb: src.weight,
    });
    expect([data(jav).range, data(jav).long_range]).toEqual([src.throw_range.normal, src.throw_range.long]);
    expect(data(one(r, "2014-longsword")).versatile_dice).toBe(
      R("2014", "equipment", "longsword").two_handed_damage.damage_dice,
    );
    const bow = one(r, "2014-longbow");
    expect(bow.filters.category).toBe("martial ranged");
    expect(data(bow).range).toBe(R("2014", "equipment", "longbow").range.normal);
  });
  test("2014 armor and gear", () => {
    const r = run(t("2014/equipment"));
    const plate = one(r, "2014-plate-armor", "armor");
    const src = R("2014", "equipment", "plate-armor");
    expect(data(plate)).toMatchObject({
      category: "heavy",
      ac_base: src.armor_class.base,
      ac_add_dex: false,
      strength_required: src.str_minimum,
      stealth_disadvantage: true,
    });
    expect(one(r, "2014-shield").filters.category).toBe("shield");
    const leather = data(one(r, "2014-leather-armor"));
    expect(leather.ac_display).toBe("11 + Dex modifier");
    const pack = one(r, "2014-backpack", "item");
    expect(pack.filters).toMatchObject({
      category: R("2014", "equipment", "backpack").equipment_category.index,
      cost_gp: 2,
      weight_lb: 5,
    });
  });
  test("2024 equipment is classified from equipment_categories", () => {
    const r = run(t("2024/equipment"));
    const ls = one(r, "2024-longsword", "weapon");
    expect(ls.filters.category).toBe("martial melee");
    expect(data(ls).mastery).toBe(R("2024", "equipment", "longsword").mastery.name);
    expect(one(r, "2024-dagger").filters.category).toBe("simple melee");
    expect(one(r, "2024-shield", "armor").filters.category).toBe("shield");
    expect(one(r, "2024-backpack", "item").filters.category).toBe("adventuring-gear");
  });
  test("magic items: type, rarity and attunement from the first desc line", () => {
    const r = run(t("2014/magic-items"));
    const dt = one(r, "2014-dwarven-thrower");
    expect(dt.filters).toMatchObject({ category: "weapon", rarity: "very rare", requires_attunement: true });
    expect(data(dt).attunement_detail).toBe("by a dwarf");
    expect(data(dt).base_item).toBe("warhammer");
    expect(data(dt).desc).toBe(R("2014", "magic-items", "dwarven-thrower").desc.slice(1).join("\n\n"));
    expect(one(r, "2014-arrow-catching-shield").filters.category).toBe("shield");
    const d24 = one(run(t("2024/magic-items")), "2024-dwarven-thrower");
    expect(d24.filters).toMatchObject({
      category: "weapon",
      rarity: "very rare",
      requires_attunement: R("2024", "magic-items", "dwarven-thrower").attunement,
    });
  });
  test("2024 poisons are items priced in gp", () => {
    const e = one(run(t("2024/poisons")), "2024-assassins-blood");
    expect(e.kind).toBe("item");
    expect(e.filters).toMatchObject({ category: "poison", cost_gp: R("2024", "poisons", "assassins-blood").cost });
  });
});

describe("dnd5eapi rules", () => {
  test("/rules are rule sections listing their subsections", () => {
    const r = run(t("2014/rules"));
    for (const src of fixture(P("2014", "rules"))) {
      const e = one(r, `2014-${src.index}`);
      expect(e.kind).toBe("rule_section");
      expect(e.filters.section).toBe(src.name.toLowerCase());
      expect(data(e).rules).toEqual(src.subsections.map((s: Raw) => ({ key: `2014-${s.index}`, name: s.name })));
    }
  });
  test("/rule-sections are rules whose section is the parent rule", () => {
    const r = run(t("2014/rule-sections"));
    const rules = fixture(P("2014", "rules"));
    for (const src of fixture(P("2014", "rule-sections"))) {
      const parent = rules.find((x) => x.subsections.some((s: Raw) => s.index === src.index))!;
      const e = one(r, `2014-${src.index}`);
      expect(e.kind).toBe("rule");
      expect(e.filters.section).toBe(parent.name.toLowerCase());
      expect(data(e).section_key).toBe(`2014-${parent.index}`);
    }
    expect(one(r, "2014-the-environment").text).toContain("Falling");
    expect(one(r, "2014-making-an-attack").filters.section).toBe("combat");
    const alone = run({ ...t("2014/rule-sections"), related: [] });
    expect(one(alone, "2014-making-an-attack").filters.section).toBeNull();
  });
});

describe("dnd5eapi small types", () => {
  test("reference kinds carry their fields", () => {
    expect(data(one(run(t("2014/skills")), "2014-stealth")).ability).toBe("dexterity");
    const dex = data(one(run(t("2014/ability-scores")), "2014-dex"));
    expect(dex.full_name).toBe(R("2014", "ability-scores", "dex").full_name);
    expect(dex.skills).toEqual(R("2014", "ability-scores", "dex").skills.map((s: Raw) => s.index));
    const common = one(run(t("2014/languages")), "2014-common");
    expect(data(common).type).toBe("standard");
    expect(data(common).typical_speakers).toBe(R("2014", "languages", "common").typical_speakers.join(", "));
    expect(data(one(run(t("2024/languages")), "2024-common")).type).toBe("standard");
    const prof = one(run(t("2014/proficiencies")), "2014-light-armor");
    expect(prof.kind).toBe("proficiency");
    expect(data(prof).classes).toEqual(R("2014", "proficiencies", "light-armor").classes.map((c: Raw) => c.index));
    expect(prof.filters.category).toBe("armor");
    expect(data(one(run(t("2014/alignments")), "2014-lawful-good")).abbreviation).toBe("LG");
    const sap = one(run(t("2024/weapon-mastery-properties")), "2024-mastery-sap");
    expect([sap.kind, data(sap).type]).toEqual(["weapon_property", "mastery"]);
    expect(one(run(t("2014/damage-types")), "2014-radiant").kind).toBe("damage_type");
    expect(one(run(t("2014/magic-schools")), "2014-evocation").kind).toBe("magic_school");
  });
  test("backgrounds and feats", () => {
    const bg = data(one(run(t("2014/backgrounds")), "2014-acolyte"));
    const src = R("2014", "backgrounds", "acolyte");
    expect(bg.skill_proficiencies).toBe(
      src.starting_proficiencies.map((p: Raw) => p.name.replace("Skill: ", "")).join(", "),
    );
    expect(bg.feature.name).toBe(src.feature.name);
    const bg24 = data(one(run(t("2024/backgrounds")), "2024-acolyte"));
    expect(bg24.feat).toBe(
      `${R("2024", "backgrounds", "acolyte").feat.name} (${R("2024", "backgrounds", "acolyte").feat.note})`,
    );
    const grappler = data(one(run(t("2014/feats")), "2014-grappler"));
    expect(grappler.prerequisite).toBe("Strength 13 or higher");
    const alert = one(run(t("2024/feats")), "2024-alert");
    expect(alert.filters.category).toBe(R("2024", "feats", "alert").type);
  });
  test("records without index or name are skipped", () => {
    const out = run(t("2014/conditions"), [{ name: "No index" }, { index: "x" }]);
    expect(out.entities).toEqual([]);
    expect(out.skipped.map((s) => s.key)).toEqual(["No index", "x"]);
  });
});
