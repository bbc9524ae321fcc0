import { describe, expect, test } from "bun:test";
import { formatCr } from "../../../src/entities/types.ts";
import { documentMap } from "../../../src/entities/normalize/documents.ts";
import { OPEN5E_BASE, contentType, data, fixture, one, raw, run, v2Docs, type Raw } from "../../entities/fixtures.ts";

const t = (id: string) => contentType("open5e_v2", id);
const P = (ep: string) => `open5e/v2/${ep}.json`;

describe("open5e v2 spells", () => {
  const r = run(t("spells"));
  test("every fixture spell is normalized", () => {
    expect(r.skipped).toEqual([]);
    expect(r.entities.map((e) => e.key).sort()).toEqual(
      fixture(P("spells"))
        .map((s) => s.key)
        .sort(),
    );
  });
  test("Fireball: identity, document, filters and components from the record", () => {
    const src = raw(P("spells"), "srd_fireball");
    const e = one(r, "srd_fireball");
    expect(e.kind).toBe("spell");
    expect(e.name).toBe(src.name);
    expect(e.document_key).toBe(src.document.key);
    expect(e.document_name).toBe(src.document.name);
    expect(e.document_source).toBe("open5e_v2");
    expect(e.source_url).toBe(`${OPEN5E_BASE}/v2/spells/${src.key}/`);
    expect(e.filters.level).toBe(src.level);
    expect(e.filters.school).toBe(src.school.key);
    expect(e.filters.classes).toEqual(src.classes.map((c: Raw) => c.key.split("_")[1]));
    expect(e.filters.concentration).toBe(src.concentration);
    expect(e.filters.ritual).toBe(src.ritual);
    expect(e.filters.casting_time).toBe("1 action");
    expect(e.filters.damage_types).toEqual(src.damage_types);
    const d = data(e);
    expect(d.components).toEqual({
      verbal: src.verbal,
      somatic: src.somatic,
      material: src.material,
      material_text: src.material_specified,
      material_cost: src.material_cost,
      material_consumed: src.material_consumed,
    });
    expect(d.range).toBe(src.range_text);
    expect(d.range_ft).toBe(src.range);
    expect(d.saving_throw).toBe(src.saving_throw_ability);
    expect(d.attack_roll).toBe(src.attack_roll);
    expect(d.damage_roll).toBe(src.damage_roll);
    expect(d.higher_level).toBe(src.higher_level);
    expect(d.area).toEqual({ type: src.shape_type, size_ft: src.shape_size });
    expect(e.text.startsWith(`${src.name}\nLevel ${src.level} ${src.school.key} spell`)).toBe(true);
    expect(e.text).toContain("explosion of flame");
  });
  test("the same spell from other documents keeps its own key and document", () => {
    for (const key of ["srd-2024_fireball", "a5e-ag_fireball"]) {
      const e = one(r, key);
      expect(e.name).toBe("Fireball");
      expect(e.document_key).toBe(raw(P("spells"), key).document.key);
    }
  });
  test("casting times and concentration of other spells", () => {
    for (const src of fixture(P("spells"))) {
      const e = one(r, src.key);
      expect(e.filters.casting_time).toMatch(/^\d+ (action|bonus action|reaction|minute|minutes|hour|hours)$/);
      expect(e.filters.concentration).toBe(src.concentration);
      expect(e.filters.ritual).toBe(src.ritual);
    }
    expect(one(r, "srd_healing-word").filters.casting_time).toBe("1 bonus action");
    expect(one(r, "srd_shield").filters.casting_time).toBe("1 reaction");
  });
  test("cantrips have a cantrip header", () => {
    const rec = { ...raw(P("spells"), "srd_fireball"), key: "x_cantrip", level: 0 };
    expect(run(t("spells"), [rec]).entities[0]!.text.split("\n")[1]).toBe("Evocation cantrip");
  });
});

