/**
 * Tool parameters of the derived filters (src/entities/derived.ts): one zod parameter per filter
 * that applies to a tool's kinds, with its vocabulary as an enum and its description, and the
 * matching StructuredFilters from parsed arguments.
 */
import * as z from "zod";
import { derivedFiltersFor, type DerivedFilter } from "../entities/derived.ts";
import type { EntityKind } from "../entities/types.ts";
import type { StructuredFilters } from "../search/types.ts";
import { bool } from "./params.ts";
import { canonical } from "./vocab.ts";

function param(f: DerivedFilter) {
  if (f.type === "bool") return bool(f.description).optional();
  const values = f.values as unknown as readonly [string, ...string[]];
  const one = z.preprocess((v) => canonical(v, values, f.aliases ?? {}), z.enum(values));
  return z
    .preprocess((v) => (typeof v === "string" ? [v] : v), z.array(one).min(1).max(10))
    .describe(f.description)
    .optional();
}

/** `{ speed: ..., sense: ... }` for the derived filters of `kinds`. */
export function derivedParams(kinds: readonly EntityKind[]): Record<string, ReturnType<typeof param>> {
  const out: Record<string, ReturnType<typeof param>> = {};
  for (const f of derivedFiltersFor(kinds)) out[f.param] = param(f);
  return out;
}

/** The derived filters given in parsed tool arguments. */
export function derivedArgs(args: Record<string, unknown>, kinds: readonly EntityKind[]): StructuredFilters {
  const out: Record<string, unknown> = {};
  for (const f of derivedFiltersFor(kinds)) if (args[f.param] !== undefined) out[f.param] = args[f.param];
  return out as StructuredFilters;
}
