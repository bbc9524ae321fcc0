/**
 * Hardening round 3, tool and protocol inputs through a real MCP client (in-memory transport) over
 * a real store: challenge ratings that are not challenge ratings.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { encounterCreatures } from "../support/encounter-creatures.ts";
import { makeStore, sampleEntities } from "../support/entities.ts";
import { connectInMemory, makeDeps, textOf } from "../support/mcp.ts";

let client: Client;
let close: () => Promise<void>;
let cleanup: () => void;

beforeAll(async () => {
  const s = makeStore([...sampleEntities(), ...encounterCreatures()]);
  cleanup = s.cleanup;
  ({ client, close } = await connectInMemory(makeDeps(s.store)));
});

afterAll(async () => {
  await close();
  cleanup();
});

const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;

describe("build_encounter challenge ratings", () => {
  for (const cr of [2.5, "1/3", 1e-9, 0.3, "2.5"]) {
    test(`cr ${JSON.stringify(cr)} is refused as not a challenge rating (was: 0 XP, "low", no warning)`, async () => {
      const r = await call("build_encounter", { party_levels: [5, 5, 5, 5], monsters: [{ cr, count: 4 }] });
      expect(r.isError).toBe(true);
      expect(textOf(r)).toContain("is not a challenge rating");
      expect(textOf(r)).toContain("1/8, 1/4, 1/2");
    });
  }

  test("real challenge ratings, written either way, still count their XP", async () => {
    for (const [cr, xp] of [["1/8", 25], [0.125, 25], [2, 450], ["30", 155000], [0, 10]] as const) {
      const r = await call("build_encounter", { party_levels: [5, 5, 5, 5], monsters: [{ cr, count: 1 }] });
      expect(r.isError).toBeFalsy();
      expect((r.structuredContent as { rating: { total_xp: number } }).rating.total_xp).toBe(xp);
    }
  });
});
