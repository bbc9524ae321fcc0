/**
 * Tool parameters from the filter table (src/entities/filters.ts): one zod parameter per table parameter a search
 * tool's group takes, and the StructuredFilters of parsed arguments.
 */
import * as z from "zod";
import type { ToolGroup } from "../../entities/catalog.ts";
import { filterParam, paramsOfGroup, type TableParam } from "../../entities/filters.ts";
import type { StructuredFilters } from "../../search/types.ts";
import { bool, cr, filterKey, int, num, vocab } from "./params.ts";
import { canonical } from "./vocab.ts";

type Enum = readonly [string, ...string[]];

/** The zod parameter of one table parameter, described as `group`'s tool words it. */
function paramSchema(p: TableParam, group?: ToolGroup) {
  const description = (group && p.descriptionIn?.[group]) ?? p.description ?? "";
  const input = p.input;
  switch (input.type) {
    case "int":
      return int(input.min, input.max ?? Number.MAX_SAFE_INTEGER, description);
    case "number":
      return num(input.min, input.max ?? Number.MAX_SAFE_INTEGER, description);
    case "cr":
      return cr(description, input.exact ?? false);
    case "key":
      return filterKey(description);
    case "bool":
      return bool(description);
    case "dice":
      return z
        .string()
        .trim()
        .regex(/^\d*d\d+$/i, 'must look like "1d8" or "2d6"')
        .transform((s) => s.toLowerCase())
        .describe(description);
    case "vocab":
      return vocab(input.values as unknown as Enum, description, { ...input.aliases });
    case "values": {
      const values = input.values as unknown as Enum;
      const one = z.preprocess((v) => canonical(v, values, { ...input.aliases }), z.enum(values));
      return z.preprocess((v) => (typeof v === "string" ? [v] : v), z.array(one).min(1).max(10)).describe(description);
    }
  }
}

/**
 * `{ level: ..., school: ... }`: the optional filter parameters of a group's search tool, in table order, by their
 * tool name (`p.tool`: `type` for creature_type in search_creature).
 */
export function filterParams(group: ToolGroup): Record<string, z.ZodOptional<ReturnType<typeof paramSchema>>> {
  const out: Record<string, z.ZodOptional<ReturnType<typeof paramSchema>>> = {};
  for (const p of paramsOfGroup(group)) out[p.tool ?? p.name] = paramSchema(p, group).optional();
  return out;
}

/** One table parameter as an optional tool parameter elsewhere (build_encounter's alignment). */
export function tableParam(name: string) {
  const p = filterParam(name);
  if (!p) throw new Error(`no filter parameter ${name} in the filter table`);
  return paramSchema(p).optional();
}

/** The filters given in a group tool's parsed arguments ("" and null count as not given). */
export function filterArgs(args: Record<string, unknown>, group: ToolGroup): StructuredFilters {
  const out: Record<string, unknown> = {};
  for (const p of paramsOfGroup(group)) {
    const v = args[p.tool ?? p.name];
    if (v !== undefined && v !== null && v !== "") out[p.name] = v;
  }
  return out as StructuredFilters;
}
