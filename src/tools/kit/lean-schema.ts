/**
 * The tools/list answer without JSON Schema noise that says nothing (`$schema`, the safe-integer bounds of
 * `.int()`, `propertyNames: {type: "string"}`, empty `properties`/`items`/`additionalProperties`, `type: "string"`
 * beside a string enum); every constraint stays. And portable: a `type: [A, B]` union (the MCP Inspector warns on
 * it; several function-calling clients reject it) becomes the number of a number-or-string, else `anyOf`. Pure.
 */

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type JsonObject = { [k: string]: Json };

const SAFE = Number.MAX_SAFE_INTEGER;

const isObject = (x: Json): x is JsonObject => !!x && typeof x === "object" && !Array.isArray(x);

/** `v` with every object rebuilt by `entry`, called on each of its members (it sets what is kept on `out`). */
function rebuild(v: Json, entry: (out: JsonObject, k: string, x: Json, parent: JsonObject) => void): Json {
  if (Array.isArray(v)) return v.map((x) => rebuild(x, entry));
  if (!isObject(v)) return v;
  const out: JsonObject = {};
  for (const [k, x] of Object.entries(v)) entry(out, k, x, v);
  return out;
}

export function leanSchema(v: Json): Json {
  return rebuild(v, (out, k, x, parent) => {
    if (k === "$schema" || (k === "description" && x === "")) return;
    if ((k === "minimum" && x === -SAFE) || (k === "maximum" && x === SAFE)) return;
    if (k === "propertyNames" && isObject(x) && Object.keys(x).length === 1 && x.type === "string") return;
    // `properties: {}` and `additionalProperties: {}` allow what an absent keyword allows.
    const emptyObject = isObject(x) && Object.keys(x).length === 0;
    if ((k === "properties" || k === "additionalProperties" || k === "items") && emptyObject) return;
    // An enum of strings says the type already.
    const { enum: values } = parent;
    if (k === "type" && x === "string" && Array.isArray(values) && values.every((e) => typeof e === "string")) return;
    if (k === "type" && Array.isArray(x)) {
      // number-or-string (challenge ratings): advertised as the number it means, the server also
      // reads the written form ("1/4"), as it does "3" for every number; otherwise anyOf (nullable).
      const numeric = x.find((t) => t === "number" || t === "integer");
      if (numeric && !x.includes("null")) out.type = numeric;
      else out.anyOf = x.map((t) => ({ type: t }));
      return;
    }
    out[k] = leanSchema(x);
  });
}

/**
 * Length limits of inputs (and `minItems: 1` on filter lists): enforced (with a clear message) when a call arrives; no
 * help to a model choosing arguments.
 */
const INPUT_LIMITS = new Set(["maxLength", "minLength", "maxItems", "minItems"]);

function withoutLimits(v: Json): Json {
  return rebuild(v, (out, k, x) => {
    if (!INPUT_LIMITS.has(k) || typeof x !== "number") out[k] = withoutLimits(x);
  });
}

/**
 * Output schemas without the properties that only state a JSON type (`"total": {"type": "integer"}`)
 * in objects open to more fields: `required` still names every field an answer always has, and no
 * model chooses arguments by them.
 */
function outputLean(v: Json): Json {
  return rebuild(v, (out, k, x, parent) => {
    // (Not where additionalProperties is false: there a property left out would be refused.)
    if (k !== "properties" || !isObject(x) || parent.additionalProperties === false) {
      out[k] = outputLean(x);
      return;
    }
    const kept: JsonObject = {};
    for (const [name, p] of Object.entries(x)) {
      const typeOnly = isObject(p) && Object.keys(p).length === 1 && typeof p.type === "string";
      if (!typeOnly) kept[name] = outputLean(p);
    }
    if (Object.keys(kept).length) out.properties = kept;
  });
}

/** tools/list entries with lean input and output schemas. */
export function leanTools<T extends { inputSchema?: object; outputSchema?: object }>(tools: readonly T[]): T[] {
  return tools.map((t) => ({
    ...t,
    ...(t.inputSchema ? { inputSchema: withoutLimits(leanSchema(t.inputSchema as Json)) } : {}),
    ...(t.outputSchema ? { outputSchema: outputLean(leanSchema(t.outputSchema as Json)) } : {}),
  }));
}
