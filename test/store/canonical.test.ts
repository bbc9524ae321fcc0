/**
 * Canonical-ness as a stored fact (store/canonical.ts): `group_rank` follows the document
 * preference, is kept by every write and by a change of preference, is back-filled by migration 5,
 * and collapsed answers read from it are the answers the per-call GROUP BY gives.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import type { Entity, EntityFilters, EntityKind } from "../../src/entities/types.ts";
import { runSearch } from "../../src/search/hybrid.ts";
import { overAlias } from "../../src/search/rank/page.ts";
import type { StructuredFilters } from "../../src/search/types.ts";
import { rankPreference, RANK_PREFERENCE_KEY, setRankPreference } from "../../src/store/canonical.ts";
import { openStore, type Store } from "../../src/store/db.ts";
import { deleteOrigin, replaceOrigin } from "../../src/store/entities.ts";
import { SCHEMA_VERSION } from "../../src/store/schema.ts";
import { makeEntity, undoMigration5 } from "../support/entities.ts";
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
  for (const r of db.query<{ k: string; g: number | null }, []>("SELECT document_source || ':' || key AS k, group_rank AS g FROM entities ORDER BY id").all()) out[r.k] = r.g;
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
  replaceOrigin(db, "open5e_v1:spells", [spell("Fireball", "srd-2014", { level: 3, school: "evocation" }, "open5e_v1", "fireball")]);
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
  });

  test("writes keep it: a version removed by a sync or an import moves the next one up", () => {
    const { store } = tempStore();
    fill(store.db);
    replaceOrigin(store.db, "open5e_v2:spells", [spell("Fireball", "srd-2014", { level: 3 }), spell("fireball", "tob", { level: 4 })]);
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
    expect(again.db.query<{ value: string }, []>("SELECT value FROM meta WHERE key = 'schema_version'").get()?.value).toBe(String(SCHEMA_VERSION));
    expect(again.db.query<{ value: string }, [string]>("SELECT value FROM meta WHERE key = ?").get(RANK_PREFERENCE_KEY)?.value).toBe("");
    expect(ranks(again.db)["open5e_v2:srd-2024_fireball"]).toBe(0);
    expect(ranks(again.db)["orcbrew:homebrew-pack_fireball"]).toBe(3);
    expect(ranks(again.db)["open5e_v1:fireball"]).toBeNull();
  });
});

describe("collapsed answers from the stored ranks", () => {
  test("the same pages and totals as grouping per call, including a version only it matches", async () => {
    const { store } = tempStore();
    fill(store.db);
    // More names, so that pages and offsets matter.
    const more: Entity[] = [];
    for (let i = 0; i < 12; i++) {
      more.push(spell(`Bolt ${i}`, "srd-2024", { level: i % 4, school: "evocation" }));
      if (i % 3 === 0) more.push(spell(`Bolt ${i}`, "tob", { level: (i + 1) % 4, school: "evocation", ritual: i % 2 === 0 }));
    }
    replaceOrigin(store.db, "open5e_v2:more", more);
    const ctx = { store, embedder: unavailableProvider(), embeddingTimeoutMs: 100 };
    const shapes: StructuredFilters[] = [{}, { level: 3 }, { level: 4 }, { level: 2, school: "abjuration" }, { ritual: true }, { level_min: 1, level_max: 3 }, { school: "evocation" }];
    const answer = async (filters: StructuredFilters, offset: number, limit: number) => {
      const r = await runSearch(ctx, { kinds: ["spell" as EntityKind], filters, offset, limit, collapse: true });
      return { total: r.total, hits: r.hits.map((h) => `${h.entity.document_key}:${h.entity.name}+${(h.others ?? []).map((o) => o.document_key).join(",")}`) };
    };
    const stored: unknown[] = [];
    for (const f of shapes) for (const [offset, limit] of [[0, 3], [2, 4], [0, 50]] as const) stored.push(await answer(f, offset, limit));
    // The tob-only variant: level 4 matches only tob's Fireball, which then answers for Fireball.
    expect((stored[6] as { hits: string[] }).hits).toEqual(["tob:fireball+"]);
    // Now make the stored ranks follow another preference: these queries must group per call.
    store.db.query("UPDATE meta SET value = 'elsewhere' WHERE key = ?").run(RANK_PREFERENCE_KEY);
    expect(rankPreference(store.db)).toBe("elsewhere");
    const grouped: unknown[] = [];
    for (const f of shapes) for (const [offset, limit] of [[0, 3], [2, 4], [0, 50]] as const) grouped.push(await answer(f, offset, limit));
    expect(stored).toEqual(grouped);
  });

  test("filter clauses move to another alias of entities, strings and values untouched", () => {
    expect(overAlias({ sql: "e.kind = ? AND lower(replace(e.damage_dice, ' ', '')) = ? AND e.name LIKE ? ESCAPE '\\'", params: ["x"] }, "o").sql).toBe(
      "o.kind = ? AND lower(replace(o.damage_dice, ' ', '')) = ? AND o.name LIKE ? ESCAPE '\\'",
    );
  });
});