describe("open5e v2 creatures", () => {
  const r = run(t("creatures"));
  test("stat block of the Wraith", () => {
    const src = raw(P("creatures"), "srd_wraith");
    const e = one(r, "srd_wraith");
    const d = data(e);
    const keys = (xs: Array<{ key: string }>) => xs.map((x) => x.key);
    const ri = src.resistances_and_immunities;
    expect(e.filters).toMatchObject({
      cr: src.challenge_rating,
      creature_type: src.type.key,
      size: src.size.key,
      armor_class: src.armor_class,
      hit_points: src.hit_points,
      damage_immunities: keys(ri.damage_immunities),
      damage_resistances: keys(ri.damage_resistances),
      condition_immunities: keys(ri.condition_immunities),
    });
    expect(d.cr_display).toBe(formatCr(src.challenge_rating));
    expect(d.xp).toBe(src.experience_points);
    expect(d.hit_dice).toBe(src.hit_dice);
    expect(d.ability_scores).toEqual(src.ability_scores);
    expect(d.damage_immunities).toBe(src.resistances_and_immunities.damage_immunities_display);
    expect(d.damage_resistances).toBe(src.resistances_and_immunities.damage_resistances_display);
    expect(d.condition_immunities).toBe(src.resistances_and_immunities.condition_immunities_display);
    expect(d.damage_vulnerabilities).toBeNull();
    expect(d.languages).toBe(src.languages.as_string);
    expect(d.passive_perception).toBe(src.passive_perception);
    expect(d.senses).toContain(`darkvision ${src.darkvision_range} ft.`);
    expect(d.speed.fly).toBe(src.speed.fly);
    expect(d.speed.hover).toBe(true);
    expect(d.traits.map((x: Raw) => x.name)).toEqual(src.traits.map((x: Raw) => x.name));
    expect(e.text.split("\n")[1]).toBe(`${src.size.name} ${src.type.key}, CR ${src.challenge_rating}`);
  });
  test("v2 actions are split by action_type and ordered as in the stat block", () => {
    for (const key of ["srd_ancient-red-dragon", "srd_vampire", "srd_young-red-dragon"]) {
      const src = raw(P("creatures"), key);
      const d = data(one(r, key));
      const of = (type: string) =>
        src.actions
          .filter((a: Raw) => a.action_type === type)
          .sort((a: Raw, b: Raw) => a.order_in_statblock - b.order_in_statblock)
          .map((a: Raw) => a.name);
      expect(d.actions.map((a: Raw) => a.name)).toEqual(of("ACTION"));
      expect(d.bonus_actions.map((a: Raw) => a.name)).toEqual(of("BONUS_ACTION"));
      expect(d.reactions.map((a: Raw) => a.name)).toEqual(of("REACTION"));
      expect(d.legendary_actions.map((a: Raw) => a.name)).toEqual(of("LEGENDARY_ACTION"));
    }
    const breath = data(one(r, "srd_ancient-red-dragon")).actions.find((a: Raw) => a.name === "Fire Breath");
    const srcBreath = raw(P("creatures"), "srd_ancient-red-dragon").actions.find((a: Raw) => a.name === "Fire Breath");
    expect(breath.usage).toBe(`Recharge ${srcBreath.usage_limits.param}–6`);
    expect(one(r, "srd_ancient-red-dragon").filters.creature_type).toBe("dragon");
  });
  test("legendary action costs come from legendary_action_cost", () => {
    const src = raw(P("creatures"), "srd_ancient-red-dragon");
    for (const a of data(one(r, "srd_ancient-red-dragon")).legendary_actions) {
      expect(a.cost).toBe(src.actions.find((x: Raw) => x.name === a.name).legendary_action_cost);
    }
  });
  test("2025 shape: challenge_rating_text / _decimal and url fields", () => {
    const src = raw(P("creatures"), "srd_goblin");
    expect(src.challenge_rating).toBeUndefined();
    expect(typeof src.url).toBe("string");
    const e = one(r, "srd_goblin");
    expect(e.filters.cr).toBe(0.25);
    expect(data(e).cr_display).toBe(src.challenge_rating_text);
    expect(e.text.split("\n")[1]).toBe(`${src.size.name} ${src.type.key}, CR 1/4`);
    expect(e.document_name).toBe(src.document.name);
  });
  test("a 2025 record without key takes its key from url", () => {
    const { key: _k, ...noKey } = raw(P("creatures"), "srd_goblin");
    const out = run(t("creatures"), [noKey]);
    expect(out.entities[0]!.key).toBe("srd_goblin");
    const dec = run(t("creatures"), [
      { ...noKey, challenge_rating_text: undefined, challenge_rating_decimal: "0.125" },
    ]);
    expect(dec.entities[0]!.filters.cr).toBe(0.125);
  });
});

