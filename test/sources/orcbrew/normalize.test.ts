import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  normalizeOrcbrewPack,
  type NormalizedPack,
  orcbrewDocumentKey,
  orcbrewEntityKey,
} from "../../../src/sources/orcbrew/normalize/pack.ts";
import { propsLines } from "../../../src/sources/orcbrew/normalize/props.ts";
import type {
  ClassData,
  CreatureData,
  FeatData,
  SpeciesData,
  SpellData,
  BackgroundData,
} from "../../../src/entities/kinds.ts";
import type { Entity } from "../../../src/entities/types.ts";
import { parseOrcbrew } from "../../../src/sources/orcbrew/packs.ts";

const FIXTURES = join(import.meta.dir, "../../fixtures/orcbrew");

function normalizeFixture(name: string): NormalizedPack[] {
  const f = parseOrcbrew(readFileSync(join(FIXTURES, name), "utf8"), name);
  return f.packs.map((p) =>
    normalizeOrcbrewPack(p, {
      documentKey: orcbrewDocumentKey(p.name),
      documentName: p.name,
      fileUrl: `file:///fx/${name}`,
    }),
  );
}

const all = normalizeFixture("all-types.orcbrew")[0]!;
const byName = (n: string): Entity => {
  const e = all.entities.find((x) => x.name === n);
  if (!e) throw new Error(`no entity ${n}; have ${all.entities.map((x) => x.name).join(", ")}`);
  return e;
};

describe("OrcBrew keys and document metadata", () => {
  test("document keys are prefixed slugs of the pack name; entity keys add the item key", () => {
    expect(orcbrewDocumentKey("Austin's Pack\n")).toBe("orcbrew-austins-pack");
    expect(orcbrewDocumentKey("SCAG Subclasses (LunaMoonbringer#2094)")).toBe(
      "orcbrew-scag-subclasses-lunamoonbringer-2094",
    );
    expect(orcbrewDocumentKey("ドラゴン")).toMatch(/^orcbrew-pack-[0-9a-f]{10}$/);
    expect(orcbrewDocumentKey("ドラゴン")).not.toBe(orcbrewDocumentKey("エルフ"));
    expect(orcbrewEntityKey("orcbrew-x", "roccos-static-surge-")).toBe("orcbrew-x_roccos-static-surge");
  });

  test("every entity carries the pack as its document, source orcbrew, and a file URL", () => {
    expect(all.entities.length).toBe(11);
    for (const e of all.entities) {
      expect(e.document_key).toBe("orcbrew-test-forge");
      expect(e.document_name).toBe("Test Forge");
      expect(e.document_source).toBe("orcbrew");
      expect(e.key.startsWith("orcbrew-test-forge_")).toBe(true);
      expect(e.source_url).toStartWith("file:///fx/all-types.orcbrew#");
    }
    expect(new Set(all.entities.map((e) => `${e.kind}/${e.key}`)).size).toBe(all.entities.length);
  });

  test("counts per type, with the reason for each skip", () => {
    const t = Object.fromEntries(all.types.map((c) => [c.type, [c.kind, c.found, c.imported, c.skipped]]));
    expect(t).toEqual({
      spells: ["spell", 4, 2, 2],
      monsters: ["creature", 1, 1, 0],
      classes: ["class", 2, 2, 0],
      subclasses: ["subclass", 1, 1, 0],
      races: ["species", 1, 1, 0],
      subraces: ["subspecies", 1, 1, 0],
      backgrounds: ["background", 1, 1, 0],
      feats: ["feat", 1, 1, 0],
      languages: ["language", 1, 1, 0],
      invocations: [null, 1, 0, 1],
      boons: [null, 1, 0, 1],
      selections: [null, 1, 0, 1],
      encounters: [null, 1, 0, 1],
      "magic-items": [null, 1, 0, 1],
    });
    const reasons = Object.fromEntries(all.skipped.map((s) => [s.key, s.reason]));
    expect(reasons.levelless).toContain("no :level");
    expect(reasons["retired-spell"]).toContain("disabled");
    expect(reasons["smoke-sight"]).toContain("invocations");
    expect(reasons["pact-of-coal"]).toContain("boons");
    expect(reasons["drake-nest"]).toContain("encounters");
    expect(reasons["cinder-ring"]).toContain("unknown content type :orcpub.dnd.e5/magic-items");
    for (const s of all.skipped) expect(s.line).toBeGreaterThan(0);
  });
});

