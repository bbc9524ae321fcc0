/**
 * Trait reference rows (entities/traits.ts): a trait several stat blocks share answers by name in
 * search_rule and search_all, with its text once and the creatures that have it. Built from real
 * stat blocks (test/fixtures/creature-blocks: Open5e v2 SRD 5.1 and 5.2 traits, trimmed), kept by
 * every write of creatures, back-filled for a store written before, asked through a real client.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { join } from "node:path";
import { summary } from "../../src/cli/commands/search.ts";
import { documentRank } from "../../src/entities/preference.ts";
import { TRAITS_ORIGIN, traitEntities, type TraitSourceRow } from "../../src/entities/traits.ts";
import type { Entity, JsonObject } from "../../src/entities/types.ts";
import { setRankPreference } from "../../src/store/canonical.ts";
import { openStore, type Store } from "../../src/store/db.ts";
import { deleteOrigin, refreshTraits, replaceOrigin } from "../../src/store/entities.ts";
import { makeEntity } from "../support/entities.ts";
import { answerOf, connectInMemory, makeDeps, namesOf } from "../support/mcp.ts";
import { makeTempDir } from "../support/tmp.ts";

const BLOCKS = (await Bun.file(
  join(import.meta.dir, "..", "fixtures", "creature-blocks", "open5e-v2.json"),
).json()) as Array<JsonObject & { key: string; name: string }>;

/** A fixture block as a stored SRD creature (its document from its key). */
function creature(b: JsonObject & { key: string; name: string }): Entity {
  const doc = b.key.startsWith("srd-2024_") ? "srd-2024" : "srd-2014";
  const e = makeEntity("creature", b.name, {}, { doc, key: b.key, text: "" });
  e.data = { ...e.data, traits: b.traits ?? [], actions: b.actions ?? [] };
  return e;
}
const CREATURES = BLOCKS.map(creature);
const rows = (es: readonly Entity[]): TraitSourceRow[] =>
  es.map((e) => ({
    key: e.key,
    name: e.name,
    document_key: e.document_key,
    document_name: e.document_name,
    document_source: e.document_source,
    source_url: e.source_url,
    data: e.data,
  }));
const byName = (es: readonly Entity[]) => new Map(es.map((e) => [e.name, e]));

describe("derived from stat blocks", () => {
  test(
    "one row per trait at least two creatures share, the " +
      "preferred SRD's wording, the creatures in preference order",
    () => {
      const traits = byName(traitEntities(rows(CREATURES), documentRank()));
      expect([...traits.keys()].sort()).toEqual([
        "Flyby",
        "Keen Hearing and Sight",
        "Keen Hearing and Smell",
        "Legendary Resistance",
        "Pack Tactics",
      ]);
      const pack = traits.get("Pack Tactics")!;
      expect(pack.kind).toBe("trait");
      expect(pack.key).toBe("pack-tactics");
      expect(pack.document_key).toBe("srd-2024");
      const wolf2024 = BLOCKS.find((b) => b.key === "srd-2024_wolf")!.traits as Array<{ name: string; desc: string }>;
      expect(pack.data.desc).toBe(wolf2024.find((t) => t.name === "Pack Tactics")!.desc);
      expect(pack.data.wording_from).toEqual({
        name: "Wolf",
        document_key: "srd-2024",
        uri: "lorekeeper://creature/srd-2024_wolf",
      });
      // Wolf (2014 and 2024) is one creature; then the SRD 5.1 ones by name.
      expect(pack.data.creatures).toEqual(["Wolf", "Jackal", "Kobold"]);
      expect(pack.data.creature_count).toBe(3);
      expect(pack.data.documents).toEqual(["srd-2024", "srd-2014"]);
      expect(pack.filters.also_documents).toEqual(["srd-2014"]);
      expect(pack.text.startsWith("Pack Tactics\nMonster trait. The wolf has Advantage")).toBe(true);
      // Usage notes are not part of the name: "Legendary Resistance (3/Day)" and "(4/Day, or 5/Day in Lair)" are one
      // trait.
      expect(traits.get("Legendary Resistance")!.data.creatures).toEqual(["Lich", "Vampire"]);
      // A trait one creature has (Sunlight Sensitivity, the Kobold) and spellcasting lists are not reference rows.
      expect([...traits.keys()].some((n) => /sunlight|spellcasting/i.test(n))).toBe(false);
    },
  );

  test("`lorekeeper search --type trait` rows say how many creatures and what it does", () => {
    const pack = byName(traitEntities(rows(CREATURES), documentRank())).get("Pack Tactics")!;
    expect(summary({ entity: { ...pack, id: 1 } }, 200)).toBe(`3 creatures: ${String(pack.data.desc)}`);
  });

  test("another document preference: another wording and order", () => {
    const pack = byName(traitEntities(rows(CREATURES), documentRank(["srd-2014"]))).get("Pack Tactics")!;
    expect(pack.document_key).toBe("srd-2014");
    expect(pack.data.wording_from).toEqual({
      name: "Jackal",
      document_key: "srd-2014",
      uri: "lorekeeper://creature/srd_jackal",
    });
    expect(pack.data.creatures).toEqual(["Jackal", "Kobold", "Wolf"]);
  });
});