describe("open5e v2 classes and subclasses", () => {
  const r = run(t("classes"));
  test("classes with subclass_of become subclasses and are listed on their class", () => {
    for (const src of fixture(P("classes"))) {
      const e = one(r, src.key);
      expect(e.kind).toBe(src.subclass_of ? "subclass" : "class");
      if (src.subclass_of) {
        expect(data(e).subclass_of).toEqual({ key: src.subclass_of.key, name: src.subclass_of.name });
        expect(data(one(r, src.subclass_of.key)).subclasses).toContainEqual({ key: src.key, name: src.name });
        expect(e.filters.classes).toEqual([src.subclass_of.key.split("_")[1]]);
        expect(e.text.split("\n")[1]).toBe(`${src.subclass_of.name} subclass`);
      }
    }
  });
  test("Wizard: hit dice, saves, proficiencies, spellcasting ability, features by level", () => {
    const src = raw(P("classes"), "srd_wizard");
    const d = data(one(r, "srd_wizard"));
    expect(d.hit_die).toBe(src.hit_dice.toLowerCase());
    expect(d.hit_points_at_1st_level).toBe(src.hit_points.hit_points_at_1st_level);
    expect(d.saving_throws).toEqual(src.saving_throws.map((s: Raw) => s.name));
    const profs = src.features.find((f: Raw) => f.feature_type === "PROFICIENCIES").desc as string;
    expect(profs).toContain(`**Weapons:** ${d.proficiencies.weapons}`);
    expect(profs).toContain(`**Saving Throws:** ${d.proficiencies.saving_throws}`);
    expect(d.spellcasting_ability).toBe("Intelligence");
    const levelFeatures = src.features.filter((f: Raw) => f.feature_type === "CLASS_LEVEL_FEATURE");
    expect(d.features.map((f: Raw) => f.name).sort()).toEqual(levelFeatures.map((f: Raw) => f.name).sort());
    for (const f of d.features) {
      const s = levelFeatures.find((x: Raw) => x.name === f.name);
      expect(f.level).toBe(Math.min(...s.gained_at.map((g: Raw) => g.level)));
    }
    const levels = d.features.map((f: Raw) => f.level);
    expect(levels).toEqual([...levels].sort((a: number, b: number) => a - b));
    expect(d.equipment).toBe(src.features.find((f: Raw) => f.feature_type === "STARTING_EQUIPMENT").desc);
    expect(d.table).toContain("| Level |");
  });
  test("2024 classes read the core traits table", () => {
    const d = data(one(r, "srd-2024_wizard"));
    const core = raw(P("classes"), "srd-2024_wizard").features.find((f: Raw) => f.feature_type === "CORE_TRAITS_TABLE")
      .desc as string;
    expect(core).toContain(`|Weapon Proficiencies|${d.proficiencies.weapons}|`);
    expect(core).toContain(`|Primary Ability|${d.primary_abilities[0]}|`);
    expect(d.caster_type).toBe("full");
  });
});

describe("open5e v2 species", () => {
  const r = run(t("species"));
  test("subspecies_of links both ways; size and speed come from the traits", () => {
    const src = raw(P("species"), "srd_high-elf");
    const e = one(r, "srd_high-elf");
    expect(e.kind).toBe("subspecies");
    expect(data(e).subspecies_of).toEqual({ key: src.subspecies_of, name: raw(P("species"), src.subspecies_of).name });
    const elf = one(r, "srd_elf");
    expect(elf.kind).toBe("species");
    expect(data(elf).subspecies).toEqual([{ key: src.key, name: src.name }]);
    expect(data(elf).size).toBe("Medium");
    expect(elf.filters.size).toBe("medium");
    expect(data(elf).speed).toBe(30);
    expect(data(e).size).toBe(data(elf).size);
    expect(data(elf).traits.map((x: Raw) => x.name)).toEqual(
      raw(P("species"), "srd_elf").traits.map((x: Raw) => x.name),
    );
  });
  test("2025 shape: subspecies_of as a URL", () => {
    const src = { ...raw(P("species"), "srd_high-elf"), subspecies_of: "https://api.open5e.com/v2/species/srd_elf/" };
    const out = run(t("species"), [raw(P("species"), "srd_elf"), src]);
    expect(data(out.entities.find((x) => x.key === "srd_high-elf")!).subspecies_of.key).toBe("srd_elf");
  });
});

