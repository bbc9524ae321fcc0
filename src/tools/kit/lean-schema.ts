/**
 * The tools/list answer without JSON Schema noise that says nothing: the `$schema` URL on every
 * schema, integer bounds equal to the safe-integer range zod writes for `.int()`, and
 * `propertyNames: {type: "string"}` (JSON keys always are), empty `properties`, `items` and
 * `additionalProperties` objects (they allow what their absence allows), `type: "string"` beside
 * an enum of strings. Every constraint stays. And portable: a `type: [A, B]` union (the MCP
 * Inspector warns on it; several function-calling clients reject it) becomes the number type of a
 * number-or-string (challenge ratings, whose written forms the server reads too) or else `anyOf`.
 * Pure; applied once (the answer is computed once per process).
 */

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const SAFE = Number.MAX_SAFE_INTEGER;

function isEmptyObject(x: Json): boolean {
  return !!x && typeof x === "object" && !Array.isArray(x) && Object.keys(x).length === 0;
}

export function leanSchema(v: Json): Json {
  if (Array.isArray(v)) return v.map(leanSchema);
  if (!v || typeof v !== "object") return v;
  const out: { [k: string]: Json } = {};
  for (const [k, x] of Object.entries(v)) {
    if (k === "$schema" || (k === "description" && x === "")) continue;
    if ((k === "minimum" && x === -SAFE) || (k === "maximum" && x === SAFE)) continue;
    if (
      k === "propertyNames" &&
      x &&
      typeof x === "object" &&
      !Array.isArray(x) &&
      Object.keys(x).length === 1 &&
      x.type === "string"
    )
      continue;
    // `properties: {}` and `additionalProperties: {}` allow what an absent keyword allows.
    if ((k === "properties" || k === "additionalProperties" || k === "items") && isEmptyObject(x)) continue;
    // An enum of strings says the type already.
    if (k === "type" && x === "string" && Array.isArray(v.enum) && v.enum.every((e) => typeof e === "string")) continue;
    if (k === "type" && Array.isArray(x)) {
      // number-or-string (challenge ratings): advertised as the number it means, the server also
      // reads the written form ("1/4"), as it does "3" for every number; otherwise anyOf (nullable).
      const numeric = x.find((t) => t === "number" || t === "integer");
      if (numeric && !x.includes("null")) out.type = numeric;
      else out.anyOf = x.map((t) => ({ type: t }));
      continue;
    }
    out[k] = leanSchema(x);
  }
  return out;
}

/**
 * Length limits of inputs (and `minItems: 1` on filter lists): enforced (with a clear message) when a call arrives; no
 * help to a model choosing arguments.
 */
const INPUT_LIMITS = new Set(["maxLength", "minLength", "maxItems", "minItems"]);

function withoutLimits(v: Json): Json {
  if (Array.isArray(v)) return v.map(withoutLimits);
  if (!v || typeof v !== "object") return v;
  const out: { [k: string]: Json } = {};
  for (const [k, x] of Object.entries(v)) if (!INPUT_LIMITS.has(k) || typeof x !== "number") out[k] = withoutLimits(x);
  return out;
}

/**
 * Output schemas without the properties that only state a JSON type (`"total": {"type": "integer"}`)
 * in objects open to more fields: `required` still names every field an answer always has, and no
 * model chooses arguments by them.
 */
function outputLean(v: Json): Json {
  if (Array.isArray(v)) return v.map(outputLean);
  if (!v || typeof v !== "object") return v;
  const out: { [k: string]: Json } = {};
  for (const [k, x] of Object.entries(v)) {
    // (Not where additionalProperties is false: there a property left out would be refused.)
    if (k === "properties" && x && typeof x === "object" && !Array.isArray(x) && v.additionalProperties !== false) {
      const kept: { [k: string]: Json } = {};
      for (const [name, p] of Object.entries(x)) {
        const typeOnly =
          !!p &&
          typeof p === "object" &&
          !Array.isArray(p) &&
          Object.keys(p).length === 1 &&
          typeof p.type === "string";
        if (!typeOnly) kept[name] = outputLean(p);
      }
      if (Object.keys(kept).length) out.properties = kept;
    } else out[k] = outputLean(x);
  }
  return out;
}

/** A tools/list result with lean input and output schemas. */
export function leanToolList<T>(answer: T): T {
  const a = answer as { tools?: Array<{ inputSchema?: Json; outputSchema?: Json }> };
  if (!Array.isArray(a?.tools)) return answer;
  return {
    ...a,
    tools: a.tools.map(
      ({ execution, ...t }: { execution?: { taskSupport?: string }; inputSchema?: Json; outputSchema?: Json }) => ({
        // No task support is what an absent `execution` means.
        ...(execution && execution.taskSupport !== "forbidden" ? { execution } : {}),
        ...t,
        ...(t.inputSchema ? { inputSchema: withoutLimits(leanSchema(t.inputSchema)) } : {}),
        ...(t.outputSchema ? { outputSchema: outputLean(leanSchema(t.outputSchema)) } : {}),
      }),
    ),
  } as T;
}
