/**
 * Answers shaped for an assistant's context, through a real MCP client over a real
 * store: compact rows per kind, full rows for small answers, one entry per name by document
 * preference, total/offset paging, hints that lead to the same entry, empty answers that explain.
 * The document preference is also checked end to end over stdio (flag and env).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { join } from "node:path";
import type { Entity, EntityFilters, EntityKind, JsonObject } from "../../src/entities/types.ts";
import { openStore } from "../../src/store/db.ts";
import { replaceOrigin } from "../../src/store/entities.ts";
import { type MakeOpts, makeEntity, makeStore } from "../support/entities.ts";
import { answerOf, connectInMemory, connectStdio, isolatedEnv, makeDeps, namesOf, textOf } from "../support/mcp.ts";
import { makeTempDir } from "../support/tmp.ts";

function entity(kind: EntityKind, name: string, filters: EntityFilters, data: JsonObject, opts: MakeOpts = {}): Entity {
  const e = makeEntity(kind, name, filters, opts);
  e.data = data;
  return e;
}

const fireballData = (range: string, dice: string): JsonObject => ({
  level: 3,
  school: "evocation",
  casting_time: "1 action",
  range,
  range_ft: 150,
  duration: "Instantaneous",
  concentration: false,
  ritual: false,
  components: {
    verbal: true,
    somatic: true,
    material: true,
    material_text: "bat guano",
    material_cost: null,
    material_consumed: false,
  },
  desc:
    `A bright streak blossoms into a fiery explosion. Each creature ` +
    `in the sphere takes ${dice} fire damage. Flammable objects ignite.`,
  higher_level: null,
  classes: ["wizard"],
  damage_types: ["fire"],
});
const spellFilters: EntityFilters = {
  level: 3,
  school: "evocation",
  classes: ["wizard"],
  concentration: false,
  ritual: false,
  casting_time: "1 action",
  damage_types: ["fire"],
};

/**
 * Fireball in three documents (the A5E one listed first by key), plus one entry of every other kind with real fields.
 */
function entities(): Entity[] {
  const out: Entity[] = [
    entity("spell", "Fireball", spellFilters, fireballData("120 feet", "6d6"), {
      doc: "a5e-ag",
      key: "a5e-ag_fireball",
    }),
    entity("spell", "Fireball", spellFilters, fireballData("150 feet", "8d6"), { doc: "srd-2014" }),
    entity("spell", "Fireball", spellFilters, fireballData("150 feet", "8d6"), { doc: "srd-2024" }),
    entity(
      "spell",
      "Magic Missile",
      {
        level: 1,
        school: "evocation",
        classes: ["wizard"],
        concentration: false,
        ritual: false,
        casting_time: "1 action",
      },
      {
        level: 1,
        school: "evocation",
        casting_time: "1 action",
        range: "120 feet",
        concentration: false,
        ritual: false,
        components: { verbal: true, somatic: true, material: false },
        desc: "You create three glowing darts of magical force.",
      },
    ),
    entity(
      "spell",
      "Detect Magic",
      {
        level: 1,
        school: "divination",
        classes: ["wizard"],
        concentration: true,
        ritual: true,
        casting_time: "1 action",
      },
      {
        level: 1,
        school: "divination",
        casting_time: "1 action",
        range: "Self",
        concentration: true,
        ritual: true,
        components: { verbal: true, somatic: true, material: false },
        desc: "For the duration, you sense the presence of magic within 30 feet of you.",
      },
    ),
    entity(
      "creature",
      "Goblin",
      { cr: 0.25, creature_type: "humanoid", size: "small", armor_class: 15, hit_points: 7 },
      {
        size: "Small",
        type: "Humanoid",
        alignment: "neutral evil",
        armor_class: 15,
        hit_points: 7,
        speed: { walk: 30 },
        cr: 0.25,
        cr_display: "1/4",
        desc: null,
        traits: [{ name: "Nimble Escape", desc: "x" }],
        actions: [
          { name: "Scimitar", desc: "x" },
          { name: "Shortbow", desc: "y" },
        ],
      },
    ),
    entity(
      "weapon",
      "Longsword",
      { category: "martial melee", damage_dice: "1d8", damage_types: ["slashing"], is_simple: false },
      {
        category: "martial melee",
        damage_dice: "1d8",
        damage_type: "slashing",
        properties: [{ name: "Versatile", detail: "1d10" }],
        desc: null,
      },
    ),
    entity(
      "armor",
      "Chain Mail",
      { category: "heavy" },
      { category: "heavy", ac_display: "16", strength_required: 13, stealth_disadvantage: true, desc: null },
    ),
    entity(
      "magic_item",
      "Flame Tongue",
      { category: "weapon", rarity: "rare", requires_attunement: true },
      {
        type: "weapon",
        rarity: "rare",
        requires_attunement: true,
        attunement_detail: null,
        desc: "You can use a bonus action to speak this sword's command word, causing flames to erupt.",
      },
    ),
    entity(
      "class",
      "Wizard",
      {},
      {
        hit_die: "d6",
        primary_abilities: ["intelligence"],
        spellcasting_ability: "intelligence",
        subclass_of: null,
        desc: "A scholarly magic-user. Wizards study.",
      },
    ),
    entity(
      "species",
      "Dwarf",
      { size: "medium" },
      {
        size: "Medium",
        speed: 25,
        subspecies_of: null,
        desc: "Bold and hardy, dwarves are skilled warriors.",
        traits: [],
      },
    ),
    entity(
      "feat",
      "Alert",
      {},
      { type: "general", prerequisite: null, desc: "Always on the lookout for danger.", benefits: [] },
    ),
    entity(
      "background",
      "Acolyte",
      {},
      {
        skill_proficiencies: "Insight, Religion",
        ability_scores: null,
        feat: null,
        desc: "You have spent your life in service to a temple.",
      },
    ),
    entity("condition", "Grappled", {}, { desc: "A grappled creature's speed becomes 0.", descriptions: [] }),
    entity(
      "rule",
      "Falling",
      { section: "adventuring" },
      { section: "Adventuring", desc: "A fall deals 1d6 bludgeoning damage per 10 feet.", order: 1 },
    ),
  ];
  // 25 goblinoids for paging (names sort after "Goblin").
  for (let i = 1; i <= 25; i++) {
    const n = String(i).padStart(2, "0");
    out.push(
      entity(
        "creature",
        `Hobgoblin ${n}`,
        { cr: 1, creature_type: "humanoid", size: "medium", armor_class: 18, hit_points: 11 },
        {
          size: "Medium",
          type: "Humanoid",
          cr_display: "1",
          armor_class: 18,
          hit_points: 11,
          speed: { walk: 30 },
          alignment: "lawful evil",
          actions: [],
          desc: `Hobgoblin number ${n}.`,
        },
      ),
    );
  }
  return out;
}