describe("open5e v2 backgrounds and feats", () => {
  test("background benefits map to fields by type", () => {
    const src = raw(P("backgrounds"), "srd_acolyte");
    const d = data(one(run(t("backgrounds")), "srd_acolyte"));
    const by = (type: string) => src.benefits.find((b: Raw) => b.type === type);
    expect(d.skill_proficiencies).toBe(by("skill_proficiency").desc);
    expect(d.languages).toBe(by("language").desc);
    expect(d.feature).toEqual({ name: by("feature").name, desc: by("feature").desc });
    expect(d.benefits.length).toBe(src.benefits.length);
    const d24 = data(one(run(t("backgrounds")), "srd-2024_sage"));
    expect(d24.ability_scores).toBe(
      raw(P("backgrounds"), "srd-2024_sage").benefits.find((b: Raw) => b.type === "ability_score").desc,
    );
  });
  test("feats: prerequisite, benefits, type", () => {
    const r = run(t("feats"));
    for (const src of fixture(P("feats"))) {
      const e = one(r, src.key);
      expect(data(e).prerequisite).toBe(src.prerequisite || null);
      expect(data(e).benefits).toEqual(src.benefits.map((b: Raw) => b.desc));
      expect(e.filters.category).toBe(src.type.toLowerCase());
    }
  });
});

