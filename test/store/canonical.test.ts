/**
 * Canonical-ness as a stored fact (store/canonical.ts): `group_rank` and `doc_rank` follow the
 * document preference, are kept by every write and by a change of preference, are back-filled by
 * migrations 5 and 7, and collapsed answers read from them are the answers the per-call GROUP BY
 * gives, in the preference order, then by name.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import type { Entity, EntityFilters, EntityKind } from "../../src/entities/types.ts";
import { runSearch } from "../../src/search/hybrid.ts";
import { overAlias } from "../../src/search/rank/page-order.ts";
import type { StructuredFilters } from "../../src/search/types.ts";
import { rankPreference, RANK_PREFERENCE_KEY, setRankPreference } from "../../src/store/canonical.ts";
import { openStore, type Store } from "../../src/store/db.ts";
import { deleteOrigin, replaceOrigin } from "../../src/store/entities.ts";
import { SCHEMA_VERSION } from "../../src/store/schema.ts";
import { makeEntity, undoMigration5, undoMigration7 } from "../support/entities.ts";
import { recordQueries } from "../support/sql-seen.ts";
import { makeTempDir } from "../support/tmp.ts";
import { unavailableProvider } from "../search/helpers.ts";

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

function tempStore(): { path: string; store: Store } {
  const t = makeTempDir("lk-canon-");
  const path = join(t.dir, "lk.db");
  const store = openStore({ path });
  cleanups.push(() => {
    store.close();
    t.cleanup();
  });
  return { path, store };
}

const spell = (name: string, doc: string, f: EntityFilters, source?: Entity["document_source"], key?: string) =>
  makeEntity("spell", name, f, { doc, ...(source ? { source } : {}), ...(key ? { key } : {}) });

function ranks(db: Database): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  for (const r of db
    .query<{ k: string; g: number | null }, []>(
      "SELECT document_source || ':' || key AS k, group_rank AS g FROM entities ORDER BY id",
    )
    .all())
    out[r.k] = r.g;
  return out;
}

function docRanks(db: Database): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  for (const r of db
    .query<{ k: string; d: number | null }, []>(
      "SELECT document_source || ':' || key AS k, doc_rank AS d FROM entities ORDER BY id",
    )
    .all())
    out[r.k] = r.d;
  return out;
}

/** Fireball in four documents (one a v1 copy of srd-2014's), Shield in two, Light in one. */
function fill(db: Database): void {
  replaceOrigin(db, "open5e_v2:spells", [
    spell("Fireball", "srd-2024", { level: 3, school: "evocation" }),
    spell("Fireball", "srd-2014", { level: 3, school: "evocation" }),
    spell("fireball", "tob", { level: 4, school: "evocation" }),
    spell("Shield", "srd-2014", { level: 1, school: "abjuration" }),
    spell("Shield", "tob", { level: 2, school: "abjuration", ritual: true }),
    spell("Light", "srd-2014", { level: 0, school: "evocation" }),
  ]);
  replaceOrigin(db, "open5e_v1:spells", [
    spell("Fireball", "srd-2014", { level: 3, school: "evocation" }, "open5e_v1", "fireball"),
  ]);
  replaceOrigin(db, "orcbrew:mine", [spell("Fireball", "homebrew-pack", { level: 3, school: "evocation" }, "orcbrew")]);
}

