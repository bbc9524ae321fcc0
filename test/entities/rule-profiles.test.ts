/** The rule profiles (src/entities/data/rule-profiles.json) and where they reach: text, data, lookups. */
import { describe, expect, test } from "bun:test";
import data from "../../src/entities/data/rule-profiles.json" with { type: "json" };
import { RULE_PROFILES, ruleProfile } from "../../src/entities/profiles.ts";
import { ruleEntity, ruleSectionEntity } from "../../src/entities/normalize/canonical/reference.ts";

const CORE = ["srd-2014", "srd-2024"];

describe("the rule profiles file", () => {
  test("has a provenance note and no empty, duplicate or malformed entry", () => {
    expect((data as { provenance: string }).provenance.length).toBeGreaterThan(100);
    expect(RULE_PROFILES.length).toBeGreaterThan(50);
    const seen = new Set<string>();
    for (const p of RULE_PROFILES) {
      expect(["rule", "rule_section"]).toContain(p.kind);
      expect(p.name.trim()).toBe(p.name);
      expect(p.profile.trim().length).toBeGreaterThan(40);
      expect(p.names.length).toBeGreaterThan(0);
      for (const n of p.names) expect(n.trim().length).toBeGreaterThan(0);
      expect(p.documents.length).toBeGreaterThan(0);
      for (const d of p.documents) expect(CORE).toContain(d);
      for (const s of p.sections ?? []) expect(s).toBe(s.toLowerCase());
      // One entry per kind, name, document and section: a lookup never has two answers.
      for (const n of [p.name, ...(p.also ?? [])]) {
        for (const d of p.documents) {
          for (const s of p.sections ?? ["*"]) {
            const k = `${p.kind}|${n.toLowerCase()}|${d}|${s}`;
            expect(seen.has(k)).toBe(false);
            seen.add(k);
          }
        }
      }
    }
  });

  test("no profile can contradict its rule's numbers: no digits but the die's name (d20, a natural 20 or 1)", () => {
    const numbers = (s: string) => /\d/.test(s.replace(/\bd20s?\b|\bnatural (?:20|1)\b/g, ""));
    for (const p of RULE_PROFILES) {
      expect({ name: p.name, numbers: numbers(p.profile) }).toEqual({ name: p.name, numbers: false });
    }
  });

  test("common rule questions have a rule that answers them", () => {
    const words = (p: (typeof RULE_PROFILES)[number]) => `${p.profile} ${p.names.join(" ")}`.toLowerCase();
    const about = (word: string) => RULE_PROFILES.filter((p) => words(p).includes(word)).map((p) => p.name);
    expect(about("surprise")).toContain("The Order of Combat");
    expect(about("reactions per round")).toContain("Reactions");
    expect(about("short rest")).toContain("Resting");
    expect(about("fall")).toContain("Falling");
    expect(about("suffocat")).toContain("Suffocating");
    expect(about("half cover")).toContain("Cover");
  });
});

describe("a rule's profile is found and leads its text", () => {
  test("core documents only; the section tells two rules of one name apart", () => {
    expect(ruleProfile("rule", "Reactions", "srd-2014")?.name).toBe("Reactions");
    expect(ruleProfile("rule", "Reactions", "tob")).toBeNull();
    expect(ruleProfile("rule", "Hit Points", "srd-2024", "Damage and Healing")?.name).toBe("Hit Points");
    // SRD 5.1 files the monsters' "Hit Points" under Monsters: not the damage rule's profile.
    expect(ruleProfile("rule", "Hit Points", "srd-2014", "Monsters")).toBeNull();
    expect(ruleProfile("rule", "Rnged Attacks", "srd-2014")?.name).toBe("Ranged Attacks");
    expect(ruleProfile("rule_section", "Cover", "srd-2014")?.kind).toBe("rule_section");
  });

  test("the text leads with the profile and the topics, the data carries them; other documents are untouched", () => {
    const doc = { key: "srd-2014", name: "SRD 5.1" };
    const base = { key: "srd_reactions", name: "Reactions", doc, url: "http://127.0.0.1/r" };
    const desc =
      "Certain abilities allow a special action called a reaction. " +
      "When you take a reaction, you can't take another one until the start of your next turn.";
    const e = ruleEntity("open5e_v2", base, { desc, section: "Combat Sequence", section_key: null, order: 1 });
    const p = ruleProfile("rule", "Reactions", "srd-2014")!;
    expect(e.text.indexOf(p.profile)).toBeGreaterThan(0);
    expect(e.text.indexOf(p.profile)).toBeLessThan(e.text.indexOf(desc));
    expect(e.text).toContain(`Also called ${p.names.join(", ")}.`);
    expect(e.data.profile).toBe(p.profile);
    expect(e.data.common_names).toEqual(p.names);
    const tob = { ...base, doc: { key: "tob", name: "Tome of Beasts" } };
    const other = ruleEntity("open5e_v2", tob, { desc, section: null, section_key: null, order: null });
    expect(other.data.profile).toBeUndefined();
    expect(other.text).not.toContain(p.profile);
    const sectionBase = { ...base, name: "Combat Sequence", key: "srd-2014_combat-sequence" };
    const section = ruleSectionEntity("open5e_v2", sectionBase, { desc: "Surprise, initiative.", rules: [] });
    expect(section.text).toContain(ruleProfile("rule_section", "Combat Sequence", "srd-2014")!.profile);
  });
});