describe("open5e v2 equipment", () => {
  const r = run(t("items"));
  const items = fixture(P("items"));
  const kindOf = (e: { kind: string }) => e.kind;
  test("items with a weapon become weapons with cost, weight and joined range", () => {
    const src = raw(P("items"), "srd_longsword");
    const e = one(r, "srd_longsword", "weapon");
    expect(e.filters).toMatchObject({
      category: "martial melee",
      is_simple: src.weapon.is_simple,
      damage_dice: src.weapon.damage_dice,
      damage_types: [src.weapon.damage_type.key],
      cost_gp: Number(src.cost),
      weight_lb: Number(src.weight),
    });
    expect(data(e).versatile_dice).toBe(src.weapon.properties.find((p: Raw) => p.property.name === "Versatile").detail);
    expect(data(e).item_key).toBe(src.key);
    expect(e.text.split("\n")[1]).toBe("Martial melee weapon");
    const bow = one(r, "srd_longbow");
    const wb = raw(P("weapons"), "srd_longbow");
    expect([data(bow).range, data(bow).long_range]).toEqual([wb.range, wb.long_range]);
    expect(data(bow).range_type).toBe("ranged");
    const axe = data(one(r, "srd_handaxe"));
    expect(axe.category).toBe("simple");
    expect(axe.range).toBe(raw(P("weapons"), "srd_handaxe").range);
    expect(axe.properties.map((p: Raw) => p.name)).toContain("Thrown");
  });
  test(
    "one entity per thing: every /weapons/ and /armor/ record " +
      "under its own key, every item by key or item_key, each once",
    () => {
      expect(r.skipped).toEqual([]);
      const keysOf = (kind: string) =>
        r.entities
          .filter((e) => e.kind === kind)
          .map((e) => e.key)
          .sort();
      expect(keysOf("weapon")).toEqual(
        fixture(P("weapons"))
          .map((w) => w.key)
          .sort(),
      );
      // armor entities: every /armor/ record, plus the armor items that have no armor record
      const armorItems = items
        .filter((i) => ["armor", "shield"].includes(i.category.key) && !i.armor)
        .map((i) => i.key);
      expect(armorItems).toEqual(["srd_shield"]);
      expect(keysOf("armor")).toEqual([...fixture(P("armor")).map((a) => a.key), ...armorItems].sort());
      // each item record is represented by exactly one entity (its key, or the item_key of a weapon/armor)
      const hits = new Map<string, number>();
      for (const e of r.entities)
        for (const k of new Set([e.key, data(e).item_key].filter(Boolean))) hits.set(k, (hits.get(k) ?? 0) + 1);
      expect(items.map((i) => `${i.key}=${hits.get(i.key) ?? 0}`)).toEqual(items.map((i) => `${i.key}=1`));
      expect(r.entities.length).toBe(items.length);
      const ids = r.entities.map((e) => `${e.kind}:${e.key}`);
      expect(new Set(ids).size).toBe(ids.length);
    },
  );
  test("armor is keyed by the armor endpoint, with the item's key, name, cost and weight", () => {
    const item = raw(P("items"), "srd_leather-armor");
    expect(item.armor.key).not.toBe(item.key);
    const e = one(r, item.armor.key, "armor");
    expect(data(e).item_key).toBe(item.key);
    expect(e.name).toBe(item.name);
    expect(e.source_url).toBe(`${OPEN5E_BASE}/v2/armor/${item.armor.key}/`);
    expect(e.filters.cost_gp).toBe(Number(item.cost));
    expect(e.filters.weight_lb).toBe(Number(item.weight));
    expect(r.entities.some((x) => x.key === item.key)).toBe(false);
  });
  test("items that can be used as a weapon stay items when the weapon has its own item", () => {
    const staff = raw(P("items"), "srd_staff");
    expect(staff.weapon.key).toBe("srd_quarterstaff");
    const e = one(r, "srd_staff");
    expect(kindOf(e)).toBe("item");
    expect(e.filters.category).toBe(staff.category.key);
    expect(e.text).toContain("Can be used as a weapon: Quarterstaff.");
    expect(data(one(r, "srd_quarterstaff", "weapon")).item_key).toBe("srd_quarterstaff");
    // the item with the weapon's own key wins, whatever the order
    const reversed = run(t("items"), [raw(P("items"), "srd_staff"), raw(P("items"), "srd_quarterstaff")]);
    expect(reversed.entities.map((x) => `${x.kind}:${x.key}:${data(x).item_key ?? ""}`).sort()).toEqual(
      expect.arrayContaining(["item:srd_staff:", "weapon:srd_quarterstaff:srd_quarterstaff"]),
    );
    // without the same-key item, the staff is the quarterstaff
    const alone = run(t("items"), [raw(P("items"), "srd_staff")]);
    expect(data(one(alone, "srd_quarterstaff", "weapon")).item_key).toBe("srd_staff");
    expect(alone.entities.some((x) => x.key === "srd_staff")).toBe(false);
  });
  test("2024 weapon mastery is separated from the properties", () => {
    const src = raw(P("items"), "srd-2024_longsword");
    const d = data(one(r, "srd-2024_longsword"));
    const mastery = src.weapon.properties.find((p: Raw) => p.property.type === "Mastery");
    expect(d.mastery).toBe(mastery.property.name);
    expect(d.properties.map((p: Raw) => p.name)).not.toContain(mastery.property.name);
  });
  test("weapon and armor records missing from /items/ are added (without cost or item_key)", () => {
    const out = run(t("items"), [raw(P("items"), "srd_backpack")]);
    expect(
      out.entities
        .filter((e) => e.kind === "weapon")
        .map((e) => e.key)
        .sort(),
    ).toEqual(
      fixture(P("weapons"))
        .map((w) => w.key)
        .sort(),
    );
    expect(
      out.entities
        .filter((e) => e.kind === "armor")
        .map((e) => e.key)
        .sort(),
    ).toEqual(
      fixture(P("armor"))
        .map((a) => a.key)
        .sort(),
    );
    const ls = one(out, "srd_longsword", "weapon");
    expect(ls.source_url).toBe(`${OPEN5E_BASE}/v2/weapons/srd_longsword/`);
    expect(ls.filters.cost_gp).toBeNull();
    expect(ls.filters.damage_dice).toBe(raw(P("weapons"), "srd_longsword").damage_dice);
    expect(data(ls).item_key).toBeNull();
    const plate = one(out, "srd_plate", "armor");
    expect(data(plate).ac_base).toBe(raw(P("armor"), "srd_plate").ac_base);
    expect(data(plate).item_key).toBeNull();
  });
  test("without the related weapons the range comes from the property detail", () => {
    const out = run({ ...t("items"), related: [] }, [raw(P("items"), "srd_longbow")]);
    expect(data(out.entities[0]!).range).toBe(150);
  });
  test("armor: AC calculation, strength, stealth; the 2024 shield is category shield", () => {
    const src = raw(P("items"), "srd_plate-armor");
    const e = one(r, src.armor.key, "armor");
    const d = data(e);
    expect([d.category, d.ac_base, d.ac_add_dex, d.strength_required, d.stealth_disadvantage]).toEqual([
      src.armor.category,
      src.armor.ac_base,
      src.armor.ac_add_dexmod,
      src.armor.strength_score_required,
      src.armor.grants_stealth_disadvantage,
    ]);
    expect(e.filters.cost_gp).toBe(Number(src.cost));
    const leather = data(one(r, "srd_leather", "armor"));
    expect(leather.ac_add_dex).toBe(true);
    expect(leather.ac_display).toBe(raw(P("items"), "srd_leather-armor").armor.ac_display);
    const s = one(r, "srd-2024_shield", "armor");
    expect(raw(P("armor"), "srd-2024_shield").category).toBe("heavy");
    expect(s.filters.category).toBe("shield");
    expect(data(s).ac_base).toBe(2);
    expect(s.text.split("\n")[1]).toBe("Shield");
  });
  test("the 2014 shield has no /armor/ record: it is armor (shield, +2) under its item key", () => {
    const src = raw(P("items"), "srd_shield");
    expect(src.armor).toBeNull();
    expect(src.category.key).toBe("shield");
    expect(fixture(P("armor")).some((a) => a.key === "srd_shield")).toBe(false);
    const e = one(r, "srd_shield");
    expect(kindOf(e)).toBe("armor");
    expect(e.name).toBe(src.name);
    expect(e.document_key).toBe(src.document.key);
    expect(e.source_url).toBe(`${OPEN5E_BASE}/v2/items/srd_shield/`);
    expect(e.filters).toMatchObject({
      category: "shield",
      armor_class: 2,
      cost_gp: Number(src.cost),
      weight_lb: Number(src.weight),
    });
    const d = data(e);
    expect([d.category, d.ac_base, d.ac_display, d.ac_add_dex, d.item_key, d.desc]).toEqual([
      "shield",
      2,
      "+2",
      false,
      src.key,
      src.desc,
    ]);
    expect(e.text.split("\n")[1]).toBe("Shield");
    expect(e.text).toContain("Armor Class +2");
    expect(e.text).toContain("Armor Class by 2");
  });
  test(
    "armor items without an armor record: the bonus the text " +
      "states, the /armor/ record of the same key, never magic",
    () => {
      const src = raw(P("items"), "srd_shield");
      const tower = {
        ...src,
        key: "x_tower-shield",
        name: "Tower Shield",
        desc: "Wielding it increases your Armor Class by 3.",
      };
      const plain = { ...src, key: "x_buckler", name: "Buckler", desc: "A small round shield." };
      const hauberk = {
        ...src,
        key: "x_hauberk",
        name: "Hauberk",
        desc: "Mail.",
        category: { name: "Armor", key: "armor" },
      };
      const out = run({ ...t("items"), related: [] }, [tower, plain, hauberk]);
      expect(out.entities.map((e) => `${e.kind}:${e.key}:${e.filters.category}:${e.filters.armor_class}`)).toEqual([
        "armor:x_tower-shield:shield:3",
        "armor:x_buckler:shield:2",
        "armor:x_hauberk:null:null",
      ]);
      // an /armor/ record with the item's own key is joined in, not added a second time
      const rec = { ...raw(P("armor"), "srd_plate"), key: "x_hauberk", name: "Hauberk record", ac_base: 16 };
      const same = t("items").normalize([hauberk], {
        baseUrl: OPEN5E_BASE,
        documents: documentMap(v2Docs),
        related: { armor: [rec] },
      });
      expect(same.skipped).toEqual([]);
      expect(same.entities.map((e) => `${e.kind}:${e.key}:${e.filters.armor_class}:${data(e).item_key}`)).toEqual([
        "armor:x_hauberk:16:x_hauberk",
      ]);
      // magic shields are magic items, not armor
      const magic = run({ ...t("items"), related: [] }, [{ ...src, key: "x_magic-shield", is_magic_item: true }]);
      expect(magic.entities[0]!.kind).toBe("magic_item");
    },
  );
  test("other items keep their category, cost and weight", () => {
    const src = raw(P("items"), "srd_backpack");
    const e = one(r, "srd_backpack", "item");
    expect(e.filters).toMatchObject({
      category: src.category.key,
      cost_gp: Number(src.cost),
      weight_lb: Number(src.weight),
    });
  });
  test("2025 shape: magic items inside /items/ become magic_item", () => {
    const src = {
      ...raw(P("magicitems"), "srd_cloak-of-displacement"),
      is_magic_item: true,
      url: "https://api.open5e.com/v2/items/srd_cloak-of-displacement/",
    };
    const e = run({ ...t("items"), related: [] }, [src]).entities[0]!;
    expect(e.kind).toBe("magic_item");
    expect(e.filters.rarity).toBe("rare");
  });
});

