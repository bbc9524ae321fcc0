/**
 * A development set kept outside the project (`../shared/eval/relevance-dev.json`: cases of
 * `{id, tool, args, k, any?, prefix?}`) read as eval queries, for `bun run eval -- --queries FILE`.
 * `any` names count when equal (case-insensitive), `prefix` names when a result's name starts
 * with them; a case is a hit when its first relevant result is within its own `k`.
 */
import { readFileSync } from "node:fs";
import type { EvalQuery, ToolName } from "./eval-queries.ts";

const TOOLS: readonly ToolName[] = [
  "search_spell",
  "search_creature",
  "search_equipment",
  "search_character_option",
  "search_rule",
  "search_all",
];

export function loadDevSet(path: string): EvalQuery[] {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (err) {
    throw new Error(`--queries ${path}: not a readable JSON file (${(err as Error).message})`);
  }
  const cases = (raw as { cases?: unknown }).cases;
  if (!Array.isArray(cases)) throw new Error(`--queries ${path}: expected {"cases": [...]}`);
  return cases.map((c, i) => {
    const x = c as { id?: unknown; tool?: unknown; args?: unknown; k?: unknown; any?: unknown; prefix?: unknown };
    const id = typeof x.id === "string" ? x.id : `case-${i + 1}`;
    if (typeof x.tool !== "string" || !TOOLS.includes(x.tool as ToolName))
      throw new Error(`--queries ${path}: ${id}: unknown tool ${String(x.tool)}`);
    if (!x.args || typeof x.args !== "object") throw new Error(`--queries ${path}: ${id}: no args`);
    const names = (v: unknown) => (Array.isArray(v) ? v.filter((n): n is string => typeof n === "string") : []);
    const targets = [...names(x.any), ...names(x.prefix).map((n) => `${n}*`)];
    if (targets.length === 0) throw new Error(`--queries ${path}: ${id}: no target names`);
    return {
      id,
      origin: "own",
      tool: x.tool as ToolName,
      args: x.args as Record<string, unknown>,
      targets,
      ...(typeof x.k === "number" ? { k: x.k } : {}),
    };
  });
}
