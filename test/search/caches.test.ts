/**
 * The per-store-version caches of the search layer: they give what the store gives, and forget
 * it as soon as the store changes (a write on the same connection, or a commit by another one).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { candidateSet } from "../../src/search/filter/candidates.ts";
import { buildFilterWhere, TRUE_CLAUSE, type WhereClause } from "../../src/search/filter/filters.ts";
import { runSearch } from "../../src/search/hybrid.ts";
import { lexicalSearch } from "../../src/search/rank/lexical.ts";
import { nameVocabulary } from "../../src/search/rank/name-vocab.ts";
import { setPhraseCacheLimit } from "../../src/search/rank/phrase-hits.ts";
import { openStore, type Store } from "../../src/store/db.ts";
import { replaceOrigin } from "../../src/store/entities.ts";
import { changeToken, pinVersion, versionMemo } from "../../src/store/version-cache.ts";
import { makeEntity, makeStore } from "../support/entities.ts";
import { ctxOf, names } from "./helpers.ts";

let store: Store;
let cleanup: () => void;
beforeAll(() => {
  ({ store, cleanup } = makeStore());
});
afterAll(() => {
  setPhraseCacheLimit(1_000_000);
  cleanup();
});

function where(
  kinds: Parameters<typeof buildFilterWhere>[0],
  filters: Parameters<typeof buildFilterWhere>[1] = {},
): WhereClause {
  const w = buildFilterWhere(kinds, filters, null);
  if (!w.ok) throw new Error(w.message);
  return w.where;
}

describe("version cache", () => {
  test("a value is computed once per store version; a write on this connection or a commit on another drops it", () => {
    let calls = 0;
    const get = () => versionMemo(store.db).get("test:count", () => ++calls);
    expect(get()).toBe(1);
    expect(get()).toBe(1);
    const before = changeToken(store.db);
    replaceOrigin(store.db, "test:extra", [makeEntity("feat", "Cache Tester", {})]);
    expect(changeToken(store.db)).not.toBe(before);
    expect(get()).toBe(2);

    const other = openStore({ path: store.path });
    try {
      replaceOrigin(other.db, "test:extra", [
        makeEntity("feat", "Cache Tester", {}),
        makeEntity("feat", "Second Tester", {}),
      ]);
    } finally {
      other.close();
    }
    expect(get()).toBe(3);
    expect(get()).toBe(3);
  });

  test(
    "pinVersion reads the store's version once for its computation; " +
      "the next lookup after it sees a commit made meanwhile",
    () => {
      let calls = 0;
      const get = () => versionMemo(store.db).get("test:pinned", () => ++calls);
      const first = get();
      const count = "SELECT COUNT(*) AS n FROM entities WHERE origin = 'test:pinned'";
      const pinnedRows = () => store.db.query<{ n: number }, []>(count).get()!.n;
      let rowsSeen: number[] = [];
      const seen = pinVersion(store.db, () => {
        const inside = [get()];
        rowsSeen = [pinnedRows()];
        // Another connection commits while the pinned computation runs: it is not seen inside it…
        const other = openStore({ path: store.path });
        try {
          replaceOrigin(other.db, "test:pinned", [makeEntity("feat", `Pin Tester ${first}`, {})]);
        } finally {
          other.close();
        }
        inside.push(get(), pinVersion(store.db, get));
        rowsSeen.push(pinnedRows());
        return inside;
      });
      expect(seen).toEqual([first, first, first]);
      // Its statements read the version it pinned (one read transaction), not the commit.
      expect(rowsSeen).toEqual([0, 0]);
      expect(pinnedRows()).toBe(1);
      // …and is by the first lookup after it.
      expect(get()).toBe(first + 1);
      // A throw inside unpins too.
      expect(() =>
        pinVersion(store.db, () => {
          throw new Error("boom");
        }),
      ).toThrow("boom");
      replaceOrigin(store.db, "test:pinned", []);
      expect(get()).toBe(first + 2);
    },
  );

  test("a memo's lru keeps at most `max` entries of a family, least recently used dropped first", () => {
    const seen: string[] = [];
    const get = (k: string) => versionMemo(store.db).lru("test:lru", k, 2, () => (seen.push(k), k.toUpperCase()));
    expect(get("a")).toBe("A");
    get("b");
    get("a"); // a is now the most recent
    get("c"); // drops b
    get("a");
    get("b");
    expect(seen).toEqual(["a", "b", "c", "b"]);
  });
});

describe("candidate sets", () => {
  test("the ids SQL gives, with membership; remembered until the store changes", () => {
    const w = where(["spell"], { level_min: 3 });
    const sql = store.db
      .query<{ id: number }, (string | number)[]>(`SELECT e.id AS id FROM entities e WHERE ${w.sql} ORDER BY e.id`)
      .all(...w.params)
      .map((r) => r.id);
    expect(sql.length).toBeGreaterThan(1);
    const c = candidateSet(store.db, w);
    expect(Array.from(c.ids)).toEqual(sql);
    expect(c.size).toBe(sql.length);
    for (const id of sql) expect(c.has(id)).toBe(true);
    const others = store.db
      .query<{ id: number }, []>("SELECT id FROM entities")
      .all()
      .map((r) => r.id)
      .filter((id) => !sql.includes(id));
    for (const id of [...others, 0, -1, 1_000_000]) expect(c.has(id)).toBe(false);
    expect(candidateSet(store.db, w)).toBe(c);

    replaceOrigin(store.db, "test:new-spell", [
      makeEntity("spell", "Brand New Blast", { level: 5 }, { text: "A new spell." }),
    ]);
    const after = candidateSet(store.db, w);
    expect(after).not.toBe(c);
    expect(after.size).toBe(c.size + 1);
  });

  test("no candidates: an empty set", () => {
    const c = candidateSet(store.db, where(["spell"], { level: 9, school: "illusion", ritual: true }));
    expect(c.size).toBe(0);
    expect(c.has(1)).toBe(false);
  });
});

describe("name vocabulary in memory", () => {
  test("prefix, exact and length lookups agree with names_vocab in SQL", () => {
    const vocab = nameVocabulary(store.db);
    const all = store.db.query<{ term: string; doc: number }, []>("SELECT term, doc FROM names_vocab").all();
    expect(all.length).toBeGreaterThan(10);
    for (const probe of ["fire", "fi", "f", "ball", "zzz", "dragon", "ice", "wal"]) {
      const sql = store.db
        .query<{ term: string; doc: number }, [string, string]>(
          "SELECT term, doc FROM names_vocab WHERE term >= ? AND term < ? ORDER BY term",
        )
        .all(probe, `${probe}\uffff`);
      expect([...vocab.startingWith(probe)]).toEqual(sql);
      expect(vocab.hasPrefix(probe)).toBe(sql.length > 0);
      // A stored word comes first among those it starts (completion relies on it).
      expect(vocab.startingWith(probe).next().value?.term === probe).toBe(all.some((t) => t.term === probe));
    }
    for (const [lo, hi] of [
      [1, 3],
      [4, 6],
      [7, 40],
    ] as const) {
      const sql = store.db
        .query<{ term: string; doc: number }, [number, number]>(
          "SELECT term, doc FROM names_vocab WHERE length(term) BETWEEN ? AND ? ORDER BY term",
        )
        .all(lo, hi);
      expect(vocab.ofLength(lo, hi)).toEqual(sql);
    }
  });
});

describe("phrase hits cache", () => {
  test("cached and uncached lexical rankings are the same, and follow the store", () => {
    const w = TRUE_CLAUSE;
    const plain = lexicalSearch(store.db, w, "fire damage", 50);
    expect(plain.length).toBeGreaterThan(2);
    expect(lexicalSearch(store.db, w, "fire damage", 50, { cache: true })).toEqual(plain);
    expect(lexicalSearch(store.db, w, "fire damage", 50, { cache: true })).toEqual(plain);
    expect(
      lexicalSearch(store.db, w, "fire damage", 3, { cache: true, candidates: candidateSet(store.db, w) }),
    ).toEqual(plain.slice(0, 3));

    replaceOrigin(store.db, "test:fire", [
      makeEntity("rule", "Fire Damage Fire Damage", {}, { text: "fire damage fire damage fire damage" }),
    ]);
    const after = lexicalSearch(store.db, w, "fire damage", 50, { cache: true });
    expect(after).toEqual(lexicalSearch(store.db, w, "fire damage", 50));
    expect(after.length).toBe(plain.length + 1);
  });

  test("with no room (limit 0) nothing is kept, and rankings are unchanged", () => {
    setPhraseCacheLimit(0);
    try {
      const w = where(["spell"]);
      expect(lexicalSearch(store.db, w, "fire bolt", 20, { cache: true })).toEqual(
        lexicalSearch(store.db, w, "fire bolt", 20),
      );
    } finally {
      setPhraseCacheLimit(1_000_000);
    }
  });

  test("runSearch: the exact name still goes first under a range filter", async () => {
    const r = await runSearch(ctxOf(store), {
      kinds: ["spell"],
      search: "fire bolt",
      filters: { level_max: 3 },
      limit: 5,
    });
    expect(names(r)[0]).toBe("Fire Bolt");
    expect(r.hits[0]!.similarity_score).toBe(1);
  });
});

describe("omitText", () => {
  test("hits are the same, with an empty search text (structured and ranked)", async () => {
    for (const q of [
      { kinds: ["spell"] as const, limit: 5 },
      { kinds: ["spell", "creature"] as const, search: "fire damage", limit: 5 },
    ]) {
      const full = await runSearch(ctxOf(store), { ...q, kinds: [...q.kinds] });
      const lean = await runSearch(ctxOf(store), { ...q, kinds: [...q.kinds], omitText: true });
      expect(full.hits.length).toBeGreaterThan(0);
      expect(full.hits.every((h) => h.entity.text.length > 0)).toBe(true);
      expect(lean.hits.map((h) => h.entity.text)).toEqual(full.hits.map(() => ""));
      expect(lean.hits.map((h) => ({ ...h, entity: { ...h.entity, text: "" } }))).toEqual(
        full.hits.map((h) => ({ ...h, entity: { ...h.entity, text: "" } })),
      );
    }
  });
});
