/**
 * compare_editions: both SRDs' versions of one entry, the differences named field by field, the
 * text's change measured; either edition's name works; a missing side or entry is said plainly.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Entity } from "../../src/entities/types.ts";
import { connectInMemory, makeDeps, textOf } from "../support/mcp.ts";
import { makeEntity, makeStore } from "../support/entities.ts";

function withData(e: Entity, data: Record<string, unknown>): Entity {
  return { ...e, data: { ...e.data, ...(data as Entity["data"]) } };
}

/** An SRD 5.2 goblin with its CR, AC and HP. */
const goblin2024 = (name: string, cr: number, ac: number, hp: number) =>
  withData(makeEntity("creature", name, { cr }, { doc: "srd-2024" }), { cr, armor_class: ac, hit_points: hp });

let client: Client;
let close: () => Promise<void>;
let cleanup: () => void;
beforeAll(async () => {
  const made = makeStore([
    withData(makeEntity("spell", "Fireball", { level: 3, school: "evocation" }), {
      level: 3,
      school: "evocation",
      range: "150 feet",
      desc: "A bright streak flashes from your pointing finger. Each creature takes 8d6 fire damage on a failed save.",
    }),
    withData(makeEntity("spell", "Fireball", { level: 3, school: "evocation" }, { doc: "srd-2024" }), {
      level: 3,
      school: "evocation",
      range: "150 feet",
      desc:
        "A bright streak flashes from you to a point. Each creature there " +
        "makes a Dexterity save, taking 8d6 Fire damage on a failed one.",
    }),
    withData(makeEntity("creature", "Thug", { cr: 0.5 }), {
      cr: 0.5,
      armor_class: 11,
      hit_points: 32,
      desc: "A hired brute.",
    }),
    withData(makeEntity("creature", "Tough", { cr: 0.5 }, { doc: "srd-2024" }), {
      cr: 0.5,
      armor_class: 12,
      hit_points: 32,
      desc: "Muscle for hire.",
    }),
    withData(makeEntity("spell", "Power Word Heal", { level: 9 }, { doc: "srd-2024" }), {
      level: 9,
      desc: "A wave of healing energy.",
    }),
    // Goblins: SRD 5.2 renamed the Goblin "Goblin Warrior" (renames.json) and added a Boss and a Minion.
    withData(makeEntity("creature", "Goblin", { cr: 0.25 }), { cr: 0.25, armor_class: 15, hit_points: 7 }),
    goblin2024("Goblin Boss", 1, 17, 21),
    goblin2024("Goblin Minion", 0.125, 12, 7),
    goblin2024("Goblin Warrior", 0.25, 15, 10),
    makeEntity("item", "Abacus", {}),
    makeEntity("item", "Acid", {}),
    // One name, two kinds: the SRD 5.1 Acolyte is a creature (SRD 5.2: Priest Acolyte) and a background.
    makeEntity("creature", "Acolyte", { cr: 0.25 }),
    makeEntity("creature", "Priest Acolyte", { cr: 0.25 }, { doc: "srd-2024" }),
    makeEntity("background", "Acolyte", {}, { key: "srd_acolyte-background" }),
    makeEntity("background", "Acolyte", {}, { doc: "srd-2024", key: "srd-2024_acolyte-background" }),
  ]);
  cleanup = made.cleanup;
  ({ client, close } = await connectInMemory(makeDeps(made.store)));
});
afterAll(async () => {
  await close();
  cleanup();
});

const compare = async (args: Record<string, unknown>) => {
  const r = await client.callTool({ name: "compare_editions", arguments: args });
  return {
    r,
    a: (r.structuredContent ?? {}) as {
      srd_2014: { name: string } | null;
      srd_2024: { name: string } | null;
      differences: Array<Record<string, unknown>>;
      same?: string[];
      message?: string;
      candidates?: Array<{ name: string; kind: string; documents: string[]; renamed_to?: string }>;
    },
  };
};

