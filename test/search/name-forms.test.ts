/**
 * One thing under two name forms is one entry of a ranked list ("Horse, Draft" = "Draft Horse"; a rule and its rule
 * section).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { groupRows, LIGHT, type LightRow } from "../../src/search/rank/collapse.ts";
import { nameForm } from "../../src/entities/name-form.ts";
import type { SqlValue } from "../../src/search/filter/filters.ts";
import { runSearch } from "../../src/search/hybrid.ts";
import { documentRank } from "../../src/entities/preference.ts";
import type { SearchQuery } from "../../src/search/types.ts";
import type { Store } from "../../src/store/db.ts";
import { makeEntity, makeStore, reopenedAfter, undoMigration11, undoMigration8 } from "../support/entities.ts";
import { ctxOf, embedAll, readyProvider, TopicEmbedder } from "./helpers.ts";

describe("nameForm (pure)", () => {
  test("inverted names, case, punctuation, spacing and plurals are one form", () => {
    const same = (a: string, b: string) => expect(nameForm(a)).toBe(nameForm(b));
    same("Horse, Draft", "Draft Horse");
    same("Hyena, Giant", "giant hyena");
    same("Seahorse, Giant", "Giant Sea Horse");
    same("Will-o'-Wisp", "Will-o-Wisp");
    same("Crossbow, hand", "Hand Crossbow");
    same("Potions of Healing", "Potion of Healing");
    same("Flame Tongue (Longsword)", "Flame Tongue Longsword");
    same("Élan", "Elan");
  });
  test("different things stay apart", () => {
    const differ = (a: string, b: string) => expect(nameForm(a)).not.toBe(nameForm(b));
    differ("Giant Hyena", "Hyena");
    differ("Fireball", "Delayed Blast Fireball");
    differ("Dragon's Breath", "Dragon Wing");
    // Two commas: a list, not an inverted name.
    expect(nameForm("Food, Drink, and Lodging")).toBe("fooddrinkandlodging");
    differ("Light Hammer (+1)", "Light Hammer (+2)");
  });
});

let id = 0;
const row = (kind: string, name: string, doc: string): LightRow => ({
  id: ++id,
  kind,
  name,
  document_key: doc,
  document_source: "open5e_v2",
  key: `${doc}_${id}`,
});

describe("groupRows by name form", () => {
  test("'Horse, Draft' and 'Draft Horse' are one group, the preferred document first", () => {
    const groups = groupRows(
      [
        row("creature", "Horse, Draft", "bfrd"),
        row("creature", "Riding Horse", "srd-2014"),
        row("creature", "Draft Horse", "srd-2014"),
      ],
      documentRank(),
    );
    expect(groups.map((g) => g.members.map((m) => `${m.name}@${m.document_key}`))).toEqual([
      ["Draft Horse@srd-2014", "Horse, Draft@bfrd"],
      ["Riding Horse@srd-2014"],
    ]);
  });
  test("a rule and its rule section are one group; other kinds stay apart", () => {
    const groups = groupRows(
      [
        row("rule_section", "Underwater Combat", "srd-2014"),
        row("rule", "Underwater Combat", "srd-2024"),
        row("spell", "Light", "srd-2014"),
        row("weapon_property", "Light", "srd-2014"),
      ],
      documentRank(),
    );
    expect(groups.map((g) => g.members.map((m) => `${m.kind}@${m.document_key}`))).toEqual([
      ["rule@srd-2024", "rule_section@srd-2014"],
      ["spell@srd-2014"],
      ["weapon_property@srd-2014"],
    ]);
  });
});

describe("ranked answers show each thing once", () => {
  let store: Store;
  let cleanup: () => void;
  const emb = new TopicEmbedder();
  const run = (q: Partial<SearchQuery>) =>
    runSearch(ctxOf(store, readyProvider(emb)), { kinds: ["creature"], limit: 10, collapse: true, ...q });

  beforeAll(async () => {
    ({ store, cleanup } = makeStore([
      makeEntity(
        "creature",
        "Draft Horse",
        { creature_type: "beast" },
        { text: "A strong horse that pulls heavy loads." },
      ),
      makeEntity(
        "creature",
        "Horse, Draft",
        { creature_type: "beast" },
        { doc: "tob", text: "A strong horse bred to pull carts." },
      ),
      makeEntity("creature", "Riding Horse", { creature_type: "beast" }, { text: "A horse for riders." }),
      makeEntity("rule", "Underwater Combat", {}, { doc: "srd-2024", text: "Fighting while swimming under water." }),
      makeEntity("rule_section", "Underwater Combat", {}, { text: "Attacks made under water have disadvantage." }),
      makeEntity("rule", "Falling", {}, { text: "Damage from falling." }),
    ]));
    await embedAll(store.db, emb);
  });
  afterAll(() => cleanup());

  test("'draft horse': one entry for both name forms, naming the other version", async () => {
    const r = await run({ search: "horse that pulls carts" });
    const shown = r.hits.map((h) => h.entity.name);
    expect(shown.filter((n) => /draft/i.test(n))).toEqual(["Draft Horse"]);
    const draft = r.hits.find((h) => h.entity.name === "Draft Horse")!;
    expect(draft.others?.map((o) => o.document_key)).toEqual(["tob"]);
    expect(r.total).toBe(2);
  });
  test("without collapsing, both versions are listed", async () => {
    const r = await run({ search: "horse that pulls carts", collapse: false });
    expect(
      r.hits
        .map((h) => h.entity.name)
        .filter((n) => /draft/i.test(n))
        .sort(),
    ).toEqual(["Draft Horse", "Horse, Draft"]);
  });
  test("a rule and its rule section: one entry for 'under water'", async () => {
    const r = await run({ kinds: ["rule", "rule_section"], search: "fighting under water" });
    expect(r.hits.filter((h) => h.entity.name === "Underwater Combat")).toHaveLength(1);
    const hit = r.hits.find((h) => h.entity.name === "Underwater Combat")!;
    expect(hit.entity.kind).toBe("rule");
    expect(hit.others?.map((o) => o.kind)).toEqual(["rule_section"]);
  });
});

describe("lists without search show each thing once (stored name forms, migration 8)", () => {
  const entities = () => [
    makeEntity(
      "creature",
      "Draft Horse",
      { creature_type: "beast", cr: 0.25 },
      { doc: "srd-2024", text: "A strong horse." },
    ),
    makeEntity("creature", "Horse, Draft", { creature_type: "beast", cr: 0.25 }, { text: "A strong horse." }),
    makeEntity(
      "creature",
      "Horse, draft",
      { creature_type: "beast", cr: 1 },
      { doc: "tob", text: "A strong horse bred for war." },
    ),
    makeEntity("creature", "Riding Horse", { creature_type: "beast", cr: 0.25 }, { text: "A horse for riders." }),
    makeEntity(
      "creature",
      "Giant Hyena",
      { creature_type: "beast", cr: 1 },
      { doc: "srd-2024", text: "A huge hyena." },
    ),
    makeEntity("creature", "Hyena, Giant", { creature_type: "beast", cr: 1 }, { text: "A huge hyena." }),
  ];
  const list = (store: Store, q: Partial<SearchQuery> = {}) =>
    runSearch(ctxOf(store), { kinds: ["creature"], limit: 10, collapse: true, ...q });
  const shown = (r: Awaited<ReturnType<typeof list>>) =>
    r.hits.map(
      (h) =>
        `${h.entity.name}@${h.entity.document_key}` +
        `${h.others?.length ? `+${h.others.map((o) => o.document_key).join(",")}` : ""}`,
    );
  let store: Store;
  let cleanup: () => void;
  beforeAll(() => {
    ({ store, cleanup } = makeStore(entities()));
  });
  afterAll(() => cleanup());

  test("one entry per name form, the preferred document's version naming others; total counts entries", async () => {
    const r = await list(store);
    expect(shown(r)).toEqual([
      "Draft Horse@srd-2024+srd-2014,tob",
      "Giant Hyena@srd-2024+srd-2014",
      "Riding Horse@srd-2014",
    ]);
    expect(r.total).toBe(3);
  });
  test("a filter only one version matches: that version answers", async () => {
    const r = await list(store, { filters: { cr_min: 1 } });
    expect(shown(r)).toEqual(["Giant Hyena@srd-2024+srd-2014", "Horse, draft@tob"]);
    expect(r.total).toBe(2);
  });
  test(
    "another document preference (grouped per call, not from " +
      "the stored ranks): the same entries, its versions first",
    async () => {
      const r = await list(store, { prefer: ["tob"] });
      expect(shown(r)).toEqual([
        "Horse, draft@tob+srd-2024,srd-2014",
        "Giant Hyena@srd-2024+srd-2014",
        "Riding Horse@srd-2014",
      ]);
      expect(r.total).toBe(3);
    },
  );
  test("pages: offset and limit count entries, not versions", async () => {
    const pages = [await list(store, { limit: 2 }), await list(store, { limit: 2, offset: 2 })];
    expect(pages.flatMap(shown)).toEqual(shown(await list(store)));
  });
  test("without collapsing every version is listed", async () => {
    const r = await list(store, { collapse: false });
    expect(r.hits).toHaveLength(6);
  });
  test("a store written before migration 8 gets its name forms on open and lists the same", async () => {
    await reopenedAfter(
      entities(),
      (s) => undoMigration8(s.db),
      async (again) => {
        expect(
          again.db.query<{ n: number }, []>("SELECT count(*) AS n FROM entities WHERE name_form IS NULL").get()!.n,
        ).toBe(0);
        expect(shown(await list(again))).toEqual(shown(await list(store)));
      },
    );
  });
  test(
    "a store written before migration 11 gets the name in entities_by_form and " +
      "entities_creature_type on open; lists the same and read versions from the index alone",
    async () => {
      await reopenedAfter(
        entities(),
        (s) => undoMigration11(s.db),
        async (again) => {
          const plan = (sql: string, ...p: SqlValue[]) =>
            again.db
              .query<{ detail: string }, SqlValue[]>(`EXPLAIN QUERY PLAN ${sql}`)
              .all(...p)
              .map((r) => r.detail)
              .join(" | ");
          expect(
            plan(
              `SELECT ${LIGHT}, e.name_form FROM entities e INDEXED BY entities_by_form ` +
                `WHERE e.kind = ? AND e.name_form IN (SELECT value FROM json_each(?))`,
              "creature",
              '["drafthorse"]',
            ),
          ).toContain("COVERING INDEX entities_by_form");
          expect(
            plan(
              "SELECT e.name FROM entities e WHERE e.kind = ? AND " +
                "e.creature_type = ? AND e.cr <= ? AND e.dup_of IS NULL",
              "creature",
              "beast",
              2,
            ),
          ).toContain("entities_creature_type (kind=? AND creature_type=? AND cr<?)");
          expect(shown(await list(again))).toEqual(shown(await list(store)));
          expect(shown(await list(again, { filters: { cr_min: 1 } }))).toEqual(
            shown(await list(store, { filters: { cr_min: 1 } })),
          );
        },
      );
    },
  );
});

describe("the core prior (rank/fusion.ts)", () => {
  let store: Store;
  let cleanup: () => void;
  beforeAll(() => {
    ({ store, cleanup } = makeStore([
      makeEntity(
        "creature",
        "Cinder Hound",
        { creature_type: "fiend" },
        { doc: "tob", text: "A fire hound of fire and smoke." },
      ),
      makeEntity(
        "creature",
        "Hell Hound",
        { creature_type: "fiend" },
        { text: "A fiendish hound that breathes flame." },
      ),
    ]));
  });
  afterAll(() => cleanup());
  // Keyword ranking alone (no model): the look-alike matches "fire" twice, the SRD hound not at all.
  const run = (fusion?: { coreBoost: number }) =>
    runSearch(ctxOf(store, undefined, fusion ? { fusion } : {}), {
      kinds: ["creature"],
      limit: 5,
      collapse: true,
      search: "fire hound",
      profile: "creature",
    });

  test("an SRD entry ranked just below a look-alike from another book moves above it", async () => {
    expect((await run({ coreBoost: 0 })).hits.map((h) => h.entity.name)).toEqual(["Cinder Hound", "Hell Hound"]);
    const r = await run();
    expect(r.hits.map((h) => h.entity.name)).toEqual(["Hell Hound", "Cinder Hound"]);
    // Not a perfect score: the best possible is a first place with the prior.
    expect(r.hits[0]!.similarity_score).toBeCloseTo(21 / 22, 3);
    expect(r.hits[1]!.similarity_score).toBeLessThan(r.hits[0]!.similarity_score!);
  });
});
