/**
 * "Right for the table": each defect pinned with real upstream records
 * (test/fixtures/correctness), synced through the fake upstream into a real store and asked through
 * the real MCP tools and resources.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { join } from "node:path";
import { loadConfig } from "../../src/config.ts";
import { runSync } from "../../src/ingest/sync.ts";
import { runSearch } from "../../src/search/hybrid.ts";
import { openStore, type Store } from "../../src/store/db.ts";
import { startFakeUpstream, type FakeUpstream } from "../support/fake-upstream.ts";
import { fidelityLines, runFidelity } from "../../scripts/eval-fidelity.ts";
import { answerOf, connectInMemory, makeDeps, noModel } from "../support/mcp.ts";
import { makeTempDir } from "../support/tmp.ts";
import { upstreamsAt } from "../../src/sources/index.ts";

let fake: FakeUpstream;
let tmp: ReturnType<typeof makeTempDir>;
let store: Store;
let client: Client;
let close: () => Promise<void>;

const V2_TYPES = ["conditions", "items", "magicitems", "spells", "creatures", "classes", "rulesets"];

async function sync(sources: Array<"open5e_v2" | "open5e_v1" | "dnd5e_api">, types: string[]): Promise<void> {
  const config = { ...loadConfig(), ...upstreamsAt(fake.url), httpRetries: 0 };
  const r = await runSync(store, { config, sources, types, force: true });
  expect(r.results.filter((x) => x.status === "failed").map((x) => `${x.contentType}: ${x.error}`)).toEqual([]);
}

/** Full rows, every document's version its own row (the tools' defaults are compact and collapsed). */
async function call(name: string, args: Record<string, unknown>) {
  const r = await client.callTool({ name, arguments: { detail: "full", all_versions: true, ...args } });
  expect(r.isError).toBeFalsy();
  return answerOf(r);
}

async function read(uri: string): Promise<Record<string, unknown>> {
  const r = await client.readResource({ uri });
  return JSON.parse(String((r.contents[0] as { text: string }).text)) as Record<string, unknown>;
}