describe("open5e v2 magic items", () => {
  const r = run(t("magicitems"));
  test("rarity, attunement and type", () => {
    for (const src of fixture(P("magicitems"))) {
      const e = one(r, src.key);
      expect(e.filters.rarity).toBe(src.rarity.name.toLowerCase());
      expect(e.filters.requires_attunement).toBe(src.requires_attunement);
      expect(e.filters.category).toBe(src.category.key);
    }
    const thrower = one(r, "srd_dwarven-thrower");
    expect(data(thrower).attunement_detail).toBe("by a dwarf");
    expect(data(thrower).base_item).toBe(raw(P("magicitems"), "srd_dwarven-thrower").weapon.name);
    expect(thrower.text.split("\n")[1]).toBe("Weapon (warhammer), very rare (requires attunement by a dwarf)");
    expect(thrower.text).toContain("flies back to your hand");
  });
});

describe("open5e v2 reference data", () => {
  test("conditions: one entity per record, every document's text in descriptions", () => {
    const r = run(t("conditions"));
    expect(r.skipped).toEqual([]);
    expect(r.entities.map((e) => e.key).sort()).toEqual(
      fixture(P("conditions"))
        .map((c) => c.key)
        .sort(),
    );
    const src = raw(P("conditions"), "grappled");
    const e = one(r, "grappled");
    expect(e.document_key).toBe(src.document.key);
    expect(e.name).toBe("Grappled");
    const d = data(e);
    expect(d.descriptions.map((x: Raw) => x.document_key)).toEqual(src.descriptions.map((x: Raw) => x.document));
    for (const x of src.descriptions) {
      const made = d.descriptions.find((y: Raw) => y.document_key === x.document);
      expect(made.desc).toBe(x.desc);
      expect(made.document_name).toBe(raw(P("documents"), x.document).name);
    }
    // core is 5e 2014: the SRD 5.1 text is the main one; the text holds every document's wording
    expect(src.document.gamesystem.key).toBe("5e-2014");
    expect(d.desc).toBe(src.descriptions.find((x: Raw) => x.gamesystem === "5e-2014").desc);
    expect(e.text).toContain("incapacitated (see the condition)");
    expect(e.text).toContain("bonuses to movement speeds");
    expect(e.text).toContain("Attacks Affected");
    expect(e.text).toContain(`${raw(P("documents"), "srd-2024").name}:`);
    const own = one(r, "a5e-ag_bloodied");
    expect(own.document_key).toBe("a5e-ag");
    expect(data(own).desc).toBe(raw(P("conditions"), "a5e-ag_bloodied").descriptions[0].desc);
  });
  test("the description of the record's own document is the main one; a record without descriptions uses desc", () => {
    const src = raw(P("conditions"), "grappled");
    const ownDoc = { ...src, key: "x_grappled", document: { ...src.document, key: "srd-2024" } };
    const e = run(t("conditions"), [ownDoc]).entities[0]!;
    expect(data(e).desc).toBe(src.descriptions.find((x: Raw) => x.document === "srd-2024").desc);
    const plain = run(t("conditions"), [{ key: "x_plain", name: "Plain", document: "srd-2014", desc: "Just text." }])
      .entities[0]!;
    expect(data(plain)).toEqual({ desc: "Just text.", descriptions: [] });
  });
  test("damage types, skills, abilities and alignments: one entity per record", () => {
    for (const id of ["damagetypes", "skills", "abilities", "alignments"]) {
      const r = run(t(id));
      expect(r.skipped).toEqual([]);
      expect(r.entities.map((e) => e.key).sort()).toEqual(
        fixture(P(id))
          .map((x) => x.key)
          .sort(),
      );
      for (const src of fixture(P(id))) {
        const e = one(r, src.key);
        expect(e.document_key).toBe(typeof src.document === "string" ? src.document : src.document.key);
        expect(data(e).descriptions.map((x: Raw) => x.desc)).toEqual(src.descriptions.map((x: Raw) => x.desc));
      }
    }
  });
  test("bare-key documents take their names from the context", () => {
    const e = one(run(t("weaponproperties")), "srd-2014_versatile-wp");
    expect(raw(P("weaponproperties"), "srd-2014_versatile-wp").document).toBe("srd-2014");
    expect(e.document_name).toBe(raw(P("documents"), "srd-2014").name);
    const dmg = run(t("damagetypes"));
    expect(data(one(dmg, "radiant")).descriptions.find((x: Raw) => x.document_key === "srd-2024").document_name).toBe(
      raw(P("documents"), "srd-2024").name,
    );
    expect(one(dmg, "radiant").document_name).toBe(raw(P("documents"), "core").name);
    const schools = run(t("spellschools"));
    expect(one(schools, "evocation").document_key).toBe("core");
    expect(one(schools, "evocation").document_name).toBe(raw(P("documents"), "core").name);
  });
  test("unknown bare-key documents fall back to the key", () => {
    const e = run(t("spellschools"), [{ ...raw(P("spellschools"), "evocation"), document: "homebrew-x" }]).entities[0]!;
    expect([e.document_key, e.document_name]).toEqual(["homebrew-x", "homebrew-x"]);
  });
  test("weapon mastery properties are typed", () => {
    const e = one(run(t("weaponproperties")), "srd-2024_sap-mastery");
    expect(data(e).type).toBe("mastery");
    expect(e.filters.category).toBe("mastery");
  });
  test("skills, abilities, languages, alignments", () => {
    const skill = one(run(t("skills")), "stealth");
    expect(data(skill).ability).toBe("dexterity");
    const dex = one(run(t("abilities")), "dex");
    expect(dex.name).toBe(raw(P("abilities"), "dex").name);
    expect(data(dex).skills).toEqual(raw(P("abilities"), "dex").skills.map((s: Raw) => s.key));
    const lang = one(run(t("languages")), "draconic");
    expect(data(lang).type).toBe(raw(P("languages"), "draconic").is_exotic ? "exotic" : "standard");
    const al = run(t("alignments"));
    const ce = one(al, "chaotic-evil");
    expect(ce.name).toBe("Chaotic Evil");
    expect(data(ce).abbreviation).toBe(raw(P("alignments"), "chaotic-evil").short_name);
  });
});