let client: Client;
let close: () => Promise<void>;
let cleanup: () => void;
let store: ReturnType<typeof makeStore>["store"];

beforeAll(async () => {
  const made = makeStore(entities());
  store = made.store;
  cleanup = made.cleanup;
  ({ client, close } = await connectInMemory(makeDeps(made.store)));
  await client.listTools(); // the client validates structured results against the output schemas
});
afterAll(async () => {
  await close();
  cleanup();
});

const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args });
const answer = async (name: string, args: Record<string, unknown>) => answerOf(await call(name, args));

describe("compact rows", () => {
  test("each kind shows the fields a DM scans for, a one-line summary, and no full text", async () => {
    const rows = async (tool: string, args: Record<string, unknown>) =>
      (await answer(tool, { ...args, detail: "summary" })).results;
    const [missile] = await rows("search_spell", { name: "Magic Missile" });
    expect(missile).toEqual({
      name: "Magic Missile",
      kind: "spell",
      document_key: "srd-2014",
      uri: "lorekeeper://spell/srd_magic-missile",
      level: 1,
      school: "evocation",
      casting_time: "1 action",
      range: "120 feet",
      components: "V, S",
      summary: "You create three glowing darts of magical force.",
    });
    const [detect] = await rows("search_spell", { name: "Detect Magic" });
    // Flags show only when set; the summary is one short line (cut at a word).
    expect(detect).toMatchObject({
      concentration: true,
      ritual: true,
      summary: "For the duration, you sense the presence of…",
    });
    expect(missile).not.toHaveProperty("concentration");
    expect((await rows("search_creature", { name: "Goblin" }))[0]).toEqual({
      name: "Goblin",
      kind: "creature",
      document_key: "srd-2014",
      uri: "lorekeeper://creature/srd_goblin",
      cr: "1/4",
      type: "Humanoid",
      size: "Small",
      armor_class: 15,
      hit_points: 7,
      speed: "30 ft.",
      summary: "neutral evil; Scimitar, Shortbow",
    });
    expect((await rows("search_equipment", { name: "Longsword" }))[0]).toMatchObject({
      kind: "weapon",
      category: "martial melee",
      damage: "1d8 slashing",
      properties: "Versatile (1d10)",
    });
    expect((await rows("search_equipment", { name: "Chain Mail" }))[0]).toMatchObject({
      kind: "armor",
      category: "heavy",
      armor_class: "16",
      strength_required: 13,
      stealth_disadvantage: true,
    });
    expect((await rows("search_equipment", { name: "Flame Tongue" }))[0]).toMatchObject({
      kind: "magic_item",
      rarity: "rare",
      type: "weapon",
      attunement: true,
      summary: "You can use a bonus action to speak this…",
    });
    expect((await rows("search_character_option", { name: "Wizard" }))[0]).toMatchObject({
      kind: "class",
      hit_die: "d6",
      primary_abilities: ["intelligence"],
      spellcasting_ability: "intelligence",
      summary: "A scholarly magic-user.",
    });
    expect((await rows("search_character_option", { name: "Dwarf" }))[0]).toMatchObject({
      kind: "species",
      size: "Medium",
      speed: "25 ft.",
    });
    expect((await rows("search_character_option", { name: "Alert" }))[0]).toMatchObject({
      kind: "feat",
      type: "general",
    });
    expect((await rows("search_character_option", { name: "Acolyte" }))[0]).toMatchObject({
      kind: "background",
      skill_proficiencies: "Insight, Religion",
    });
    expect((await rows("search_rule", { name: "Falling" }))[0]).toMatchObject({
      kind: "rule",
      section: "Adventuring",
      summary: "A fall deals 1d6 bludgeoning damage per 10 feet.",
    });
    expect((await rows("search_rule", { name: "Grappled" }))[0]).toMatchObject({
      kind: "condition",
      summary: "A grappled creature's speed becomes 0.",
    });
  });

  test("lists come compact by default; a name lookup or limit ≤ 3 comes whole; detail overrides", async () => {
    const list = await answer("search_creature", { type: "humanoid" });
    expect(list.detail).toBe("summary");
    expect(list.results[0]).not.toHaveProperty("desc");
    expect(list.results[0]).not.toHaveProperty("key");
    const lookup = await answer("search_creature", { name: "Goblin" });
    expect(lookup.detail).toBe("full");
    expect(lookup.results[0]).toMatchObject({
      key: "srd_goblin",
      alignment: "neutral evil",
      document_name: "System Reference Document 5.1",
    });
    expect((await answer("search_creature", { type: "humanoid", limit: 3 })).detail).toBe("full");
    expect((await answer("search_creature", { name: "Goblin", detail: "summary" })).results[0]).not.toHaveProperty(
      "alignment",
    );
    expect((await answer("search_creature", { type: "humanoid", detail: "full" })).results[0]).toHaveProperty(
      "alignment",
    );
    // A wildcard is a list, not a lookup.
    expect((await answer("search_creature", { name: "hob*" })).detail).toBe("summary");
  });

  test("every result names its full entry by uri (no resource_link blocks: they repeat the rows)", async () => {
    const r = await call("search_creature", { type: "humanoid", limit: 5 });
    expect((r.content as Array<{ type: string }>).filter((c) => c.type === "resource_link")).toEqual([]);
    const uris = answerOf(r).results.map((x) => String(x.uri));
    expect(uris.length).toBe(5);
    const full = await client.readResource({ uri: uris[0]! });
    expect(JSON.parse((full.contents[0] as { text: string }).text).name).toBe("Goblin");
  });
});

