/**
 * Pure pieces of the compact answers: document preference, grouping same-name entries, lean tool schemas, summaries,
 * nearest values.
 */
import { describe, expect, test } from "bun:test";
import { formsByKind, groupRows, type LightRow } from "../../../src/search/rank/collapse.ts";
import { nearestValues } from "../../../src/search/rank/explain.ts";
import { documentRank, normalizePreference } from "../../../src/entities/preference.ts";
import { leanSchema } from "../../../src/tools/kit/lean-schema.ts";
import { firstSentence } from "../../../src/tools/answer/rows.ts";

let id = 0;
const row = (name: string, doc: string, source = "open5e_v2", kind = "spell"): LightRow => ({
  id: ++id,
  kind,
  name,
  document_key: doc,
  document_source: source,
  key: `${doc}_${name.toLowerCase()}`,
});

describe("document preference", () => {
  test("default: srd-2024, srd-2014, other open content by key, homebrew last", () => {
    const rows = [
      row("X", "tob"),
      row("X", "mine", "orcbrew"),
      row("X", "a5e-ag"),
      row("X", "srd-2014"),
      row("X", "srd-2024"),
    ];
    const [g] = groupRows(rows, documentRank());
    expect(g!.members.map((m) => m.document_key)).toEqual(["srd-2024", "srd-2014", "a5e-ag", "tob", "mine"]);
  });
  test("listed documents first, in order, aliases resolved; the SRDs keep their order after them", () => {
    expect(normalizePreference(["SRD-5e", " tob ", "srd-2014"])).toEqual(["srd-2014", "tob"]);
    const rows = [row("X", "tob"), row("X", "a5e-ag"), row("X", "srd-2014"), row("X", "srd-2024")];
    expect(groupRows(rows, documentRank(["tob", "srd-5.1"]))[0]!.members.map((m) => m.document_key)).toEqual([
      "tob",
      "srd-2014",
      "srd-2024",
      "a5e-ag",
    ]);
    expect(documentRank(["tob"]).id).toBe("tob");
    expect(documentRank(["tob"])).toBe(documentRank(["TOB"]));
  });
  test("groups: one per kind and name (any case), placed where their first row is", () => {
    const rows = [
      row("Shield", "a5e-ag"),
      row("Fireball", "tob"),
      row("shield", "srd-2024"),
      row("Shield", "srd-2014", "open5e_v2", "armor"),
    ];
    const groups = groupRows(rows, documentRank());
    expect(
      groups.map(
        (g) => `${g.members[0]!.kind}:${g.members[0]!.name}@${g.members[0]!.document_key}+${g.members.length - 1}`,
      ),
    ).toEqual(["spell:shield@srd-2024+1", "spell:Fireball@tob+0", "armor:Shield@srd-2014+0"]);
  });
});

describe("lean tool schemas", () => {
  test("drops what says nothing, keeps every constraint", () => {
    const s = {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: {
        n: { type: "integer", minimum: -Number.MAX_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER, description: "" },
        l: { type: "integer", minimum: 1, maximum: 100 },
        e: { type: "string", enum: ["a", "b"] },
        r: { type: "object", propertyNames: { type: "string" }, additionalProperties: { type: "integer" } },
        o: { type: "object", properties: {}, additionalProperties: {} },
      },
      additionalProperties: false,
    };
    expect(leanSchema(s)).toEqual({
      type: "object",
      properties: {
        n: { type: "integer" },
        l: { type: "integer", minimum: 1, maximum: 100 },
        e: { enum: ["a", "b"] },
        r: { type: "object", additionalProperties: { type: "integer" } },
        o: { type: "object" },
      },
      additionalProperties: false,
    });
  });
});

describe("summaries and suggestions", () => {
  test("first sentence, plain text, cut at a word", () => {
    expect(firstSentence("**Bold** start. Second sentence.")).toBe("Bold start.");
    expect(firstSentence("A | table | row\n\nnext")).toBe("A table row next");
    const long = firstSentence("word ".repeat(40));
    expect(long.length).toBeLessThanOrEqual(60);
    expect(long).toEndWith("word…");
  });
  test("nearest values: containing the text, then a few edits, else the most common", () => {
    const vals = [
      { v: "wizard", n: 300 },
      { v: "cleric", n: 200 },
      { v: "paladin", n: 50 },
    ];
    expect(nearestValues("wizzard", vals)).toEqual(["wizard"]);
    expect(nearestValues("pala", vals)).toEqual(["paladin"]);
    expect(nearestValues("dragon", vals, 2)).toEqual(["wizard", "cleric"]);
  });
});

describe("a page's groups, per kind", () => {
  test("each name form once, per kind, in first-seen order (one statement per kind reads them)", () => {
    const groups = [
      { kind: "creature", name_form: "horse draft" },
      { kind: "spell", name_form: "fireball" },
      { kind: "creature", name_form: "goblin" },
      { kind: "creature", name_form: "horse draft" },
    ];
    expect([...formsByKind(groups)]).toEqual([
      ["creature", ["horse draft", "goblin"]],
      ["spell", ["fireball"]],
    ]);
    expect(formsByKind([]).size).toBe(0);
  });
});
