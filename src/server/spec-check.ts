/** Checks a value against one of the SDK's spec types (Standard Schema, synchronous). Pure. */
import { type SpecTypeName, specTypeSchemas } from "@modelcontextprotocol/server";

export interface SpecIssue {
  /** Where, e.g. ["params", "_meta"] (empty for the value itself). */
  path: string[];
  message: string;
}

/** The first issue of `value` as a `name` (undefined when it is one). */
export function specIssue(name: SpecTypeName, value: unknown): SpecIssue | undefined {
  const r = specTypeSchemas[name]["~standard"].validate(value);
  const issue = r.issues?.[0];
  if (!issue) return undefined;
  return { path: (issue.path ?? []).map((p) => String(typeof p === "object" && p !== null ? p.key : p)), message: issue.message };
}

/** True when every own enumerable key of `o` is one of `keys` (the hand checks' "nothing else sent"). */
export function hasOnlyKeys(o: object, keys: readonly string[]): boolean {
  for (const k in o) if (!keys.includes(k)) return false;
  return true;
}

/** `value` as a `name` (validated output), or undefined. */
export function asSpec<N extends SpecTypeName>(name: N, value: unknown): unknown {
  const r = specTypeSchemas[name]["~standard"].validate(value);
  return r.issues ? undefined : r.value;
}
