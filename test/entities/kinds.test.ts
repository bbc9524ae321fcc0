/**
 * The kind schemas (src/entities/kinds.ts) against what this build writes: every source's
 * normalizer output over the fixtures (with the corrections a sync applies), the OrcBrew and 5etools
 * importers, and the derived trait rows all pass; the broken shapes a content pack could carry are
 * named by their field; a normalizer's output that fails is skipped like an invalid record.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as v from "valibot";
import { applyCorrections } from "../../src/entities/corrections/apply.ts";
import { KIND_SCHEMAS, kindDataProblem } from "../../src/entities/kinds.ts";
import { runRecords } from "../../src/entities/normalize/build.ts";
import { documentRank } from "../../src/entities/preference.ts";
import { traitEntities } from "../../src/entities/traits.ts";
import { ENTITY_KINDS, type Entity, type JsonObject } from "../../src/entities/types.ts";
import { parseFivetools } from "../../src/sources/5etools/file.ts";
import { normalizeFivetoolsFile } from "../../src/sources/5etools/normalize/file.ts";
import { normalizeOrcbrewPack, orcbrewDocumentKey } from "../../src/sources/orcbrew/normalize/pack.ts";
import { parseOrcbrew } from "../../src/sources/orcbrew/packs.ts";
import { blankData, withCanonicalData } from "../support/canonical-data.ts";
import { makeEntity } from "../support/entities.ts";
import { ALL_TYPES, run } from "./fixtures.ts";

const FIXTURES = join(import.meta.dir, "..", "fixtures");

function homebrew(): Entity[] {
  const out: Entity[] = [];
  for (const name of ["all-types.orcbrew", "multi-pack.orcbrew"]) {
    const f = parseOrcbrew(readFileSync(join(FIXTURES, "orcbrew", name), "utf8"), name);
    for (const p of f.packs) {
      const ctx = { documentKey: orcbrewDocumentKey(p.name), documentName: p.name, fileUrl: `file:///fx/${name}` };
      out.push(...normalizeOrcbrewPack(p, ctx).entities);
    }
  }
  const text = readFileSync(join(FIXTURES, "5etools", "ember-forge.json"), "utf8");
  const file = normalizeFivetoolsFile(parseFivetools(text), "file:///fx/ember-forge.json", "ember-forge.json");
  for (const s of file.sources) out.push(...s.entities);
  return out;
}

describe("every entity this build writes has its kind's shape", () => {
  const synced = ALL_TYPES.flatMap((t) => run(t).entities.map(applyCorrections));
  const brewed = homebrew();
  const traits = traitEntities(
    synced.filter((e) => e.kind === "creature"),
    documentRank(),
  );

  test("synced (every source's content types over the fixtures), imported and derived rows", () => {
    const problems = [...synced, ...brewed, ...traits]
      .map((e) => ({ e, why: kindDataProblem(e.kind, e.data) }))
      .filter((x) => x.why)
      .map((x) => `${x.e.document_source} ${x.e.kind} ${x.e.key}: ${x.why}`);
    expect(problems).toEqual([]);
    // Every kind was seen, so no schema went unchecked.
    const seen = new Set([...synced, ...brewed, ...traits].map((e) => e.kind));
    expect(ENTITY_KINDS.filter((k) => !seen.has(k))).toEqual([]);
    expect(brewed.length).toBeGreaterThan(10);
    expect(traits.length).toBeGreaterThan(0);
  });

  test("a blank of each kind's shape passes (the test helper's blanks are what the schema asks for)", () => {
    for (const k of ENTITY_KINDS) expect(kindDataProblem(k, blankData(k))).toBeUndefined();
    expect(Object.keys(KIND_SCHEMAS).sort()).toEqual([...ENTITY_KINDS].sort());
  });
});

describe("a wrong shape is named by its first wrong field", () => {
  const spell = blankData("spell");
  const creature = blankData("creature");
  const klass = blankData("class");
  const cases: Array<[string, Parameters<typeof kindDataProblem>[0], JsonObject, string]> = [
    ["an empty object", "spell", {}, "`level` is missing"],
    ["a level in words", "spell", { ...spell, level: "x" }, '`level` is "x", expected a number'],
    ["a fractional level", "spell", { ...spell, level: 2.5 }, "`level` is 2.5, expected a whole number"],
    ["a negative level", "spell", { ...spell, level: -1 }, "`level` is -1, expected at least 0"],
    ["actions as text", "creature", { ...creature, actions: "bite" }, '`actions` is "bite", expected a list'],
    ["an action without text", "creature", { ...creature, actions: [{ name: "Bite" }] }, "`actions.0.desc` is missing"],
    [
      "a speed in words",
      "creature",
      { ...creature, speed: { walk: "fast" } },
      '`speed.walk` is "fast", expected a number or true/false',
    ],
    ["a list where text goes", "spell", { ...spell, desc: ["a"] }, "`desc` is a list, expected text"],
    ["null where a list goes", "class", { ...klass, features: null }, "`features` is null, expected a list"],
  ];
  for (const [what, kind, data, why] of cases) {
    test(what, () => expect(kindDataProblem(kind, data)).toBe(why));
  }
  test("fields the kind does not have are carried, not refused", () => {
    expect(kindDataProblem("spell", { ...spell, homebrew_flavour: "sparkly" })).toBeUndefined();
  });
});

describe("a normalizer's output of the wrong shape", () => {
  test("is skipped with the reason, like an invalid record; its good neighbours are kept", () => {
    const good = withCanonicalData(makeEntity("spell", "Good", { level: 1 }));
    const bad = { ...good, key: "srd_bad", name: "Bad", data: { ...good.data, classes: "wizard" } };
    const r = runRecords([good, bad], v.unknown(), (rec) => rec as Entity);
    expect(r.entities.map((e) => e.name)).toEqual(["Good"]);
    const reason = 'its data is not a spell\'s: `classes` is "wizard", expected a list';
    expect(r.skipped).toEqual([{ key: "srd_bad", reason }]);
  });
});