describe("open5e v2 rules", () => {
  const r = run(t("rulesets"));
  test("rulesets are rule sections; their rules are rules with the section name", () => {
    for (const rs of fixture(P("rulesets"))) {
      const sec = one(r, rs.key, "rule_section");
      expect(sec.filters.section).toBe(rs.name.toLowerCase());
      expect(data(sec).rules.map((x: Raw) => x.key)).toEqual(
        [...rs.rules].sort((a: Raw, b: Raw) => a.index - b.index).map((x: Raw) => x.key),
      );
      for (const rule of rs.rules) {
        const e = one(r, rule.key, "rule");
        expect(e.filters.section).toBe(rs.name.toLowerCase());
        expect(e.document_key).toBe(rule.document);
        expect(e.source_url).toBe(`${OPEN5E_BASE}/v2/rules/${rule.key}/`);
        expect(data(e).order).toBe(rule.index);
      }
    }
    const unseen = r.entities.find(
      (e) => e.kind === "rule" && e.name === "Unseen Attackers and Targets" && e.filters.section === "combat",
    );
    expect(unseen).toBeDefined();
    const falling = r.entities.find((e) => e.name === "Falling")!;
    expect(falling.text).toContain("1d6 bludgeoning");
  });
  test("2025 shape: embedded rules without key use their url", () => {
    const rs = raw(P("rulesets"), "srd_environment");
    const old = {
      ...rs,
      rules: rs.rules.map(({ key, ...x }: Raw) => ({ ...x, url: `https://api.open5e.com/v2/rules/${key}/` })),
    };
    const out = run(t("rulesets"), [old]);
    expect(out.entities.filter((e) => e.kind === "rule").map((e) => e.key)).toEqual(rs.rules.map((x: Raw) => x.key));
  });
});

