/**
 * build_encounter, class_progression, the prompts and completions through a real MCP client
 * (in-memory transport) over a real store: what each must do to be done.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { contentType, run } from "../entities/fixtures.ts";
import { encounterCreatures } from "../support/encounter-creatures.ts";
import { makeStore, sampleEntities } from "../support/entities.ts";
import { connectInMemory, makeDeps, textOf } from "../support/mcp.ts";

type Obj = Record<string, any>;

describe("beyond lookup through an MCP client", () => {
  let client: Client;
  let close: () => Promise<void>;
  let cleanup: () => void;
  beforeAll(async () => {
    const wizard = run(contentType("dnd5e_api", "2014/classes")).entities;
    const s = makeStore([...sampleEntities(), ...encounterCreatures(), ...wizard]);
    cleanup = s.cleanup;
    ({ client, close } = await connectInMemory(makeDeps(s.store)));
  });
  afterAll(async () => {
    await close();
    cleanup();
  });

  const call = async (name: string, args: Obj) => (await client.callTool({ name, arguments: args })) as CallToolResult;
  const ok = async (name: string, args: Obj) => {
    const r = await call(name, args);
    if (r.isError) throw new Error(textOf(r));
    return r.structuredContent as Obj;
  };

  test("tools/list has both new tools with output schemas, within the size budget", async () => {
    const { tools } = await client.listTools();
    for (const n of ["build_encounter", "class_progression"]) {
      const t = tools.find((x) => x.name === n)!;
      expect(t.outputSchema).toBeDefined();
      expect(JSON.stringify(t).length).toBeLessThan(3200);
    }
  });

  test("4 level-5 characters vs 2 ogres and 6 goblins, 2014: 1,200 XP × 2.5 = 3,000 → Hard", async () => {
    const a = await ok("build_encounter", {
      party_size: 4,
      party_level: 5,
      edition: "2014",
      monsters: [
        { name: "Ogre", count: 2 },
        { name: "goblin", count: 6 },
      ],
    });
    expect(a.thresholds).toEqual({ easy: 1000, medium: 2000, hard: 3000, deadly: 4400 });
    expect(a.rating.total_xp).toBe(1200);
    expect(a.rating.multiplier).toBe(2.5);
    expect(a.rating.adjusted_xp).toBe(3000);
    expect(a.rating.difficulty).toBe("hard");
    expect(a.rating.monsters.map((m: Obj) => [m.name, m.document_key, m.cr])).toEqual([
      ["Ogre", "srd-2014", "2"],
      ["Goblin", "srd-2014", "1/4"],
    ]);
    expect(a.rating.steps).toHaveLength(4);
    expect(a.sources.join(" ")).toContain("Dungeon Master's Guide (2014)");
  });

  test("the same group, 2024: 1,200 XP within the Low budget of 2,000", async () => {
    const a = await ok("build_encounter", {
      party_levels: [5, 5, 5, 5],
      monsters: [
        { name: "Ogre", count: 2 },
        { name: "Goblin Warrior", count: 6 },
      ],
    });
    expect(a.edition).toBe("2024");
    expect(a.thresholds).toEqual({ low: 2000, moderate: 3000, high: 4400 });
    expect(a.rating.total_xp).toBe(1200);
    expect(a.rating.adjusted_xp).toBeUndefined();
    expect(a.rating.difficulty).toBe("low");
    expect(a.rating.monsters[0].document_key).toBe("srd-2024");
  });

  test("a Moderate 2024 undead encounter for that party from the SRD only", async () => {
    const a = await ok("build_encounter", {
      party_levels: [5, 5, 5, 5],
      difficulty: "moderate",
      type: "undead",
      documents: ["srd-2024"],
    });
    expect(a.proposals.length).toBeGreaterThanOrEqual(2);
    const srdUndead = new Set(
      encounterCreatures()
        .filter((c) => c.document_key === "srd-2024" && c.filters.creature_type === "undead")
        .map((c) => c.name),
    );
    for (const p of a.proposals) {
      expect(p.difficulty).toBe("moderate");
      expect(p.total_xp).toBeGreaterThan(2000);
      expect(p.total_xp).toBeLessThanOrEqual(3000);
      for (const m of p.monsters) {
        expect(srdUndead.has(m.name)).toBe(true);
        expect(m.document_key).toBe("srd-2024");
      }
      const sum = p.monsters.reduce((s: number, m: Obj) => s + m.count * m.xp, 0);
      expect(sum).toBe(p.total_xp);
    }
    // no creature in two proposals
    const names = a.proposals.flatMap((p: Obj) => p.monsters.map((m: Obj) => m.name));
    expect(new Set(names).size).toBe(names.length);
    expect(a.message).toContain("Target for moderate: 2,001–3,000 XP");
  });

  test("environment narrows proposals to creatures whose data lists it", async () => {
    const a = await ok("build_encounter", {
      party_levels: [2, 2, 2],
      difficulty: "high",
      type: "undead",
      environment: "underdark",
      documents: ["srd-2024"],
    });
    for (const p of a.proposals) for (const m of p.monsters) expect(["Zombie", "Ghoul"]).toContain(m.name);
  });

  test("clear errors: no party, wrong difficulty for the edition, unknown creature", async () => {
    expect(textOf(await call("build_encounter", { difficulty: "low" }))).toContain("party_levels");
    expect(
      textOf(await call("build_encounter", { party_levels: [3], edition: "2014", difficulty: "moderate" })),
    ).toContain("2014 difficulties: easy, medium, hard, deadly");
    const r = await call("build_encounter", { party_levels: [3], monsters: [{ name: "Tarrasque Jr", count: 1 }] });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain("search_creature");
    const cr = await ok("build_encounter", { party_levels: [3], monsters: [{ cr: "1/2", count: 2 }] });
    expect(cr.rating.total_xp).toBe(200);
    // With a difficulty too: how far the group is from it (2024 Moderate for 4 × level 5: 2,001–3,000 XP; the group
    // has 1,200).
    const gap = await ok("build_encounter", {
      party_levels: [5, 5, 5, 5],
      difficulty: "moderate",
      monsters: [
        { name: "Ogre", count: 2 },
        { name: "Goblin Warrior", count: 6 },
      ],
    });
    expect(gap.message).toBe("For moderate, add about 801 XP (target 2,001–3,000).");
  });

  test("the Wizard's level table with spell slots (tool and resource)", async () => {
    const a = await ok("class_progression", { class: "Wizard" });
    expect(a.class.key).toBe("2014-wizard");
    expect(a.levels).toHaveLength(20);
    expect(a.levels[4]).toMatchObject({
      level: 5,
      proficiency_bonus: "+3",
      cantrips_known: "4",
      spell_slots: [4, 3, 2],
    });
    expect(a.levels[0].features).toEqual(["Spellcasting: Wizard", "Arcane Recovery"]);
    const part = await ok("class_progression", { class: "wizard", level_min: 3, level_max: 4 });
    expect(part.levels.map((l: Obj) => l.level)).toEqual([3, 4]);
    const res = await client.readResource({ uri: "lorekeeper://class/2014-wizard/levels" });
    const body = JSON.parse((res.contents[0] as { text: string }).text);
    expect(body.levels[19].spell_slots).toEqual([4, 3, 3, 3, 3, 2, 2, 1, 1]);
    await expect(client.readResource({ uri: "lorekeeper://class/nobody/levels" })).rejects.toThrow(/No class "nobody"/);
  });

  test("prompts: list and get", async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual([
      "prepare_encounter",
      "find_monsters",
      "explain_rule",
      "spell_card",
      "creature_card",
      "compare_editions",
      "class_at_level",
    ]);
    for (const p of prompts) expect(p.description!.length).toBeGreaterThan(20);
    const enc = await client.getPrompt({
      name: "prepare_encounter",
      arguments: {
        party: "4 level-5 characters",
        difficulty: "moderate",
        creature_type: "undead",
        documents: "srd-2024",
      },
    });
    const text = (enc.messages[0]!.content as { text: string }).text;
    expect(text).toContain("build_encounter");
    expect(text).toContain('type "undead"');
    expect(text).toContain('documents ["srd-2024"]');
    const card = await client.getPrompt({ name: "spell_card", arguments: { name: "Fireball" } });
    expect((card.messages[0]!.content as { text: string }).text).toContain('search_spell with name "Fireball"');
    await expect(client.getPrompt({ name: "spell_card", arguments: {} })).rejects.toThrow(/name/);
    await expect(client.getPrompt({ name: "nope" })).rejects.toThrow(/nope/);
  });

  test("the compare_editions prompt calls the compare_editions tool with arguments it takes", async () => {
    const textOfPrompt = async (args: Record<string, string>) =>
      ((await client.getPrompt({ name: "compare_editions", arguments: args })).messages[0]!.content as { text: string })
        .text;
    const plain = await textOfPrompt({ name: "Fireball" });
    expect(plain).toContain('Call compare_editions with {"name":"Fireball"}.');
    expect(plain).not.toContain("search_spell");
    // The prompt's kind in the tool's words ("Magic items" → magic-item, the catalog's "Monster" → creature).
    expect(await textOfPrompt({ name: "Bag of Holding", kind: "Magic items" })).toContain(
      'Call compare_editions with {"name":"Bag of Holding","kind":"magic-item"}.',
    );
    const owlbear = await textOfPrompt({ name: "Owlbear", kind: "monster" });
    expect(owlbear).toContain('Call compare_editions with {"name":"Owlbear","kind":"creature"}.');
    // What the prompt says to send, the tool accepts.
    const args = JSON.parse(
      /compare_editions with (\{[^}]*\})/.exec(await textOfPrompt({ name: "Fireball", kind: "Spell" }))![1]!,
    ) as Record<string, unknown>;
    expect(args).toEqual({ name: "Fireball", kind: "spell" });
    const r = await client.callTool({ name: "compare_editions", arguments: args });
    expect(r.isError).toBeFalsy();
  });

  test("completions: lorekeeper://spell/fire… and prompt arguments", async () => {
    const kinds = await client.complete({
      ref: { type: "ref/resource", uri: "lorekeeper://{kind}/{key}" },
      argument: { name: "kind", value: "sp" },
    });
    expect(kinds.completion.values).toEqual(["spell", "species"]);
    const keys = await client.complete({
      ref: { type: "ref/resource", uri: "lorekeeper://{kind}/{key}" },
      argument: { name: "key", value: "fire" },
      context: { arguments: { kind: "spell" } },
    });
    const fire = sampleEntities()
      .filter((e) => e.kind === "spell" && e.name.toLowerCase().startsWith("fire"))
      .map((e) => e.key);
    expect(fire.length).toBeGreaterThan(1);
    expect([...keys.completion.values].sort()).toEqual([...fire].sort());
    expect(keys.completion.total).toBe(fire.length);
    expect(keys.completion.hasMore).toBe(false);
    const names = await client.complete({
      ref: { type: "ref/prompt", name: "creature_card" },
      argument: { name: "name", value: "gh" },
    });
    expect(names.completion.values).toEqual(["Ghast", "Ghost Knight", "Ghoul"]);
    const docs = await client.complete({
      ref: { type: "ref/prompt", name: "spell_card" },
      argument: { name: "documents", value: "srd" },
    });
    expect(docs.completion.values.every((d) => d.startsWith("srd"))).toBe(true);
    const cls = await client.complete({
      ref: { type: "ref/prompt", name: "class_at_level" },
      argument: { name: "class", value: "w" },
    });
    expect(cls.completion.values).toEqual(["Wizard"]);
    const diff = await client.complete({
      ref: { type: "ref/prompt", name: "prepare_encounter" },
      argument: { name: "difficulty", value: "" },
      context: { arguments: { edition: "2014" } },
    });
    expect(diff.completion.values).toEqual(["easy", "medium", "hard", "deadly"]);
    await expect(
      client.complete({ ref: { type: "ref/prompt", name: "nope" }, argument: { name: "x", value: "" } }),
    ).rejects.toThrow(/Unknown prompt/);
  });
});
