import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { allowedEdits, closestTerms, editDistance } from "../../../src/search/rank/fuzzy.ts";
import { runSearch } from "../../../src/search/hybrid.ts";
import {
  analyzeQuery,
  ftsPhrases,
  candidateIdf,
  contentTokens,
  ftsTerm,
  lexicalSearch,
  queryTokens,
  semanticText,
} from "../../../src/search/rank/lexical.ts";
import { buildFilterWhere } from "../../../src/search/filter/filters.ts";
import { TRUE_CLAUSE } from "../../../src/search/filter/filters.ts";
import type { SearchQuery } from "../../../src/search/types.ts";
import type { Store } from "../../../src/store/db.ts";
import { replaceOrigin } from "../../../src/store/entities.ts";
import { makeEntity, makeStore } from "../../support/entities.ts";
import { ctxOf, names } from "../helpers.ts";

let store: Store;
let cleanup: () => void;
beforeAll(() => {
  ({ store, cleanup } = makeStore());
});
afterAll(() => cleanup());

const run = (q: Partial<SearchQuery>) => runSearch(ctxOf(store), { kinds: ["spell"], limit: 20, ...q });
const top = async (search: string, q: Partial<SearchQuery> = {}) => names(await run({ search, ...q }));

describe("edit distance and closest terms (pure)", () => {
  test("distance with swaps, and the early cut-off", () => {
    expect(editDistance("magik", "magic", 2)).toBe(1);
    expect(editDistance("missle", "missile", 2)).toBe(1);
    expect(editDistance("fierball", "fireball", 2)).toBe(1);
    expect(editDistance("fierbal", "fireball", 2)).toBe(2);
    expect(editDistance("kitten", "sitting", 3)).toBe(3);
    expect(editDistance("abc", "xyzxyz", 1)).toBe(2);
  });
  test("allowed edits grow with length", () => {
    expect(allowedEdits("ice")).toBe(0);
    expect(allowedEdits("magik")).toBe(1);
    expect(allowedEdits("fierball")).toBe(2);
  });
  test("closest terms: smallest distance, most common first", () => {
    const vocab = [
      { term: "magic", doc: 5 },
      { term: "manic", doc: 9 },
      { term: "missile", doc: 2 },
      { term: "mage", doc: 1 },
    ];
    expect(closestTerms("magik", vocab)).toEqual(["magic"]);
    // one edit from both: the more common first
    expect(closestTerms("maxic", vocab)).toEqual(["manic", "magic"]);
    expect(closestTerms("zzzzzz", vocab)).toEqual([]);
    expect(closestTerms("mag", vocab)).toEqual([]);
  });
});

describe("query building never exposes FTS5 syntax", () => {
  test("tokens and quoting", () => {
    expect(queryTokens('Fire" NEAR(ball) -- OR *x*')).toEqual(["fire", "near", "ball", "or", "x"]);
    expect(queryTokens("Mordenkainen’s Sword")).toEqual(["mordenkainen", "s", "sword"]);
    expect(queryTokens("Épée")).toEqual(["epee"]);
    expect(ftsTerm('a"b', true)).toBe('"a""b"*');
    expect(ftsPhrases([["fire"], ["of"]]).join(" OR ")).toBe('"fire" OR "fire"* OR "of"');
  });

  test.each([
    '"',
    "*",
    "NEAR",
    "NEAR(fire ball, 2)",
    "--",
    "'",
    "fire' OR 1=1 --",
    'fire" AND "',
    "AND OR NOT",
    "^fire",
    "name:fire",
    "(((",
    "{name text}: x",
    "\u0000",
    "🔥 fire",
    "x".repeat(5000),
  ])("hostile query %p", async (q) => {
    const r = await run({ search: q });
    expect(Array.isArray(r.hits)).toBe(true);
    expect(r.mode).toBe("lexical");
  });

  test("operators typed as words are searched as words", async () => {
    expect((await top("fire NEAR bolt"))[0]).toBe("Fire Bolt");
    expect(await top("--")).toEqual([]);
  });
});

