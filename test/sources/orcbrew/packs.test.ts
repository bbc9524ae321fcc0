import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { OrcbrewError, packNameFromFile, parseOrcbrew } from "../../../src/sources/orcbrew/packs.ts";

export const FIXTURES = join(import.meta.dir, "../../fixtures/orcbrew");
const fixture = (name: string) => readFileSync(join(FIXTURES, name), "utf8");

function formatError(text: string, file = "x.orcbrew"): OrcbrewError {
  try {
    parseOrcbrew(text, file);
  } catch (err) {
    if (err instanceof OrcbrewError) return err;
    throw err;
  }
  throw new Error("expected an OrcbrewError");
}

function typeCounts(items: Array<{ type: string }>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const it of items) out[it.type] = (out[it.type] ?? 0) + 1;
  return out;
}

describe("OrcBrew packs: the two top-level shapes", () => {
  test("single plugin: one pack named after its items' :option-pack, every content type read", () => {
    const f = parseOrcbrew(fixture("all-types.orcbrew"), "/some/dir/all-types.orcbrew");
    expect(f.shape).toBe("single");
    expect(f.packs.map((p) => p.name)).toEqual(["Test Forge"]);
    expect(typeCounts(f.packs[0]!.items)).toEqual({
      spells: 4,
      monsters: 1,
      classes: 2,
      subclasses: 1,
      races: 1,
      subraces: 1,
      backgrounds: 1,
      feats: 1,
      languages: 1,
      invocations: 1,
      boons: 1,
      selections: 1,
      encounters: 1,
      "magic-items": 1,
    });
    const spell = f.packs[0]!.items.find((i) => i.key === "ember-lance")!;
    expect([spell.line, spell.column]).toEqual([6, 3]);
    expect(spell.data.page).toBeUndefined(); // #_ discarded
    expect(spell.data.created).toBe("2020-05-01T10:00:00Z");
    expect(f.packs[0]!.items.find((i) => i.key === "retired-spell")!.disabled).toBe(true);
    expect(f.warnings.join("\n")).toContain(":9-lives");
  });

  test("single plugin: items disagreeing on :option-pack → most common, with a note; none → the file name", () => {
    const mixed =
      `{:orcpub.dnd.e5/spells {:a {:name "A" :option-pack "Main"} :b ` +
      `{:name "B" :option-pack "Main"} :c {:name "C" :option-pack "Stray"}}}`;
    const f = parseOrcbrew(mixed, "renamed.orcbrew");
    expect(f.packs.map((p) => p.name)).toEqual(["Main"]);
    expect(f.warnings.join("\n")).toContain('"Main" ×2, "Stray" ×1');
    const bare = parseOrcbrew(`{:orcpub.dnd.e5/spells {:a {:name "A"}}}`, "/x/My Pack.orcbrew");
    expect(bare.packs.map((p) => p.name)).toEqual(["My Pack"]);
    expect(bare.warnings).toEqual([]);
  });

  test("many packs: string keys, one-line export with commas, empty default pack, disabled pack, stray key", () => {
    const f = parseOrcbrew(fixture("multi-pack.orcbrew"), "ignored-name.orcbrew");
    expect(f.shape).toBe("multi");
    expect(f.packs.map((p) => p.name)).toEqual(["Default Option Source", "Frost Pack", "Old Pack"]);
    const [empty, frost, old] = f.packs;
    expect(empty!.items).toEqual([]);
    expect(typeCounts(frost!.items)).toEqual({ spells: 2, monsters: 1 });
    expect(frost!.disabled).toBe(false);
    expect(frost!.skipped).toHaveLength(1);
    expect(frost!.skipped[0]!.key).toBe("giff2");
    expect(frost!.skipped[0]!.reason).toContain("stray key :giff2");
    expect(frost!.skipped[0]!.line).toBe(1);
    expect(frost!.skipped[0]!.column).toBeGreaterThan(800);
    expect(old!.disabled).toBe(true);
    expect(old!.items.every((i) => i.disabled)).toBe(true);
  });

  test("a top level written as #:orcpub.dnd.e5{...} is a single plugin", () => {
    const f = parseOrcbrew(fixture("namespaced-top.orcbrew"), "namespaced-top.orcbrew");
    expect(f.shape).toBe("single");
    expect(f.packs[0]!.items.map((i) => [i.type, i.key])).toEqual([["subraces", "star-touched"]]);
    expect(f.packs[0]!.items[0]!.data.abilities).toEqual({ wis: 1 });
  });

  test("pack names: trimmed (newline-terminated names), file names without .orcbrew", () => {
    const f = parseOrcbrew(
      '{"Austin\'s Pack\n" {:orcpub.dnd.e5/races {:giff {:name "Giff\n" :option-pack "Other"}}}}',
      "x.orcbrew",
    );
    expect(f.packs[0]!.name).toBe("Austin's Pack");
    expect(packNameFromFile("/a/b/My Pack.ORCBREW")).toBe("My Pack");
    expect(packNameFromFile("C:\\users\\me\\myorcbrewpack.orcbrew")).toBe("myorcbrewpack");
    expect(packNameFromFile("no-extension")).toBe("no-extension");
    expect(packNameFromFile(".orcbrew")).toBe("Unnamed pack");
  });

  test("unqualified content keys are accepted with a note; item problems are skipped with their place", () => {
    const f = parseOrcbrew(
      '{:spells {:a {:name "A" :level 1}\n :b nil\n :c [1 2]\n "d" {:name "D" :level 0}\n 42 {:name "x"}}}',
      "p.orcbrew",
    );
    const p = f.packs[0]!;
    expect(p.items.map((i) => i.key)).toEqual(["a", "d"]);
    expect(p.skipped.map((s) => [s.key, s.line])).toEqual([
      ["b", 2],
      ["c", 3],
      ["42", 5],
    ]);
    expect(p.skipped[0]!.reason).toContain("nil, not a map");
    expect(f.warnings.join("\n")).toContain("content key :spells (line 1) should be :orcpub.dnd.e5/spells");
  });

  test("drift seen in hand-edited files: zero-width spaces, empty pack names, :disabled? nil, items as a list", () => {
    const f = parseOrcbrew('{"" {:orcpub.dnd.e5/languages\u200b {:x {:name "X"}}, :disabled? nil}}', "x.orcbrew");
    expect(f.packs[0]!.name).toBe("Unnamed pack");
    expect(f.packs[0]!.disabled).toBe(false);
    expect(f.packs[0]!.items.map((i) => i.key)).toEqual(["x"]);
    expect(f.warnings.join("\n")).toContain(":disabled? is nil");
    const list = parseOrcbrew(
      '{:orcpub.dnd.e5/spells [{:key :x :name "X" :level 1}\n {:name "Y Z"}\n nil]}',
      "l.orcbrew",
    ).packs[0]!;
    expect(list.items.map((i) => i.key)).toEqual(["x", "y-z"]);
    expect(list.skipped.map((s) => [s.reason, s.line])).toEqual([["item 3 of the list is nil, not a map", 1]]);
  });

  test("trailing text after the first form is ignored with a note", () => {
    const f = parseOrcbrew('{:orcpub.dnd.e5/languages {:x {:name "X"}}}\n}}} garbage', "t.orcbrew");
    expect(f.packs[0]!.items).toHaveLength(1);
    expect(f.warnings.join("\n")).toContain("line 2, column 1");
  });
});

