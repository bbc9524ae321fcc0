/**
 * A list of few matches is put in order here, not by SQL (search/rank/page-order.ts, orderedHere),
 * in the order SQL gives: preferred document first, then the name as SQLite's NOCASE compares it
 * (UTF-8 bytes, ASCII letters folded), then kind. Names with curly apostrophes, accents and other
 * letters below U+FFFF are ordered here too; a name beyond U+FFFF leaves the page to SQL.
 */
import { afterAll, describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import type { EntityKind } from "../../src/entities/types.ts";
import { andWhere, buildFilterWhere } from "../../src/search/filter/filters.ts";
import { resolveName } from "../../src/search/filter/names.ts";
import { runSearch } from "../../src/search/hybrid.ts";
import { sameFormRows } from "../../src/search/rank/collapse.ts";
import { exactNameGroups, groupNames, type PageSpec } from "../../src/search/rank/page-order.ts";
import { documentRank } from "../../src/entities/preference.ts";
import type { StructuredFilters } from "../../src/search/types.ts";
import { makeEntity, makeStore } from "../support/entities.ts";
import { ctxOf } from "./helpers.ts";

const NAMES = [
  "Kareef’s Entreaty",
  "Alarm",
  "alarm bell",
  "Élan Ward",
  "Zephyr Ward",
  "Æther Ward",
  "Mage Armor",
  "mage armour",
  "Shield",
  "Sanctuary",
  "Ward of Ω",
  "Protection from Evil and Good",
  "Zz Top",
  "Über Ward",
  "Apple Ward",
  "apple Ward II",
];
const ASTRAL = "𝔄ncient Ward";

const abjuration = (name: string, doc: string) =>
  makeEntity("spell", name, { level: 1, school: "abjuration" }, { doc, key: `${doc}_${encodeURIComponent(name)}` });

function storeWith(names: readonly string[]) {
  const docs = ["srd-2024", "srd-2014", "tob"];
  return makeStore([
    ...names.map((n, i) => abjuration(n, docs[i % docs.length]!)),
    // The same thing in a less preferred book: one entry, not two.
    abjuration("Alarm", "tob"),
    abjuration("Shield", "srd-2024"),
  ]);
}

/** The canonical rows in the order SQL gives a list (doc_rank, name NOCASE, kind). */
function sqlOrder(db: Database): string[] {
  return db
    .query<{ name: string }, []>(
      "SELECT name FROM entities WHERE kind = 'spell' AND level = 1 AND school = " +
        "'abjuration' AND dup_of IS NULL AND group_rank = 0 ORDER BY doc_rank, name, kind",
    )
    .all()
    .map((r) => r.name);
}

/** Every page of the list (limit 5), the statements that ordered a page in SQL, and the reads of its matches. */
type Pages = { names: string[]; sqlOrdered: number; matchReads: number };
async function pages(db: Database, store: Parameters<typeof ctxOf>[0]): Promise<Pages> {
  const names: string[] = [];
  let sqlOrdered = 0;
  let matchReads = 0;
  const query = db.query.bind(db);
  db.query = ((sql: string) => {
    if (/ORDER BY .*doc_rank/.test(sql)) sqlOrdered++;
    if (sql.startsWith("SELECT e.name AS name, e.kind AS kind, e.doc_rank AS doc_rank FROM")) matchReads++;
    return query(sql);
  }) as typeof db.query;
  try {
    for (let offset = 0; offset < 30; offset += 5) {
      const r = await runSearch(ctxOf(store), {
        kinds: ["spell"],
        filters: { level: 1, school: "abjuration" },
        collapse: true,
        limit: 5,
        offset,
      });
      names.push(...r.hits.map((h) => h.entity.name));
    }
  } finally {
    db.query = query;
  }
  return { names, sqlOrdered, matchReads };
}

describe("a few matches, ordered here", () => {
  const plain = storeWith(NAMES);
  const astral = storeWith([...NAMES, ASTRAL]);
  afterAll(() => {
    plain.cleanup();
    astral.cleanup();
  });

  test("names with accents, curly apostrophes and Greek come in SQL's order, with no SQL ordering", async () => {
    const got = await pages(plain.store.db, plain.store);
    expect(got.names).toEqual(sqlOrder(plain.store.db));
    expect(got.names).toHaveLength(NAMES.length);
    expect(got.sqlOrdered).toBe(0);
    // Read once, on the first page: the other pages are sorted from the matches kept.
    expect(got.matchReads).toBe(1);
  });

  test("a name beyond U+FFFF: SQL orders the page, and the order is the same", async () => {
    const got = await pages(astral.store.db, astral.store);
    expect(got.names).toEqual(sqlOrder(astral.store.db));
    expect(got.names).toContain(ASTRAL);
    expect(got.sqlOrdered).toBeGreaterThan(0);
  });
});

describe("a lookup by exact name: groups and versions from one statement (exactNameGroups)", () => {
  const made = makeStore([
    makeEntity("creature", "Goblin", { cr: 0.25, creature_type: "humanoid" }, { doc: "srd-2014" }),
    makeEntity("creature", "Goblin", { cr: 0.25, creature_type: "fey" }, { doc: "srd-2024" }),
    makeEntity("creature", "GOBLIN", { cr: 1, creature_type: "humanoid" }, { doc: "tob" }),
    makeEntity("creature", "goblin", { cr: 2, creature_type: "humanoid" }, { doc: "homebrew-pack" }),
    makeEntity("spell", "Goblin", { level: 1, school: "illusion" }, { doc: "tob" }),
    makeEntity("creature", "Horse, Draft", { cr: 0.25, creature_type: "beast" }, { doc: "srd-2014" }),
    makeEntity("creature", "Draft Horse", { cr: 0.25, creature_type: "beast" }, { doc: "srd-2024" }),
    makeEntity("creature", "Draft Horse", { cr: 0.5, creature_type: "beast" }, { doc: "tob" }),
    makeEntity("spell", "Kareef’s Entreaty", { level: 1, school: "abjuration" }, { doc: "tob" }),
  ]);
  afterAll(made.cleanup);
  const db = made.store.db;

  test(
    "the same groups, total and rows as groupNames and " +
      "sameFormRows, for any filters, documents, offset and preference",
    () => {
      const cases: Array<{ kinds: EntityKind[]; name: string; filters?: StructuredFilters; documents?: string[] }> = [];
      for (const name of [
        "Goblin",
        "goblin",
        "GOBLIN",
        "Draft Horse",
        "Horse, Draft",
        "draft horse",
        "Kareef’s Entreaty",
        "Nothing Here",
      ])
        for (const kinds of [["creature"], ["spell"], ["creature", "spell"]] as EntityKind[][])
          for (const filters of [undefined, { cr_max: 0.5 }, { creature_type: "humanoid" }, { cr_min: 1 }])
            for (const documents of [undefined, ["tob"], ["srd-2014", "homebrew-pack"]])
              cases.push({ kinds, name, filters, documents });
      let compared = 0;
      for (const c of cases) {
        const built = buildFilterWhere(c.kinds, c.filters, c.documents ?? null);
        if (!built.ok) continue;
        const step = resolveName(db, built.where, c.name, c.kinds);
        if (step?.how !== "exact") continue;
        const where = andWhere(built.where, step.clause);
        for (const prefer of [undefined, ["tob", "srd-2014"]])
          for (const offset of [0, 1, 2]) {
            const spec = {
              offset,
              limit: 1 + offset,
              collapse: true,
              rank: documentRank(prefer),
              withText: false,
              kinds: c.kinds,
              named: true,
            } satisfies PageSpec;
            const quick = exactNameGroups(db, where, spec, step.literal!);
            if (!quick) continue;
            compared++;
            const slow = groupNames(db, where, spec);
            expect({ c, prefer, offset, total: quick.total, names: quick.names }).toEqual({
              c,
              prefer,
              offset,
              total: slow.total,
              names: slow.names,
            });
            if (slow.names.length === 0) continue;
            const rows = sameFormRows(
              db,
              slow.names.map((n) => ({ kind: n.kind, name_form: n.name_form ?? "" })),
              where,
            );
            const byId = (xs: ReadonlyArray<{ id: number; ok: number | null }>) =>
              [...xs].map((r) => ({ id: r.id, ok: r.ok ? 1 : 0 })).sort((a, b) => a.id - b.id);
            const kindsShown = new Set(slow.names.map((n) => n.kind));
            expect(byId(quick.rows.filter((r) => kindsShown.has(r.kind)))).toEqual(byId(rows));
          }
      }
      expect(compared).toBeGreaterThan(100);
    },
  );
});
