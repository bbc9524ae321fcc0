/**
 * "Right for the table": casters by every spell they cast (reactions too), compare_editions
 * pairing by the rename table and listing candidates for a pattern, the SRD 5.1 class tables whole
 * after the default sync (the D&D 5e API's 2014 class levels), and a 2014 encounter proposing 2014
 * stat blocks. Each a repro of a question a DM asked, on real upstream records (test/fixtures/table-3) synced
 * through the fake upstream by the default plan into a real store and asked through an MCP client.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { join } from "node:path";
import { loadConfig } from "../../src/config.ts";
import { runSync, type SyncSource } from "../../src/ingest/sync.ts";
import { openStore, type Store } from "../../src/store/db.ts";
import { startFakeUpstream, type FakeUpstream } from "../support/fake-upstream.ts";
import { answerOf, connectInMemory, makeDeps } from "../support/mcp.ts";
import { makeTempDir } from "../support/tmp.ts";
import { pendingVectors } from "../../src/search/index/pending-vectors.ts";
import { countPendingVectors, setEmbeddingMeta } from "../../src/store/vectors.ts";
import { upstreamsAt } from "../../src/sources/index.ts";

let fake: FakeUpstream;
let tmp: ReturnType<typeof makeTempDir>;
let store: Store;
let client: Client;
let close: () => Promise<void>;

async function synced(path: string, sources?: SyncSource[]): Promise<Store> {
  const s = openStore({ path });
  const config = { ...loadConfig(), ...upstreamsAt(fake.url), httpRetries: 0 };
  // The default plan (no sources named), narrowed to what the fixtures hold.
  const r = await runSync(s, { config, ...(sources ? { sources } : {}), types: ["creatures", "classes"], force: true });
  expect(r.results.filter((x) => x.status === "failed").map((x) => `${x.contentType}: ${x.error}`)).toEqual([]);
  return s;
}

type Answer = Record<string, unknown> & { results: Array<Record<string, unknown>>; message?: string };
type Named = { name: string };
type DocRow = { key: string; source: string; entity_count: number; counts: Record<string, number> };

async function call(name: string, args: Record<string, unknown>) {
  const r = await client.callTool({ name, arguments: args });
  expect(r.isError).toBeFalsy();
  return answerOf(r) as unknown as Answer;
}

beforeAll(async () => {
  fake = await startFakeUpstream({ dataDir: join(import.meta.dir, "..", "fixtures", "table-3") });
  tmp = makeTempDir("lk-table3-");
  store = await synced(join(tmp.dir, "lk.db"));
  ({ client, close } = await connectInMemory(makeDeps(store)));
});

afterAll(async () => {
  await close();
  store.close();
  await fake.stop();
  tmp.cleanup();
});

describe("casters by every spell they cast", () => {
  test('casts "counterspell" in srd-2024 finds the Archmage, Lich and Mage (reaction: Protective Magic)', async () => {
    const a = await call("search_creature", { casts: "counterspell", documents: ["srd-2024"] });
    expect(a.results.map((r) => r.name).sort()).toEqual(["Archmage", "Lich", "Mage"]);
  });

  test("without documents: the preferred SRD 5.2 versions, and no note saying they do not match", async () => {
    const a = await call("search_creature", { casts: "counterspell" });
    const rows = a.results.filter((r) => ["Archmage", "Lich", "Mage"].includes(String(r.name)));
    expect(rows.length).toBe(3);
    for (const r of rows) {
      expect(String(r.uri)).toContain("srd-2024_");
      expect(r.edition_note).toBeUndefined();
    }
  });
});

describe("compare_editions pairs by the rename table, and lists candidates for a pattern", () => {
  test('"Goblin" is compared with the Goblin Warrior, as search_creature maps it', async () => {
    const a = await call("compare_editions", { name: "Goblin" });
    expect([(a.srd_2014 as Named).name, (a.srd_2024 as Named).name]).toEqual(["Goblin", "Goblin Warrior"]);
    const mapped = await call("search_creature", { name: "Goblin", documents: ["srd-2024"] });
    expect(mapped.results.map((r) => r.name)).toContain("Goblin Warrior");
    expect(mapped.message).toContain('is named "Goblin Warrior" in SRD 5.2');
  });

  test('"gob*" lists the goblins to choose from and compares nothing', async () => {
    const a = await call("compare_editions", { name: "gob*" });
    expect(a.srd_2014).toBeUndefined();
    const names = (a.candidates as Named[]).map((c) => c.name);
    expect(names).toEqual(["Goblin", "Goblin Boss", "Goblin Minion", "Goblin Warrior"]);
  });
});

type Level = {
  level: number;
  spell_slots?: number[];
  cantrips_known?: string;
  spells_known?: string;
  other?: Record<string, string>;
};
type Levels = { levels: Level[]; columns: string[]; note?: string };

describe("the SRD 5.1 class tables after the default sync", () => {
  const table = async (cls: string, docs = ["srd-2014"]) =>
    (await call("class_progression", { class: cls, documents: docs })) as unknown as Levels;
  const at = (t: Levels, level: number) => t.levels.find((l) => l.level === level)!;

  test("Rogue level 9: Sneak Attack 5d6", async () => {
    const t = await table("Rogue");
    expect(at(t, 9).other?.["Sneak Attack"]).toBe("5d6");
    expect(at(t, 1).other?.["Sneak Attack"]).toBe("1d6");
    expect(t.note).toBeUndefined();
  });

  test("by the Open5e v2 key, the SRD 5.1 Rogue answers with the whole table (its D&D 5e API copy's)", async () => {
    const t = (await call("class_progression", { class: "srd_rogue" })) as unknown as Levels;
    expect(at(t, 9).other?.["Sneak Attack"]).toBe("5d6");
  });

  test("Warlock level 5: 2 slots of 3rd level, 3 invocations known", async () => {
    const t = await table("Warlock");
    const l5 = at(t, 5);
    expect(l5.spell_slots).toEqual([0, 0, 2]);
    expect(l5.other?.["Spell Slots"]).toBe("2");
    expect(l5.other?.["Slot Level"]).toBe("3rd");
    expect(l5.other?.["Invocations Known"]).toBe("3");
    expect([l5.cantrips_known, l5.spells_known]).toEqual(["3", "6"]);
  });

  test("every SRD 5.1 class has its SRD table's columns (values from the SRD 5.1 class tables)", async () => {
    // [class, level, the SRD's value of each class column at that level]
    const srd: Array<[string, number, Record<string, string>]> = [
      ["Barbarian", 9, { Rages: "4", "Rage Damage": "+3" }],
      ["Monk", 5, { "Martial Arts": "1d6", "Ki Points": "5", "Unarmored Movement": "+10 ft." }],
      ["Sorcerer", 3, { "Sorcery Points": "3" }],
      ["Rogue", 20, { "Sneak Attack": "10d6" }],
      ["Warlock", 20, { "Spell Slots": "4", "Slot Level": "5th", "Invocations Known": "8" }],
    ];
    for (const [cls, level, want] of srd) expect(at(await table(cls), level).other).toMatchObject(want);
    const classes = ["Barbarian", "Bard", "Cleric", "Druid", "Fighter", "Monk", "Paladin", "Ranger", "Rogue"];
    for (const cls of [...classes, "Sorcerer", "Warlock", "Wizard"]) {
      const t = await table(cls);
      expect(t.note).toBeUndefined();
    }
    const bard = { cantrips_known: "3", spells_known: "8", spell_slots: [4, 3, 2] };
    expect(at(await table("Bard"), 5)).toMatchObject(bard);
    expect(at(await table("Ranger"), 5)).toMatchObject({ spells_known: "4", spell_slots: [4, 2] });
    expect(at(await table("Paladin"), 9).spell_slots).toEqual([4, 3, 2]);
  });

  test("a table synced without the class columns says which are missing and how to get them", async () => {
    const only = await synced(join(tmp.dir, "v2-only.db"), ["open5e_v2"]);
    const c = await connectInMemory(makeDeps(only));
    try {
      const args = { class: "Rogue", documents: ["srd-2014"] };
      const t = answerOf(await c.client.callTool({ name: "class_progression", arguments: args })) as unknown as Levels;
      expect(t.note).toContain("lacks the SRD's Sneak Attack column");
      expect(t.note).toContain("lorekeeper sync --source dnd5e_api --types 2014/classes");
    } finally {
      await c.close();
      only.close();
    }
  });
});

describe("build_encounter proposes the edition asked", () => {
  type Proposals = Array<{ monsters: Array<{ name: string; document_key: string }> }>;
  const party = { party_levels: [5, 5, 5, 5], type: "fiend", proposals: 5 };

  test("a 2014 fiend encounter proposes only SRD 5.1 stat blocks (not the SRD 5.2 Oni: a giant in 5.1)", async () => {
    const a = await call("build_encounter", { ...party, edition: "2014", difficulty: "hard" });
    const proposals = a.proposals as Proposals;
    expect(proposals.length).toBeGreaterThan(0);
    const docs = new Set(proposals.flatMap((p) => p.monsters.map((m) => m.document_key)));
    expect([...docs]).toEqual(["srd-2014"]);
    expect(JSON.stringify(proposals)).not.toContain("Oni");
    // The 2024 rules propose the 2024 Oni's edition only.
    const b = await call("build_encounter", { ...party, edition: "2024", difficulty: "high" });
    const docs24 = new Set((b.proposals as Proposals).flatMap((p) => p.monsters.map((m) => m.document_key)));
    expect([...docs24]).toEqual(["srd-2024"]);
  });
});

describe("first hour: one row per document, one count", () => {
  test("list_documents merges a document's sources into one row, as `lorekeeper documents` does", async () => {
    const a = await call("list_documents", {});
    const docs = a.documents as DocRow[];
    const srd = docs.filter((d) => d.key === "srd-2014");
    expect(srd.length).toBe(1);
    expect(srd[0]!.source).toBe("open5e_v2+dnd5e_api");
    // The SRD 5.1 Rogue and Warlock of both APIs are one entry each; the other ten classes come from
    // the D&D 5e API alone.
    expect(srd[0]!.counts.class).toBe(12);
  });

  test("after a v1 sync SRD 5.1 is still one row, its three sources named, the v1 Goblin counted once", async () => {
    const path = join(tmp.dir, "with-v1.db");
    const s = await synced(path);
    const config = { ...loadConfig(), ...upstreamsAt(fake.url), httpRetries: 0 };
    expect((await runSync(s, { config, sources: ["open5e_v1"], types: ["monsters"], force: true })).status).toBe("ok");
    const c = await connectInMemory(makeDeps(s));
    try {
      const listed = answerOf(await c.client.callTool({ name: "list_documents", arguments: {} }));
      const docs = (listed as unknown as { documents: DocRow[] }).documents;
      const srd = docs.filter((d) => d.key === "srd-2014");
      expect(srd.map((d) => d.source)).toEqual(["open5e_v2+dnd5e_api+open5e_v1"]);
      // The v1 Goblin is a copy of the v2 one: as many SRD 5.1 creatures as in the store without v1.
      const without = ((await call("list_documents", {})).documents as DocRow[]).find((d) => d.key === "srd-2014")!;
      expect(srd[0]!.counts.creature).toBe(without.counts.creature!);
    } finally {
      await c.close();
      s.close();
    }
  });

  test("documents, doctor's entries and the embedding's total are one number", async () => {
    const rowsListed = (await call("list_documents", { limit: 500 })).documents as DocRow[];
    const listed = rowsListed.reduce((n, d) => n + d.entity_count, 0);
    const rows = store.db.query<{ n: number }, []>("SELECT count(*) AS n FROM entities").get()!.n;
    expect(rows).toBeGreaterThan(listed); // the copies: the same SRD classes from two sources
    setEmbeddingMeta(store.db, { modelId: "test:none", dim: 4 });
    try {
      expect(pendingVectors(store.db)).toEqual({ modelId: "test:none", pending: listed, total: listed });
      expect(countPendingVectors(store.db, "test:none")).toBe(listed);
    } finally {
      store.db.exec("DELETE FROM meta WHERE key IN ('embedding_model_id', 'embedding_dim')");
    }
  });
});
