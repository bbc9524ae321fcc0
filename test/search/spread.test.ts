/** search_all spreads kinds over its first places (Fusion.spread in rank/fusion.ts): one kind does not fill the top. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { runSearch } from "../../src/search/hybrid.ts";
import { FUSION_BY_PROFILE } from "../../src/search/rank/fusion.ts";
import { spreadKinds } from "../../src/search/rank/page.ts";
import type { SearchQuery } from "../../src/search/types.ts";
import type { Store } from "../../src/store/db.ts";
import { makeEntity, makeStore } from "../support/entities.ts";
import { ctxOf } from "./helpers.ts";

describe("spreadKinds (pure)", () => {
  const kind = (x: string) => x[0]!;
  test("at most perKind of one kind among the first top; the rest in rank order", () => {
    expect(spreadKinds(["c1", "c2", "i1", "c3", "c4", "s1", "r1", "c5"], { top: 5, perKind: 2 }, kind)).toEqual([
      "c1",
      "c2",
      "i1",
      "s1",
      "r1",
      "c3",
      "c4",
      "c5",
    ]);
  });
  test("fewer other kinds than places: the first places fill as far as they can, nothing is lost", () => {
    expect(spreadKinds(["c1", "c2", "c3", "s1", "c4"], { top: 5, perKind: 2 }, kind)).toEqual([
      "c1",
      "c2",
      "s1",
      "c3",
      "c4",
    ]);
  });
  test("an answer of one kind is left as it is", () => {
    expect(spreadKinds(["c1", "c2", "c3", "c4"], { top: 3, perKind: 1 }, kind)).toEqual(["c1", "c2", "c3", "c4"]);
  });
});

describe("search_all over several kinds (keyword ranking, no model)", () => {
  let store: Store;
  let cleanup: () => void;
  beforeAll(() => {
    const sea = (n: string) =>
      makeEntity(
        "creature",
        n,
        { creature_type: "beast" },
        { text: `Water Breathing. The ${n} can breathe only underwater. Pack Tactics: its allies help it underwater.` },
      );
    ({ store, cleanup } = makeStore([
      ...["Reef Shark", "Octopus", "Giant Octopus", "Seahorse", "Eel", "Crab"].map(sea),
      makeEntity(
        "spell",
        "Water Breathing",
        { level: 3 },
        { text: "Up to ten willing creatures can breathe underwater until the spell ends." },
      ),
    ]));
  });
  afterAll(() => cleanup());
  const run = (q: Partial<SearchQuery>) =>
    runSearch(ctxOf(store), {
      kinds: ["creature", "spell"],
      limit: 10,
      collapse: true,
      search: "let allies breathe underwater",
      ...q,
    });

  test("the spell moves into the first five; the creatures follow, none lost", async () => {
    const plain = (await run({})).hits.map((h) => h.entity.name);
    expect(plain.indexOf("Water Breathing")).toBeGreaterThanOrEqual(5);
    const spread = (await run({ profile: "all" })).hits.map((h) => h.entity.name);
    expect(FUSION_BY_PROFILE.all?.spread).toEqual({ top: 5, perKind: 2 });
    expect(spread.indexOf("Water Breathing")).toBe(2);
    expect(new Set(spread)).toEqual(new Set(plain));
    const scores = (await run({ profile: "all" })).hits.map((h) => h.similarity_score!);
    for (let i = 1; i < scores.length; i++) expect(scores[i]).toBeLessThanOrEqual(scores[i - 1]!);
  });
  test("the single legs of the evaluation are not spread", async () => {
    const lexical = (await run({ profile: "all", ranking: "lexical" })).hits.map((h) => h.entity.name);
    expect(lexical).toEqual((await run({ ranking: "lexical" })).hits.map((h) => h.entity.name));
  });
});
