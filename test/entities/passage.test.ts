/** What is embedded per kind (passage.ts): bookkeeping lines out, what a thing is and does in; a changed passage re-embeds only its kind. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { passageText } from "../../src/entities/passage.ts";
import type { Entity } from "../../src/entities/types.ts";
import type { Store } from "../../src/store/db.ts";
import { contentHash } from "../../src/store/entities.ts";
import { listPendingVectors } from "../../src/store/vectors.ts";
import { makeEntity, makeStore } from "../support/entities.ts";

const SPELL = [
  "Sleet Storm",
  "Level 3 conjuration spell (concentration)",
  "Casting time: 1 action. Range: 150 feet. Components: V, S, M (A pinch of dust). Duration: Concentration, 1 minute",
  "Classes: Cleric, Druid, Sorcerer, Wizard",
  "Freezing rain and sleet fall in a cylinder. The ground is covered with slick ice.",
].join("\n");

const CLASS = [
  "Wizard",
  "Class, hit die d6",
  "Hit points at 1st level: 6 + your Constitution modifier",
  "Armor: None. Weapons: Simple weapons. Saving Throws: Intelligence and Wisdom.",
  "Spellcasting ability: Intelligence",
  "Subclasses: Evoker",
  "Equipment: Choose A or B: (A) 2 Daggers, Spellbook, and 5 GP; or (B) 55 GP",
  "1st level: Arcane Recovery. You can regain some of your magical energy by studying your spellbook. When you finish a Short Rest, you can recover spell slots.",
  "Once you use this feature, you can't do so again until you finish a Long Rest.",
  "18th level: Spell Mastery. You cast certain spells at will. More rules follow here.",
].join("\n");

describe("passageText (pure)", () => {
  test("a spell without its casting-time and class lines, the effect kept", () => {
    const p = passageText({ kind: "spell", name: "Sleet Storm", text: SPELL });
    expect(p).toBe("Sleet Storm\nLevel 3 conjuration spell (concentration)\nFreezing rain and sleet fall in a cylinder. The ground is covered with slick ice.");
  });
  test("a class as its name, spellcasting, subclasses and each feature's first sentence", () => {
    const p = passageText({ kind: "class", name: "Wizard", text: CLASS });
    expect(p.split("\n")).toEqual([
      "Wizard",
      "Class, hit die d6",
      "Spellcasting ability: Intelligence",
      "Subclasses: Evoker",
      "Arcane Recovery: You can regain some of your magical energy by studying your spellbook.",
      "Spell Mastery: You cast certain spells at will.",
    ]);
  });
  test("gear without its price and weight line", () => {
    expect(passageText({ kind: "item", name: "Spellbook", text: "Spellbook\nAdventuring Gear\nCost 50 gp. Weight 3 lb.\nA leather-bound tome for spells." })).toBe(
      "Spellbook\nAdventuring Gear\nA leather-bound tome for spells.",
    );
  });
  test("other kinds embed their text as it is; a passage is never empty", () => {
    const rule = "Falling\nRule\nA creature takes 1d6 bludgeoning damage for every 10 feet it fell.";
    expect(passageText({ kind: "rule", name: "Falling", text: rule })).toBe(rule);
    expect(passageText({ kind: "item", name: "Odd", text: "Cost 1 gp. Weight 1 lb." })).toBe("Cost 1 gp. Weight 1 lb.");
  });
});

describe("the passage is what gets embedded, and part of the content hash", () => {
  let store: Store;
  let cleanup: () => void;
  const spell = makeEntity("spell", "Sleet Storm", { level: 3 }, { text: "" });
  const rule = makeEntity("rule", "Falling", {}, { text: "A creature takes damage for every 10 feet it fell." });
  const spellEntity: Entity = { ...spell, text: SPELL };
  beforeAll(() => {
    ({ store, cleanup } = makeStore([spellEntity, rule]));
  });
  afterAll(() => cleanup());

  test("pending vectors carry the passage, not the search text", () => {
    const pending = listPendingVectors(store.db, "m@1", 10);
    const byText = pending.map((p) => p.text);
    expect(byText).toContain(passageText(spellEntity));
    expect(byText.some((t) => t.includes("Casting time"))).toBe(false);
    expect(byText).toContain(rule.text);
  });
  test("a kind whose passage is its text keeps its old hash (its vectors stay current); a cleaned kind's hash covers the passage", () => {
    const legacy = (e: Entity) => {
      const h = new Bun.CryptoHasher("sha1");
      h.update(JSON.stringify([e.kind, e.key, e.name, e.document_key, e.document_name, e.source_url, e.text, e.filters, e.data]));
      return h.digest("hex");
    };
    expect(contentHash(rule)).toBe(legacy(rule));
    expect(contentHash(spellEntity)).not.toBe(legacy(spellEntity));
  });
});