describe("one canonical entry per thing", () => {
  test("Fireball limit 1 is the newer SRD's, naming the others; all_versions and documents show each", async () => {
    const one = await answer("search_spell", { name: "Fireball", limit: 1 });
    expect(one.results.map((r) => `${r.document_key} ${r.range}`)).toEqual(["srd-2024 150 feet"]);
    expect(one.results[0]!.other_versions).toEqual({
      "srd-2014": "lorekeeper://spell/srd_fireball",
      "a5e-ag": "lorekeeper://spell/a5e-ag_fireball",
    });
    expect(one.total).toBe(1);
    const compact = await answer("search_spell", { level: 3 });
    expect(compact.results[0]).toMatchObject({
      name: "Fireball",
      document_key: "srd-2024",
      other_documents: ["srd-2014", "a5e-ag"],
    });
    const every = await answer("search_spell", { name: "Fireball", all_versions: true });
    expect(every.results.map((r) => r.document_key)).toEqual(["srd-2024", "srd-2014", "a5e-ag"]);
    expect(every.total).toBe(3);
    const a5e = await answer("search_spell", { name: "Fireball", documents: ["a5e-ag"] });
    expect(a5e.results.map((r) => `${r.document_key} ${r.range}`)).toEqual(["a5e-ag 120 feet"]);
    const two = await answer("search_spell", { name: "Fireball", documents: ["a5e-ag", "srd-2014"] });
    expect(two.results.map((r) => r.document_key)).toEqual(["srd-2014", "a5e-ag"]);
  });

  test("a ranked search collapses too, and an exact name still comes first", async () => {
    const a = await answer("search_spell", { search: "fireball" });
    expect(a.results[0]).toMatchObject({ name: "Fireball", document_key: "srd-2024" });
    expect(a.results.filter((r) => r.name === "Fireball")).toHaveLength(1);
    expect(a.total).toBe(a.results.length);
  });

  test("the server's document preference puts 2014 first (deps, as the serve flag and env set it)", async () => {
    const c2014 = await connectInMemory(makeDeps(store, { preferDocuments: ["srd-5e"] }));
    try {
      await c2014.client.listTools();
      const a = answerOf(
        await c2014.client.callTool({ name: "search_spell", arguments: { name: "Fireball", limit: 1 } }),
      );
      expect(a.results.map((r) => r.key)).toEqual(["srd_fireball"]);
      expect(Object.keys(a.results[0]!.other_versions as object)).toEqual(["srd-2024", "a5e-ag"]);
      const homebrewFirst = await connectInMemory(makeDeps(store, { preferDocuments: ["a5e-ag"] }));
      try {
        const b = answerOf(
          await homebrewFirst.client.callTool({ name: "search_spell", arguments: { name: "Fireball", limit: 1 } }),
        );
        expect(b.results[0]!.key).toBe("a5e-ag_fireball");
      } finally {
        await homebrewFirst.close();
      }
    } finally {
      await c2014.close();
    }
  }, 30_000);
});

