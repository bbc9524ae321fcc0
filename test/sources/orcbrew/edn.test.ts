import { describe, expect, test } from "bun:test";
import { EdnSyntaxError, type EdnValue, equalityKey, readEdn, toPlain } from "../../../src/sources/orcbrew/edn.ts";

const plain = (s: string) => toPlain(readEdn(s).value);

function syntaxError(s: string): EdnSyntaxError {
  try {
    readEdn(s);
  } catch (err) {
    if (err instanceof EdnSyntaxError) return err;
    throw err;
  }
  throw new Error(`expected a syntax error for ${JSON.stringify(s)}`);
}

describe("EDN reader: what real .orcbrew files contain", () => {
  test("maps, vectors, keywords, strings, numbers, nil and booleans", () => {
    expect(plain('{:name "Fire" :level 3 :ok true :no false :none nil :xs [1 2.5 -3]}')).toEqual({
      name: "Fire",
      level: 3,
      ok: true,
      no: false,
      none: null,
      xs: [1, 2.5, -3],
    });
  });

  test("a UTF-8 BOM before the first form is skipped, and columns on line 1 do not count it", () => {
    expect(plain("\uFEFF{:a 1}")).toEqual({ a: 1 });
    const err = syntaxError("\uFEFF{:a #foo 1}");
    expect([err.line, err.column]).toEqual([1, 5]);
  });

  test("commas are whitespace, trailing and leading ones too", () => {
    expect(plain("{:a 1,, :b 2,}")).toEqual({ a: 1, b: 2 });
    expect(plain('{:key :giff\n, :name "Giff\n"\n, :speed 30\n}')).toEqual({ key: "giff", name: "Giff\n", speed: 30 });
  });

  test("; comments (with non-ASCII) and #! comments", () => {
    expect(plain(";; header — em dash\n{:a 1 ; trailing comment\n :b 2}\n#! also a comment")).toEqual({ a: 1, b: 2 });
  });

  test("#_ discards the next form, also inside maps and nested discards", () => {
    expect(plain("{:a #_ 1 2 :b 3}")).toEqual({ a: 2, b: 3 });
    expect(plain("{:a 1 #_ :page #_ 12}")).toEqual({ a: 1 });
    expect(plain("[1 #_ #_ 2 3 4]")).toEqual([1, 4]);
    expect(plain("#_ {:ignored true} {:real true}")).toEqual({ real: true });
  });

  test("sets and lists become arrays; duplicate set elements are an error", () => {
    expect(plain('{:langs #{"Common" "Infernal"} :choices ({:name "A"} {:name "B"})}')).toEqual({
      langs: ["Common", "Infernal"],
      choices: [{ name: "A" }, { name: "B" }],
    });
    const err = syntaxError('#{"Common"\n "Common"}');
    expect(err.reason).toContain('duplicate set element "Common"');
    expect([err.line, err.column]).toEqual([2, 2]);
  });

  test("namespaced maps #:ns{...}: bare keys take the namespace, :_/k stays unqualified", () => {
    const v = readEdn("#:orcpub.dnd.e5.character{:str 2 :_/plain 1 :other.ns/x 3}").value;
    expect(equalityKey(v)).toBe(equalityKey(readEdn("{:orcpub.dnd.e5.character/str 2 :plain 1 :other.ns/x 3}").value));
    expect(toPlain(v)).toEqual({ str: 2, plain: 1, x: 3 });
    expect(plain("{:abilities #:orcpub.dnd.e5.character {:con 2}}")).toEqual({ abilities: { con: 2 } });
  });

  test("a namespaced map whose keys collide after qualification is a duplicate", () => {
    expect(syntaxError("#:a{:x 1 :a/x 2}").reason).toContain("duplicate key :a/x");
  });

  test("##NaN, ##Inf and ##-Inf are numbers; toPlain turns them into null", () => {
    const v = readEdn("[##NaN ##Inf ##-Inf]").value as { items: EdnValue[] };
    expect(Number.isNaN(v.items[0] as number)).toBe(true);
    expect(v.items[1]).toBe(Infinity);
    expect(v.items[2]).toBe(-Infinity);
    expect(plain("{:skills {:perception 4 :stealth ##NaN}}")).toEqual({ skills: { perception: 4, stealth: null } });
    expect(syntaxError("##Nope").reason).toContain("##Nope");
  });

  test("#inst and #uuid are read and checked; any other tag is rejected with its place", () => {
    expect(plain('{:at #inst "2020-05-01T10:00:00Z" :id #uuid "F81D4FAE-7DEC-11D0-A765-00A0C91E6BF6"}')).toEqual({
      at: "2020-05-01T10:00:00Z",
      id: "f81d4fae-7dec-11d0-a765-00a0c91e6bf6",
    });
    expect(syntaxError('#inst "yesterday"').reason).toContain("#inst");
    expect(syntaxError("#uuid 12").reason).toContain("#uuid");
    const err = syntaxError('{:a 1\n :school #my/school "evocation"}');
    expect(err.reason).toContain("unknown tag #my/school");
    expect([err.line, err.column]).toEqual([2, 10]);
  });

  test("duplicate map keys are an error naming the key and both places", () => {
    const err = syntaxError("{:a 1\n :b 2\n :a 3}");
    expect(err.reason).toContain("duplicate key :a");
    expect(err.reason).toContain("first at line 1, column 2");
    expect([err.line, err.column]).toEqual([3, 2]);
    // 1 and 1.0 are the same number in ClojureScript
    expect(syntaxError("{1 :a 1.0 :b}").reason).toContain("duplicate key 1");
    // composite keys compare by value
    expect(syntaxError("{[1 2] :a (1 2) :b}").reason).toContain("duplicate key");
  });

  test("keywords: namespaces, digit-initial names, invalid forms", () => {
    const v = readEdn("[:orcpub.dnd.e5/spells :9-lives :a.b/c-d?]").value as {
      items: Array<{ ns: string | null; name: string }>;
    };
    expect(v.items.map((k) => [k.ns, k.name])).toEqual([
      ["orcpub.dnd.e5", "spells"],
      [null, "9-lives"],
      ["a.b", "c-d?"],
    ]);
    expect(syntaxError("{:a ::auto}").reason).toContain("auto-resolved");
    expect(syntaxError("[: 1]").reason).toContain("keyword name");
  });

  test("strings: escapes, unicode, multi-line; bad escapes are errors", () => {
    expect(plain('"tab\\tq\\"\\\\ \\u00e9 \\101"')).toBe('tab\tq"\\ é A');
    expect(plain('"line one\nline two"')).toBe("line one\nline two");
    expect(syntaxError('"bad \\q escape"').reason).toContain("unsupported escape \\q");
    expect(syntaxError('"bad \\u12"').reason).toContain("unicode escape");
  });

  test("characters and symbols", () => {
    expect(plain("[\\a \\newline \\u0041 \\space]")).toEqual(["a", "\n", "A", " "]);
    expect(plain("[foo my.ns/bar - +]")).toEqual(["foo", "bar", "-", "+"]);
    // A name only an object's prototype has is no character name.
    expect(syntaxError("[\\constructor]").message).toMatch(/unsupported character literal \\constructor/);
    expect(syntaxError("[\\toString]").message).toMatch(/unsupported character literal/);
  });

  test("numbers: ints, floats, exponents, N/M suffixes, hex, ratios, radix", () => {
    expect(plain("[0 -7 +3 0.125 1e3 2.5E-1 12N 1.5M 0x1F 1/8 2r101 36rZ]")).toEqual([
      0, -7, 3, 0.125, 1000, 0.25, 12, 1.5, 31, 0.125, 5, 35,
    ]);
    expect(syntaxError("[12abc]").reason).toContain("invalid number 12abc");
    expect(syntaxError("1/0").reason).toContain("divides by zero");
  });

  test("truncated input names the unclosed collection and where it was opened", () => {
    const err = syntaxError('{:orcpub.dnd.e5/classes {:broken {:key :broken :name "Broken"');
    expect(err.reason).toContain("the map opened at line 1, column 34 is not closed");
    expect(err.line).toBe(1);
    const s = syntaxError('{:a "never closed');
    expect(s.reason).toContain("unterminated string");
    expect([s.line, s.column]).toEqual([1, 5]);
  });

  test("mismatched and stray closing brackets, odd maps, empty input", () => {
    const m = syntaxError("{:a [1 2}\n");
    expect(m.reason).toContain("the vector opened at line 1, column 5 must be closed with ']'");
    expect(syntaxError(")").reason).toContain("nothing is open");
    const odd = syntaxError("{:a 1\n :b}");
    expect(odd.reason).toContain("odd number of forms");
    expect(odd.reason).toContain(":b");
    expect([odd.line, odd.column]).toEqual([2, 2]);
    expect(syntaxError("  ;; only a comment\n").reason).toContain("empty");
    expect(syntaxError("[1 #_]").reason).toContain("#_");
  });

  test("not EDN: metadata, regexes, auto-resolved namespaced maps", () => {
    expect(syntaxError("^:meta {}").reason).toContain("metadata");
    expect(syntaxError('#"re"').reason).toContain("regular expressions");
    expect(syntaxError("#::{:a 1}").reason).toContain("namespace");
  });

  test("only the first form is read; where trailing text starts is reported", () => {
    const r = readEdn("{:a 1}\n\n  {:b 2}");
    expect(toPlain(r.value)).toEqual({ a: 1 });
    expect(r.trailingOffset).not.toBeNull();
    expect(r.lines.locate(r.trailingOffset!)).toEqual({ line: 3, column: 3 });
    expect(readEdn("{:a 1} ;; done\n").trailingOffset).toBeNull();
  });

  test("{nil nil} cruft and nil keys are dropped by toPlain; a later nil does not hide a value", () => {
    expect(plain('{nil nil :name "X"}')).toEqual({ name: "X" });
    expect(plain("{:str 2 :orcpub.dnd.e5.character/str nil}")).toEqual({ str: 2 });
  });

  test("deep nesting is refused instead of overflowing the stack", () => {
    expect(syntaxError("[".repeat(5000) + "]".repeat(5000)).reason).toContain("nesting deeper");
  });

  test("a large compact file reads whole (its speed is measured by the bench, not here)", () => {
    const item = (i: number) =>
      `:item-${i} {:key :item-${i}, :name "Item ${i}", :option-pack "Big", :level ${i % 10}, :school ` +
      `"evocation", :spell-lists {:wizard true, :bard false}, :description "${"word ".repeat(60)}"}`;
    const text = `{"Big" {:orcpub.dnd.e5/spells {${Array.from({ length: 5000 }, (_, i) => item(i)).join(", ")}}}}`;
    expect(text.length).toBeGreaterThan(1_500_000);
    const v = toPlain(readEdn(text).value) as Record<string, Record<string, Record<string, unknown>>>;
    expect(Object.keys(v.Big!.spells!).length).toBe(5000);
  });
});
