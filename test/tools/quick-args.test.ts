/** tools/quick-args.ts: the per-parameter parse gives what each tool's object schema gives, or declines. */
import { describe, expect, test } from "bun:test";
import * as z from "zod";
import { TOOLS } from "../../src/tools/index.ts";
import { quickParse } from "../../src/tools/quick-args.ts";
import { toolListAnswer } from "../../src/tools/tool-list.ts";

/** Values of every JSON type, right and wrong for most parameters (strings that read as numbers or booleans too). */
const POOL: unknown[] = [
  null, true, false, 0, 1, 3, -1, 2.5, 31, 101, 1e9, "", "  ", "3", " 5 ", "1/4", "yes", "no", "True",
  "Fireball", "  Fire Ball  ", "fire*", "EVOCATION", "x".repeat(600), [], ["srd-2014"], "srd-2014", ["a", 1], [""], {}, { a: 1 },
];

/** The enumerated values of a tool's parameter (its input JSON Schema), as sent and upper-cased. */
function enumValues(prop: Record<string, unknown> | undefined): unknown[] {
  const own = (prop?.enum ?? (prop?.items as { enum?: unknown[] } | undefined)?.enum ?? []) as unknown[];
  return own.flatMap((v) => (typeof v === "string" ? [v, v.toUpperCase(), [v]] : [v]));
}

function argumentSets(tool: string): Array<Record<string, unknown>> {
  const listed = toolListAnswer().tools.find((t) => t.name === tool)!;
  const props = (listed.inputSchema.properties ?? {}) as Record<string, Record<string, unknown>>;
  const params = Object.keys(props);
  const sets: Array<Record<string, unknown>> = [{}, { unknown_param: 1 }, { name: "Fireball", nme: "x" }];
  for (const p of params) {
    for (const v of [...POOL, ...enumValues(props[p])]) {
      sets.push({ [p]: v }, { name: "Goblin", [p]: v }, { [p]: v, search: "fire damage", limit: 5 });
    }
  }
  return sets;
}

describe("quickParse", () => {
  for (const tool of TOOLS) {
    test(`${tool.name}: the same output as the object schema, or none`, () => {
      const schema = tool.input as z.ZodObject;
      let quick = 0;
      for (const args of argumentSets(tool.name)) {
        const full = schema.safeParse(args);
        const fast = quickParse(schema, args);
        if (fast === undefined) continue;
        quick++;
        // Accepted only what the schema accepts, with the same keys in the same order.
        expect({ args, ok: full.success }).toEqual({ args, ok: true });
        expect(JSON.stringify(fast)).toBe(JSON.stringify(full.data));
        expect(fast).toEqual(full.data as Record<string, unknown>);
      }
      // The search tools (every parameter optional) take the quick path for most valid calls.
      if (tool.name.startsWith("search_") && tool.name !== "search_all") expect(quick).toBeGreaterThan(100);
    });
  }

  test("declines what it cannot decide: checks of the object, required parameters, shared defaults, unknown names", () => {
    const refined = z.object({ a: z.number().optional() }).strict().refine((o) => o.a !== 2);
    expect(quickParse(refined as unknown as z.ZodObject, { a: 1 })).toBeUndefined();
    const required = z.object({ a: z.string(), b: z.number().optional() }).strict();
    expect(quickParse(required, { a: "x" })).toBeUndefined();
    const sharedDefault = z.object({ list: z.array(z.string()).default([]) }).strict();
    expect(quickParse(sharedDefault, {})).toBeUndefined();
    const plain = z.object({ a: z.number().optional(), n: z.number().default(20) }).strict();
    expect(quickParse(plain, { a: 1 })).toEqual({ a: 1, n: 20 });
    expect(quickParse(plain, { a: 1, b: 2 })).toBeUndefined();
    expect(quickParse(plain, { a: "1" })).toBeUndefined();
    expect(quickParse(plain, [1])).toBeUndefined();
    expect(quickParse(plain, null)).toBeUndefined();
  });

  test("defaults are copied into each answer, never shared", () => {
    const plain = z.object({ a: z.number().optional(), n: z.number().default(20) }).strict();
    const first = quickParse(plain, {})!;
    (first as Record<string, unknown>).n = 5;
    expect(quickParse(plain, {})).toEqual({ n: 20 });
  });
});
