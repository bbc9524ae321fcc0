/**
 * `lorekeeper search` options from the filter table (src/entities/filters.ts): one option per
 * table parameter (`--level 3`, `--cr-min 1/2`, `--speed fly`, `--property finesse,light`,
 * `--alignment evil`, `--legendary true`), the same filters as the MCP tools' parameters.
 */
import { FILTER_PARAMS, type TableParam } from "../../entities/filters.ts";
import type { StructuredFilters } from "../../search/types.ts";
import { list, type Options } from "../args.ts";
import { UsageError } from "../command.ts";

function flag(param: string): string {
  return param.replace(/_/g, "-");
}

const PLACEHOLDERS: Partial<Record<TableParam["input"]["type"], string>> = {
  bool: "true|false",
  values: "V[,V]",
  int: "N",
  number: "N",
  cr: "N",
};

function helpText(p: TableParam): string {
  if (p.help) return p.help;
  const input = p.input;
  if (input.type === "vocab" || input.type === "values") return input.values.join(", ");
  if (p.description) return p.description;
  if (input.type === "cr") return "a challenge rating, e.g. 5 or 1/4";
  if (input.type === "bool") return "true or false";
  return input.type === "int" || input.type === "number" ? "a number" : "";
}

export const FILTER_OPTIONS: Options = Object.fromEntries(
  FILTER_PARAMS.map((p) => [
    flag(p.name),
    p.input.type === "values" ? { type: "string" as const, multiple: true } : { type: "string" as const },
  ]),
);

/** An option and its placeholder, padded to the help column; a longer one still gets two spaces. */
function optionColumn(p: TableParam): string {
  const head = `  --${flag(p.name)} ${PLACEHOLDERS[p.input.type] ?? "V"}`;
  return head.length < 30 ? head.padEnd(32) : `${head}  `;
}

/** Help lines for the filter options. */
export const FILTER_HELP = FILTER_PARAMS.map(
  (p) => `${optionColumn(p)}${p.column.kinds.join("/")}: ${helpText(p)}`,
).join("\n");

/** Parsed option values → structured filters; a bad value is a UsageError naming the valid ones. */
export function filtersFromOptions(values: Record<string, unknown>): StructuredFilters {
  const out: Record<string, unknown> = {};
  for (const p of FILTER_PARAMS) {
    const raw = values[flag(p.name)];
    if (raw === undefined) continue;
    const s = Array.isArray(raw) ? "" : String(raw).trim();
    switch (p.input.type) {
      case "bool":
        if (s.toLowerCase() !== "true" && s.toLowerCase() !== "false")
          throw new UsageError(`--${flag(p.name)} must be true or false (got "${raw}")`);
        out[p.name] = s.toLowerCase() === "true";
        break;
      case "int":
      case "number": {
        const n = Number(s);
        if (s === "" || !Number.isFinite(n)) throw new UsageError(`--${flag(p.name)} must be a number (got "${raw}")`);
        out[p.name] = n;
        break;
      }
      case "values":
        out[p.name] = list(raw as string[]);
        break;
      default:
        if (s) out[p.name] = p.input.type === "cr" ? s : s.toLowerCase();
    }
  }
  return out as StructuredFilters;
}