describe("lexical ranking", () => {
  test("name weighs more than text", async () => {
    // "shield" is in Shield's and Fire Shield's names, and only in the text of none else
    const r = await top("shield");
    expect(r[0]).toBe("Shield");
    expect(r).toContain("Fire Shield");
  });

  test("prefix matching and whole words first", async () => {
    const r = await top("fire");
    expect(r).toContain("Fireball");
    expect(r).toContain("Hellfire Orb");
    expect(r.indexOf("Fire Bolt")).toBeLessThan(r.indexOf("Fireball"));
    expect(await top("magic miss")).toContain("Magic Missile");
  });

  test("OR semantics: more matching words rank higher", async () => {
    const r = await top("wall fire");
    expect(r[0]).toBe("Wall of Fire");
    expect(r).toContain("Fire Bolt");
  });

  test("restricted to the filtered candidates", async () => {
    expect(await top("fire", { filters: { level: 4 } })).toEqual(
      expect.arrayContaining(["Wall of Fire", "Fire Shield"]),
    );
    expect(await top("fire", { filters: { level: 4 } })).not.toContain("Fireball");
    expect(await top("fire", { kinds: ["creature"] })).toEqual(
      expect.arrayContaining(["Fire Drake", "Ancient Red Dragon"]),
    );
    expect(await top("dragon", { kinds: ["spell"] })).toEqual([]);
  });

  test("lexicalSearch returns ids best first, at most depth", () => {
    const r = lexicalSearch(store.db, TRUE_CLAUSE, "fire", 3);
    expect(r.length).toBe(3);
    for (let i = 1; i < r.length; i++) expect(r[i]!.bm25).toBeGreaterThanOrEqual(r[i - 1]!.bm25);
    expect(lexicalSearch(store.db, TRUE_CLAUSE, "   ", 10)).toEqual([]);
  });
});

describe("typo tolerance", () => {
  test("firebal, fierball → Fireball", async () => {
    expect((await top("firebal")).slice(0, 2)).toEqual(["Fireball", "Fireball"]);
    expect((await top("fierball")).slice(0, 2)).toEqual(["Fireball", "Fireball"]);
  });

  test("magik missle → Magic Missile first", async () => {
    expect((await top("magik missle"))[0]).toBe("Magic Missile");
    expect((await top("magik missle", { kinds: ["spell", "magic_item"] }))[0]).toBe("Magic Missile");
    expect((await run({ search: "magik missle" })).hits[0]!.similarity_score).toBe(1);
    expect((await top("Magik Missle", { kinds: ["magic_item"] }))[0]).toBe("Wand of Magic Missiles");
    expect(analyzeQuery(store.db, "magik missle").corrected).toEqual(
      new Map([
        ["magik", ["magic"]],
        ["missle", ["missile"]],
      ]),
    );
  });

  test("the embedded text gets the corrections and completions", () => {
    expect(semanticText(analyzeQuery(store.db, "Magik missle!"))).toBe("magic missile");
    expect(semanticText(analyzeQuery(store.db, "firebal"))).toBe("fireball");
    expect(semanticText(analyzeQuery(store.db, "wall of fir"))).toBe("wall of fire");
    // nothing to fix: the query goes to the model as typed
    expect(semanticText(analyzeQuery(store.db, "Protect from Fire!"))).toBe("Protect from Fire!");
  });

  test("a word the texts hold whole is not completed to a longer name word ('rid' is not 'riding')", () => {
    const texts = ["Get rid of the smell.", "You get rid of it.", "Hard to get rid of."];
    const riders = [
      makeEntity("creature", "Riding Horse", { cr: 0.25, creature_type: "beast" }, { text: "A horse to ride." }),
      makeEntity("creature", "Getting Lost", { cr: 0, creature_type: "beast" }, { text: "Lost." }),
      ...texts.map((t, i) => makeEntity("rule", `Chore ${i}`, { section: "adventuring" }, { text: t })),
    ];
    replaceOrigin(store.db, "test:rid", riders);
    try {
      const a = analyzeQuery(store.db, "get rid of a smell");
      expect(a.completed.size).toBe(0);
      expect(semanticText(a)).toBe("get rid of a smell");
      // A cut-off word no text holds is still completed.
      expect(semanticText(analyzeQuery(store.db, "ridin horse"))).toBe("riding horse");
    } finally {
      replaceOrigin(store.db, "test:rid", []);
    }
  });

  test("words that exist are not 'corrected'; short words are left alone", () => {
    expect(analyzeQuery(store.db, "fire magic ice flame xqzvwk").corrected.size).toBe(0);
  });

  test("more typos: healng word, opportunty, vampyre", async () => {
    expect((await top("healng word"))[0]).toBe("Healing Word");
    expect((await top("opportunty", { kinds: ["rule"] }))[0]).toBe("Opportunity Attacks");
    expect((await top("vampyre", { kinds: ["creature"] }))[0]).toBe("Vampire");
  });

  test("a misspelled word that only starts common words is still corrected ('wonds' is not 'wondrous')", async () => {
    const wondrous = ["Bag of Tricks", "Decanter of Endless Water", "Figurine of Wondrous Power"].map((n) =>
      makeEntity(
        "magic_item",
        n,
        { category: "wondrous-item", rarity: "uncommon" },
        { text: "Wondrous item, uncommon." },
      ),
    );
    replaceOrigin(store.db, "test:wondrous", wondrous);
    try {
      expect((await top("cure wonds"))[0]).toBe("Cure Wounds");
      expect(semanticText(analyzeQuery(store.db, "cure wonds"))).toBe("cure wounds");
    } finally {
      replaceOrigin(store.db, "test:wondrous", []);
    }
  });

  test("the name vocabulary follows inserts and deletes", async () => {
    expect(await top("meteor swarn")).toEqual([]);
    const meteor = makeEntity(
      "spell",
      "Meteor Swarm",
      { level: 9, school: "evocation" },
      { text: "Blazing orbs of fire plummet to the ground." },
    );
    replaceOrigin(store.db, "test:extra", [meteor]);
    expect((await top("meteor swarn"))[0]).toBe("Meteor Swarm");
    expect((await top("metoer"))[0]).toBe("Meteor Swarm");
    replaceOrigin(store.db, "test:extra", []);
    expect(await top("metoer")).toEqual([]);
  });
});