describe("group_rank", () => {
  test("follows the document preference; copies from a less preferred source have none", () => {
    const { store } = tempStore();
    fill(store.db);
    expect(ranks(store.db)).toEqual({
      "open5e_v2:srd_fireball": 1,
      "open5e_v2:tob_fireball": 2,
      "open5e_v2:srd_shield": 0,
      "open5e_v2:tob_shield": 1,
      "open5e_v2:srd_light": 0,
      "open5e_v2:srd-2024_fireball": 0,
      "open5e_v1:fireball": null,
      "orcbrew:homebrew-pack_fireball": 3,
    });
    expect(rankPreference(store.db)).toBe("");
    // The document's own place: SRD 5.2, SRD 5.1, other open content, homebrew (copies too).
    expect(docRanks(store.db)).toEqual({
      "open5e_v2:srd_fireball": 1,
      "open5e_v2:tob_fireball": 2,
      "open5e_v2:srd_shield": 1,
      "open5e_v2:tob_shield": 2,
      "open5e_v2:srd_light": 1,
      "open5e_v2:srd-2024_fireball": 0,
      "open5e_v1:fireball": 1,
      "orcbrew:homebrew-pack_fireball": 3,
    });
  });

  test("writes keep it: a version removed by a sync or an import moves the next one up", () => {
    const { store } = tempStore();
    fill(store.db);
    replaceOrigin(store.db, "open5e_v2:spells", [
      spell("Fireball", "srd-2014", { level: 3 }),
      spell("fireball", "tob", { level: 4 }),
    ]);
    expect(ranks(store.db)["open5e_v2:srd_fireball"]).toBe(0);
    expect(ranks(store.db)["open5e_v2:tob_fireball"]).toBe(1);
    deleteOrigin(store.db, "open5e_v2:spells");
    // The v1 copy answers again once the v2 version it duplicated is gone.
    expect(ranks(store.db)["open5e_v1:fireball"]).toBe(0);
    expect(ranks(store.db)["orcbrew:homebrew-pack_fireball"]).toBe(1);
  });

  test("a new document preference is recorded and recomputed once, not per call", () => {
    const { store } = tempStore();
    fill(store.db);
    expect(setRankPreference(store.db, ["TOB", "srd-5e"])).toBe(true);
    expect(rankPreference(store.db)).toBe("tob,srd-2014");
    expect(ranks(store.db)["open5e_v2:tob_fireball"]).toBe(0);
    expect(ranks(store.db)["open5e_v2:srd_fireball"]).toBe(1);
    expect(ranks(store.db)["open5e_v2:srd-2024_fireball"]).toBe(2);
    expect(docRanks(store.db)["open5e_v2:tob_shield"]).toBe(0);
    expect(docRanks(store.db)["open5e_v2:srd_shield"]).toBe(1);
    expect(docRanks(store.db)["open5e_v2:srd-2024_fireball"]).toBe(2);
    expect(docRanks(store.db)["orcbrew:homebrew-pack_fireball"]).toBe(4);
    expect(setRankPreference(store.db, ["tob", "srd-2014"])).toBe(false);
    // A later sync ranks by the recorded preference.
    replaceOrigin(store.db, "open5e_v2:extra", [spell("Light", "tob", { level: 0 })]);
    expect(ranks(store.db)["open5e_v2:tob_light"]).toBe(0);
    expect(ranks(store.db)["open5e_v2:srd_light"]).toBe(1);
  });

  test("migration 5 fills it for a store written before", () => {
    const { path, store } = tempStore();
    fill(store.db);
    store.close();
    const raw = new Database(path);
    undoMigration5(raw);
    raw.close();
    const again = openStore({ path });
    cleanups.push(() => again.close());
    expect(
      again.db.query<{ value: string }, []>("SELECT value FROM meta WHERE key = 'schema_version'").get()?.value,
    ).toBe(String(SCHEMA_VERSION));
    expect(
      again.db.query<{ value: string }, [string]>("SELECT value FROM meta WHERE key = ?").get(RANK_PREFERENCE_KEY)
        ?.value,
    ).toBe("");
    expect(ranks(again.db)["open5e_v2:srd-2024_fireball"]).toBe(0);
    expect(ranks(again.db)["orcbrew:homebrew-pack_fireball"]).toBe(3);
    expect(ranks(again.db)["open5e_v1:fireball"]).toBeNull();
  });

  test(
    "migration 7 fills doc_rank by the preference the store " +
      "records, and a store without it opened read-only groups per call",
    async () => {
      const { path, store } = tempStore();
      fill(store.db);
      setRankPreference(store.db, ["tob"]);
      store.close();
      const raw = new Database(path);
      undoMigration7(raw);
      raw.close();
      // Read-only (no migration): no doc_rank, so the stored ranks are not used; the answer is the same.
      const ro = openStore({ path, readonly: true });
      expect(rankPreference(ro.db)).toBeUndefined();
      const names = async (s: Store) =>
        (
          await runSearch(
            { store: s, embedder: unavailableProvider(), embeddingTimeoutMs: 100 },
            { kinds: ["spell" as EntityKind], limit: 10, collapse: true, prefer: ["tob"] },
          )
        ).hits.map((h) => `${h.entity.document_key}:${h.entity.name}`);
      const readOnly = await names(ro);
      ro.close();
      const again = openStore({ path });
      cleanups.push(() => again.close());
      expect(
        again.db.query<{ value: string }, []>("SELECT value FROM meta WHERE key = 'schema_version'").get()?.value,
      ).toBe(String(SCHEMA_VERSION));
      expect(rankPreference(again.db)).toBe("tob");
      expect(docRanks(again.db)["open5e_v2:tob_fireball"]).toBe(0);
      expect(docRanks(again.db)["open5e_v2:srd-2024_fireball"]).toBe(1);
      expect(docRanks(again.db)["open5e_v2:srd_light"]).toBe(2);
      expect(await names(again)).toEqual(["tob:fireball", "tob:Shield", "srd-2014:Light"]);
      expect(readOnly).toEqual(["tob:fireball", "tob:Shield", "srd-2014:Light"]);
    },
  );
});

