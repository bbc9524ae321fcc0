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

let client: Client;
let close: () => Promise<void>;
let cleanup: () => void;
beforeAll(async () => {
  const made = makeStore([
    withData(makeEntity("spell", "Fireball", { level: 3, school: "evocation" }), { level: 3, school: "evocation", range: "150 feet", desc: "A bright streak flashes from your pointing finger. Each creature takes 8d6 fire damage on a failed save." }),
    withData(makeEntity("spell", "Fireball", { level: 3, school: "evocation" }, { doc: "srd-2024" }), { level: 3, school: "evocation", range: "150 feet", desc: "A bright streak flashes from you to a point. Each creature there makes a Dexterity save, taking 8d6 Fire damage on a failed one." }),
    withData(makeEntity("creature", "Thug", { cr: 0.5 }), { cr: 0.5, armor_class: 11, hit_points: 32, desc: "A hired brute." }),
    withData(makeEntity("creature", "Tough", { cr: 0.5 }, { doc: "srd-2024" }), { cr: 0.5, armor_class: 12, hit_points: 32, desc: "Muscle for hire." }),
    withData(makeEntity("spell", "Power Word Heal", { level: 9 }, { doc: "srd-2024" }), { level: 9, desc: "A wave of healing energy." }),
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
  return { r, a: (r.structuredContent ?? {}) as { srd_2014: { name: string } | null; srd_2024: { name: string } | null; differences: Array<Record<string, unknown>>; same?: string[]; message?: string } };
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
});
