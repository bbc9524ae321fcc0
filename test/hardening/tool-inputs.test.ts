/**
 * Hardening, tool and protocol inputs through a real MCP client (in-memory transport) over
 * a real store: challenge ratings that are not challenge ratings, completion argument names that
 * are Object.prototype's, a homebrew class whose uris did not resolve, and a prompt level that is
 * no level.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { join } from "node:path";
import { importOrcbrewFile } from "../../src/ingest/import-orcbrew.ts";
import { encounterCreatures } from "../support/encounter-creatures.ts";
import { makeStore, sampleEntities } from "../support/entities.ts";
import { connectInMemory, makeDeps, textOf } from "../support/mcp.ts";

let client: Client;
let close: () => Promise<void>;
let cleanup: () => void;

beforeAll(async () => {
  const s = makeStore([...sampleEntities(), ...encounterCreatures()]);
  cleanup = s.cleanup;
  const r = importOrcbrewFile(s.store.db, join(import.meta.dir, "..", "fixtures", "orcbrew", "all-types.orcbrew"));
  if (!r.ok) throw new Error(`fixture import failed: ${JSON.stringify(r.error)}`);
  ({ client, close } = await connectInMemory(makeDeps(s.store)));
});

afterAll(async () => {
  await close();
  cleanup();
});

const call = async (name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;

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
    for (const [cr, xp] of [
      ["1/8", 25],
      [0.125, 25],
      [2, 450],
      ["30", 155000],
      [0, 10],
    ] as const) {
      const r = await call("build_encounter", { party_levels: [5, 5, 5, 5], monsters: [{ cr, count: 1 }] });
      expect(r.isError).toBeFalsy();
      expect((r.structuredContent as { rating: { total_xp: number } }).rating.total_xp).toBe(xp);
    }
  });
});

describe("completion/complete with Object.prototype's names", () => {
  for (const name of ["__proto__", "toString", "constructor", "hasOwnProperty"]) {
    test(`argument ${name}: an empty completion the SDK client accepts (was: {}, and the client threw)`, async () => {
      const r = await client.complete({
        ref: { type: "ref/prompt", name: "spell_card" },
        argument: { name, value: "Fi" },
      });
      expect(r.completion).toEqual({ values: [], total: 0, hasMore: false });
    });
  }
});

describe("class_progression on a homebrew class", () => {
  /** Every lorekeeper:// uri anywhere in a value. */
  function urisIn(v: unknown, out: string[] = []): string[] {
    if (typeof v === "string" && v.startsWith("lorekeeper://")) out.push(v);
    else if (Array.isArray(v)) for (const x of v) urisIn(x, out);
    else if (v && typeof v === "object") for (const x of Object.values(v)) urisIn(x, out);
    return out;
  }

  test("every uri it returns resolves, and so does the class's …/levels form with its orcbrew: key", async () => {
    const r = await call("class_progression", { class: "Ember Knight", subclass: "Cinder Oath" });
    expect(r.isError).toBeFalsy();
    const uris = [...new Set([...urisIn(r.structuredContent), ...urisIn(r.content)])];
    expect(uris.length).toBeGreaterThanOrEqual(2);
    for (const uri of uris) {
      const read = await client.readResource({ uri });
      expect(read.contents.length).toBeGreaterThan(0);
    }
    const cls = (r.structuredContent as { class: { uri: string } }).class;
    expect(cls.uri).toStartWith("lorekeeper://class/orcbrew:");
    const levelsUri = `${cls.uri}/levels`;
    const levels = await client.readResource({ uri: levelsUri });
    const table = JSON.parse((levels.contents[0] as { text: string }).text) as {
      class: { name: string; uri: string };
      levels: unknown[];
    };
    expect(table.class.name).toBe("Ember Knight");
    expect(table.levels).toHaveLength(20);
    expect(table.class.uri).toBe(cls.uri);
  });
});

describe("prompts/get class_at_level", () => {
  for (const level of ["-99999999999999999999", "0", "21", "2.5", "five"]) {
    test(`level ${JSON.stringify(level)} is refused with the range (was: put into the prompt text)`, async () => {
      const err = await client.getPrompt({ name: "class_at_level", arguments: { class: "Wizard", level } }).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(err?.message).toContain("level must be a whole number from 1 to 20");
    });
  }

  test("a real level reaches the prompt", async () => {
    const p = await client.getPrompt({ name: "class_at_level", arguments: { class: "Wizard", level: "5" } });
    expect(JSON.stringify(p.messages)).toContain("level_max 5");
  });
});
