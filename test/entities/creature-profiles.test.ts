/**
 * The creature profiles file as a whole (src/entities/data/creature-profiles.json), and the way
 * profiles reach a creature: its text, its data and its compact row. The whole-corpus check
 * (every SRD creature has one, recorded sizes and types match the real stat blocks) is
 * scripts/check-profiles.ts; here the fixtures' SRD creatures of every source stand in for it.
 */
import { describe, expect, test } from "bun:test";
import { CORE_PROFILE_DOCUMENTS, CREATURE_PROFILES, creatureProfile, profileKey } from "../../src/entities/profiles.ts";
import type { Entity } from "../../src/entities/types.ts";
import { rowsOf } from "../../src/tools/answer/rows.ts";
import { PROFILE_CHARS } from "../../src/tools/answer/compact-fields.ts";
import { CREATURE_TYPES, SIZES } from "../../src/entities/catalog.ts";
import { ALL_TYPES, data, raw, run } from "./fixtures.ts";

/** Type words that read as a creature type wherever they appear (unlike "beast", "giant", "dragon", "plant"). */
/** The compact row an answer shows for `e` as its first row. */
const compactRow = (e: Entity) => rowsOf([{ entity: { ...e, id: 1 } }], "summary")[0]!;

const JARGON_TYPES = [
  "aberration",
  "celestial",
  "construct",
  "elemental",
  "fey",
  "fiend",
  "humanoid",
  "monstrosity",
  "ooze",
  "undead",
];

describe("the creature profiles file", () => {
  test("has an entry per core creature name: no empty entries, no duplicates", () => {
    expect(CREATURE_PROFILES.length).toBeGreaterThan(350);
    const names = new Set<string>();
    const texts = new Set<string>();
    for (const p of CREATURE_PROFILES) {
      expect(p.name.trim()).toBe(p.name);
      expect(p.name.length).toBeGreaterThan(0);
      for (const n of [p.name, ...(p.also ?? [])]) {
        expect(names.has(n.toLowerCase()), `${n} is filed twice`).toBe(false);
        names.add(n.toLowerCase());
      }
      expect(texts.has(p.profile), `${p.name}: same profile as another entry`).toBe(false);
      texts.add(p.profile);
      expect(p.profile.length, `${p.name}: profile too short or too long`).toBeGreaterThanOrEqual(60);
      expect(p.profile.length, `${p.name}: profile too short or too long`).toBeLessThanOrEqual(520);
      expect(p.profile, `${p.name}: a profile is plain sentences`).toMatch(/^[A-Z].*[.!]$/);
      expect(p.names.length, `${p.name}: no common names`).toBeGreaterThan(0);
      expect(new Set(p.names.map((n) => n.toLowerCase())).size, `${p.name}: a common name twice`).toBe(p.names.length);
      for (const n of p.names) expect(n.trim().length, `${p.name}: an empty common name`).toBeGreaterThan(0);
      expect(p.documents.length).toBeGreaterThan(0);
      for (const d of p.documents) expect(CORE_PROFILE_DOCUMENTS).toContain(d);
      for (const s of p.sizes) expect(SIZES as readonly string[]).toContain(s);
      for (const t of p.types) expect(CREATURE_TYPES as readonly string[]).toContain(t);
      expect(p.sizes.length * p.types.length).toBeGreaterThan(0);
    }
  });

  test("no profile can contradict its stat block: no numbers, and size and type words agree", () => {
    const bad: string[] = [];
    for (const p of CREATURE_PROFILES) {
      const text = p.profile.toLowerCase();
      if (/\d/.test(p.profile)) bad.push(`${p.name}: a number ("${/\S*\d\S*/.exec(p.profile)![0]}")`);
      for (const m of text.matchAll(new RegExp(`\\b(${SIZES.join("|")})[ -](${CREATURE_TYPES.join("|")})s?\\b`, "g"))) {
        if (!p.sizes.includes(m[1]!) || !p.types.includes(m[2]!))
          bad.push(`${p.name}: "${m[0]}" but its stat block says ${p.sizes.join("/")} ${p.types.join("/")}`);
      }
      for (const t of JARGON_TYPES) {
        if (new RegExp(`\\b${t}s?\\b`).test(text) && !p.types.includes(t))
          bad.push(`${p.name}: "${t}" but it is ${p.types.join("/")}`);
      }
    }
    expect(bad).toEqual([]);
  });

  test("a profile is found for the core documents only, and for a D&D 5e API form variant", () => {
    expect(creatureProfile("Owlbear", "srd-2024")?.names).toContain("owl bear");
    expect(creatureProfile("OWLBEAR", "srd-2014")?.name).toBe("Owlbear");
    expect(creatureProfile("Owlbear", "a5e-mm")).toBeNull();
    expect(creatureProfile("Not A Creature", "srd-2014")).toBeNull();
    expect(profileKey("Werewolf, Hybrid Form")).toBe("werewolf");
    expect(creatureProfile("Vampire, Mist Form", "srd-2014")?.name).toBe("Vampire");
    expect(creatureProfile("Elf, Drow", "srd-2014")?.name).toBe("Drow");
  });
});

