/**
 * The indexes of the filter table's later columns (store/filter-columns.ts): every filter column
 * the wide covering index lacks is in them; a store without them, or with an index made before
 * the table gained a column, gets them when it opens; lists filtered by such a column (a trait, an
 * environment) read those indexes instead of each creature's row, and answer as before.
 */
import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import type { EntityKind } from "../../src/entities/types.ts";
import { FILTER_TABLE } from "../../src/entities/filters.ts";
import { andWhere, buildFilterWhere, type SqlValue } from "../../src/search/filter/filters.ts";
import { runSearch } from "../../src/search/hybrid.ts";
import { firstOfGroup } from "../../src/search/rank/page-order.ts";
import type { StructuredFilters } from "../../src/search/types.ts";
import { openStore, type Store } from "../../src/store/db.ts";
import { indexColumns, lateFilterColumns } from "../../src/store/filter-columns.ts";
import { makeEntity, makeStore, reopenedAfter } from "../support/entities.ts";
import { unavailableProvider } from "../search/helpers.ts";

const LATE = ["entities_late_by_preference", "entities_late_by_name", "entities_late_by_cr"];
const CR_LEAD = ["kind", "cr", "dup_of", "group_rank", "name", "doc_rank", "name_form"];

/** The SQL of an index as SQLite keeps it. */
const indexSql = (db: Database, name: string) =>
  db.query<{ sql: string }, [string]>("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?").get(name)
    ?.sql ?? "";

/** Wolves and a drow in two books; traits and environments as the derivation stores them. */
function creatures() {
  return [
    makeEntity("creature", "Wolf", { cr: 0.25, creature_type: "beast" }),
    makeEntity("creature", "Wolf", { cr: 0.25, creature_type: "beast" }, { doc: "tob" }),
    makeEntity("creature", "Drow", { cr: 0.25, creature_type: "humanoid" }),
    makeEntity("creature", "Goblin", { cr: 0.25, creature_type: "humanoid" }),
  ];
}

function setLateValues(db: Database): void {
  db.exec("UPDATE entities SET traits = '|bite|keen hearing and smell|pack tactics|' WHERE name = 'Wolf'");
  db.exec(
    "UPDATE entities SET traits = '|fey ancestry|sunlight " +
      "sensitivity|', environments = '|underdark|' WHERE name = 'Drow'",
  );
  db.exec("UPDATE entities SET traits = '|nimble escape|', environments = '|forest|' WHERE name = 'Goblin'");
}

async function names(store: Store, filters: StructuredFilters): Promise<string[]> {
  const r = await runSearch(
    { store, embedder: unavailableProvider(), embeddingTimeoutMs: 100 },
    { kinds: ["creature" as EntityKind], filters, limit: 20, offset: 0, collapse: true },
  );
  return r.hits.map((h) => `${h.entity.document_key}:${h.entity.name}`);
}