describe("OrcBrew spells", () => {
  test(
    "components, classes from :spell-lists (false dropped), " +
      "concentration from the duration, higher levels split off",
    () => {
      const e = byName("Ember Lance");
      const d = e.data as SpellData;
      expect(e.kind).toBe("spell");
      expect(d.level).toBe(2);
      expect(d.school).toBe("evocation");
      expect(d.classes).toEqual(["wizard", "sorcerer"]);
      expect(d.concentration).toBe(true);
      expect(d.ritual).toBe(false);
      expect(d.components).toEqual({
        verbal: true,
        somatic: false,
        material: true,
        material_text: "a coal worth 10 gp, which the spell consumes",
        material_cost: "10 gp",
        material_consumed: true,
      });
      expect(d.desc).not.toContain("At Higher Levels");
      expect(d.higher_level).toBe("The damage increases by 1d6 for each slot level above 2nd.");
      expect(d.damage_types).toEqual(["fire"]);
      expect(d.attack_roll).toBe(true);
      expect(d.damage_roll).toBe("3d6");
      expect(d.range_ft).toBe(60);
      expect(e.filters).toMatchObject({
        level: 2,
        school: "evocation",
        classes: ["wizard", "sorcerer"],
        concentration: true,
        ritual: false,
        casting_time: "1 bonus action",
        damage_types: ["fire"],
      });
      expect(e.text).toContain("A lance of glowing embers");
      expect(e.text).toContain("Ember Lance");
    },
  );

  test("capitalised school, ritual flag, no concentration, {nil nil} ignored", () => {
    const e = byName("Quiet Chant");
    const d = e.data as SpellData;
    expect(d.school).toBe("enchantment");
    expect(d.ritual).toBe(true);
    expect(d.concentration).toBe(false);
    expect(d.classes).toEqual(["bard"]);
    expect(e.filters.casting_time).toBe("1 minute");
  });
});

describe("OrcBrew monsters", () => {
  test("HP from the dice, CR from :challenge, props → damage/condition/language strings, NaN skill dropped", () => {
    const e = byName("Ash Drake");
    const d = e.data as CreatureData;
    expect(e.kind).toBe("creature");
    expect(d.hit_points).toBe(45); // 6d10+12 → floor(6 × 5.5) + 12
    expect(d.hit_dice).toBe("6d10+12");
    expect(d.cr).toBe(0.5);
    expect(d.cr_display).toBe("1/2");
    expect(d.xp).toBe(100);
    expect(d.size).toBe("Large");
    expect(d.type).toBe("Dragon");
    expect(d.armor_class).toBe(15);
    expect(d.armor_detail).toBe("natural armor");
    expect(d.speed).toEqual({ walk: 30, fly: 60, hover: true });
    expect(d.ability_scores).toEqual({
      strength: 18,
      dexterity: 12,
      constitution: 15,
      intelligence: 8,
      wisdom: 11,
      charisma: 10,
    });
    expect(d.saving_throws).toEqual({ dexterity: 3 });
    expect(d.skills).toEqual({ perception: 4 });
    expect(d.passive_perception).toBe(14);
    expect(d.damage_immunities).toBe("fire");
    expect(d.damage_resistances).toBe("poison");
    expect(d.condition_immunities).toBe("frightened");
    expect(d.languages).toBe("Draconic");
    expect(d.traits.map((t) => t.name)).toEqual(["Smoke Veil"]);
    expect(d.actions.map((t) => t.name)).toEqual(["Claw"]);
    expect(d.legendary_actions.map((t) => t.name)).toEqual(["Tail Sweep"]);
    expect(d.legendary_desc).toBe("The drake can take 1 legendary action.");
    expect(d.desc).toBe("A small drake that smells of soot.");
    expect(e.filters).toMatchObject({
      cr: 0.5,
      creature_type: "dragon",
      size: "large",
      armor_class: 15,
      hit_points: 45,
    });
  });

  test("foreign shapes: string size/type, no hit points", () => {
    const frost = normalizeFixture("multi-pack.orcbrew")[1]!;
    const mite = frost.entities.find((e) => e.name === "Frost Mite")!;
    expect((mite.data as CreatureData).hit_points).toBe(5); // 2d4
    expect(mite.filters.cr).toBe(0.125);
    const f = parseOrcbrew(
      '{"P" {:orcpub.dnd.e5/monsters {:gob {:name "Goblin" :size "Small" :type "humanoid" :challenge 0.25}}}}',
      "p.orcbrew",
    );
    const n = normalizeOrcbrewPack(f.packs[0]!, { documentKey: "orcbrew-p", documentName: "P", fileUrl: "file:///p" });
    const g = n.entities[0]!;
    expect((g.data as CreatureData).hit_points).toBeNull();
    expect(g.filters).toMatchObject({ size: "small", creature_type: "humanoid", cr: 0.25, hit_points: null });
  });
});

