import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { CreatureData, FeatData, MagicItemData, SpellData, WeaponData } from "../../../src/entities/kinds.ts";
import type { Entity } from "../../../src/entities/types.ts";
import { resolveCopies } from "../../../src/sources/5etools/copy.ts";
import { newRenderStats, render } from "../../../src/sources/5etools/entries.ts";
import { parseFivetools } from "../../../src/sources/5etools/file.ts";
import { normalizeFivetoolsFile } from "../../../src/sources/5etools/normalize/file.ts";
import { renderTags } from "../../../src/sources/5etools/tags.ts";

const FIXTURE = join(import.meta.dir, "../../fixtures/5etools/ember-forge.json");
const file = normalizeFivetoolsFile(
  parseFivetools(readFileSync(FIXTURE, "utf8")),
  "file:///t/ember-forge.json",
  "ember-forge.json",
);
const all: Entity[] = file.sources.flatMap((s) => s.entities);
const byName = (name: string) => {
  const e = all.find((x) => x.name === name);
  if (!e) throw new Error(`no entity ${name}: ${all.map((x) => x.name).join(", ")}`);
  return e;
};

describe("inline tags", () => {
  const r = (s: string) => renderTags(s, newRenderStats());
  test("render as a reader sees them", () => {
    expect(r("{@atk mw} {@hit 5} to hit, reach 5 ft. {@h}7 ({@damage 2d6}) slashing")).toBe(
      "Melee Weapon Attack: +5 to hit, reach 5 ft. Hit: 7 (2d6) slashing",
    );
    expect(r("{@atk rw,mw} {@hit -1}")).toBe("Melee or Ranged Weapon Attack: -1");
    expect(r("a {@dc 15} save, roll {@dice 1d20}, {@recharge 5} {@recharge}")).toBe(
      "a DC 15 save, roll 1d20, (Recharge 5\u20136) (Recharge 6)",
    );
    expect(r("{@spell fireball} and {@creature goblin|mm} and {@item longsword|phb|a long blade}")).toBe(
      "fireball and goblin and a long blade",
    );
    expect(
      r("{@condition frightened}, {@i italic}, {@b {@spell shield}}, {@filter spells|spells|level=1}, {@note hush}"),
    ).toBe("frightened, italic, shield, spells, hush");
    expect(r("{@scaledamage 1d6 + 10|1-9|1d6} {@chance 25} {@d20 3} {@actSave dex} {@atkr m}")).toBe(
      `${"1d6 {@chance}".replace(" {@chance}", "")} 25 percent +3 Dexterity Saving Throw: Melee Attack Roll:`,
    );
  });

  test("an unknown tag keeps its display text and is counted", () => {
    const stats = newRenderStats();
    expect(renderTags("say {@mystery the word|x} twice {@mystery again}", stats)).toBe("say the word twice again");
    expect(stats.unknown.get("mystery")).toBe(2);
  });

  test("an unclosed tag loses its markers, never its words", () => {
    const out = renderTags("broken {@spell fire bolt and more", newRenderStats());
    expect(out).not.toContain("{@");
    expect(out).toContain("fire bolt and more");
  });
});

describe("entries", () => {
  test("named blocks, lists, tables, insets and quotes become plain text", () => {
    const stats = newRenderStats();
    const text = render(
      [
        "Intro.",
        { type: "entries", name: "Part", entries: ["Body {@b bold}."] },
        { type: "list", items: ["one", { type: "item", name: "Two", entry: "second" }] },
        {
          type: "table",
          caption: "Roll",
          colLabels: ["d6", "Result"],
          rows: [
            [{ type: "cell", roll: { min: 1, max: 3 } }, "low"],
            ["4", "high"],
          ],
        },
        { type: "inset", name: "Aside", entries: ["Inset text."] },
        { type: "quote", entries: ["Words."], by: "Someone" },
        { type: "gizmo", name: "Odd", entries: ["kept"] },
      ],
      stats,
    );
    expect(text).toBe(
      [
        "Intro.",
        "Part. Body bold.",
        "- one",
        "- Two. second",
        "Roll",
        "d6 | Result",
        "1\u20133 | low",
        "4 | high",
        "Aside. Inset text.",
        "Words.",
        "\u2014 Someone",
        "Odd. kept",
      ].join("\n"),
    );
    expect(stats.unknownBlocks.get("gizmo")).toBe(1);
  });

  test("control, bidi and zero-width characters are dropped from text", () => {
    expect(render(["a\u202eb\u200bc\u0007d"], newRenderStats())).toBe("abcd");
  });

  test("a line break inside a string stays a line break", () => {
    expect(render(["line one\r\nline\ttwo\n\u200bthree"], newRenderStats())).toBe("line one\nline two\nthree");
  });
});