describe("profiles reach the creatures of every source", () => {
  const creatures: Entity[] = ALL_TYPES.filter((t) => t.kinds.includes("creature")).flatMap((t) =>
    run(t).entities.filter((e) => e.kind === "creature"),
  );
  const core = creatures.filter((e) => CORE_PROFILE_DOCUMENTS.includes(e.document_key));

  test("every core creature of the fixtures has a profile whose recorded size and type match its stat block", () => {
    expect(new Set(core.map((e) => e.document_key))).toEqual(new Set(CORE_PROFILE_DOCUMENTS));
    expect(new Set(core.map((e) => e.document_source)).size).toBeGreaterThanOrEqual(3);
    for (const e of core) {
      const p = creatureProfile(e.name, e.document_key);
      expect(p, `${e.document_source} ${e.key} has no profile`).not.toBeNull();
      expect(p!.sizes).toContain(e.filters.size!);
      expect(p!.types).toContain(e.filters.creature_type!);
      expect(p!.documents).toContain(e.document_key);
    }
  });

  test("the text leads with the profile and common names, then words before numbers; data carries them", () => {
    for (const e of core) {
      const p = creatureProfile(e.name, e.document_key)!;
      const lines = e.text.split("\n");
      expect(lines[0]).toBe(e.name);
      expect(lines[2]!.startsWith(p.profile)).toBe(true);
      expect(lines[2]).toContain(`Also called ${p.names.join(", ")}.`);
      expect(lines[3]!.length).toBeGreaterThan(0);
      expect(lines[3]).not.toMatch(/\d/);
      expect(data(e).profile).toBe(p.profile);
      expect(data(e).common_names).toEqual(p.names);
    }
  });

  test("a compact row carries the profile's first sentence, at most PROFILE_CHARS characters", () => {
    for (const e of core) {
      const row = compactRow(e);
      const first = /^(.+?[.!?])(\s|$)/.exec(String(data(e).profile))![1]!;
      expect(typeof row.profile).toBe("string");
      expect(String(row.profile).length).toBeLessThanOrEqual(PROFILE_CHARS);
      expect(first.startsWith(String(row.profile).replace(/…$/, ""))).toBe(true);
    }
  });

  test("a creature of another document gets no profile, even under a core name", () => {
    const other = creatures.find((e) => !CORE_PROFILE_DOCUMENTS.includes(e.document_key));
    const t = ALL_TYPES.find((x) => x.source === "open5e_v2" && x.id === "creatures")!;
    const goblin = raw("open5e/v2/creatures.json", "srd_goblin");
    const renamed = run(t, [
      { ...goblin, key: "tob_goblin", document: { ...goblin.document, key: "tob", name: "Tome of Beasts" } },
    ]).entities[0];
    expect(renamed?.name).toBe("Goblin");
    expect(renamed?.document_key).toBe("tob");
    for (const e of [other, renamed].filter((x): x is Entity => x !== undefined)) {
      expect(data(e).profile).toBeUndefined();
      expect(compactRow(e).profile).toBeUndefined();
    }
  });
});

describe("a source's lore paragraph leads when there is no profile", () => {
  test("an Open5e v1 creature of another book: the first paragraph of its desc, before the stat block", () => {
    const t = ALL_TYPES.find((x) => x.source === "open5e_v1" && x.id === "monsters")!;
    const wraith = raw("open5e/v1/monsters.json", "wraith", "slug");
    const lore =
      "A shadow-bound knight that rides the storm, wrapped in a cloak of grave mist and hunting oath-breakers.";
    const e = run(t, [
      {
        ...wraith,
        slug: "storm-knight",
        name: "Storm Knight",
        document__slug: "tob",
        document__title: "Tome of Beasts",
        desc: `${lore}\n\nIt was once a paladin.`,
      },
    ]).entities[0]!;
    expect(e.document_key).not.toBe("srd-2014");
    expect(data(e).profile).toBeUndefined();
    const lines = e.text.split("\n");
    expect(lines[2]).toBe(lore);
    expect(e.text).toContain("It was once a paladin.");
  });
});