describe("stop words and IDF among the candidates", () => {
  let st: Store;
  let done: () => void;
  beforeAll(() => {
    // 40 creatures all mention hit points: over the whole store "hit" and "points" are worthless
    // words (FTS5 IDF ≈ 0), among the rules they pick one rule out of three.
    const creatures = Array.from({ length: 40 }, (_, i) =>
      makeEntity(
        "creature",
        `Goblin ${i}`,
        { cr: 0.25, creature_type: "humanoid" },
        { text: "It has 7 hit points and attacks with a scimitar." },
      ),
    );
    ({ store: st, cleanup: done } = makeStore([
      ...creatures,
      makeEntity(
        "rule",
        "Dropping to 0 Hit Points",
        { section: "combat" },
        { text: "When your hit points drop to 0, you fall unconscious." },
      ),
      makeEntity(
        "rule",
        "Madness",
        { section: "adventuring" },
        { text: "Anything can happen to a mind in madness. I am the king, I say. I hear voices." },
      ),
      makeEntity(
        "rule",
        "Falling",
        { section: "adventuring" },
        { text: "A fall from a great height deals bludgeoning damage." },
      ),
    ]));
  });
  afterAll(() => done());

  const rulesWhere = () => {
    const f = buildFilterWhere(["rule"], {}, null);
    if (!f.ok) throw new Error(f.message);
    return f.where;
  };
  const ruleNames = (q: string) =>
    lexicalSearch(st.db, rulesWhere(), q, 10).map(
      (h) => st.db.query<{ name: string }, [number]>("SELECT name FROM entities WHERE id = ?").get(h.id)!.name,
    );

  test("stop words are dropped when other words remain, kept when they are all there is", () => {
    expect(contentTokens(["what", "happens", "when", "i", "fall"])).toEqual(["happens", "fall"]);
    expect(contentTokens(["the", "of"])).toEqual(["the", "of"]);
    expect(contentTokens([])).toEqual([]);
  });

  test("a word common elsewhere but rare among the candidates still ranks", () => {
    // "happen" is in one text of the whole store, "hit points" in 41: FTS5's own IDF would put Madness first.
    expect(ruleNames("what happens at 0 hit points")[0]).toBe("Dropping to 0 Hit Points");
  });

  test("'I' in a question does not pull up texts full of 'I'", () => {
    expect(ruleNames("what happens when I fall")[0]).toBe("Falling");
  });

  test("candidate IDF is positive and falls as a word gets common", () => {
    expect(candidateIdf(3, 3)).toBeGreaterThan(0);
    expect(candidateIdf(100, 1)).toBeGreaterThan(candidateIdf(100, 10));
    expect(candidateIdf(100, 10)).toBeGreaterThan(candidateIdf(100, 90));
  });

  test("the fixture needs it: FTS5's own bm25 (IDF over the whole store) puts Madness first", () => {
    const match = ftsPhrases(contentTokens(queryTokens("what happens at 0 hit points")).map((t) => [t])).join(" OR ");
    const first = st.db
      .query<{ name: string }, [string]>(
        "SELECT e.name AS name FROM entities_fts JOIN entities e ON e.id = entities_fts.rowid WHERE " +
          "entities_fts MATCH ? AND e.kind = 'rule' ORDER BY bm25(entities_fts, 10.0, 1.0) LIMIT 1",
      )
      .get(match);
    expect(first?.name).toBe("Madness");
  });
});