describe("OrcBrew character options", () => {
  test(
    "class: hit die, saves (class profs: false still counts), " +
      "spell list, modifiers, selections resolved, subclasses linked",
    () => {
      const d = byName("Ember Knight").data as ClassData;
      expect(d.hit_die).toBe("d10");
      expect(d.saving_throws).toEqual(["Strength", "Constitution"]);
      expect(d.proficiencies.armor).toBe("Light, Medium, Shields");
      expect(d.proficiencies.skills).toBe("choose 2 from Athletics, Arcana");
      expect(d.spellcasting_ability).toBe("Intelligence");
      expect(d.caster_type).toBe("half");
      expect(d.equipment).toBe("Weapon: Longsword or Battleaxe");
      const f = Object.fromEntries(d.features.map((x) => [x.name, x]));
      expect(f["Spell List"]!.desc).toContain("1st: Ember Lance");
      expect(f["Extra Attack"]!.level).toBe(5);
      expect(f["Forge Styles"]!.desc).toContain("Hammer Style: Strike twice.");
      expect(f["Kindled Blade"]!.level).toBe(1);
      expect(d.subclasses).toEqual([{ key: "orcbrew-test-forge_cinder-oath", name: "Cinder Oath" }]);
      expect(byName("9 Lives").key).toBe("orcbrew-test-forge_9-lives");
    },
  );

  test("subclass: parent class of the pack, paladin spells by name", () => {
    const e = byName("Cinder Oath");
    const d = e.data as ClassData;
    expect(e.kind).toBe("subclass");
    expect(d.subclass_of).toEqual({ key: "orcbrew-test-forge_ember-knight", name: "Ember Knight" });
    expect(d.features.find((x) => x.name === "Paladin Spells")!.desc).toBe("1st: Ember Lance, Shield");
  });

  test("race and subrace: namespaced ability map, language set, props, innate spells, parent link", () => {
    const race = byName("Emberkin");
    const r = race.data as SpeciesData;
    expect(race.kind).toBe("species");
    expect(r.size).toBe("Medium");
    expect(r.speed).toBe(30);
    const traits = Object.fromEntries(r.traits.map((t) => [t.name, t.desc]));
    expect(traits["Ability Score Increase"]).toBe("Constitution +2 and Charisma +1");
    expect(traits.Languages).toBe("Common and Ignan");
    expect(traits.Benefits).toBe("Damage resistance: Fire");
    expect(traits["Warm Blood"]).toBe("You are comfortable in extreme heat.");
    expect(r.subspecies).toEqual([{ key: "orcbrew-test-forge_ash-emberkin", name: "Ash Emberkin" }]);
    expect(race.filters.size).toBe("medium");
    const sub = byName("Ash Emberkin");
    const s = sub.data as SpeciesData;
    expect(sub.kind).toBe("subspecies");
    expect(s.subspecies_of).toEqual({ key: "orcbrew-test-forge_emberkin", name: "Emberkin" });
    expect(s.traits.find((t) => t.name === "Innate Spellcasting")!.desc).toContain(
      "Ember Lance (from level 3, Charisma)",
    );
  });

  test("background: skills without false-cruft, list equipment choices, treasure, feature", () => {
    const d = byName("Forge Apprentice").data as BackgroundData;
    expect(d.desc).toBe("You grew up at the anvil.");
    expect(d.skill_proficiencies).toBe("Athletics, History");
    expect(d.tool_proficiencies).toBe("Smiths Tools");
    expect(d.languages).toBe("1 of your choice");
    expect(d.equipment).toBe("Hammer, Clothes Common, one of Tongs or Bellows (Tools), a pouch containing 15 gp");
    expect(d.feature).toEqual({ name: "Smith's Welcome", desc: "Smiths give you a bed for the night." });
  });

  test("feat: prerequisites from the set, ability choice, props without false toggles", () => {
    const d = byName("Flame-Touched").data as FeatData;
    expect(d.prerequisite).toBe("Charisma 13 or higher; The ability to cast at least one spell");
    expect(d.benefits).toContain("Increase your Charisma or Intelligence score by 1, to a maximum of 20.");
    expect(d.benefits).toContain("+2 to initiative");
    expect(d.benefits.join("\n")).not.toContain("Natural armor");
  });

  test("language", () => {
    const e = byName("Ignan Cant");
    expect(e.kind).toBe("language");
    expect(e.data.desc).toBe("A crackling trade tongue of fire-workers.");
  });
});

test("property keys named like an object's built-in properties are humanized like any other key", () => {
  expect(propsLines({ constructor: true, toString: 2, valueOf: { a: true } })).toEqual([
    "Constructor",
    "ToString: 2",
    "ValueOf: A",
  ]);
});