describe("OrcBrew packs: files that cannot be imported fail with the problem and its place", () => {
  test("truncated file (unterminated map)", () => {
    const e = formatError(fixture("truncated.orcbrew"));
    expect(e.reason).toContain("not valid EDN");
    expect(e.reason).toContain("not closed");
    expect([e.line, e.column]).toEqual([1, 89]);
  });

  test("unknown tag", () => {
    const e = formatError(fixture("unknown-tag.orcbrew"));
    expect(e.reason).toContain("unknown tag #my/school");
    expect([e.line, e.column]).toEqual([5, 20]);
  });

  test("duplicate key", () => {
    const e = formatError(fixture("duplicate-key.orcbrew"));
    expect(e.reason).toContain("duplicate key :twice");
    expect(e.message).toStartWith("line 4, column 4:");
  });

  test("mixed top level", () => {
    const e = formatError(fixture("mixed-top.orcbrew"));
    expect(e.reason).toContain("mixes pack names");
    expect([e.line, e.column]).toEqual([2, 2]);
  });

  test("JSON instead of EDN gets a hint", () => {
    const e = formatError('{"Pack": {"spells": {}}}');
    expect(e.reason).toContain("looks like JSON");
    expect([e.line, e.column]).toEqual([1, 8]);
  });

  test("top level that is not a map, and a pack that is not a map", () => {
    const a = formatError("\n  [:orcpub.dnd.e5/spells]");
    expect(a.reason).toContain("must hold a map");
    expect([a.line, a.column]).toEqual([2, 3]);
    const b = formatError('{"Good" {}\n "Bad" [1 2]}');
    expect(b.reason).toContain('pack "Bad" must be a map');
    expect([b.line, b.column]).toEqual([2, 2]);
  });
});
