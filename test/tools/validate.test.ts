/**
 * tools/kit/validate.ts (through the tool registry): argument errors name the parameter, the problem and the valid
 * values.
 */
import { describe, expect, test } from "bun:test";
import * as z from "zod";
import { TOOLS } from "../../src/tools/index.ts";
import { vocab } from "../../src/tools/kit/params.ts";
import { parseToolArgs } from "../../src/tools/kit/validate.ts";

describe("argument errors", () => {
  const tool = (name: string) => TOOLS.find((t) => t.name === name)!;
  const ctx = {} as never; // validation fails before the context is used

  test("name the parameter, the problem and the valid values", async () => {
    const r = await tool("search_creature").call(
      { size: "enormous", cr_min: -1, armor_class_min: "high", extra: true },
      ctx,
    );
    expect(r.isError).toBe(true);
    const text = (r.content[0] as { text: string }).text;
    expect(text).toStartWith("Invalid arguments for search_creature:");
    expect(text).toContain(
      'size: "enormous" is not a valid value. Valid values: tiny, small, medium, large, huge, gargantuan.',
    );
    expect(text).toContain("cr_min: must be a number from 0 to 30");
    expect(text).toContain('armor_class_min: expected a number, got the string "high".');
    expect(text).toContain('unknown parameter "extra". Valid parameters:');
    expect(text).not.toContain("MCP error");
  });

  test("required and empty values", async () => {
    const missing = await tool("search_all").call({}, ctx);
    expect((missing.content[0] as { text: string }).text).toContain("query is required.");
    const empty = await tool("search_all").call({ query: "   " }, ctx);
    expect((empty.content[0] as { text: string }).text).toContain("query: must not be empty.");
  });

  test("a required vocabulary parameter left out is said to be required, with its values", () => {
    const schema = z.object({ kind: vocab(["spell", "creature"] as const, "") }).strict();
    const r = parseToolArgs("compare_entries", schema, {});
    expect(r.ok).toBe(false);
    const message = r.ok ? "" : r.message;
    expect(message).toContain("kind is required. Valid values: spell, creature.");
    expect(message).not.toContain("undefined");
  });
});