beforeAll(async () => {
  fake = await startFakeUpstream({ dataDir: join(import.meta.dir, "..", "fixtures", "correctness") });
  tmp = makeTempDir("lk-correct-");
  store = openStore({ path: join(tmp.dir, "lk.db") });
  await sync(["open5e_v2"], V2_TYPES);
  const ctx = { store, embedder: noModel(), embeddingTimeoutMs: 2000 };
  // As the server runs them: tool answers are compact (omitText).
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

describe("edition-correct text", () => {
  test("Grappled asked for in srd-2024 quotes the 2024 condition and says so", async () => {
    const a = await call("search_rule", { name: "Grappled", documents: ["srd-2024"] });
    expect(a.results.length).toBe(1);
    const r = a.results[0]!;
    expect(r.desc_document).toBe("srd-2024");
    expect(String(r.desc)).toContain("Speed 0"); // SRD 5.2 wording
    expect(String(r.desc)).not.toContain("speed becomes 0"); // SRD 5.1 wording
    expect(r.descriptions).toBeUndefined();
    expect(r.other_wordings).toEqual(expect.arrayContaining(["srd-2014"]));
  });

  test("srd-2014 quotes the 2014 wording; no filter prefers the newest SRD", async () => {
    const old = (await call("search_rule", { name: "Grappled", documents: ["srd-5.1"] })).results[0]!;
    expect(old.desc_document).toBe("srd-2014");
    expect(String(old.desc)).toContain("speed becomes 0");
    const any = (await call("search_rule", { name: "Grappled" })).results[0]!;
    expect(any.desc_document).toBe("srd-2024");
  });
});

describe("faithful fields", () => {
  test(
    "the heavy crossbow is ranged, ammunition 100/400, " + "Heavy, Loading, Two-Handed, and says what was corrected",
    async () => {
      const a = await call("search_equipment", { name: "crossbow-heavy" });
      const w = a.results.find((r) => r.key === "srd_crossbow-heavy")!;
      expect(w.range_type).toBe("ranged");
      expect([w.range, w.long_range]).toEqual([100, 400]);
      const props = (w.properties as Array<{ name: string; detail: string | null }>).map((p) => p.name).sort();
      expect(props).toEqual(["Ammunition", "Heavy", "Loading", "Two-Handed"]);
      expect(
        (w.properties as Array<{ name: string; detail: string | null }>).find((p) => p.name === "Ammunition")!.detail,
      ).toContain("100/400");
      expect(String((w.upstream_notes as string[])[0])).toContain("Open5e v2 omits Ammunition, Heavy");
      const martialMelee = await call("search_equipment", { type: "weapon", category: "martial melee" });
      expect(martialMelee.results.map((r) => r.key)).not.toContain("srd_crossbow-heavy");
    },
  );

  test('"0.00" material cost is not a costly component; a price in the material text is', async () => {
    const costly = await call("search_spell", { component: "costly material" });
    expect(costly.results.map((r) => r.key)).toEqual(["srd_revivify"]);
  });
});

describe("the fidelity check (bun run eval) on the fixture's raw records", () => {
  test("every field matches the raw record or is an explained upstream error; filter counts match", () => {
    const r = runFidelity(store.db, join(import.meta.dir, "..", "fixtures", "correctness"));
    expect(r.checked).toEqual({ weapon: 4, armor: 0, spell: 4, creature: 3 });
    expect(r.mismatches.map((m) => `${m.key} ${m.field} ${m.explained ? "explained" : "UNEXPLAINED"}`).sort()).toEqual([
      "srd_crossbow-heavy properties explained",
      "srd_crossbow-heavy range_type explained",
      "srd_handaxe properties explained",
      "srd_revivify components.consumed explained",
      "srd_revivify components.costly explained",
    ]);
    expect(r.counts.find((c) => c.filter === "property" && c.value === "heavy")).toMatchObject({ sql: 1, raw: 0 });
    expect(r.counts.find((c) => c.filter === "speed" && c.value === "fly")).toMatchObject({ sql: 2, raw: 2 });
    expect(r.sources.checked).toEqual({ "open5e_v1 spell": 1 });
    expect(fidelityLines(r).unexplained).toBe(0);
  });
});

describe("new filters", () => {
  test("weapons by property", async () => {
    const names = async (args: Record<string, unknown>) =>
      (await call("search_equipment", { type: "weapon", ...args })).results.map((r) => r.key).sort();
    expect(await names({ property: "finesse" })).toEqual(["srd_dagger"]);
    expect(await names({ property: "thrown" })).toEqual(["srd_dagger", "srd_handaxe"]);
    expect(await names({ property: ["two-handed", "loading"] })).toEqual(["srd_crossbow-heavy"]);
    expect(await names({ property: "versatile" })).toEqual(["srd_longsword"]);
    const bad = await client.callTool({ name: "search_equipment", arguments: { property: "pointy" } });
    expect(bad.isError).toBe(true);
  });

  test("with the new parameters, a misspelled one is still named first when many are wrong", async () => {
    const args = {
      speeed: "fly",
      speed: 1,
      sense: 2,
      damage_immunity: 3,
      damage_resistance: 4,
      condition_immunity: 5,
      legendary: 6,
      cr: "x",
      cr_min: "y",
      cr_max: "z",
      type: 7,
      size: 8,
      limit: "n",
    };
    const r = await client.callTool({ name: "search_creature", arguments: args });
    expect(r.isError).toBe(true);
    const text = String((r.content as Array<{ text: string }>)[0]!.text);
    expect(text.split("\n")[1]).toContain('unknown parameter "speeed"');
  });

  test("creatures by speed, sense, immunity, resistance, legendary", async () => {
    const keys = async (args: Record<string, unknown>) =>
      (await call("search_creature", args)).results.map((r) => r.key).sort();
    expect(await keys({ speed: "fly" })).toEqual(["srd_adult-red-dragon", "srd_wraith"]);
    expect(await keys({ speed: ["climb", "fly"] })).toEqual(["srd_adult-red-dragon"]);
    expect(await keys({ speed: "hover" })).toEqual(["srd_wraith"]);
    expect(await keys({ speed: "swim" })).toEqual([]);
    expect(await keys({ sense: "blindsight" })).toEqual(["srd_adult-red-dragon"]);
    expect(await keys({ sense: "darkvision" })).toEqual(["srd_adult-red-dragon", "srd_goblin", "srd_wraith"]);
    expect(await keys({ damage_immunity: "fire" })).toEqual(["srd_adult-red-dragon"]);
    expect(await keys({ damage_immunity: "poison" })).toEqual(["srd_wraith"]);
    expect(await keys({ damage_resistance: "piercing" })).toEqual(["srd_wraith"]);
    expect(await keys({ condition_immunity: "exhaustion" })).toEqual(["srd_wraith"]);
    expect(await keys({ legendary: true })).toEqual(["srd_adult-red-dragon"]);
    expect(await keys({ legendary: false })).toEqual(["srd_goblin", "srd_wraith"]);
  });

  test("spells by component", async () => {
    const keys = async (component: unknown) =>
      (await call("search_spell", { component })).results.map((r) => r.key).sort();
    expect(await keys("consumed material")).toEqual(["srd_revivify"]);
    expect(await keys(["V", "S"])).toContain("srd_shield");
    expect(await keys("m")).toEqual(["spells-that-dont-suck_alter-weather", "srd_fireball", "srd_revivify"]);
  });

  test("subclasses by their class", async () => {
    const a = await call("search_character_option", { class_key: "wizard" });
    expect(a.results.map((r) => r.key)).toEqual(["srd_school-of-evocation"]);
    const c = await call("search_character_option", { class_key: "cleric" });
    expect(c.results.map((r) => r.key)).toEqual(["srd_life-domain"]);
  });
});

describe('type "magic-item" across editions', () => {
  test("finds the 2024 Potion of Healing (item) and the 2014 one (magic item), saying how each is filed", async () => {
    const a = await call("search_equipment", { type: "magic-item", name: "Potion of Healing" });
    const byDoc = Object.fromEntries(a.results.map((r) => [String(r.document_key), r]));
    expect(Object.keys(byDoc).sort()).toEqual(["srd-2014", "srd-2024"]);
    expect(byDoc["srd-2014"]!.kind).toBe("magic_item");
    expect(byDoc["srd-2024"]!.kind).toBe("item");
    expect(String(byDoc["srd-2024"]!.classified_as)).toBe("srd-2024 files it as an item (potion), not a magic item");
    const all = await call("search_equipment", { type: "magic-item" });
    expect(all.results.map((r) => r.key)).not.toContain("srd-2024_antitoxin");
  });
});

describe("one entity per thing per document, unique stable URIs (v1 and the D&D 5e API synced too)", () => {
  let before: Record<string, unknown>;
  beforeAll(async () => {
    before = await read("lorekeeper://condition/grappled");
    await sync(["open5e_v1"], ["conditions", "spells"]);
    await sync(["dnd5e_api"], ["2014/rules", "2014/rule-sections"]);
  });

  test("the v2 URI still returns the same entity; v1's has its own", async () => {
    const after = await read("lorekeeper://condition/grappled");
    expect(after.document_source).toBe("open5e_v2");
    expect(after.desc).toBe(before.desc);
    const v1 = await read("lorekeeper://condition/open5e_v1:grappled");
    expect(v1.document_source).toBe("open5e_v1");
    expect(v1.uri).toBe("lorekeeper://condition/open5e_v1:grappled");
    expect(v1.duplicate_of).toBe("lorekeeper://condition/grappled");
  });

  test("every result URI resolves to exactly that entity", async () => {
    for (const tool of [
      "search_rule",
      "search_spell",
      "search_equipment",
      "search_creature",
      "search_character_option",
    ]) {
      for (const r of (await call(tool, { limit: 100 })).results) {
        const e = await read(String(r.uri));
        expect([e.key, e.document_source, e.kind]).toEqual([r.key, r.document_source, r.kind]);
      }
    }
  });

  test(
    "no document holds two copies of a rule or spell; the answer " +
      "keeps the other's extra fields and says where they came from",
    async () => {
      const cover = await call("search_rule", { name: "Cover", documents: ["srd-2014"] });
      expect(cover.results.length).toBe(1);
      expect(cover.results[0]!.document_source).toBe("open5e_v2");
      const merged = cover.results[0]!.merged_from as Array<{ uri: string; source: string; fields: string[] }>;
      expect(merged.map((m) => m.uri)).toEqual(["lorekeeper://rule/2014-cover"]);
      // the D&D 5e API rule's parent section, which the v2 ruleset lacks
      expect(merged[0]!.fields).toContain("section");
      expect(cover.results[0]!.section).toBe("Combat");

      const fireball = await call("search_spell", { name: "Fireball", documents: ["srd-2014"] });
      expect(fireball.results.map((r) => r.key)).toEqual(["srd_fireball"]);
      const grappled = await call("search_rule", { name: "Grappled", documents: ["srd-2014"] });
      expect(grappled.results.map((r) => `${r.document_source}:${r.key}`)).toEqual(["open5e_v2:grappled"]);
    },
  );

  test("a bare key never reaches another source; the error names the qualified URI", async () => {
    await expect(client.readResource({ uri: "lorekeeper://spell/fireball" })).rejects.toThrow(
      "lorekeeper://spell/open5e_v1:fireball",
    );
  });
});
