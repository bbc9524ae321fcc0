/**
 * Argument validation with messages written for the person (or model) who made the call: which
 * parameter, what was wrong, what is accepted. Replaces zod's generic issue text.
 */
import type * as z from "zod";

type Issue = z.core.$ZodIssue & { input?: unknown };

/** JSON of a value a caller sent, cut to `max` characters: error messages never echo a huge input whole. */
export function quote(v: unknown, max = 60): string {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > max ? `${s.slice(0, max)}…" (${s.length} characters)` : s;
}

function show(v: unknown): string {
  if (v === undefined) return "nothing";
  if (v === null) return "null";
  if (typeof v === "string") return `the string ${JSON.stringify(v.length > 60 ? `${v.slice(0, 60)}…` : v)}`;
  if (Array.isArray(v)) return "a list";
  if (typeof v === "object") return "an object";
  return `${typeof v} ${String(v)}`;
}

const EXPECTED: Record<string, string> = {
  number: "a number",
  int: "a whole number",
  string: "a string",
  boolean: "true or false",
  array: "a list",
  object: "an object",
};

function paramName(path: readonly PropertyKey[]): string {
  return path
    .map((p, i) => (typeof p === "number" ? `[${p}]` : `${i > 0 ? "." : ""}${String(p)}`))
    .join("");
}

function describeIssue(issue: Issue, validParams: readonly string[]): string {
  const p = paramName(issue.path);
  const subject = p || "arguments";
  switch (issue.code) {
    case "unrecognized_keys": {
      const keys = issue.keys.map((k) => quote(k)).join(", ");
      return `unknown parameter${issue.keys.length > 1 ? "s" : ""} ${keys}. Valid parameters: ${validParams.join(", ")}.`;
    }
    case "invalid_value": {
      const values = issue.values.map((v) => String(v)).join(", ");
      return `${subject}: ${quote(issue.input)} is not a valid value. Valid values: ${values}.`;
    }
    case "invalid_type": {
      if (issue.input === undefined) return `${subject} is required.`;
      return `${subject}: expected ${EXPECTED[issue.expected] ?? issue.expected}, got ${show(issue.input)}.`;
    }
    case "too_big": {
      const unit = issue.origin === "string" ? " characters" : issue.origin === "array" ? " items" : "";
      return `${subject}: must be at most ${String(issue.maximum)}${unit}${issue.origin === "number" ? ` (got ${String(issue.input)})` : ""}.`;
    }
    case "too_small": {
      const unit = issue.origin === "string" ? " characters" : issue.origin === "array" ? " items" : "";
      if (issue.origin === "string" && Number(issue.minimum) === 1) return `${subject}: must not be empty.`;
      return `${subject}: must be at least ${String(issue.minimum)}${unit}${issue.origin === "number" ? ` (got ${String(issue.input)})` : ""}.`;
    }
    default:
      return `${subject}: ${issue.message}.`.replace(/\.\.$/, ".");
  }
}

export type Parsed<T> = { ok: true; data: T } | { ok: false; message: string };

/** Validate `raw` against a tool's input schema; on failure, one readable message for all issues. */
export function parseToolArgs<S extends z.ZodObject>(tool: string, schema: S, raw: unknown): Parsed<z.output<S>> {
  const r = schema.safeParse(raw ?? {}, { reportInput: true });
  if (r.success) return { ok: true, data: r.data };
  const valid = Object.keys(schema.shape);
  const lines = [...new Set(r.error.issues.map((i) => `- ${describeIssue(i as Issue, valid)}`))];
  return { ok: false, message: `Invalid arguments for ${tool}:\n${lines.join("\n")}` };
}
