/**
 * `lorekeeper search` options for the derived filters (src/entities/derived.ts) and class_key:
 * one option per filter (`--speed fly`, `--property finesse,light`, `--legendary true`), built
 * from the same declarative table as the MCP tools' parameters.
 */
import { DERIVED_FILTERS } from "../../entities/derived.ts";
import type { StructuredFilters } from "../../search/types.ts";
import { list, type Options } from "../args.ts";
import { UsageError } from "../command.ts";

function flag(param: string): string {
  return param.replace(/_/g, "-");
}

export const FILTER_OPTIONS: Options = Object.fromEntries([
  ...DERIVED_FILTERS.map((f) => [flag(f.param), f.type === "bool" ? { type: "string" as const } : { type: "string" as const, multiple: true }]),
  ["class-key", { type: "string" as const }],
]);

/** Help lines for the filter options. */
export const FILTER_HELP = [
  ...DERIVED_FILTERS.map((f) => `  --${flag(f.param)} ${f.type === "bool" ? "true|false" : "V[,V]"}`.padEnd(32) + `${f.kinds.join("/")}: ${f.type === "bool" ? f.description : f.values.join(", ")}`),
  `${"  --class-key K".padEnd(32)}spells castable by / subclasses of this class (e.g. wizard)`,
].join("\n");

/** Parsed option values → structured filters; a bad value is a UsageError naming the valid ones. */
export function filtersFromOptions(values: Record<string, unknown>): StructuredFilters {
  const out: Record<string, unknown> = {};
  for (const f of DERIVED_FILTERS) {
    const raw = values[flag(f.param)];
    if (raw === undefined) continue;
    if (f.type === "bool") {
      const s = String(raw).trim().toLowerCase();
      if (s !== "true" && s !== "false") throw new UsageError(`--${flag(f.param)} must be true or false (got "${raw}")`);
      out[f.param] = s === "true";
    } else {
      out[f.param] = list(raw as string[]);
    }
  }
  if (typeof values["class-key"] === "string" && values["class-key"].trim()) out.class_key = values["class-key"].trim().toLowerCase();
  return out as StructuredFilters;
}
