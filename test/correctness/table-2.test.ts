/**
 * "Right for the table": spell components read from their text, spell class lists and
 * creature environments corrected as data, Tome of Beasts 2023's "False" descriptions, the
 * server's document preference in every tool (and a fallback to another book said). Each repro
 * from a DM's questions, on real upstream records (test/fixtures/table-2) synced through the
 * fake upstream (Open5e v2 and v1) into a real store and asked through the real MCP tools.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { join } from "node:path";
import { loadConfig } from "../../src/config.ts";
import { runSync } from "../../src/ingest/sync.ts";
import { runSearch } from "../../src/search/hybrid.ts";
import { openStore, type Store } from "../../src/store/db.ts";
import { startFakeUpstream, type FakeUpstream } from "../support/fake-upstream.ts";
import { answerOf, connectInMemory, makeDeps, noModel } from "../support/mcp.ts";
import { makeTempDir } from "../support/tmp.ts";
import { upstreamsAt } from "../../src/sources/index.ts";

let fake: FakeUpstream;
let tmp: ReturnType<typeof makeTempDir>;
let store: Store;
let client: Client;
let close: () => Promise<void>;

async function sync(sources: Array<"open5e_v2" | "open5e_v1">, types: string[]): Promise<void> {
  const config = { ...loadConfig(), ...upstreamsAt(fake.url), httpRetries: 0 };
  const r = await runSync(store, { config, sources, types, force: true });
  expect(r.results.filter((x) => x.status === "failed").map((x) => `${x.contentType}: ${x.error}`)).toEqual([]);
}

async function call(name: string, args: Record<string, unknown>) {
  const r = await client.callTool({ name, arguments: args });
  expect(r.isError).toBeFalsy();
  return answerOf(r);
}

async function full(uri: string): Promise<Record<string, unknown>> {
  const r = await client.readResource({ uri });
  return JSON.parse(String((r.contents[0] as { text: string }).text)) as Record<string, unknown>;
}

/** The key in a row's address (compact rows carry `uri`, not `key`). */
const keyOf = (uri: unknown) => String(uri).replace(/^lorekeeper:\/\/[a-z_]+\//, "");

async function dataOf(uri: string): Promise<Record<string, unknown>> {
  const e = await full(uri);
  return (e.data ?? e) as Record<string, unknown>;
}

beforeAll(async () => {
  fake = await startFakeUpstream({ dataDir: join(import.meta.dir, "..", "fixtures", "table-2") });
  tmp = makeTempDir("lk-table2-");
  store = openStore({ path: join(tmp.dir, "lk.db") });
  await sync(["open5e_v2"], ["spells", "creatures", "classes"]);
  await sync(["open5e_v1"], ["spells", "monsters"]);
  const ctx = { store, embedder: noModel(), embeddingTimeoutMs: 2000 };
  ({ client, close } = await connectInMemory(
    makeDeps(store, { search: (q) => runSearch(ctx, { ...q, omitText: true }) }),
  ));
});

afterAll(async () => {
  await close();
  store.close();
  await fake.stop();
  tmp.cleanup();
});

describe("spell components are read from the material text", () => {
  test('SRD 5.2 "worth N+ GP" is a costly material (it found 0 of 339)', async () => {
    const a = await call("search_spell", { component: ["costly material"], documents: ["srd-2024"], limit: 50 });
    expect(a.results.map((r) => keyOf(r.uri)).sort()).toEqual([
      "srd-2024_bless",
      "srd-2024_chromatic-orb",
      "srd-2024_identify",
      "srd-2024_revivify",
      "srd-2024_stoneskin",
    ]);
    const revivify = await dataOf("lorekeeper://spell/srd-2024_revivify");
    expect((revivify.components as Record<string, unknown>).material_cost).toBe("300 gp");
  });

  test("consumed material is what the text says the spell consumes, not upstream's flag", async () => {
    const a = await call("search_spell", {
      component: ["consumed material"],
      level_max: 5,
      all_versions: true,
      limit: 50,
    });
    const keys = a.results.map((r) => keyOf(r.uri)).sort();
    // Bless, Chromatic Orb and Identify (flagged consumed upstream) only cost; Lair Sense says "not consumed".
    expect(keys).toEqual(["srd-2024_revivify", "srd-2024_stoneskin", "srd_revivify"]);
    for (const k of [
      "srd-2024_bless",
      "srd-2024_chromatic-orb",
      "srd-2024_identify",
      "deepm_lair-sense",
      "srd_identify",
    ])
      expect(keys).not.toContain(k);
  });

  test('the 2014 Revivify ("which the spell consumes") is consumed, and says what upstream had', async () => {
    const d = await dataOf("lorekeeper://spell/srd_revivify");
    expect((d.components as Record<string, unknown>).material_consumed).toBe(true);
    expect(String((d.upstream_notes as string[])[0])).toContain("marks the material not consumed");
    const bless = await dataOf("lorekeeper://spell/srd-2024_bless");
    expect((bless.components as Record<string, unknown>).material_consumed).toBe(false);
    expect(String((bless.upstream_notes as string[])[0])).toContain("does not say the spell consumes it");
  });
});

describe("SRD 5.1 spell class lists", () => {
  test("the 2014 Identify and Speak with Animals are not cleric spells (a domain's, not the class list)", async () => {
    const clerics = await call("search_spell", {
      class_key: "cleric",
      documents: ["srd-2014"],
      all_versions: true,
      limit: 50,
    });
    const names = clerics.results.map((r) => r.name);
    expect(names).not.toContain("Identify");
    expect(names).not.toContain("Speak with Animals");
    expect(names).toContain("Revivify");
    const identify = await dataOf("lorekeeper://spell/srd_identify");
    expect(identify.classes).toEqual(["bard", "wizard"]);
    expect(String((identify.upstream_notes as string[])[0])).toContain("adds Cleric");
    const v1 = await dataOf("lorekeeper://spell/open5e_v1:identify");
    expect(v1.classes).toEqual(["bard", "wizard"]);
  });

  test("the paladin, which Open5e v2 leaves out of SRD 5.1, has its spells", async () => {
    const aid = await dataOf("lorekeeper://spell/srd_aid");
    expect(aid.classes).toContain("paladin");
    expect(String((aid.upstream_notes as string[])[0])).toContain("omits Paladin");
  });
});

describe("creature environments and descriptions", () => {
  test("a Quasit listed in every environment is not a forest creature; the note says so", async () => {
    const q = await dataOf("lorekeeper://creature/srd_quasit");
    expect(q.environments).toEqual(["The Abyss"]);
    expect(String((q.upstream_notes as string[])[0])).toContain("all 31 of its environments");
    const ala = await dataOf("lorekeeper://creature/tob_ala");
    expect(ala.environments).toEqual([]);
    const goblin = await dataOf("lorekeeper://creature/srd_goblin");
    expect(goblin.environments).toContain("Forest or Jungle");
    expect(goblin.upstream_notes).toBeUndefined();
  });

  test("build_encounter in a forest proposes no Quasit", async () => {
    const r = await client.callTool({
      name: "build_encounter",
      arguments: { party_levels: [3, 3, 4, 5], difficulty: "moderate", environment: "forest" },
    });
    expect(r.isError).toBeFalsy();
    const text = JSON.stringify(r.structuredContent);
    expect((r.structuredContent as { proposals: unknown[] }).proposals.length).toBeGreaterThan(0);
    expect(text).not.toContain("Quasit");
  });

  test('Tome of Beasts 2023 creatures do not say "summary": "False"', async () => {
    const a = await call("search_creature", { name: "Ala", documents: ["tob-2023"] });
    expect(a.results.length).toBe(1);
    expect(String(a.results[0]!.summary ?? "")).not.toBe("False");
    const d = await dataOf("lorekeeper://creature/open5e_v1:ala-tob1-2023");
    expect(d.desc).toBeNull();
    expect(String((d.upstream_notes as string[])[0])).toContain('"False"');
  });
});

describe("the server's document preference governs every tool, and a fallback is said", () => {
  /** A second client on the same store with the server's preference set (LOREKEEPER_PREFER_DOCUMENTS=srd-2014). */
  async function with2014<T>(fn: (c: Client) => Promise<T>): Promise<T> {
    const ctx = { store, embedder: noModel(), embeddingTimeoutMs: 2000 };
    const conn = await connectInMemory(
      makeDeps(store, { preferDocuments: ["srd-2014"], search: (q) => runSearch(ctx, { ...q, omitText: true }) }),
    );
    try {
      return await fn(conn.client);
    } finally {
      await conn.close();
    }
  }

  test("class_progression answers the preferred edition's Wizard", async () => {
    type Levels = { class: { document_key: string; uri: string }; note?: string };
    const byDefault = (
      await client.callTool({ name: "class_progression", arguments: { class: "Wizard", level_max: 2 } })
    ).structuredContent as Levels;
    expect(byDefault.class.document_key).toBe("srd-2024");
    const old = await with2014(
      async (c) =>
        (await c.callTool({ name: "class_progression", arguments: { class: "Wizard", level_max: 2 } }))
          .structuredContent as Levels,
    );
    expect(old.class.document_key).toBe("srd-2014");
    expect(old.class.uri).toBe("lorekeeper://class/srd_wizard");
    expect(old.note ?? "").not.toContain("From ");
  });

  test("a 2024 list that shows the 2014 Sending (evocation then, divination now) says so", async () => {
    const a = await call("search_spell", { level: 3, school: "evocation" });
    const sending = a.results.find((r) => r.name === "Sending")!;
    expect(sending.document_key).toBe("srd-2014");
    expect(String(sending.edition_note)).toContain("the preferred srd-2024 Sending does not match");
    // Asked for srd-2014 explicitly: no note.
    const asked = await call("search_spell", { level: 3, school: "evocation", documents: ["srd-2014"] });
    expect(asked.results.find((r) => r.name === "Sending")!.edition_note).toBeUndefined();
  });

  test(
    "2024 encounter proposals use 2024 stat blocks (the " + "environment from any version) and name any other book",
    async () => {
      const r = await client.callTool({
        name: "build_encounter",
        arguments: { party_levels: [3, 3, 4, 5], difficulty: "moderate", environment: "forest", proposals: 5 },
      });
      const a = r.structuredContent as {
        proposals: Array<{ monsters: Array<{ name: string; document_key: string }> }>;
        message: string;
      };
      const used = a.proposals.flatMap((p) => p.monsters);
      expect(used.filter((m) => m.name === "Owlbear").every((m) => m.document_key === "srd-2024")).toBe(true);
      expect(used.some((m) => m.name === "Owlbear")).toBe(true);
      // The fixture has no 2024 Lizardfolk: the 2014 one is used, and the answer says so.
      expect(used.filter((m) => m.document_key !== "srd-2024").map((m) => m.name)).toEqual(["Lizardfolk"]);
      expect(a.message).toContain(
        "Not from srd-2024 (it has no version that fits these filters): Lizardfolk (srd-2014).",
      );
      // With the 2014 preference the rules and the stat blocks are 2014's.
      const old = await with2014(
        async (c) =>
          (
            await c.callTool({
              name: "build_encounter",
              arguments: { party_levels: [3, 3, 4, 5], difficulty: "medium", environment: "forest" },
            })
          ).structuredContent as { edition: string; proposals: Array<{ monsters: Array<{ document_key: string }> }> },
      );
      expect(old.edition).toBe("2014");
      expect(old.proposals.flatMap((p) => p.monsters).every((m) => m.document_key === "srd-2014")).toBe(true);
    },
  );
});

describe("what a table asks for", () => {
  test('search_creature has an environment filter: "undead CR 3–5 for a swamp"', async () => {
    const a = await call("search_creature", { type: "undead", cr_min: 3, cr_max: 5, environment: "swamp" });
    // The 2024 Wight lists no environment; its SRD 5.1 namesake lives in swamps: the preferred row, no fallback.
    expect(a.results.map((r) => [r.name, r.document_key, r.edition_note])).toEqual([["Wight", "srd-2024", undefined]]);
    const every = await call("search_creature", { environment: "Swamp", all_versions: true, limit: 50 });
    expect(every.results.map((r) => keyOf(r.uri)).sort()).toEqual([
      "srd-2024_ghoul",
      "srd-2024_ogre",
      "srd-2024_wight",
      "srd_ghoul",
      "srd_goblin",
      "srd_lizardfolk",
      "srd_ogre",
      "srd_wight",
    ]);
    const none = await call("search_creature", { environment: "volcano" });
    expect(none.results).toEqual([]);
  });

  test("`documents` is described in the six search tools and the instructions name srd-2014 / srd-2024", async () => {
    const { tools } = await client.listTools();
    for (const name of [
      "search_spell",
      "search_creature",
      "search_character_option",
      "search_equipment",
      "search_rule",
      "search_all",
    ]) {
      const docs = (
        tools.find((t) => t.name === name)!.inputSchema.properties as Record<string, { description?: string }>
      ).documents!;
      expect(`${name}: ${docs.description}`).toMatch(/srd-2014\W+SRD 5\.1\b.*srd-2024\W+SRD 5\.2\b/);
    }
    const instructions = client.getInstructions() ?? "";
    expect(instructions).toContain("srd-2014 is SRD 5.1");
    expect(instructions).toContain("srd-2024 is SRD 5.2");
  });

  test('build_encounter says "did you mean" for a misspelled monster', async () => {
    const r = await client.callTool({
      name: "build_encounter",
      arguments: { party_levels: [3, 3, 4, 5], monsters: [{ name: "Goblin Warior", count: 4 }] },
    });
    expect(r.isError).toBe(true);
    expect(String((r.content as Array<{ text: string }>)[0]!.text)).toContain(
      '"Goblin Warior" (did you mean "Goblin Warrior"?)',
    );
  });
});
