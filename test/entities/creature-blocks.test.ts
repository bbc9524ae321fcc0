/**
 * Filters read from stat blocks: the spells a creature casts, the conditions it inflicts, its trait
 * and action names. Unit checks on real blocks (test/fixtures/creature-blocks: Open5e v2 traits and
 * actions of SRD 5.1 and 5.2 creatures, trimmed to name and text), then the filters through a real
 * sync and the real search tool.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { join } from "node:path";
import { loadConfig } from "../../src/config.ts";
import { blockNames, conditionsInflicted, spellsCast } from "../../src/entities/derived.ts";
import type { Entity, JsonObject } from "../../src/entities/types.ts";
import { runSearch } from "../../src/search/hybrid.ts";
import { runSync } from "../../src/ingest/sync.ts";
import { openStore, type Store } from "../../src/store/db.ts";
import { startFakeUpstream, type FakeUpstream } from "../support/fake-upstream.ts";
import { makeEntity, makeStore, reopenedAfter } from "../support/entities.ts";
import { answerOf, connectInMemory, makeDeps, namesOf } from "../support/mcp.ts";
import { ctxOf } from "../search/helpers.ts";
import { makeTempDir } from "../support/tmp.ts";
import { upstreamsAt } from "../../src/sources/index.ts";

const BLOCKS = (await Bun.file(
  join(import.meta.dir, "..", "fixtures", "creature-blocks", "open5e-v2.json"),
).json()) as Array<JsonObject & { key: string }>;
const block = (key: string) => BLOCKS.find((b) => b.key === key)!;

describe("read from the stat block", () => {
  test("spells cast: 2014 slot lists and 2024 use lists, names as written, nothing else", () => {
    const lich = spellsCast(block("srd_lich"));
    for (const s of ["fireball", "power word kill", "mage hand", "acid arrow", "globe of invulnerability"])
      expect(lich).toContain(s);
    expect(lich.length).toBe(26);
    const mage = spellsCast(block("srd-2024_mage"));
    // Its Spellcasting list, its bonus action (Misty Step) and its reaction (Protective Magic: Counterspell or Shield).
    const listed = ["cone of cold", "detect magic", "fireball", "fly", "invisibility", "light", "mage armor"];
    expect(mage).toEqual([...listed, "mage hand", "counterspell", "misty step", "prestidigitation", "shield"].sort());
    expect(spellsCast(block("srd_wolf"))).toEqual([]);
    expect(spellsCast(block("srd_vampire"))).toEqual([]);
  });

  test("spells cast named in running text: lists with or/and, version notes, and where the list ends", () => {
    const cast = (desc: string) => spellsCast({ bonus_actions: [{ name: "Divine Aid", desc }] });
    const priest =
      "The priest casts Cure Wounds (level 2 version), Lesser Restoration, or Remove Curse, using the same " +
      "spellcasting ability as Spellcasting.";
    expect(cast(priest)).toEqual(["cure wounds", "lesser restoration", "remove curse"]);
    expect(cast("The dragon casts Guiding Bolt (level 2 version) or (B) Weakening Breath.")).toEqual(["guiding bolt"]);
    expect(cast("It casts Wall of Ice (level 8 version), requiring no spell components.")).toEqual(["wall of ice"]);
    const hag = "The hag casts Darkness, Faerie Fire, or Web, requiring no Material components.";
    expect(cast(hag)).toEqual(["darkness", "faerie fire", "web"]);
    expect(cast("When a creature casts a spell, the mage casts one of the following spells.")).toEqual([]);
  });

  test("conditions inflicted on others, not the creature's own states", () => {
    expect(conditionsInflicted(block("srd_ghoul"))).toEqual(["paralyzed"]);
    expect(conditionsInflicted(block("srd_wolf"))).toEqual(["prone"]);
    expect(conditionsInflicted(block("srd-2024_lich"))).toContain("paralyzed");
    expect(conditionsInflicted(block("srd_vampire"))).toContain("charmed");
  });

  test("trait and action names without their usage notes", () => {
    expect(blockNames(block("srd_wolf"))).toEqual(["bite", "keen hearing and smell", "pack tactics"]);
    expect(blockNames(block("srd_lich"))).toContain("legendary resistance");
    expect(blockNames(block("srd_lich"))).not.toContain("multiattack");
  });

  test("trait names with straight apostrophes, whichever the book wrote", () => {
    const d = {
      traits: [
        { name: "Devil’s Sight", desc: "" },
        { name: "Ghost‘s Wail (1/Day)", desc: "" },
      ],
      actions: [
        { name: "Fiend`s Claw", desc: "" },
        { name: "Hag's Eye", desc: "" },
      ],
    };
    expect(blockNames(d)).toEqual(["devil's sight", "fiend's claw", "ghost's wail", "hag's eye"]);
  });
});

describe("the trait filter finds a trait under either apostrophe (migration 12)", () => {
  /** A creature whose stat block names its trait with `apostrophe`. */
  const devil = (name: string, doc: string, apostrophe: string): Entity => {
    const e = makeEntity("creature", name, { creature_type: "fiend" }, { doc });
    return {
      ...e,
      data: {
        ...e.data,
        traits: [{ name: `Devil${apostrophe}s Sight`, desc: "Magical darkness doesn't impede its darkvision." }],
      },
    };
  };
  const devils = () => [
    devil("Barbed Devil", "srd-2014", "'"),
    devil("Automata Devil", "tob", "’"),
    devil("Chort Devil", "tob-2023", "‘"),
  ];
  const found = async (store: Store, trait: string) =>
    (await runSearch(ctxOf(store), { kinds: ["creature"], filters: { trait }, limit: 10, collapse: false })).hits
      .map((h) => h.entity.name)
      .sort();

  test("stored straight, asked either way", async () => {
    const { store, cleanup } = makeStore(devils());
    try {
      for (const asked of ["devil's sight", "Devil’s Sight", "DEVIL‘S SIGHT"])
        expect(await found(store, asked)).toEqual(["Automata Devil", "Barbed Devil", "Chort Devil"]);
    } finally {
      cleanup();
    }
  });

  /**
   * A store of devils() as written before migration 12 (the books' ’ stored), prepared by `back`, then opened again.
   */
  const writtenBefore12 = (back: string, check: (again: Store) => Promise<void>) =>
    reopenedAfter(
      devils(),
      async (store) => {
        store.db.exec(
          `UPDATE entities SET traits = replace(traits, '''', '’') ` +
            `WHERE kind = 'creature' AND name <> 'Barbed Devil'; ${back}`,
        );
        // Even unmended (a store opened read-only is not migrated), either spelling finds all three.
        for (const asked of ["devil's sight", "Devil’s Sight"])
          expect(await found(store, asked)).toEqual(["Automata Devil", "Barbed Devil", "Chort Devil"]);
      },
      check,
    );
  const curlyLeft = (s: Store) =>
    s.db.query<{ n: number }, []>("SELECT count(*) AS n FROM entities WHERE traits LIKE '%’%'").get()!.n;

  test("a store written before migration 12 (curly apostrophes stored) is straightened when it opens", async () => {
    await writtenBefore12("UPDATE meta SET value = '11' WHERE key = 'schema_version'", async (again) => {
      expect(curlyLeft(again)).toBe(0);
      expect(await found(again, "devil's sight")).toEqual(["Automata Devil", "Barbed Devil", "Chort Devil"]);
    });
  });

  test("and so is one whose recorded schema version was lost (its tables cannot show migration 12)", async () => {
    await writtenBefore12("DELETE FROM meta WHERE key = 'schema_version'", async (again) => {
      expect(curlyLeft(again)).toBe(0);
    });
  });
});