describe("bad records", () => {
  test("are skipped with a reason, never thrown", () => {
    const good = raw(P("spells"), "srd_fireball");
    const out = run(t("spells"), [
      good,
      { key: "srd_nameless", level: 1, document: "srd-2014" },
      { ...good, key: "x_bad_level", level: "high" },
      null,
      "junk",
      { ...good, key: "x_no_doc", document: undefined },
      good,
    ]);
    expect(out.entities.map((e) => e.key)).toEqual(["srd_fireball"]);
    expect(out.skipped.length).toBe(6);
    expect(out.skipped[0]).toMatchObject({ key: "srd_nameless" });
    expect(out.skipped[0]!.reason).toContain("name");
    expect(out.skipped[1]).toMatchObject({ key: "x_bad_level" });
    expect(out.skipped[1]!.reason).toContain("level");
    expect(out.skipped[4]!.reason).toContain("document");
    expect(out.skipped[5]!.reason).toBe("duplicate spell key");
  });
  test("every v2 content type tolerates junk input (related records aside)", () => {
    for (const id of [
      "creatures",
      "classes",
      "species",
      "items",
      "magicitems",
      "conditions",
      "rulesets",
      "alignments",
    ]) {
      const out = run({ ...t(id), related: [] }, [null, 1, "x", {}, { key: "k" }]);
      expect(out.entities).toEqual([]);
      expect(out.skipped.length).toBe(5);
    }
  });
});
