/**
 * Argument validation with messages written for the person (or model) who made the call: which
 * parameter, what was wrong, what is accepted. Replaces zod's generic issue text.
 *
 * Before the schema sees them, the arguments' shape is checked (nesting depth, number of values): a
 * value nested 100,000 deep or a list of a million items is refused in microseconds with one
 * sentence, and nothing ever stringifies or walks the whole input.
 */
import type * as z from "zod";
import { capText, safeJson } from "../../text/sanitize.ts";

/** Deepest nesting accepted in one argument value (real arguments are scalars or lists of them: depth 1–2). */
const MAX_ARG_DEPTH = 8;
/** Most values inside the arguments (list items, object members), counted over all of them. */
const MAX_ARG_NODES = 10_000;

/**
 * What is wrong with the shape of `raw`'s parameters that are keys of `known` (one clause naming the
 * parameter), or undefined. Unknown parameters are not walked: they are refused by name anyway.
 */
function argShapeProblem(raw: unknown, known: object): string | undefined {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return undefined;
  let nodes = 0;
  for (const [param, value] of Object.entries(raw)) {
    if (!Object.hasOwn(known, param)) continue;
    // Iterative walk with a budget: stops at the first limit crossed.
    const stack: Array<{ v: unknown; depth: number }> = [{ v: value, depth: 0 }];
    while (stack.length > 0) {
      const { v, depth } = stack.pop()!;
      // Parameters themselves are not counted: unknown ones are the schema's to name.
      if (depth > 0 && ++nodes > MAX_ARG_NODES)
        return `the arguments hold more than ${MAX_ARG_NODES} values; send short lists`;
      if (v === null || typeof v !== "object") continue;
      if (depth >= MAX_ARG_DEPTH)
        return (
          `${shortName(param)}: the value is nested more than ${MAX_ARG_DEPTH} levels deep (parameters take ` +
          `strings, numbers, booleans or short lists of them)`
        );
      const children = Array.isArray(v) ? v : Object.values(v);
      if (nodes + children.length > MAX_ARG_NODES)
        return `${shortName(param)}: the value holds more than ${MAX_ARG_NODES} items; send a short list`;
      for (const c of children) stack.push({ v: c, depth: depth + 1 });
    }
  }
  return undefined;
}

function shortName(p: string): string {
  return p.length > 60 ? `${JSON.stringify(p.slice(0, 60)).slice(0, -1)}…"` : p;
}

type Issue = z.core.$ZodIssue & { input?: unknown };

/** Error texts have a budget too: at most this many characters, problems and unknown names shown. */
export const MAX_ERROR_CHARS = 2000;
const MAX_LINES = 10;
const MAX_KEYS_SHOWN = 5;

/**
 * A value a caller sent, as JSON cut to about `max` characters: error messages never echo a huge
 * input whole, and never serialize more of it than they show (a list nested 100,000 deep is
 * described, not stringified). Bidi and C1 controls are written as \u escapes, as JSON writes C0 ones.
 */
export function quote(v: unknown, max = 60): string {
  if (typeof v === "string") {
    const s = safeJson(JSON.stringify(v.slice(0, max)));
    // Escapes (\u0000...) may make the JSON of `max` characters much longer: cut the JSON itself.
    if (s.length > max + 2) return `${s.slice(0, max)}…" (${v.length} characters)`;
    return v.length > max ? `${s.slice(0, -1)}…" (${v.length} characters)` : s;
  }
  if (Array.isArray(v)) return `a list of ${v.length} item${v.length === 1 ? "" : "s"}`;
  if (v !== null && typeof v === "object") return "an object";
  const s = String(v);
  return s.length > max ? `${s.slice(0, max)}…` : s;
}

function show(v: unknown): string {
  if (v === undefined) return "nothing";
  if (v === null) return "null";
  if (typeof v === "string") {
    const shown = v.length > 60 ? `${v.slice(0, 60)}…` : v;
    return `the string ${safeJson(JSON.stringify(shown))}`;
  }
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
  return path.map((p, i) => (typeof p === "number" ? `[${p}]` : `${i > 0 ? "." : ""}${String(p)}`)).join("");
}

