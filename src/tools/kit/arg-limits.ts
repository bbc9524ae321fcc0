/**
 * Limits on the shape of tool arguments, checked before the schema sees them: nesting depth and
 * number of values. A value nested 100,000 deep or a list of a million items is refused in
 * microseconds with one sentence, and nothing ever stringifies or walks the whole input. Pure.
 */

/** Deepest nesting accepted in one argument value (real arguments are scalars or lists of them: depth 1–2). */
export const MAX_ARG_DEPTH = 8;
/** Most values inside the arguments (list items, object members), counted over all of them. */
export const MAX_ARG_NODES = 10_000;

/**
 * What is wrong with the shape of `raw`'s parameters named in `known` (one clause naming the
 * parameter), or undefined. Unknown parameters are not walked: they are refused by name anyway.
 */
export function argShapeProblem(raw: unknown, known: ReadonlySet<string>): string | undefined {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return undefined;
  let nodes = 0;
  for (const [param, value] of Object.entries(raw)) {
    if (!known.has(param)) continue;
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