describe("a store derived by an older reading of the stat blocks reads them again when it opens", () => {
  test("casts: a reaction's Counterspell is found after reopening a store written before it was read", async () => {
    const e = makeEntity("creature", "Mage", { creature_type: "humanoid" }, { doc: "srd-2024" });
    const desc = "The mage casts Counterspell or Shield in response to the spell's trigger.";
    const mage = { ...e, data: { ...e.data, reactions: [{ name: "Protective Magic", desc }] } };
    const query = { kinds: ["creature" as const], filters: { casts: "counterspell" }, limit: 10 };
    const casters = async (store: Store) => (await runSearch(ctxOf(store), query)).hits.map((h) => h.entity.name);
    await reopenedAfter(
      [mage],
      async (store) => {
        expect(await casters(store)).toEqual(["Mage"]);
        // As the previous reading stored it: no spells, no revision recorded.
        store.db.exec("UPDATE entities SET casts = NULL, spellcaster = 0 WHERE kind = 'creature'");
        store.db.exec("DELETE FROM meta WHERE key = 'derived_revisions'");
        expect(await casters(store)).toEqual([]);
      },
      async (again) => {
        expect(await casters(again)).toEqual(["Mage"]);
        const sql = "SELECT value FROM meta WHERE key = 'derived_revisions'";
        const recorded = again.db.query<{ value: string }, []>(sql).get()!;
        expect(JSON.parse(recorded.value).casts).toBe(2);
      },
    );
  });
});