describe("the fixture file", () => {
  test("each source is its own document", () => {
    expect(file.sources.map((s) => [s.doc.key, s.doc.name])).toEqual([
      ["5etools-ember-forge", "The Ember Forge"],
      ["5etools-ember-beasts", "Beasts of the Ember Forge"],
    ]);
    expect(all.every((e) => e.document_source === "5etools")).toBe(true);
    expect(JSON.stringify(all)).not.toContain("{@");
    expect(file.warnings.filter((w) => w.startsWith("inline tags shown by their text only"))).toEqual([
      "inline tags shown by their text only (not known to this importer): {@frobnicate} ×1",
    ]);
  });

  test(
    "spell fields: level, school letters and homebrew schools, " +
      "components with cost in copper, concentration, ritual",
    () => {
      const s = byName("Cinder Bloom");
      const d = s.data as SpellData;
      expect(s.filters).toMatchObject({
        level: 3,
        school: "evocation",
        classes: ["wizard", "sorcerer"],
        concentration: true,
        ritual: false,
        casting_time: "1 action",
        damage_types: ["fire"],
      });
      expect(d.components).toMatchObject({
        verbal: true,
        somatic: true,
        material: true,
        material_cost: "50 gp",
        material_consumed: true,
      });
      expect(d.range).toBe("90 feet");
      expect(d.duration).toBe("up to 1 minute");
      expect(d.saving_throw).toBe("dexterity");
      expect(d.higher_level).toBe("The damage increases by 1d6 for each slot level above 3rd.");
      expect(d.desc).toContain("must make a DC 14 Dexterity saving throw, taking 4d6 fire damage");
      const k = byName("Kindle Ward");
      expect(k.filters).toMatchObject({ level: 1, school: "pyromancy", ritual: true, casting_time: "10 minutes" });
      expect((k.data as SpellData).components.material_text).toBe("a bit of charcoal");
    },
  );

  test(
    "creature fields: CR with lair, type with tags, AC shapes, " +
      "speeds, senses, damage lists, spellcasting, legendary and lair",
    () => {
      const c = byName("Forge Drake");
      const d = c.data as CreatureData;
      expect(c.filters).toMatchObject({
        cr: 7,
        creature_type: "dragon",
        size: "large",
        armor_class: 16,
        hit_points: 102,
      });
      expect(d.cr_display).toBe("7 (8 in lair)");
      expect(d.subtype).toBe("fire");
      expect(d.alignment).toBe("chaotic evil");
      expect(d.armor_detail).toBe("natural armor; 18 while its scales glow");
      expect(d.speed).toEqual({ walk: 40, fly: 80, hover: true });
      expect(d.senses).toBe("darkvision 60 ft., blindsight 10 ft., passive Perception 14");
      expect(d.damage_resistances).toBe("bludgeoning, piercing, slashing from nonmagical attacks");
      expect(d.saving_throws).toEqual({ dexterity: 4, constitution: 6 });
      expect(d.skills).toEqual({ perception: 4, sleight_of_hand: 4 });
      expect(d.actions.find((a) => a.name === "Bite")?.desc).toBe(
        "Melee Weapon Attack: +8 to hit, reach 10 ft., one target. Hit: " +
          "16 (2d10 + 5) piercing damage, and the target is knocked prone.",
      );
      expect(d.actions.find((a) => a.name === "Slag Breath")?.usage).toBe("Recharge 5\u20136");
      expect(d.legendary_actions.map((a) => [a.name, a.cost])).toEqual([
        ["Tail Sweep", 1],
        ["Wing Gust (Costs 2 Actions)", 2],
      ]);
      expect(d.lair_actions[0]?.desc).toContain("Lava spurts from a vent.");
      expect(d.environments).toEqual(["mountain", "underdark"]);
      expect(d.traits.find((t) => t.name === "Innate Spellcasting")?.desc).toContain(
        "1/Day each: fireball, heat metal",
      );
      expect(d.desc).toContain("hoard slag");
      const mephit = byName("Ash Mephit");
      expect(mephit.filters).toMatchObject({ cr: 0.25, creature_type: "elemental", size: "small", armor_class: 11 });
      expect((mephit.data as CreatureData).speed).toEqual({ walk: 30 });
    },
  );

  test("_copy: the base is copied and _mod applied; what cannot be applied is noted", () => {
    const elder = byName("Elder Ash Mephit").data as CreatureData;
    expect(elder.cr).toBe(1);
    expect(elder.hit_points).toBe(17);
    expect(elder.actions.map((a) => a.name)).toEqual(["Ash Puff", "Cinder Burst"]);
    expect(elder.actions[0]!.desc).toContain("range 20/60 ft., up to two creatures.");
    const notes = file.sources[1]!.warnings.join("\n");
    expect(notes).toContain('"addSkills" is not supported');
    expect(notes).toContain('_copy base "Goblin" (MM) is not in this file');
    expect(byName("Borrowed Goblin").filters.cr).toBe(0.25);
  });

  test("items: rarity, attunement, copper prices, weapon and armor kinds, item properties and variants", () => {
    const h = byName("Emberheart Hammer");
    const d = h.data as MagicItemData;
    expect(h.kind).toBe("magic_item");
    expect(h.filters).toMatchObject({
      rarity: "rare",
      requires_attunement: true,
      category: "weapon",
      cost_gp: 1500,
      weight_lb: 5,
    });
    expect(d.attunement_detail).toBe("by a dwarf");
    expect(d.desc).toContain("Versatile (1d10), Hammering");
    expect(byName("Tongs of Tending")).toMatchObject({
      kind: "item",
      filters: { cost_gp: 1.5, category: "adventuring-gear" },
    });
    expect(byName("Slag Plate")).toMatchObject({ kind: "armor", filters: { category: "heavy", armor_class: 17 } });
    expect(byName("Forge Pick")).toMatchObject({
      kind: "weapon",
      filters: { category: "simple melee", damage_dice: "1d6", damage_types: ["piercing"] },
    });
    expect(byName("Hammering").kind).toBe("weapon_property");
    expect(byName("Quenched Weapon")).toMatchObject({ kind: "magic_item", filters: { rarity: "uncommon" } });
  });

  test("species, feats, backgrounds, classes, subclasses, conditions", () => {
    const race = byName("Cinderkin");
    expect(race.filters.size).toBe("small or medium");
    expect(race.data).toMatchObject({ speed: 30, subspecies: [{ name: "Cinderkin (Slagborn)" }] });
    expect(JSON.stringify(race.data)).toContain("Constitution +2");
    expect(byName("Cinderkin (Slagborn)").data).toMatchObject({ subspecies_of: { name: "Cinderkin" } });
    expect(byName("Forge Adept").data).toMatchObject({
      prerequisite: "4th level, Strength 13 or higher or proficiency with smith's tools",
    });
    expect(byName("Forgeborn Style").data).toMatchObject({ type: "fighting style" });
    const bg = byName("Apprentice Smith").data;
    expect(bg).toMatchObject({
      skill_proficiencies: "athletics, history",
      tool_proficiencies: "smith's tools",
      equipment: "A hammer, tongs and a leather apron",
      feature: { name: "Hearth Welcome" },
    });
    const cls = byName("Smith");
    expect(cls.data).toMatchObject({
      hit_die: "d10",
      saving_throws: ["Strength", "Constitution"],
      subclasses: [{ name: "Temper of Glass" }],
    });
    expect(
      (cls.data as { features: Array<{ name: string; level: number }> }).features.map((f) => [f.name, f.level]),
    ).toEqual([
      ["Heat the Iron", 1],
      ["Temper", 3],
    ]);
    const sub = byName("Temper of Glass");
    expect(sub.filters.classes).toEqual(["smith"]);
    expect(sub.data).toMatchObject({
      desc: "Your work is clear and sharp.\nClear Edge",
      features: [{ name: "Clear Edge", level: 3 }],
    });
    expect(byName("Scorched").kind).toBe("condition");
  });

  test("types without a kind are notes, unknown types and bad records are skips, folded records are counted", () => {
    const ef = file.sources[0]!;
    expect(ef.skipped.map((s) => [s.type, s.name, !!s.by_design])).toEqual([
      ["deity", "Ferrum", true],
      ["widget", "Gizmo", false],
      ["spell", "Broken Spell", false],
    ]);
    expect(ef.types.find((t) => t.type === "classFeature")).toMatchObject({ found: 2, folded: 2 });
    expect(ef.types.find((t) => t.type === "roll20Spell")).toMatchObject({ found: 1, folded: 1 });
  });
});

