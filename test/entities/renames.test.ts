/**
 * Names SRD 5.2 changed: "Thug" finds the SRD 5.2 Tough (and the reverse), under the document
 * preference and with a documents filter, and build_encounter under the 2024 rules rates "Goblin"
 * with the SRD 5.2 Goblin Warrior, saying so (never another book's goblin).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { counterpart, RENAMES } from "../../src/entities/renames.ts";
import { answerOf, connectInMemory, makeDeps, namesOf, textOf } from "../support/mcp.ts";
import { makeEntity, makeStore } from "../support/entities.ts";

describe("the renames table", () => {
  test("one entry per name, both names distinct, every kind a searchable kind", () => {
    const names = new Set<string>();
    for (const r of RENAMES) {
      expect(r.srd51).not.toBe(r.srd52);
      for (const n of [`${r.kind}:${r.srd51.toLowerCase()}`, `${r.kind}:${r.srd52.toLowerCase()}`]) {
        expect(names.has(n)).toBe(false);
        names.add(n);
      }
      expect(["creature", "spell", "armor", "weapon", "magic_item", "item"]).toContain(r.kind);
    }
    expect(counterpart(["creature"], "thug")?.other).toBe("Tough");
    expect(counterpart(["creature"], "Goblin Warrior")?.other).toBe("Goblin");
    expect(counterpart(["spell"], "Thug")).toBeUndefined();
  });
});

describe("lookups by the other edition's name", () => {
  let client: Client;
  let close: () => Promise<void>;
  let cleanup: () => void;
  beforeAll(async () => {
    const made = makeStore([
      makeEntity("creature", "Thug", { cr: 0.5, creature_type: "humanoid" }, { text: "A hired tough." }),
      makeEntity(
        "creature",
        "Tough",
        { cr: 0.5, creature_type: "humanoid" },
        { doc: "srd-2024", text: "Muscle for hire." },
      ),
      makeEntity("creature", "Goblin", { cr: 0.25, creature_type: "humanoid" }, { text: "A small goblinoid." }),
      makeEntity(
        "creature",
        "Goblin Warrior",
        { cr: 0.25, creature_type: "fey" },
        { doc: "srd-2024", text: "A goblin with a scimitar." },
      ),
      makeEntity(
        "creature",
        "Goblin",
        { cr: 1, creature_type: "humanoid" },
        { doc: "tob", key: "tob_goblin", source: "open5e_v2", text: "Another book's goblin." },
      ),
    ]);
    cleanup = made.cleanup;
    ({ client, close } = await connectInMemory(makeDeps(made.store)));
  });
  afterAll(async () => {
    await close();
    cleanup();
  });

  test(
    "a 2014 name under the default (SRD 5.2 first) preference: " +
      "the SRD 5.2 entry first, both listed, the answer says so",
    async () => {
      const r = await client.callTool({ name: "search_creature", arguments: { name: "Thug" } });
      expect(namesOf(r)).toEqual(["Tough", "Thug"]);
      expect(String(answerOf(r).message)).toContain(
        '"Thug" (SRD 5.1, srd-2014) is named "Tough" in SRD 5.2 (srd-2024). Both are listed.',
      );
    },
  );

  test("with a documents filter the other edition's name answers alone", async () => {
    const r = await client.callTool({ name: "search_creature", arguments: { name: "Thug", documents: ["srd-2024"] } });
    expect(namesOf(r)).toEqual(["Tough"]);
    expect(String(answerOf(r).message)).toContain('Answered with "Tough"');
    expect(String(answerOf(r).message)).not.toContain("Did you mean");
    const back = await client.callTool({
      name: "search_creature",
      arguments: { name: "Tough", documents: ["srd-2014"] },
    });
    expect(namesOf(back)).toEqual(["Thug"]);
  });

  test(
    'build_encounter: "Goblin" under the 2024 rules is the SRD 5.2 ' +
      "Goblin Warrior; under 2014 the SRD 5.1 Goblin, never another book's",
    async () => {
      const r24 = await client.callTool({
        name: "build_encounter",
        arguments: { party_levels: [1, 1, 1, 1], edition: "2024", monsters: [{ name: "Goblin", count: 4 }] },
      });
      const t24 = textOf(r24);
      expect(t24).toContain("Goblin Warrior");
      expect(String((JSON.parse(t24) as { message?: string }).message)).toContain(
        'is named "Goblin Warrior" in SRD 5.2 (srd-2024). Rated with the SRD 5.2 stat block.',
      );
      const r14 = await client.callTool({
        name: "build_encounter",
        arguments: { party_levels: [1, 1, 1, 1], edition: "2014", monsters: [{ name: "Goblin", count: 4 }] },
      });
      const t14 = textOf(r14);
      expect(t14).toContain("srd-2014");
      expect(t14).not.toContain("tob");
      // The SRD 5.2 name under the 2014 rules: the SRD 5.1 Goblin, and the note names that stat block.
      const back = await client.callTool({
        name: "build_encounter",
        arguments: { party_levels: [1, 1, 1, 1], edition: "2014", monsters: [{ name: "Goblin Warrior", count: 4 }] },
      });
      expect(String((JSON.parse(textOf(back)) as { message?: string }).message)).toContain(
        'is named "Goblin Warrior" in SRD 5.2 (srd-2024). Rated with the SRD 5.1 stat block.',
      );
    },
  );
});