describe("casts, spellcaster, inflicts and trait in search_creature", () => {
  let fake: FakeUpstream;
  let tmp: ReturnType<typeof makeTempDir>;
  let store: Store;
  let client: Client;
  let close: () => Promise<void>;
  beforeAll(async () => {
    fake = await startFakeUpstream({ dataDir: join(import.meta.dir, "..", "fixtures", "agreement") });
    tmp = makeTempDir("lk-blocks-");
    store = openStore({ path: join(tmp.dir, "lk.db") });
    const config = { ...loadConfig(), ...upstreamsAt(fake.url), httpRetries: 0 };
    await runSync(store, { config, sources: ["open5e_v2"], types: ["creature"], force: true });
    ({ client, close } = await connectInMemory(makeDeps(store)));
  }, 60_000);
  afterAll(async () => {
    await close();
    store.close();
    await fake.stop();
    tmp.cleanup();
  });
  const ask = async (args: Record<string, unknown>) =>
    client.callTool({ name: "search_creature", arguments: { documents: ["srd-2014"], ...args } });

  test("casts: the creatures whose lists hold the spell; spellcaster: any", async () => {
    expect(namesOf(await ask({ casts: "Fireball" }))).toEqual(["Lich"]);
    expect(namesOf(await ask({ spellcaster: true }))).toEqual(["Lich"]);
    expect(namesOf(await ask({ spellcaster: false })).sort()).toEqual(["Azer", "Chain Devil", "Doppelganger"]);
  });

  test("inflicts and trait", async () => {
    expect(namesOf(await ask({ inflicts: ["paralyzed"] }))).toEqual(["Lich"]);
    const chain = namesOf(await ask({ inflicts: "frightened" }));
    expect(chain).toContain("Chain Devil");
    expect(namesOf(await ask({ trait: "Shapechanger" }))).toEqual(["Doppelganger"]);
  });

  test('build_encounter proposes only spellcasters when asked ("undead that cast spells")', async () => {
    const r = answerOf(
      await client.callTool({
        name: "build_encounter",
        arguments: { party_levels: [20, 20, 20, 20], difficulty: "high", spellcaster: true, documents: ["srd-2014"] },
      }),
    );
    const names = JSON.stringify((r as unknown as { proposals?: unknown[] }).proposals ?? []);
    expect(names).toContain("Lich");
    for (const other of ["Azer", "Chain Devil", "Doppelganger"]) expect(names).not.toContain(other);
  });

  test(
    "completion of casts, trait and inflicts offers what the " +
      "store's stat blocks hold (find_monsters, prepare_encounter)",
    async () => {
      const done = async (prompt: string, name: string, value: string) =>
        (await client.complete({ ref: { type: "ref/prompt", name: prompt }, argument: { name, value } })).completion;
      // The Lich's spells, from the store: "fire" → fireball (and nothing the store does not hold).
      const fire = await done("find_monsters", "casts", "fire");
      expect(fire.values).toContain("fireball");
      for (const v of fire.values)
        expect(v.startsWith("fire") || v.split(/[\s/-]+/).some((w) => w.startsWith("fire"))).toBe(true);
      expect((await done("prepare_encounter", "casts", "power word")).values).toEqual([
        "power word kill",
        "power word stun",
      ]);
      expect((await done("find_monsters", "casts", "wish")).values).toEqual([]);
      // Traits and actions by their first word, then by a later one.
      expect((await done("find_monsters", "trait", "shape")).values).toContain("shapechanger");
      expect((await done("find_monsters", "trait", "resist")).values).toContain("legendary resistance");
      // inflicts: the conditions the store's creatures impose (the Lich paralyzes; nobody here petrifies), for the last
      // word typed.
      expect((await done("find_monsters", "inflicts", "frightened, par")).values).toEqual(["paralyzed"]);
      expect((await done("find_monsters", "inflicts", "pet")).values).toEqual([]);
      // Every value offered finds creatures.
      for (const v of (await done("find_monsters", "trait", "")).values.slice(0, 5))
        expect(namesOf(await ask({ trait: v })).length).toBeGreaterThan(0);
    },
  );

  test("the find_monsters prompt asks search_creature with its filters", async () => {
    const p = await client.getPrompt({
      name: "find_monsters",
      arguments: { casts: "fireball", inflicts: "frightened, prone", creature_type: "undead" },
    });
    const text = (p.messages[0]!.content as { text: string }).text;
    expect(text).toContain(
      'search_creature with {"casts":"fireball","inflicts":["frightened","prone"],"type":"undead","limit":50}',
    );
  });

  test("a spell nobody casts: an empty answer that says which filter emptied it", async () => {
    const r = answerOf(await ask({ casts: "wish" }));
    expect(r.results).toEqual([]);
    expect(JSON.stringify(r)).toContain("casts");
  });
});