describe("totals and paging", () => {
  test("total, has_more and next_offset; the last page; an offset past the end", async () => {
    const first = await answer("search_creature", { name: "hob*", limit: 10 });
    expect(first).toMatchObject({ count: 10, total: 25, offset: 0, has_more: true, next_offset: 10 });
    const seen = [...first.results.map((r) => r.name)];
    let next = first.next_offset as number | undefined;
    while (next !== undefined) {
      const page = await answer("search_creature", { name: "hob*", limit: 10, offset: next });
      seen.push(...page.results.map((r) => r.name));
      next = page.next_offset as number | undefined;
      if (!page.has_more) {
        expect(page).toMatchObject({ count: 5, total: 25, offset: 20, has_more: false });
        expect(page).not.toHaveProperty("next_offset");
      }
    }
    expect(seen).toEqual(Array.from({ length: 25 }, (_, i) => `Hobgoblin ${String(i + 1).padStart(2, "0")}`));
    const past = await answer("search_creature", { name: "hob*", limit: 10, offset: 40 });
    expect(past).toMatchObject({ count: 0, total: 25, offset: 40, has_more: false });
    expect(past.message).toContain("offset 40 is past the end: there are 25 results (last page: offset=15)");
  });

  test("ranked answers state their total too", async () => {
    const a = await answer("search_creature", { search: "hobgoblin", limit: 5 });
    expect(a.count).toBe(5);
    expect(a.total).toBeGreaterThanOrEqual(25);
    expect(a.has_more).toBe(true);
    const b = await answer("search_creature", { search: "hobgoblin", limit: 5, offset: 5 });
    expect(b.total).toBe(a.total);
    expect(b.results.map((r) => r.name)).not.toContain(a.results[0]!.name);
  });

  test("list_documents pages the same way", async () => {
    const a = answerOf(await call("list_documents", { limit: 1 }));
    expect(a).toMatchObject({ count: 1, total: 3, offset: 0, has_more: true, next_offset: 1 });
    const last = answerOf(await call("list_documents", { limit: 1, offset: 2 }));
    expect(last).toMatchObject({ count: 1, total: 3, has_more: false });
  });
});