describe("the order of a collapsed list", () => {
  test(
    "the preferred documents' entries first (the version that " +
      "answers decides), then by name; without collapsing, by name",
    async () => {
      const { store } = tempStore();
      fill(store.db);
      replaceOrigin(store.db, "open5e_v2:more", [
        spell("Aid", "tob", { level: 2, school: "abjuration" }),
        spell("Blight", "srd-2024", { level: 4, school: "necromancy" }),
        spell("Zephyr", "srd-2014", { level: 1, school: "evocation" }),
      ]);
      const ctx = { store, embedder: unavailableProvider(), embeddingTimeoutMs: 100 };
      const list = async (filters: StructuredFilters, collapse: boolean, offset = 0, limit = 20, prefer?: string[]) =>
        (
          await runSearch(ctx, {
            kinds: ["spell" as EntityKind],
            filters,
            offset,
            limit,
            collapse,
            ...(prefer ? { prefer } : {}),
          })
        ).hits.map((h) => `${h.entity.document_key}:${h.entity.name}`);
      expect(await list({}, true)).toEqual([
        "srd-2024:Blight",
        "srd-2024:Fireball",
        "srd-2014:Light",
        "srd-2014:Shield",
        "srd-2014:Zephyr",
        "tob:Aid",
      ]);
      // Pages keep that order.
      expect([
        ...(await list({}, true, 0, 2)),
        ...(await list({}, true, 2, 2)),
        ...(await list({}, true, 4, 2)),
      ]).toEqual(await list({}, true));
      // Level 4 matches only tob's fireball among the Fireballs: it answers for Fireball, in tob's place.
      expect(await list({ level: 4 }, true)).toEqual(["srd-2024:Blight", "tob:fireball"]);
      expect(await list({ level: 2 }, true)).toEqual(["tob:Aid", "tob:Shield"]);
      // Every version (all_versions, documents): by name, then preference.
      expect(await list({ school: "evocation" }, false)).toEqual([
        "srd-2024:Fireball",
        "srd-2014:Fireball",
        "tob:fireball",
        "homebrew-pack:Fireball",
        "srd-2014:Light",
        "srd-2014:Zephyr",
      ]);
      // Another preference than the stored one (grouped per call): the same rule.
      expect(await list({}, true, 0, 20, ["tob"])).toEqual([
        "tob:Aid",
        "tob:fireball",
        "tob:Shield",
        "srd-2024:Blight",
        "srd-2014:Light",
        "srd-2014:Zephyr",
      ]);
    },
  );
});

