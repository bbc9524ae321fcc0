/**
 * A list of few matches is put in order here, not by SQL (search/rank/page-order.ts, orderedHere),
 * in the order SQL gives: preferred document first, then the name as SQLite's NOCASE compares it
 * (UTF-8 bytes, ASCII letters folded), then kind. Names with curly apostrophes, accents and other
 * letters below U+FFFF are ordered here too; a name beyond U+FFFF leaves the page to SQL.
 */
import { afterAll, describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { runSearch } from "../../src/search/hybrid.ts";
import { makeEntity, makeStore } from "../support/entities.ts";
import { ctxOf } from "./helpers.ts";

const NAMES = ["Kareef’s Entreaty", "Alarm", "alarm bell", "Élan Ward", "Zephyr Ward", "Æther Ward", "Mage Armor", "mage armour", "Shield", "Sanctuary", "Ward of Ω", "Protection from Evil and Good", "Zz Top", "Über Ward", "Apple Ward", "apple Ward II"];
const ASTRAL = "𝔄ncient Ward";

const abjuration = (name: string, doc: string) => makeEntity("spell", name, { level: 1, school: "abjuration" }, { doc, key: `${doc}_${encodeURIComponent(name)}` });

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
    .query<{ name: string }, []>("SELECT name FROM entities WHERE kind = 'spell' AND level = 1 AND school = 'abjuration' AND dup_of IS NULL AND group_rank = 0 ORDER BY doc_rank, name, kind")
    .all()
    .map((r) => r.name);
}

/** Every page of the list (limit 5), and the statements that ordered a page in SQL. */
async function pages(db: Database, store: Parameters<typeof ctxOf>[0]): Promise<{ names: string[]; sqlOrdered: number }> {
  const names: string[] = [];
  let sqlOrdered = 0;
  const query = db.query.bind(db);
  db.query = ((sql: string) => {
    if (/ORDER BY .*doc_rank/.test(sql)) sqlOrdered++;
    return query(sql);
  }) as typeof db.query;
  try {
    for (let offset = 0; offset < 30; offset += 5) {
      const r = await runSearch(ctxOf(store), { kinds: ["spell"], filters: { level: 1, school: "abjuration" }, collapse: true, limit: 5, offset });
      names.push(...r.hits.map((h) => h.entity.name));
    }
  } finally {
    db.query = query;
  }
  return { names, sqlOrdered };
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
  });

  test("a name beyond U+FFFF: SQL orders the page, and the order is the same", async () => {
    const got = await pages(astral.store.db, astral.store);
    expect(got.names).toEqual(sqlOrder(astral.store.db));
    expect(got.names).toContain(ASTRAL);
    expect(got.sqlOrdered).toBeGreaterThan(0);
  });
});
