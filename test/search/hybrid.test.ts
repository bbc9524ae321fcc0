import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Entity } from "../../src/entities/types.ts";
import type { VectorBackend } from "../../src/search/context.ts";
import { fuseRankings, legDepth, runSearch } from "../../src/search/hybrid.ts";
import { DEFAULT_FUSION, fusionFor, profileOfTool } from "../../src/search/rank/fusion.ts";
import { storeVectorBackend } from "../../src/search/rank/semantic-leg.ts";
import { RANKING_PROFILES } from "../../src/search/types.ts";
import type { Embedder, EmbedderProvider, SearchQuery, SearchResponse, VectorIndex } from "../../src/search/types.ts";
import type { Store } from "../../src/store/db.ts";
import { readVectorRows } from "../../src/store/vectors.ts";
import { makeEntity, makeStore, sampleEntities } from "../support/entities.ts";
import { ctxOf, embedAll, exactCosine, names, readyProvider, TopicEmbedder, unavailableProvider } from "./helpers.ts";

const RRF_K = DEFAULT_FUSION.k;

function expectRanked(r: SearchResponse): void {
  let prev = 1;
  for (const h of r.hits) {
    expect(h.similarity_score).toBeDefined();
    const s = h.similarity_score!;
    expect(s).toBeGreaterThanOrEqual(0);
    expect(s).toBeLessThanOrEqual(1);
    expect(s).toBeLessThanOrEqual(prev);
    prev = s;
  }
}

const countOff = (m: string | undefined) => (m ?? "").split("Semantic ranking is off").length - 1;

describe("fuseRankings (pure)", () => {
  test("an id found by both legs beats ids found by one", () => {
    const f = fuseRankings([
      { ids: [1, 2, 3], weight: 1 },
      { ids: [3, 4], weight: 1 },
    ]);
    expect(f.map((x) => x.id)).toEqual([3, 1, 2, 4]); // 2 and 4 tie (both ranked 2nd once): smaller id first
    expect(f[0]!.score).toBeCloseTo((1 / (RRF_K + 3) + 1 / (RRF_K + 1)) / (2 / (RRF_K + 1)), 3);
  });
  test("exact ids go first with score 1, even when ranked low or not at all", () => {
    const f = fuseRankings(
      [
        { ids: [1, 2, 3], weight: 1 },
        { ids: [1, 2, 3], weight: 1 },
      ],
      [3, 9],
    );
    expect(f.map((x) => x.id)).toEqual([3, 9, 1, 2]);
    expect(f.slice(0, 2).map((x) => x.score)).toEqual([1, 1]);
    expect(f[2]!.score).toBe(1);
    expect(f[3]!.score).toBeLessThan(1);
  });
  test("an empty leg does not count toward the best possible score; ties are stable", () => {
    expect(
      fuseRankings([
        { ids: [7, 8], weight: 1 },
        { ids: [], weight: 1 },
      ])[0],
    ).toEqual({ id: 7, score: 1 });
    expect(
      fuseRankings([
        { ids: [2], weight: 1 },
        { ids: [1], weight: 1 },
      ]),
    ).toEqual([
      { id: 1, score: 0.5 },
      { id: 2, score: 0.5 },
    ]);
    expect(fuseRankings([])).toEqual([]);
  });
});

describe("fusion variants (pure)", () => {
  test(
    "convex: each leg's scores min-max normalized and weighted; " +
      "a clear vector favourite beats middling places in both legs",
    () => {
      const lists = [
        { ids: [2, 3, 1], weight: 1, scores: [10, 9.5, 1] },
        { ids: [1, 3, 2], weight: 1, scores: [0.9, 0.5, 0.45] },
      ];
      // RRF (k 1) goes by rank alone: 1 and 2 (one first place each) ahead of 3 (second twice).
      expect(fuseRankings(lists, [], 1).map((f) => f.id)).toEqual([1, 2, 3]);
      const convex = fuseRankings(lists, [], 20, undefined, "convex");
      // 2: 1 + 0 = 1; 3: 0.944 + 0.111 = 1.056; 1: 0 + 1 = 1 → 3 first, then 1 and 2 tie (better single rank first,
      // then id).
      expect(convex.map((f) => f.id)).toEqual([3, 1, 2]);
      expect(convex[0]!.score).toBeCloseTo(1.056 / 2, 2);
    },
  );
  test("the prior multiplies an id's fused score", () => {
    const lists = [{ ids: [5, 6], weight: 1 }];
    expect(fuseRankings(lists).map((f) => f.id)).toEqual([5, 6]);
    const boosted = fuseRankings(lists, [], RRF_K, (id) => (id === 6 ? 1.25 : 1));
    expect(boosted.map((f) => f.id)).toEqual([6, 5]);
    // Scores stay in [0, 1]: the best possible is a first place with the highest prior present.
    expect(boosted[0]!.score).toBeCloseTo(1.25 / (RRF_K + 2) / (1.25 / (RRF_K + 1)), 3);
    expect(fuseRankings(lists, [], RRF_K, (id) => (id === 5 ? 1.25 : 1))[0]).toEqual({ id: 5, score: 1 });
  });
});