describe("indexes of the later filter columns", () => {
  test("a new store has all three, and every filter column is in the wide index or in them", () => {
    const { store, cleanup } = makeStore(creatures());
    try {
      const late = lateFilterColumns(store.db);
      expect(late).toContain("traits");
      expect(late).toContain("environments");
      expect(indexColumns(store.db, "entities_late_by_preference")).toEqual([
        "kind",
        "doc_rank",
        "name",
        "dup_of",
        "group_rank",
        "name_form",
        ...late,
      ]);
      expect(indexColumns(store.db, "entities_late_by_name")).toEqual(["kind", "name", ...late]);
      expect(indexColumns(store.db, "entities_late_by_cr")).toEqual([...CR_LEAD, ...late]);
      // Partial: only a query that bounds `cr` can use it.
      expect(indexSql(store.db, "entities_late_by_cr")).toEndWith(") WHERE cr IS NOT NULL");
      const covered = new Set([
        ...indexColumns(store.db, "entities_by_preference"),
        ...indexColumns(store.db, "entities_late_by_preference"),
      ]);
      expect(FILTER_TABLE.map((f) => f.column).filter((c) => !covered.has(c))).toEqual([]);
    } finally {
      cleanup();
    }
  });

  test(
    "a store without them, or with one made before a column " + "was added, gets them on open; lists answer the same",
    async () => {
      const { store: fresh, cleanup } = makeStore(creatures());
      setLateValues(fresh.db);
      const lists = async (s: Store) => ({
        pack: await names(s, { trait: "Pack Tactics" }),
        under: await names(s, { environment: "underdark" }),
        forest: await names(s, { environment: "forest", cr_max: 1 }),
      });
      const before = await lists(fresh);
      cleanup();
      expect(before).toEqual({ pack: ["srd-2014:Wolf"], under: ["srd-2014:Drow"], forest: ["srd-2014:Goblin"] });
      await reopenedAfter(
        creatures(),
        (s) => {
          setLateValues(s.db);
          const late = lateFilterColumns(s.db);
          s.db.exec("DROP INDEX entities_late_by_name");
          // Made by hand over every row: not the partial index this build wants.
          s.db.exec(
            `DROP INDEX entities_late_by_cr; CREATE INDEX entities_late_by_cr ` +
              `ON entities(${[...CR_LEAD, ...late].join(", ")})`,
          );
          // As if the table had no `environments` yet when the index was made.
          s.db.exec(
            `DROP INDEX entities_late_by_preference; CREATE INDEX ` +
              `entities_late_by_preference ON entities(kind, doc_rank, name, dup_of, group_rank, ` +
              `name_form, ${late.filter((c) => c !== "environments").join(", ")})`,
          );
        },
        async (again) => {
          const late = lateFilterColumns(again.db);
          expect(indexColumns(again.db, "entities_late_by_preference")).toEqual([
            "kind",
            "doc_rank",
            "name",
            "dup_of",
            "group_rank",
            "name_form",
            ...late,
          ]);
          expect(indexColumns(again.db, "entities_late_by_name")).toEqual(["kind", "name", ...late]);
          expect(indexSql(again.db, "entities_late_by_cr")).toEndWith(") WHERE cr IS NOT NULL");
          expect(await lists(again)).toEqual(before);
        },
      );
    },
  );

  test("a full index where the partial one is wanted, the others current: made again on open", async () => {
    await reopenedAfter(
      creatures(),
      (s) => {
        const late = lateFilterColumns(s.db);
        s.db.exec(
          `DROP INDEX entities_late_by_cr; CREATE INDEX entities_late_by_cr ` +
            `ON entities(${[...CR_LEAD, ...late].join(", ")})`,
        );
        expect(indexSql(s.db, "entities_late_by_cr")).not.toContain("WHERE");
      },
      async (again) => {
        expect(indexColumns(again.db, "entities_late_by_cr")).toEqual([...CR_LEAD, ...lateFilterColumns(again.db)]);
        expect(indexSql(again.db, "entities_late_by_cr")).toEndWith(") WHERE cr IS NOT NULL");
      },
    );
  });

  test(
    "an index a newer build made with more columns is kept; " +
      "a store with current indexes opens without a write lock",
    async () => {
      await reopenedAfter(
        creatures(),
        (s) => {
          const late = lateFilterColumns(s.db);
          // A newer build's filter table has one more column (here: `slug` stands for it).
          s.db.exec(
            `DROP INDEX entities_late_by_name; CREATE INDEX entities_late_by_name ` +
              `ON entities(kind, name, ${late.join(", ")}, slug)`,
          );
          s.db.exec(
            `DROP INDEX entities_late_by_cr; CREATE INDEX entities_late_by_cr ON ` +
              `entities(${[...CR_LEAD, ...late].join(", ")}, slug) WHERE cr IS NOT NULL`,
          );
        },
        async (again) => {
          expect(indexColumns(again.db, "entities_late_by_name").at(-1)).toBe("slug");
          expect(indexColumns(again.db, "entities_late_by_cr").at(-1)).toBe("slug");
        },
      );
      const { store, cleanup } = makeStore(creatures());
      try {
        store.close();
        // Another connection holds the write lock (a sync): opening must not need it.
        const writer = new Database(store.path);
        writer.exec("BEGIN IMMEDIATE");
        try {
          const again = openStore({ path: store.path, busyTimeoutMs: 0 });
          again.close();
        } finally {
          writer.exec("ROLLBACK");
          writer.close();
        }
      } finally {
        cleanup();
      }
    },
  );

  test("lists by trait or environment read the indexes, not the creatures' rows", () => {
    const { store, cleanup } = makeStore(creatures());
    try {
      const plan = (filters: StructuredFilters, order: string) => {
        const f = buildFilterWhere(["creature"], filters, null);
        if (!f.ok) throw new Error(f.message);
        const w = andWhere(f.where, firstOfGroup(f.where));
        return store.db
          .query<{ detail: string }, SqlValue[]>(
            `EXPLAIN QUERY PLAN SELECT e.name, e.kind, e.name_form FROM ` +
              `entities e WHERE ${w.sql} ORDER BY ${order}, e.name, e.kind LIMIT 20`,
          )
          .all(...w.params)
          .map((r) => r.detail);
      };
      // Walking in preference order, and sorting the matches (leadOrder's two plans).
      for (const order of ["e.doc_rank", "+e.doc_rank"]) {
        const trait = plan({ trait: "Pack Tactics" }, order);
        expect(trait[0]).toContain("COVERING INDEX entities_late_by_preference");
        const env = plan({ environment: "underdark" }, order);
        expect(env[0]).toContain("COVERING INDEX entities_late_by_preference");
        // The namesake check (a same-named version's environments) seeks the name index.
        expect(env.some((d) => d.includes("COVERING INDEX entities_late_by_name (kind=? AND name=?)"))).toBe(true);
        // With a CR range: the range, in the index that holds the late columns too (no row read).
        for (const filters of [
          { trait: "Pack Tactics", cr_min: 0.25 },
          { environment: "forest", cr_max: 2 },
          { spellcaster: true, cr_min: 1 },
        ] as StructuredFilters[]) {
          const p = plan(filters, order);
          expect({ filters, first: p[0] }).toEqual({
            filters,
            first: expect.stringMatching(/^SEARCH e USING COVERING INDEX entities_late_by_cr \(kind=\? AND cr[<>]\?\)/),
          });
        }
      }
      expect(LATE.every((i) => indexColumns(store.db, i).length > 0)).toBe(true);
    } finally {
      cleanup();
    }
  });
});