function unknownParams(keys: readonly string[], validParams: readonly string[]): string {
  const shown = keys.slice(0, MAX_KEYS_SHOWN).map((k) => quote(k));
  const more = keys.length > MAX_KEYS_SHOWN ? ` and ${keys.length - MAX_KEYS_SHOWN} more` : "";
  const valid = `Valid parameters: ${validParams.join(", ")}.`;
  return `unknown parameter${keys.length > 1 ? "s" : ""} ${shown.join(", ")}${more}. ${valid}`;
}

function describeIssue(issue: Issue, validParams: readonly string[]): string {
  const subject = paramName(issue.path) || "arguments";
  switch (issue.code) {
    case "unrecognized_keys":
      return unknownParams(issue.keys, validParams);
    case "invalid_value": {
      const values = issue.values
        .slice(0, 40)
        .map((v) => String(v))
        .join(", ");
      // A required vocabulary parameter left out reaches the enum as undefined: say it is required.
      if (issue.input === undefined) return `${subject} is required. Valid values: ${values}.`;
      return `${subject}: ${quote(issue.input)} is not a valid value. Valid values: ${values}.`;
    }
    case "invalid_type": {
      if (issue.input === undefined) return `${subject} is required.`;
      return `${subject}: expected ${EXPECTED[issue.expected] ?? issue.expected}, got ${show(issue.input)}.`;
    }
    case "too_big":
    case "too_small": {
      const unit = issue.origin === "string" ? " characters" : issue.origin === "array" ? " items" : "";
      const got = issue.origin === "number" ? ` (got ${String(issue.input)})` : "";
      if (issue.code === "too_big") return `${subject}: must be at most ${String(issue.maximum)}${unit}${got}.`;
      if (issue.origin === "string" && Number(issue.minimum) === 1) return `${subject}: must not be empty.`;
      return `${subject}: must be at least ${String(issue.minimum)}${unit}${got}.`;
    }
    default:
      return `${subject}: ${issue.message}.`.replace(/\.\.$/, ".");
  }
}

export type Parsed<T> = { ok: true; data: T } | { ok: false; message: string };

/** Validate `raw` against a tool's input schema; on failure, one readable message for all issues. */
export function parseToolArgs<S extends z.ZodObject>(tool: string, schema: S, raw: unknown): Parsed<z.output<S>> {
  const valid = Object.keys(schema.shape);
  const shape = argShapeProblem(raw, schema.shape);
  if (shape) {
    const unknown = Object.keys(raw as object).filter((k) => !Object.hasOwn(schema.shape, k));
    const lines = [...(unknown.length ? [`- ${unknownParams(unknown, valid)}`] : []), `- ${shape}.`];
    return { ok: false, message: capText(`Invalid arguments for ${tool}:\n${lines.join("\n")}`, MAX_ERROR_CHARS) };
  }
  const r = schema.safeParse(raw ?? {}, { reportInput: true });
  if (r.success) return { ok: true, data: r.data };
  // A misspelled parameter first: it is the likeliest cause, and it must not be cut by the line cap.
  const issues = [...r.error.issues.slice(0, 100)].sort(
    (x, y) => Number(y.code === "unrecognized_keys") - Number(x.code === "unrecognized_keys"),
  );
  const lines = [...new Set(issues.map((i) => `- ${describeIssue(i as Issue, valid)}`))];
  const shown = lines.slice(0, MAX_LINES);
  const more = lines.length - shown.length + Math.max(0, r.error.issues.length - 100);
  // Said on the last line shown (every line names its parameter).
  if (more > 0) shown[shown.length - 1] += ` (and ${more} more problem${more === 1 ? "" : "s"} not shown)`;
  return { ok: false, message: capText(`Invalid arguments for ${tool}:\n${shown.join("\n")}`, MAX_ERROR_CHARS) };
}