describe("fusion per tool", () => {
  test("every search tool has a profile; an unknown tool gets the default constants; overrides go on top", () => {
    for (const t of [
      "search_spell",
      "search_creature",
      "search_equipment",
      "search_character_option",
      "search_rule",
      "search_all",
    ])
      expect(profileOfTool(t)).toBeDefined();
    expect(profileOfTool("build_encounter")).toBeUndefined();
    expect(fusionFor(undefined)).toEqual(DEFAULT_FUSION);
    for (const p of RANKING_PROFILES) expect(fusionFor(p, { k: 7 }).k).toBe(7);
  });
});

describe("hybrid search with a fake embedder", () => {
  let store: Store;
  let cleanup: () => void;
  let emb: TopicEmbedder;
  const run = (q: Partial<SearchQuery>, provider?: EmbedderProvider) =>
    runSearch(ctxOf(store, provider ?? readyProvider(emb)), { kinds: ["spell"], limit: 10, ...q });

  beforeAll(async () => {
    ({ store, cleanup } = makeStore());
    emb = new TopicEmbedder();
    expect(await embedAll(store.db, emb)).toBe(sampleEntities().length);
  });
  afterAll(() => cleanup());

  test("mode hybrid, scores in [0,1], best first, no message", async () => {
    const r = await run({ search: "protect from fire" });
    expect(r.mode).toBe("hybrid");
    expect(r.message).toBeUndefined();
    expect(r.hits.length).toBe(10);
    expectRanked(r);
    expect(r.hits[0]!.similarity_score).toBe(1);
  });

  test("spec scenario: 'protect from fire', level 4 → Fire Shield above Ice Storm", async () => {
    const n = names(await run({ search: "protect from fire", filters: { level: 4 } }));
    expect(n[0]).toBe("Fire Shield");
    expect(n.indexOf("Fire Shield")).toBeLessThan(n.indexOf("Ice Storm"));
    expect([...n].sort()).toEqual(["Fire Shield", "Ice Storm", "Wall of Fire"]);
  });

  test("a vector-only hit and a lexical-only hit both appear", async () => {
    const orb = store.db.query<{ id: number }, []>("SELECT id FROM entities WHERE name = 'Hellfire Orb'").get()!.id;
    store.db.query("DELETE FROM vectors WHERE entity_id = ?").run(orb); // lexical-only from now on
    try {
      // lexically, only "Hellfire Orb" holds "orb"; nothing holds "blaze"
      expect(names(await run({ search: "blaze orb" }, unavailableProvider()))).toEqual(["Hellfire Orb"]);
      const r = await run({ search: "blaze orb" });
      const n = names(r);
      expect(n).toContain("Hellfire Orb");
      expect(n).toContain("Wall of Fire"); // found by the vector leg only ("blaze" ~ fire)
      expect(n).not.toContain("Shield");
      expectRanked(r);
    } finally {
      await embedAll(store.db, emb);
    }
  });

  test("ranking lexical / vector: one leg alone over the same candidates (evaluation only)", async () => {
    const orb = store.db.query<{ id: number }, []>("SELECT id FROM entities WHERE name = 'Hellfire Orb'").get()!.id;
    store.db.query("DELETE FROM vectors WHERE entity_id = ?").run(orb); // lexical-only from now on
    try {
      const calls = emb.calls;
      const lex = await run({ search: "blaze orb", ranking: "lexical" });
      expect(lex.mode).toBe("lexical");
      expect(lex.message).toBeUndefined();
      expect(names(lex)).toEqual(["Hellfire Orb"]);
      expect(emb.calls).toBe(calls); // no embedding at all
      const vec = await run({ search: "blaze orb", ranking: "vector" });
      expect(vec.mode).toBe("hybrid");
      expect(names(vec)).toContain("Wall of Fire");
      expect(names(vec)).not.toContain("Hellfire Orb"); // it has no vector
      expectRanked(vec);
      const filtered = await run({ search: "fire", ranking: "vector", filters: { level: 4 } });
      for (const h of filtered.hits) expect(h.entity.filters.level).toBe(4);
    } finally {
      await embedAll(store.db, emb);
    }
  });

  test("an exact name match of the whole query comes first", async () => {
    const r = await run({ search: "fire shield" });
    expect(names(r)[0]).toBe("Fire Shield");
    expect(r.hits[0]!.similarity_score).toBe(1);
    const s = await run({ search: "SHIELD" });
    expect(names(s)[0]).toBe("Shield");
    const both = await run({ search: "fireball" });
    expect(names(both).slice(0, 2)).toEqual(["Fireball", "Fireball"]);
  });

  test("creatures: 'undead that drain life' ranks Vampire and Wraith above Zombie", async () => {
    const n = names(
      await run({ kinds: ["creature"], search: "undead that drain life", filters: { creature_type: "undead" } }),
    );
    expect(n.length).toBe(3);
    expect(n.slice(0, 2).sort()).toEqual(["Vampire", "Wraith"]);
  });

  test("equipment: 'weapon that returns when thrown' finds Dwarven Thrower", async () => {
    const n = names(await run({ kinds: ["weapon", "magic_item"], search: "weapon that returns when thrown" }));
    expect(n[0]).toBe("Dwarven Thrower");
  });

  test("name filters the candidates, search ranks them", async () => {
    const n = names(await run({ name: "*fire*", search: "cold" }));
    expect(n[0]).toBe("Fire Shield");
    for (const x of n) expect(x.toLowerCase()).toContain("fire");
    expect(names(await run({ name: "Nothing Like This", search: "cold" }))).toEqual([]);
  });

  test("limit is exact with a search", async () => {
    expect((await run({ search: "fire", limit: 2 })).hits.length).toBe(2);
    expect(
      (await run({ kinds: ["creature"], search: "bite", filters: { creature_type: "undead" }, limit: 10 })).hits.length,
    ).toBe(3);
    expect(
      (await run({ kinds: ["creature"], search: "bite", filters: { creature_type: "undead" }, limit: 2 })).hits.length,
    ).toBe(2);
  });

  test("empty or whitespace search = structured: no embedding, no score", async () => {
    const before = emb.calls;
    for (const s of ["", "   ", "\n\t"]) {
      const r = await run({ search: s, filters: { level: 1 } });
      expect(r.mode).toBe("structured");
      expect(names(r)[0]).toBe("Cure Wounds");
      for (const h of r.hits) expect(h.similarity_score).toBeUndefined();
    }
    expect(emb.calls).toBe(before);
  });

  test("documents filter applies to both legs", async () => {
    const r = await run({ search: "fire", documents: ["tob"] });
    expect(names(r)).toEqual(["Hellfire Orb"]);
    expect(r.mode).toBe("hybrid");
  });
});

