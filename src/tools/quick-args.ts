/**
 * Tool arguments parsed parameter by parameter: the same output as the tool's object schema,
 * without running all of its 20-odd parameter schemas for the one or two a call sends. Pure.
 *
 * zod's object parse runs every parameter's schema, sent or not (an absent one gets its default
 * or nothing), and builds the output in the schema's order. Here the absent parameters' part is
 * computed once per schema, by zod itself (the parse of `{}`), and only the sent parameters are
 * run, each through its own schema. Whenever that could differ from the object parse, the quick
 * parse declines (undefined) and the caller runs the object schema, which also words every error:
 * - a schema with checks of its own (refine) or one that `{}` does not satisfy (a required
 *   parameter), or whose defaults are not plain values (they would be shared between calls);
 * - arguments that are not a plain object, or that name a parameter the schema does not have;
 * - a sent value its schema refuses, or one it turns into nothing.
 * A test compares both parses over every tool and many argument sets (test/tools/quick-args.test.ts).
 */
import type * as z from "zod";

interface Plan {
  /** The schema's parameters, in its order (the order of the output's keys). */
  keys: readonly string[];
  /** The output of `{}`: the absent parameters' defaults. */
  absent: Readonly<Record<string, unknown>>;
}

/** Per schema: its plan, or null when it cannot be parsed this way. */
const plans = new WeakMap<z.ZodObject, Plan | null>();

function planOf(schema: z.ZodObject): Plan | null {
  let plan = plans.get(schema);
  if (plan !== undefined) return plan;
  plan = null;
  const checks = (schema._zod.def as { checks?: readonly unknown[] }).checks;
  if (!checks || checks.length === 0) {
    const empty = schema.safeParse({});
    if (empty.success && Object.values(empty.data).every((v) => v === null || typeof v !== "object")) {
      plan = { keys: Object.keys(schema.shape), absent: empty.data };
    }
  }
  plans.set(schema, plan);
  return plan;
}

/** `raw` parsed by `schema` (see the file comment), or undefined when the object parse must decide. */
export function quickParse<S extends z.ZodObject>(schema: S, raw: unknown): z.output<S> | undefined {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return undefined;
  const plan = planOf(schema);
  if (!plan) return undefined;
  const sent = raw as Record<string, unknown>;
  for (const k in sent) if (!Object.hasOwn(schema.shape, k)) return undefined;
  const out: Record<string, unknown> = {};
  for (const k of plan.keys) {
    if (Object.hasOwn(sent, k)) {
      const r = (schema.shape[k] as z.ZodType).safeParse(sent[k]);
      if (!r.success || r.data === undefined) return undefined;
      out[k] = r.data;
    } else if (Object.hasOwn(plan.absent, k)) out[k] = plan.absent[k];
  }
  return out as z.output<S>;
}