describe("collapsed answers from the stored ranks", () => {
  test("the same pages and totals as grouping per call, including a version only it matches", async () => {
    const { store } = tempStore();
    fill(store.db);
    // More names, so that pages and offsets matter.
    const more: Entity[] = [];
    for (let i = 0; i < 12; i++) {
      more.push(spell(`Bolt ${i}`, "srd-2024", { level: i % 4, school: "evocation" }));
      if (i % 3 === 0)
        more.push(spell(`Bolt ${i}`, "tob", { level: (i + 1) % 4, school: "evocation", ritual: i % 2 === 0 }));
    }
    replaceOrigin(store.db, "open5e_v2:more", more);
    const ctx = { store, embedder: unavailableProvider(), embeddingTimeoutMs: 100 };
    const shapes: StructuredFilters[] = [
      {},
      { level: 3 },
      { level: 4 },
      { level: 2, school: "abjuration" },
      { ritual: true },
      { level_min: 1, level_max: 3 },
      { school: "evocation" },
    ];
    const answer = async (filters: StructuredFilters, offset: number, limit: number) => {
      const r = await runSearch(ctx, { kinds: ["spell" as EntityKind], filters, offset, limit, collapse: true });
      return {
        total: r.total,
        hits: r.hits.map(
          (h) => `${h.entity.document_key}:${h.entity.name}+${(h.others ?? []).map((o) => o.document_key).join(",")}`,
        ),
      };
    };
    const stored: unknown[] = [];
    for (const f of shapes)
      for (const [offset, limit] of [
        [0, 3],
        [2, 4],
        [0, 50],
      ] as const)
        stored.push(await answer(f, offset, limit));
    // The tob-only variant: level 4 matches only tob's Fireball, which then answers for Fireball.
    expect((stored[6] as { hits: string[] }).hits).toEqual(["tob:fireball+"]);
    // Now make the stored ranks follow another preference: these queries must group per call.
    store.db.query("UPDATE meta SET value = 'elsewhere' WHERE key = ?").run(RANK_PREFERENCE_KEY);
    expect(rankPreference(store.db)).toBe("elsewhere");
    const grouped: unknown[] = [];
    for (const f of shapes)
      for (const [offset, limit] of [
        [0, 3],
        [2, 4],
        [0, 50],
      ] as const)
        grouped.push(await answer(f, offset, limit));
    expect(stored).toEqual(grouped);
  });

  test("a filter's first use: up to 64 matches are the total and the page (no COUNT); more are counted", async () => {
    const { store } = tempStore();
    const many: Entity[] = [];
    // 70 evocation spells of level 1 (one of them also in tob), 10 of level 2, 64 of level 3, 65 of level 4.
    for (let i = 0; i < 80; i++)
      many.push(
        spell(`Spark ${String(i).padStart(2, "0")}`, "srd-2024", { level: i < 70 ? 1 : 2, school: "evocation" }),
      );
    for (let i = 0; i < 64; i++)
      many.push(spell(`Glow ${String(i).padStart(2, "0")}`, "srd-2024", { level: 3, school: "evocation" }));
    for (let i = 0; i < 65; i++)
      many.push(spell(`Hum ${String(i).padStart(2, "0")}`, "srd-2024", { level: 4, school: "evocation" }));
    many.push(spell("Spark 00", "tob", { level: 1, school: "evocation" }));
    replaceOrigin(store.db, "open5e_v2:many", many);
    const ctx = { store, embedder: unavailableProvider(), embeddingTimeoutMs: 100 };
    // Every statement the store prepares from here on.
    const { seen } = recordQueries(store.db);
    const page = async (level: number, offset: number) => {
      seen.length = 0;
      const r = await runSearch(ctx, {
        kinds: ["spell" as EntityKind],
        filters: { level },
        offset,
        limit: 5,
        collapse: true,
      });
      // The clause's own COUNT (first of its group), not the kind's row count a walk decision reads.
      return {
        total: r.total,
        names: r.hits.map((h) => h.entity.name),
        counted: seen.some((q) => q.includes("COUNT(*)") && q.includes("group_rank = 0")),
      };
    };
    const few = await page(2, 5);
    expect(few).toEqual({
      total: 10,
      names: ["Spark 75", "Spark 76", "Spark 77", "Spark 78", "Spark 79"],
      counted: false,
    });
    const lots = await page(1, 65);
    expect(lots).toEqual({
      total: 70,
      names: ["Spark 65", "Spark 66", "Spark 67", "Spark 68", "Spark 69"],
      counted: true,
    });
    // The bounds: 64 matches are read and are the total; 65 are counted.
    expect(await page(3, 60)).toEqual({
      total: 64,
      names: ["Glow 60", "Glow 61", "Glow 62", "Glow 63"],
      counted: false,
    });
    expect(await page(4, 60)).toEqual({
      total: 65,
      names: ["Hum 60", "Hum 61", "Hum 62", "Hum 63", "Hum 64"],
      counted: true,
    });
    // A name lookup's first use: its versions are the total, nothing counted.
    seen.length = 0;
    const named = await runSearch(ctx, {
      kinds: ["spell" as EntityKind],
      name: "spark 00",
      offset: 0,
      limit: 5,
      collapse: true,
    });
    expect({
      total: named.total,
      first: named.hits[0]?.entity.document_key,
      others: named.hits[0]?.others?.map((o) => o.document_key),
    }).toEqual({ total: 1, first: "srd-2024", others: ["tob"] });
    expect(seen.some((q) => q.includes("COUNT(*)") && q.includes("group_rank = 0"))).toBe(false);
    // Remembered: the same totals again, without counting.
    expect(await page(2, 0)).toMatchObject({ total: 10, counted: false });
    expect(await page(1, 0)).toMatchObject({
      total: 70,
      names: ["Spark 00", "Spark 01", "Spark 02", "Spark 03", "Spark 04"],
      counted: false,
    });
  });

  test("filter clauses move to another alias of entities, strings and values untouched", () => {
    expect(
      overAlias(
        {
          sql: "e.kind = ? AND lower(replace(e.damage_dice, ' ', '')) = ? AND e.name LIKE ? ESCAPE '\\'",
          params: ["x"],
        },
        "o",
      ).sql,
    ).toBe("o.kind = ? AND lower(replace(o.damage_dice, ' ', '')) = ? AND o.name LIKE ? ESCAPE '\\'");
  });
});