describe("fallback to lexical ranking", () => {
  let store: Store;
  let cleanup: () => void;
  beforeAll(() => {
    ({ store, cleanup } = makeStore());
  });
  afterAll(() => cleanup());
  const run = (provider: EmbedderProvider, q: Partial<SearchQuery> = {}, timeoutMs = 2000) =>
    runSearch(ctxOf(store, provider, { embeddingTimeoutMs: timeoutMs }), {
      kinds: ["spell"],
      limit: 10,
      search: "fire",
      ...q,
    });

  test("no model: mode lexical, the reason once", async () => {
    const r = await run(unavailableProvider("the model files are missing"));
    expect(r.mode).toBe("lexical");
    expect(r.message).toContain("the model files are missing");
    expect(countOff(r.message)).toBe(1);
    expect(r.hits.length).toBeGreaterThan(3);
    expectRanked(r);
  });

  test("get() resolving null (model failed to load)", async () => {
    let reason: string | undefined;
    const p: EmbedderProvider = {
      state: () => "loading",
      get: async () => {
        reason = "onnxruntime could not load";
        return null;
      },
      reason: () => reason,
    };
    const r = await run(p);
    expect(r.mode).toBe("lexical");
    expect(r.message).toContain("onnxruntime could not load");
  });

  test("embedding timeout", async () => {
    let answered = false;
    const slow: Embedder = {
      id: "fake:slow",
      dim: 8,
      embedPassages: async (t) => t.map(() => new Float32Array(8)),
      embedQuery: () =>
        new Promise((resolve) =>
          setTimeout(() => {
            answered = true;
            resolve(new Float32Array(8));
          }, 1500),
        ),
    };
    const r = await run(readyProvider(slow), {}, 40);
    // The search answered on its 40 ms timeout, before the slow embedding did (event order, not a clock).
    expect(answered).toBe(false);
    expect(r.mode).toBe("lexical");
    expect(r.message).toMatch(/did not answer within 40 ms/);
    expect(names(r)).toContain("Fire Bolt");
  });

  test("embedding error", async () => {
    const broken: Embedder = {
      id: "fake:broken",
      dim: 8,
      embedPassages: async () => [],
      embedQuery: async () => {
        throw new Error("tensor shape mismatch");
      },
    };
    const r = await run(readyProvider(broken));
    expect(r.mode).toBe("lexical");
    expect(r.message).toContain("tensor shape mismatch");
  });

  test("a query the model knows no word of (zero vector)", async () => {
    const blank: Embedder = {
      id: "fake:blank",
      dim: 4,
      embedPassages: async (t) => t.map(() => new Float32Array(4)),
      embedQuery: async () => new Float32Array(4),
    };
    const r = await run(readyProvider(blank));
    expect(r.mode).toBe("lexical");
    expect(r.message).toMatch(/knows none of the query's words/);
  });

  test("model ready but no vectors stored for it", async () => {
    const r = await run(readyProvider(new TopicEmbedder("fake:never-embedded")));
    expect(r.mode).toBe("lexical");
    expect(r.message).toMatch(/no embeddings are stored/);
  });

  test("messages combine: unknown documents and semantic ranking off", async () => {
    const r = await run(unavailableProvider("no model"), { documents: ["srd-2014", "phb"] });
    expect(r.message).toContain('"phb"');
    expect(countOff(r.message)).toBe(1);
    for (const h of r.hits) expect(h.entity.document_key).toBe("srd-2014");
  });
});

describe("HNSW path with oversampling", () => {
  let store: Store;
  let cleanup: () => void;
  const emb = new TopicEmbedder();
  beforeAll(async () => {
    // 300 fiery creatures crowd the neighbourhood of "fire"; the spells must still be found.
    const fillers: Entity[] = Array.from({ length: 300 }, (_, i) =>
      makeEntity(
        "creature",
        `Flame Imp ${i}`,
        { cr: 1, creature_type: "fiend" },
        { text: "fire flame blaze burning inferno" },
      ),
    );
    ({ store, cleanup } = makeStore([...sampleEntities(), ...fillers]));
    await embedAll(store.db, emb);
  });
  afterAll(() => cleanup());

  function bruteIndex(ks: number[]): VectorIndex {
    const all = new Map([...readVectorRows(store.db, emb.id)].map(([id, r]) => [id, r.vector]));
    return {
      size: all.size,
      search: (q, k) => {
        ks.push(k);
        return exactCosine(q, all, k);
      },
    };
  }

  test("k grows until enough filtered hits are found or the index is exhausted", async () => {
    const ks: number[] = [];
    const base = storeVectorBackend(store);
    const backend: VectorBackend = { ...base, annIndex: () => bruteIndex(ks) };
    const ctx = ctxOf(store, readyProvider(emb), { vectors: backend, exactSearchMax: 5 });
    const r = await runSearch(ctx, { kinds: ["spell"], search: "blaze", limit: 10 });
    expect(r.mode).toBe("hybrid");
    expect(ks.length).toBeGreaterThan(1);
    expect(ks[0]).toBe(2 * legDepth(10));
    expect(ks[ks.length - 1]).toBe(sampleEntities().length + 300); // 17 spells < depth: until exhausted
    expect(names(r)).toContain("Wall of Fire");
    for (const h of r.hits) expect(h.entity.kind).toBe("spell");
  });

  test("small candidate sets skip the index (exact cosine)", async () => {
    const ks: number[] = [];
    const backend: VectorBackend = { ...storeVectorBackend(store), annIndex: () => bruteIndex(ks) };
    const r = await runSearch(ctxOf(store, readyProvider(emb), { vectors: backend }), {
      kinds: ["spell"],
      search: "blaze",
      limit: 5,
    });
    expect(ks).toEqual([]);
    expect(r.hits.length).toBe(5);
    expect(r.mode).toBe("hybrid");
  });

  test("no index available: exact search over all candidates", async () => {
    const exactCalls: number[] = [];
    const base = storeVectorBackend(store);
    const backend: VectorBackend = {
      ...base,
      annIndex: () => null,
      exactSearch: (m, q, ids, k) => {
        exactCalls.push(ids.length);
        return base.exactSearch(m, q, ids, k);
      },
    };
    const r = await runSearch(ctxOf(store, readyProvider(emb), { vectors: backend, exactSearchMax: 5 }), {
      kinds: ["spell"],
      search: "blaze",
      limit: 5,
    });
    expect(r.mode).toBe("hybrid");
    expect(exactCalls).toEqual([17]);
    expect(r.hits.length).toBe(5);
  });
});
