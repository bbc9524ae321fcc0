/**
 * The spell profiles file as a whole (src/entities/data/spell-profiles.json), and the way a spell
 * record finds its profile. The whole-corpus check (every SRD spell has one, recorded levels and
 * schools match the real records) is scripts/check-profiles.ts; here the fixtures' SRD spells of
 * every source stand in for it.
 */
import { SPELL_SCHOOLS } from "../../src/entities/catalog.ts";
import { describe, expect, test } from "bun:test";
import { CORE_PROFILE_DOCUMENTS, SPELL_PROFILES, spellProfile } from "../../src/entities/profiles.ts";
import type { Entity } from "../../src/entities/types.ts";
import { ALL_TYPES, run } from "./fixtures.ts";

/** School names that read as the school wherever they appear ("illusion" and "enchantment" are everyday words too). */
const JARGON_SCHOOLS = ["abjuration", "conjuration", "divination", "evocation", "necromancy", "transmutation"];
const ORDINAL = "first|second|third|fourth|fifth|sixth|seventh|eighth|ninth";

describe("the spell profiles file", () => {
  test("has an entry per core spell name: no empty entries, no duplicates", () => {
    expect(SPELL_PROFILES.length).toBeGreaterThan(330);
    const names = new Set<string>();
    const texts = new Set<string>();
    for (const p of SPELL_PROFILES) {
      expect(p.name.trim()).toBe(p.name);
      expect(p.name.length).toBeGreaterThan(0);
      for (const n of [p.name, ...(p.also ?? [])]) {
        expect(names.has(n.toLowerCase()), `${n} is filed twice`).toBe(false);
        names.add(n.toLowerCase());
      }
      expect(texts.has(p.profile), `${p.name}: same profile as another entry`).toBe(false);
      texts.add(p.profile);
      expect(p.profile.length, `${p.name}: profile too short or too long`).toBeGreaterThanOrEqual(60);
      expect(p.profile.length, `${p.name}: profile too short or too long`).toBeLessThanOrEqual(420);
      expect(p.profile, `${p.name}: a profile is plain sentences`).toMatch(/^[A-Z].*[.!]$/);
      expect(p.names.length, `${p.name}: no common names`).toBeGreaterThan(0);
      expect(new Set(p.names.map((n) => n.toLowerCase())).size, `${p.name}: a common name twice`).toBe(p.names.length);
      for (const n of p.names) expect(n.trim().length, `${p.name}: an empty common name`).toBeGreaterThan(0);
      expect(p.documents.length).toBeGreaterThan(0);
      for (const d of p.documents) expect(CORE_PROFILE_DOCUMENTS).toContain(d);
      expect(p.levels.length * p.schools.length).toBeGreaterThan(0);
      for (const l of p.levels) expect(Number.isInteger(l) && l >= 0 && l <= 9, `${p.name}: level ${l}`).toBe(true);
      for (const s of p.schools) expect(SPELL_SCHOOLS as readonly string[]).toContain(s);
    }
  });

  test("no profile can contradict its spell: no numbers, and level and school words agree", () => {
    const bad: string[] = [];
    for (const p of SPELL_PROFILES) {
      const text = p.profile.toLowerCase();
      if (/\d/.test(p.profile)) bad.push(`${p.name}: a number ("${/\S*\d\S*/.exec(p.profile)![0]}")`);
      if (new RegExp(`\\b(${ORDINAL})[- ]level\\b`).test(text)) bad.push(`${p.name}: a spell level in words`);
      const cantrip = /\bcantrip\b/.test(text);
      if (cantrip && !p.levels.includes(0)) bad.push(`${p.name}: "cantrip" but it is level ${p.levels.join("/")}`);
      if (!cantrip && p.levels.length === 1 && p.levels[0] === 0) bad.push(`${p.name}: a cantrip not called one`);
      for (const s of JARGON_SCHOOLS) {
        const said = new RegExp(`\\b${s}\\b`).test(text);
        if (said && !p.schools.includes(s)) bad.push(`${p.name}: "${s}" but it is ${p.schools.join("/")}`);
      }
    }
    expect(bad).toEqual([]);
  });

  test("a profile is found for the core documents only, whatever the name's case", () => {
    expect(spellProfile("Feather Fall", "srd-2024")?.levels).toEqual([1]);
    expect(spellProfile("feather fall", "SRD-2014")?.name).toBe("Feather Fall");
    expect(spellProfile("Commune With Nature", "srd-2014")?.name).toBe("Commune with Nature");
    expect(spellProfile("Feather Fall", "a5e-ag")).toBeNull();
    expect(spellProfile("Not A Spell", "srd-2014")).toBeNull();
  });

  test("a renamed spell keeps its own entry and names the other one", () => {
    expect(spellProfile("Feeblemind", "srd-2014")?.documents).toEqual(["srd-2014"]);
    expect(spellProfile("Befuddlement", "srd-2024")?.names.map((n) => n.toLowerCase())).toContain("feeblemind");
  });
});

describe("profiles reach the spells of every source", () => {
  const spells: Entity[] = ALL_TYPES.filter((t) => t.kinds.includes("spell")).flatMap((t) =>
    run(t).entities.filter((e) => e.kind === "spell"),
  );
  const core = spells.filter((e) => CORE_PROFILE_DOCUMENTS.includes(e.document_key));

  test("every core spell of the fixtures has a profile whose recorded level and school match the record", () => {
    expect(new Set(core.map((e) => e.document_key))).toEqual(new Set(CORE_PROFILE_DOCUMENTS));
    expect(new Set(core.map((e) => e.document_source)).size).toBeGreaterThanOrEqual(3);
    for (const e of core) {
      const p = spellProfile(e.name, e.document_key);
      expect(p, `${e.document_source} ${e.key} has no profile`).not.toBeNull();
      expect(p!.documents).toContain(e.document_key);
      expect(p!.levels).toContain(Number(e.filters.level));
      expect(p!.schools).toContain(String(e.filters.school).toLowerCase());
    }
  });

  test("a spell of another document gets none, even under a core name", () => {
    const other = spells.filter((e) => !CORE_PROFILE_DOCUMENTS.includes(e.document_key));
    expect(other.some((e) => spellProfile(e.name, "srd-2014") !== null)).toBe(true);
    for (const e of other) expect(spellProfile(e.name, e.document_key)).toBeNull();
  });
});
