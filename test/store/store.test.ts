import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Entity } from "../../src/entities/types.ts";
import { openStore, type Store } from "../../src/store/db.ts";
import { listDocuments } from "../../src/store/documents.ts";
import { countByKind, getEntityByKey, replaceOrigin } from "../../src/store/entities.ts";
import { makeTempDir } from "../support/tmp.ts";

function spell(key: string, name: string, level: number, extra: Partial<Entity> = {}): Entity {
  return {
    kind: "spell",
    key,
    name,
    document_key: "srd-2014",
    document_name: "System Reference Document 5.1",
    document_source: "open5e_v2",
    source_url: `http://x/v2/spells/${key}/`,
    text: `${name}. A level ${level} spell.`,
    filters: { level, school: "evocation", classes: ["Wizard", "sorcerer"], concentration: false },
    data: { level },
    ...extra,
  };
}

describe("store", () => {
  let tmp: ReturnType<typeof makeTempDir>;
  let store: Store;
  beforeEach(() => {
    tmp = makeTempDir();
    store = openStore({ path: join(tmp.dir, "lk.db") });
  });
  afterEach(() => {
    store.close();
    tmp.cleanup();
  });

  test("replaceOrigin inserts, keeps unchanged ids, updates and deletes", () => {
    const r1 = replaceOrigin(store.db, "open5e_v2:spells", [spell("a", "Fireball", 3), spell("b", "Shield", 1)]);
    expect(r1).toEqual({ inserted: 2, updated: 0, unchanged: 0, deleted: 0 });
    const idA = getEntityByKey(store.db, "spell", "a")!.id;
    const r2 = replaceOrigin(store.db, "open5e_v2:spells", [spell("a", "Fireball", 3), spell("c", "Light", 0)]);
    expect(r2).toEqual({ inserted: 1, updated: 0, unchanged: 1, deleted: 1 });
    expect(getEntityByKey(store.db, "spell", "a")!.id).toBe(idA);
    expect(getEntityByKey(store.db, "spell", "b")).toBeUndefined();
    const r3 = replaceOrigin(store.db, "open5e_v2:spells", [spell("a", "Fireball", 4), spell("c", "Light", 0)]);
    expect(r3.updated).toBe(1);
    const a = getEntityByKey(store.db, "spell", "a")!;
    expect(a.filters.level).toBe(4);
    expect(a.filters.classes).toEqual(["wizard", "sorcerer"]);
    expect(a.filters.concentration).toBe(false);
    expect(countByKind(store.db)).toEqual({ spell: 2 });
  });

  test("fts follows inserts, updates and deletes", () => {
    replaceOrigin(store.db, "o", [spell("a", "Fireball", 3)]);
    const q = () => store.db.query("SELECT rowid FROM entities_fts WHERE entities_fts MATCH 'fireball'").all().length;
    expect(q()).toBe(1);
    replaceOrigin(store.db, "o", [spell("a", "Flame Ball", 3, { text: "Flame Ball." })]);
    expect(q()).toBe(0);
    replaceOrigin(store.db, "o", []);
    expect(store.db.query("SELECT count(*) AS n FROM entities_fts").get()).toEqual({ n: 0 });
  });

  test("listDocuments counts per kind, sorted by entity_count", () => {
    replaceOrigin(
      store.db,
      "o",
      [spell("a", "A", 1), spell("b", "B", 1), spell("c", "C", 1, { document_key: "tob", document_name: "Tome" })],
      [{ key: "srd-2014", name: "SRD 5.1", source: "open5e_v2", publisher: "WotC", license: "CC-BY-4.0" }],
    );
    const docs = listDocuments(store.db);
    expect(docs.map((d) => [d.key, d.entity_count])).toEqual([
      ["srd-2014", 2],
      ["tob", 1],
    ]);
    expect(docs[0]!.publisher).toBe("WotC");
    expect(docs[0]!.counts).toEqual({ spell: 2 });
    expect(listDocuments(store.db, "orcbrew")).toEqual([]);
  });
});

describe("migrations", () => {
  test("versions rise by one from 1 (a store records the last it ran: a duplicate would skip the second)", async () => {
    const { MIGRATIONS, SCHEMA_VERSION } = await import("../../src/store/schema.ts");
    expect(MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
    expect(SCHEMA_VERSION).toBe(MIGRATIONS.length);
  });
});