describe("hints lead to the same entry", () => {
  test(
    "a shortened answer's hint keeps the tool's filters " + "and names the document; search_all points at the uri",
    async () => {
      const long = (i: number) =>
        entity(
          "creature",
          `Colossus ${i}`,
          { cr: 20, creature_type: "construct", size: "gargantuan" },
          { size: "Gargantuan", type: "Construct", desc: "An enormous statue. ".repeat(400), actions: [] },
          { doc: "tob", key: `tob_colossus-${i}` },
        );
      const made = makeStore(Array.from({ length: 4 }, (_, i) => long(i)));
      const small = await connectInMemory(makeDeps(made.store, { responseBudgetChars: 12_000 }));
      try {
        await small.client.listTools();
        const a = answerOf(
          await small.client.callTool({ name: "search_creature", arguments: { type: "construct", detail: "full" } }),
        );
        expect(a.truncated).toBe(true);
        const m = /call search_creature (\{.*?\})\./.exec(String(a.message));
        expect(m).not.toBeNull();
        const args = JSON.parse(m![1]!);
        expect(args).toEqual({ type: "construct", name: "Colossus 0", documents: ["tob"], detail: "full" });
        // Following the hint gives that very entry, whole.
        const followed = answerOf(await small.client.callTool({ name: "search_creature", arguments: args }));
        expect(followed.results.map((r) => r.key)).toEqual(["tob_colossus-0"]);
        expect(followed.truncated).toBeUndefined();
        const all = answerOf(
          await small.client.callTool({ name: "search_all", arguments: { query: "colossus", detail: "full" } }),
        );
        expect(all.truncated).toBe(true);
        expect(all.message).toContain("lorekeeper://creature/");
        expect(all.message).not.toContain("call search_all");
        expect(all.message).not.toContain("name=");
      } finally {
        await small.close();
        made.cleanup();
      }
    },
  );
});

describe("empty answers explain", () => {
  test("an unmatched name suggests the closest names", async () => {
    const a = await answer("search_spell", { name: "Magic Missle" });
    expect(a.total).toBe(0);
    expect(a.message).toContain('Did you mean "Magic Missile"');
  });
  test("an unknown filter value lists the nearest valid values", async () => {
    expect((await answer("search_spell", { class_key: "wizzard" })).message).toContain(
      'No spell has class_key "wizzard". Nearest valid values: "wizard"',
    );
    expect((await answer("search_spell", { casting_time: "whenever" })).message).toContain("Nearest valid values:");
    expect((await answer("search_spell", { casting_time: "whenever" })).message).toContain('"1 action"');
  });
  test("known values that match nothing together say which filter emptied the set", async () => {
    const a = await answer("search_spell", { school: "divination", level: 3 });
    expect(a.message).toBe(
      'No spell matches school="divination" together with level=3 (3 matches without it). Drop or change school.',
    );
    const b = await answer("search_spell", { name: "Fireball", ritual: true });
    expect(b.message).toBe(
      'No spell named "Fireball" matches ritual=true (3 matches without it). Drop or change ritual.',
    );
  });
});

describe("over stdio", () => {
  test("--prefer-documents and LOREKEEPER_PREFER_DOCUMENTS choose whose Fireball comes first", async () => {
    const tmp = makeTempDir("lk-pref-");
    const path = join(tmp.dir, "lk.db");
    const s = openStore({ path });
    replaceOrigin(s.db, "test:all", entities());
    s.close();
    const env = await isolatedEnv(tmp.dir);
    const first = async (args: string[], extra: Record<string, string> = {}) => {
      const conn = await connectStdio(["serve", "--db-path", path, ...args], { ...env, ...extra });
      try {
        await conn.client.listTools();
        const r = await conn.client.callTool({ name: "search_spell", arguments: { name: "Fireball", limit: 1 } });
        expect(textOf(r)).toContain('"total":1');
        return answerOf(r).results.map((x) => x.key);
      } finally {
        await conn.close();
      }
    };
    try {
      expect(await first([])).toEqual(["srd-2024_fireball"]);
      expect(await first(["--prefer-documents", "srd-2014"])).toEqual(["srd_fireball"]);
      expect(await first([], { LOREKEEPER_PREFER_DOCUMENTS: "srd-5.1" })).toEqual(["srd_fireball"]);
      const conn = await connectStdio(["serve", "--db-path", path], env);
      try {
        expect(
          namesOf(
            await conn.client.callTool({ name: "search_spell", arguments: { name: "Fireball", all_versions: true } }),
          ),
        ).toEqual(["Fireball", "Fireball", "Fireball"]);
      } finally {
        await conn.close();
      }
    } finally {
      tmp.cleanup();
    }
  }, 60_000);
});