test("a record type or caster progression named like an object's built-in property is a plain word", () => {
  const meta = { sources: [{ json: "PROTO", abbreviation: "P", full: "Proto", authors: ["x"], version: "1" }] };
  const klass = { name: "Protoclass", source: "PROTO", hd: { number: 1, faces: 8 }, casterProgression: "constructor" };
  const text = JSON.stringify({ _meta: meta, constructor: [{ name: "X", source: "PROTO" }], class: [klass] });
  const out = normalizeFivetoolsFile(parseFivetools(text), "file:///t/proto.json", "proto.json");
  expect(renderTags("{@atk constructor} {@atkr toString} hit", newRenderStats())).toBe("Attack: Attack Roll: hit");
  const src = out.sources[0]!;
  expect((src.entities[0]!.data as { caster_type: unknown }).caster_type).toBe("constructor");
  expect(src.skipped).toEqual([
    expect.objectContaining({ type: "constructor", reason: expect.stringMatching(/unknown record type/) }),
  ]);
});

describe("shapes of hand-made community files (fixture hand-made-shapes.json)", () => {
  const shapes = normalizeFivetoolsFile(
    parseFivetools(readFileSync(join(import.meta.dir, "../../fixtures/5etools/hand-made-shapes.json"), "utf8")),
    "file:///t/hand-made-shapes.json",
    "hand-made-shapes.json",
  );
  const src = shapes.sources[0]!;
  const named = (name: string) => src.entities.find((e) => e.name === name)!;

  test("weapon dice written as tags are rendered; prices written as the book shows them are read", () => {
    const glaive = named("Lantern Glaive");
    const w = glaive.data as unknown as WeaponData;
    expect(glaive.kind).toBe("weapon");
    expect(w.damage_dice).toBe("1d8/1d6");
    expect(w.versatile_dice).toBe("1d10");
    expect(w.properties.map((p) => [p.name, p.detail])).toEqual([
      ["Versatile", "1d10"],
      ["Twinned", null],
    ]);
    expect([w.cost, w.cost_gp]).toEqual(["1250 gp", 1250]);
    expect((named("Wick Knife").data as unknown as WeaponData).cost_gp).toBe(0.3);
    expect((named("Oil Flask Sling").data as unknown as WeaponData).cost).toBe("7 gp");
    expect(JSON.stringify(src.entities)).not.toContain("{@");
  });

  test("featureType as one string and spell prerequisites (#c = cantrip, |source dropped)", () => {
    const tongue = named("Ember Tongue").data as unknown as FeatData;
    expect(tongue.type).toBe("eldritch invocation");
    expect(tongue.prerequisite).toBe("the spark flick cantrip");
    const shadow = named("Second Shadow").data as unknown as FeatData;
    expect(shadow.type).toBe("eldritch invocation");
    expect(shadow.prerequisite).toBe("5th level Warlock, the gloom veil spell or the hex spell");
  });

  test("the report counts the kinds each list became, not only the first", () => {
    const item = src.types.find((t) => t.type === "item")!;
    expect(item.kinds).toEqual({ weapon: 3, magic_item: 1 });
    expect(item.kind).toBe("weapon");
    expect(item.imported).toBe(4);
  });
});

describe("_copy", () => {
  test("a copy of a copy resolves; a loop stops with a note", () => {
    const out = resolveCopies([
      { name: "A", hp: 1 },
      { name: "B", _copy: { name: "A" }, ac: 2 },
      { name: "C", _copy: { name: "B", _mod: { entries: { mode: "removeArr", names: "nothing" } } } },
      { name: "X", _copy: { name: "Y" } },
      { name: "Y", _copy: { name: "X" } },
    ]);
    expect(out[2]!.record).toMatchObject({ name: "C", hp: 1, ac: 2 });
    expect(out[2]!.notes.join(" ")).toContain("removeArr found none");
    expect(out[3]!.notes.join(" ") + out[4]!.notes.join(" ")).toContain("longer than 8 (or loops)");
  });
});
