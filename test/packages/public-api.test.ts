/**
 * src/ uses only the public API of its dependencies: no underscore member of another package's
 * object (the SDK's `_onrequest`, `_wrapHandler`, zod's `_zod`...), no override of one, and no
 * fastembed internals fetched by name (`Reflect.get(model, "tokenizer" | "session")`). Such a
 * member can change in a patch release without a type error.
 */
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "../support/mcp.ts";

/**
 * Underscore names that are data, not a dependency's members: `_meta` is a field of the MCP
 * protocol's messages; `_name_or_path` a field of a model's config.json; `_copy` and `_mod` fields
 * of 5etools homebrew JSON.
 */
const DATA_FIELDS = new Set(["_meta", "_name_or_path", "_copy", "_mod"]);

/** Code without comments and string contents kept (a `"_x"` key is what Reflect.get and brackets use). */
function stripComments(code: string): string {
  return code.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
}

/** Each use of a dependency's internals in `code`, as the text that shows it. */
function internalsUsed(code: string): string[] {
  const found: string[] = [];
  const src = stripComments(code);
  for (const m of src.matchAll(/\?*\.\s*(_[A-Za-z]\w*)/g)) if (!DATA_FIELDS.has(m[1]!)) found.push(m[0]);
  for (const m of src.matchAll(/\[\s*["'`](_[A-Za-z]\w*)["'`]\s*\]/g)) if (!DATA_FIELDS.has(m[1]!)) found.push(m[0]);
  for (const m of src.matchAll(/\boverride\s+(?:async\s+)?(_\w+)/g)) found.push(m[0]);
  for (const m of src.matchAll(/Reflect\.\w+\([^,)]*,\s*["'`](tokenizer|session|_\w*)["'`]/g)) found.push(m[0]);
  return found;
}

describe("only public APIs of dependencies", () => {
  test("the check finds what it looks for", () => {
    expect(internalsUsed("(this as any)._onrequest(msg)")).toEqual(["._onrequest"]);
    expect(internalsUsed("protected override _wrapHandler(m, h) {}")).toEqual(["override _wrapHandler"]);
    expect(internalsUsed('const t = Reflect.get(model, "tokenizer");')).toEqual(['Reflect.get(model, "tokenizer"']);
    const found = internalsUsed("schema._zod.def; x?._transport; o['_private']");
    expect(found).toEqual(["._zod", "?._transport", "['_private']"]);
    expect(internalsUsed("ctx.mcpReq._meta?.progressToken; // calls _onrequest\n/* x._y */")).toEqual([]);
  });

  test("src/ names no underscore member of a dependency and fetches no fastembed internals", async () => {
    const offenders: string[] = [];
    let scanned = 0;
    for await (const rel of new Bun.Glob("src/**/*.{ts,tsx}").scan({ cwd: REPO_ROOT })) {
      scanned++;
      for (const use of internalsUsed(readFileSync(join(REPO_ROOT, rel), "utf8"))) offenders.push(`${rel}: ${use}`);
    }
    expect(scanned).toBeGreaterThan(100);
    expect(offenders).toEqual([]);
  });
});