describe("in the store, through a real client", () => {
  let tmp: ReturnType<typeof makeTempDir>;
  let path: string;
  let store: Store;
  let client: Client;
  let close: () => Promise<void>;
  const traitRows = (db: Database) =>
    db
      .query<{ id: number; name: string; document_key: string }, [string]>(
        "SELECT id, name, document_key FROM entities WHERE origin = ? ORDER BY name",
      )
      .all(TRAITS_ORIGIN);

  beforeAll(async () => {
    tmp = makeTempDir("lk-traits-");
    path = join(tmp.dir, "lk.db");
    store = openStore({ path });
    replaceOrigin(store.db, "open5e_v2:creatures", CREATURES);
    replaceOrigin(store.db, "open5e_v2:conditions", [
      makeEntity("condition", "Grappled", {}, { text: "A grappled creature's speed becomes 0." }),
    ]);
    ({ client, close } = await connectInMemory(makeDeps(store)));
  });
  afterAll(async () => {
    await close();
    store.close();
    tmp.cleanup();
  });

  test("search_rule by name: the trait's text once, the creatures with it, the call that lists them all", async () => {
    const r = answerOf(await client.callTool({ name: "search_rule", arguments: { name: "Pack Tactics" } }));
    expect(r.results).toHaveLength(1);
    const row = r.results[0]!;
    expect(row).toMatchObject({
      name: "Pack Tactics",
      kind: "trait",
      document_key: "srd-2024",
      uri: "lorekeeper://trait/pack-tactics",
    });
    expect(JSON.stringify(row)).toContain("if at least one of the wolf's allies is within 5 feet");
    expect(JSON.stringify(row)).toContain('"creature_count":3');
    expect(JSON.stringify(row)).toContain("Jackal");
    // The call it names lists them all.
    expect(
      namesOf(
        await client.callTool({ name: "search_creature", arguments: { trait: "pack tactics", all_versions: true } }),
      ).sort(),
    ).toEqual(["Jackal", "Kobold", "Wolf", "Wolf"]);
    // Compact too: a list of traits.
    const list = answerOf(await client.callTool({ name: "search_rule", arguments: { rule_type: "trait" } }));
    // The SRD 5.2's wording first (Flyby, Legendary Resistance, Pack Tactics), then SRD 5.1's.
    expect(list.results.map((x) => x.name)).toEqual([
      "Flyby",
      "Legendary Resistance",
      "Pack Tactics",
      "Keen Hearing and Sight",
      "Keen Hearing and Smell",
    ]);
    expect(list.results.find((x) => x.name === "Flyby")).toMatchObject({
      creature_count: 2,
      creatures: "Owl, Giant Owl",
    });
    // The resource reads it whole.
    const res = await client.readResource({ uri: "lorekeeper://trait/pack-tactics" });
    expect(JSON.stringify(res.contents)).toContain("wording_from");
  });

  test("search_all and a book's documents find it; a wildcard name too", async () => {
    const all = answerOf(await client.callTool({ name: "search_all", arguments: { query: "Flyby" } }));
    expect(all.results[0]).toMatchObject({ name: "Flyby", kind: "trait" });
    // A query that names no trait ranks everything else (a trait named like a spell would crowd it out).
    const other = answerOf(
      await client.callTool({
        name: "search_all",
        arguments: { query: "advantage on perception checks that rely on hearing" },
      }),
    );
    expect(other.results.some((x) => x.kind === "trait")).toBe(false);
    expect(
      answerOf(
        await client.callTool({
          name: "search_all",
          arguments: { query: "advantage on perception checks that rely on hearing", content_types: ["Trait"] },
        }),
      ).results[0]!.kind,
    ).toBe("trait");
    expect(
      namesOf(
        await client.callTool({ name: "search_rule", arguments: { name: "pack tactics", documents: ["srd-2014"] } }),
      ),
    ).toEqual(["Pack Tactics"]);
    expect(namesOf(await client.callTool({ name: "search_rule", arguments: { name: "keen*" } }))).toEqual([
      "Keen Hearing and Sight",
      "Keen Hearing and Smell",
    ]);
  });

  test("search_rule's `search` ranks traits when it names one; other rule questions rank the rules alone", async () => {
    const named = answerOf(
      await client.callTool({ name: "search_rule", arguments: { search: "what does Pack Tactics do?" } }),
    );
    expect(named.results[0]).toMatchObject({ name: "Pack Tactics", kind: "trait" });
    // "advantage on Wisdom (Perception) checks" is in two traits' text, but the question names no trait.
    const other = answerOf(
      await client.callTool({
        name: "search_rule",
        arguments: { search: "advantage on perception checks that rely on hearing" },
      }),
    );
    expect(other.results.some((x) => x.kind === "trait")).toBe(false);
    expect(
      answerOf(
        await client.callTool({
          name: "search_rule",
          arguments: { search: "advantage on perception checks that rely on hearing", rule_type: "trait" },
        }),
      ).results[0]!.kind,
    ).toBe("trait");
  });

  test("kept by writes: a trait fewer than two creatures share goes, unchanged rows keep their id", async () => {
    const before = traitRows(store.db);
    const flyby = before.find((t) => t.name === "Flyby")!;
    const pack = before.find((t) => t.name === "Pack Tactics")!;
    // The owls go: Flyby and Keen Hearing and Sight lose their creatures.
    replaceOrigin(
      store.db,
      "open5e_v2:creatures",
      CREATURES.filter((c) => !/owl/i.test(c.name)),
    );
    const after = traitRows(store.db);
    expect(after.map((t) => t.name)).toEqual(["Keen Hearing and Smell", "Legendary Resistance", "Pack Tactics"]);
    expect(after.find((t) => t.name === "Pack Tactics")!.id).toBe(pack.id);
    expect(after.some((t) => t.id === flyby.id)).toBe(false);
    // Every creature gone: no trait rows.
    deleteOrigin(store.db, "open5e_v2:creatures");
    expect(traitRows(store.db)).toEqual([]);
    replaceOrigin(store.db, "open5e_v2:creatures", CREATURES);
    expect(traitRows(store.db).map((t) => t.name)).toContain("Flyby");
  });

  test("a preference change quotes the new first document; a store written before gets the rows when it opens", () => {
    setRankPreference(store.db, ["srd-2014"]);
    refreshTraits(store.db);
    expect(traitRows(store.db).find((t) => t.name === "Pack Tactics")!.document_key).toBe("srd-2014");
    setRankPreference(store.db, []);
    refreshTraits(store.db);
    // Back to schema 8 without trait rows: opening it derives them again.
    store.db.query("DELETE FROM entities WHERE origin = ?").run(TRAITS_ORIGIN);
    store.db.query("UPDATE meta SET value = '8' WHERE key = 'schema_version'").run();
    const again = openStore({ path });
    try {
      expect(traitRows(again.db).map((t) => t.name)).toEqual([
        "Flyby",
        "Keen Hearing and Sight",
        "Keen Hearing and Smell",
        "Legendary Resistance",
        "Pack Tactics",
      ]);
      expect(traitRows(again.db).find((t) => t.name === "Pack Tactics")!.document_key).toBe("srd-2024");
    } finally {
      again.close();
    }
  });
});