describe("compare_editions", () => {
  test("both versions, the same fields named, the text's change measured", async () => {
    const { a } = await compare({ name: "fireball" });
    expect(a.srd_2014?.name).toBe("Fireball");
    expect(a.srd_2024?.name).toBe("Fireball");
    expect(a.same).toEqual(expect.arrayContaining(["level", "school", "range", "damage"]));
    const t = a.differences.find((d) => d.field === "text")!;
    expect(String(t.change)).toMatch(/^rewritten: \d+% of the words shared$/);
  });

  test("a renamed entry by its 2014 name: both sides, the differences and the new name", async () => {
    const { a } = await compare({ name: "Thug" });
    expect([a.srd_2014?.name, a.srd_2024?.name]).toEqual(["Thug", "Tough"]);
    expect(a.differences).toContainEqual({ field: "armor_class", srd_2014: 11, srd_2024: 12 });
    expect(a.same).toContain("hit_points");
    expect(a.message).toContain('SRD 5.2 calls it "Tough"');
  });

  test("one side missing, and nothing found: said plainly", async () => {
    const { a } = await compare({ name: "Power Word Heal" });
    expect(a.srd_2014).toBeNull();
    expect(a.message).toContain('SRD 5.1 (srd-2014) has no "Power Word Heal"');
    const { r } = await compare({ name: "Glitterbomb" });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain("search_all");
  });

  test('"Goblin" is compared with the Goblin Warrior (rename table), as search_creature maps it', async () => {
    for (const name of ["Goblin", "goblin", "Goblin Warrior"]) {
      const { a } = await compare({ name });
      expect([a.srd_2014?.name, a.srd_2024?.name]).toEqual(["Goblin", "Goblin Warrior"]);
      expect(a.differences).toContainEqual({ field: "hit_points", srd_2014: 7, srd_2024: 10 });
      expect(a.candidates).toBeUndefined();
    }
  });

  test("a wildcard matching several entries lists them to choose from, comparing nothing", async () => {
    const { r, a } = await compare({ name: "gob*" });
    expect(r.isError).toBeFalsy();
    expect(a.srd_2014).toBeUndefined();
    expect(a.srd_2024).toBeUndefined();
    expect(a.candidates!.map((c) => c.name)).toEqual(["Goblin", "Goblin Boss", "Goblin Minion", "Goblin Warrior"]);
    const goblin = { name: "Goblin", kind: "creature", documents: ["srd-2014"], renamed_to: "Goblin Warrior" };
    expect(a.candidates![0]).toEqual(goblin);
    expect(a.message).toContain('"gob*" matches 4 entries');
    // "*" matches everything: never Abacus against Acid.
    const all = await compare({ name: "*" });
    expect(all.a.srd_2014).toBeUndefined();
    expect(all.a.candidates!.length).toBeGreaterThan(4);
    expect(all.a.message).toContain("nothing is compared");
  });

  test("a wildcard or part of a name matching one entry compares it", async () => {
    for (const name of ["fireb*", "firebal"]) {
      const { a } = await compare({ name });
      expect([a.srd_2014?.name, a.srd_2024?.name]).toEqual(["Fireball", "Fireball"]);
    }
    const { a } = await compare({ name: "goblin w*" });
    expect([a.srd_2014?.name, a.srd_2024?.name]).toEqual(["Goblin", "Goblin Warrior"]);
  });

  test("one name in two kinds: the candidates with their kinds; with a kind, that one", async () => {
    const { a } = await compare({ name: "Acolyte" });
    expect(a.candidates!.map((c) => `${c.kind}:${c.name}:${c.documents.join("+")}`)).toEqual([
      "background:Acolyte:srd-2014+srd-2024",
      "creature:Acolyte:srd-2014",
      "creature:Priest Acolyte:srd-2024",
    ]);
    expect(a.message).toContain("and its kind");
    const creature = await compare({ name: "Acolyte", kind: "creature" });
    expect([creature.a.srd_2014?.name, creature.a.srd_2024?.name]).toEqual(["Acolyte", "Priest Acolyte"]);
  });
});
