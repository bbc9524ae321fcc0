/**
 * Argument fuzzing of the MCP tools: a seeded PRNG (mulberry32, never Math.random), a generator of
 * hostile tools/call params driven by the input schemas the server publishes in tools/list, and
 * the oracle every answer must satisfy.
 *
 * Reproduce a run with LOREKEEPER_FUZZ_SEED=<seed> (printed by the test); change its size with
 * LOREKEEPER_FUZZ_CALLS=<total calls>.
 */
import type { CallToolResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";

export const DEFAULT_FUZZ_SEED = 0x5eed1e55;

/** Seed from LOREKEEPER_FUZZ_SEED (decimal or 0x hex), else the fixed default. */
export function fuzzSeed(): number {
  const raw = process.env.LOREKEEPER_FUZZ_SEED?.trim();
  if (!raw) return DEFAULT_FUZZ_SEED;
  const n = Number(raw);
  if (!Number.isFinite(n)) throw new Error(`LOREKEEPER_FUZZ_SEED must be a number (got ${JSON.stringify(raw)})`);
  return n >>> 0;
}

/** Total calls from LOREKEEPER_FUZZ_CALLS, else `fallback`. */
export function fuzzCalls(fallback: number): number {
  const raw = process.env.LOREKEEPER_FUZZ_CALLS?.trim();
  if (!raw) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`LOREKEEPER_FUZZ_CALLS must be a whole number ≥ 1 (got ${JSON.stringify(raw)})`);
  return n;
}

export class Rng {
  private a: number;
  constructor(seed: number) {
    this.a = seed >>> 0;
  }
  /** [0, 1) */
  next(): number {
    this.a = (this.a + 0x6d2b79f5) >>> 0;
    let t = this.a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  /** Whole number in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
}

/** Text a leaked stack trace, raw exception or driver error would show. Fuzz inputs never contain these. */
export const LEAK_PATTERNS: readonly RegExp[] = [
  /\n\s*at\s+\S/,
  /\bat\s+\S{0,200}\s*\(?[^\s()]{1,300}:\d+:\d+\)?/,
  /[\w/.-]{1,200}\.(ts|js|mjs|cjs):\d+/,
  /\b(TypeError|ReferenceError|RangeError|SyntaxError|EvalError|ZodError|SQLiteError|AggregateError)\b/,
  /SQLITE_[A-Z]+/,
  /undefined is not/,
  /null is not an object/,
  /is not a function/,
  /Cannot read propert/,
  /node_modules/,
  /"code":\s*"invalid_/,
  /MCP error -32603/,
  /internal error/i,
];

export function leaks(text: string): RegExp | undefined {
  return LEAK_PATTERNS.find((p) => p.test(text));
}

// ---------------------------------------------------------------------------------------------
// Value pools

const NAMES = [
  "Fireball",
  "fireball",
  "FIREBALL",
  "Fire Bolt",
  "fire-bolt",
  "srd_fireball",
  "tob_fireball",
  "Goblin",
  "Ancient Red Dragon",
  "ancient-red-*",
  "Ember_Spark",
  "100% Fire",
  "100\\% Fire",
  "Longsword",
  "Grappled",
  "Wizard",
  "dragon",
  "fire",
  "Shield",
];
const WILDCARDS = [
  "*",
  "%",
  "**",
  "%%",
  "*%*",
  "fire*",
  "*dragon*",
  "%fire",
  "f*i*r*e",
  "*_*",
  "_",
  "__",
  "%_%",
  "\\*",
  "\\%",
  "\\",
  "\\\\",
  "*\\",
  "?",
  "[a-z]*",
  "*".repeat(200),
  `${"%".repeat(199)}x`,
  "*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b",
  "fire*%_\\",
];
const QUERIES = [
  "protect from fire",
  "undead that drain life",
  "healing",
  "spells that heal wounds",
  "fire breathing beast",
  "magik missle",
  "firebal",
  "what happens when I fall",
  "thrown weapon that returns",
  "cold",
  "dragon",
];
const SQLISH = [
  "'",
  "''",
  '"',
  '""',
  "'; DROP TABLE entities; --",
  '" OR 1=1 --',
  "1; SELECT * FROM sqlite_master",
  "-- comment",
  "/* c */",
  "x' UNION SELECT sql FROM sqlite_master --",
  "%' OR '1'='1",
  "NULL",
  "null",
  "undefined",
  "0x00",
  "\\x00",
  "$1",
  "?",
  "?1",
  ":name",
  "@p",
  "ESCAPE '\\'",
];
const FTS5 = [
  "*",
  "fire*",
  '"fire',
  'fire"',
  '"""',
  "NEAR(fire ice, 2)",
  "NEAR(",
  "fire NEAR/3 ice",
  "fire AND",
  "AND",
  "OR",
  "NOT",
  "fire OR ice NOT cold",
  "fire AND (ice OR",
  "(((",
  ")))",
  "^fire",
  "name:fire",
  "text:fire",
  "{name text}: fire",
  "-fire",
  "+fire",
  "fire -- ice",
  "fire:*",
  "entities_fts",
  "rank",
  "bm25(entities_fts)",
  "MATCH",
  "fire\u0000ice",
];
const UNICODE = [
  "🔥🐉",
  "Feuerball – Zauber",
  "ファイアボール",
  "火球术",
  "كرة نار",
  "שלום",
  "Ｆｉｒｅｂａｌｌ",
  "fi\u0301reball",
  "e\u0301\u0301\u0301\u0301",
  "\u200b\u200b",
  "\u202eevil",
  "\ufeffFireball",
  "\ud800",
  "\udc00x",
  "𝕱𝖎𝖗𝖊",
  "ǅ",
  "İstanbul",
  "ß",
  "\u0000",
  "\u0007\u001b[31m",
  "\r\n",
  "\t \n",
  "Z̸̡̢a̵l̶g̷o̴",
];
const MISC = [
  "",
  " ",
  "   ",
  "a",
  "0",
  "-1",
  "1e309",
  "NaN",
  "Infinity",
  "-0",
  "true",
  "false",
  "[]",
  "{}",
  "<script>alert(1)</script>",
  "../../etc/passwd",
  "%s%s%n",
  "${process.exit(1)}",
  "{{7*7}}",
  "lorekeeper://spell/srd_fireball",
  "srd-2014",
  "srd-5e",
];
const DOC_KEYS = [
  "srd-2014",
  "srd-2024",
  "srd-5e",
  "tob",
  "homebrew-pack",
  "SRD-2014",
  "srd_2014",
  "nope",
  "wotc-srd",
  "a5e-ag",
];
const CONTENT_TYPES = [
  "Spell",
  "Creature",
  "MagicItem",
  "magic_item",
  "magic-items",
  "spells",
  "Rule",
  "Condition",
  "Class",
  "Feat",
  "Weapon",
  "Armor",
  "Equipment",
  "Species",
  "race",
  "nonsense",
  "SPELL",
];
const CRS = [
  "1/4",
  "1/8",
  "1/2",
  "0",
  "30",
  "31",
  "1/0",
  "0/0",
  "-1",
  "1 / 4",
  "one",
  "1/3",
  "24",
  "0.25",
  "1e1",
  " 5 ",
  "½",
];
const UNKNOWN_KEYS = [
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "Name",
  "LIMIT",
  "",
  " ",
  "name ",
  "ñame",
  "query",
  "search ",
  "filters",
  "$where",
  "1",
  "a".repeat(300),
  "level-min",
  "documents[]",
];

function huge(r: Rng): string {
  const unit = r.pick(["a", "fire ", "🔥", "'", '"', "*", "%", "\\", "é", "NEAR ", "\u0000", "火"]);
  const len = r.pick([201, 501, 1000, 5000, 20_000, 100_000]);
  return unit.repeat(Math.ceil(len / unit.length)).slice(0, len);
}

export function hostileString(r: Rng): string {
  const roll = r.int(0, 9);
  if (roll === 0) return huge(r);
  const pool = r.pick([WILDCARDS, SQLISH, FTS5, UNICODE, MISC, QUERIES, NAMES]);
  let s = r.pick(pool);
  if (r.chance(0.2)) s = `${s} ${r.pick(r.pick([SQLISH, FTS5, UNICODE, WILDCARDS]))}`;
  return s;
}

function deep(depth: number, leaf: unknown, asArray: boolean): unknown {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = asArray ? [v] : { a: v };
  return v;
}

/** Something of the wrong type (or a hostile number). */
function wrongValue(r: Rng): unknown {
  return r.pick<() => unknown>([
    () => null,
    () => true,
    () => false,
    () => 0,
    () => -1,
    () => 1e308,
    () => -1e308,
    () => 3.5,
    () => 2 ** 53 + 2,
    () => -(2 ** 31),
    () => 5e-324,
    () => ({}),
    () => [],
    () => [null],
    () => [1, "two", null, {}],
    () => ({ $gt: 0 }),
    () => ({ name: "Fireball" }),
    () => deep(r.int(2, 150), "x", r.chance(0.5)),
    // far deeper than any parameter, refused before the schema walks it.
    () => deep(r.pick([3000, 5000]), "x", r.chance(0.5)),
    () => Array.from({ length: r.pick([51, 200, 1000]) }, (_, i) => `item${i}`),
    () => "9".repeat(400),
    () => hostileString(r),
  ])();
}

type PropSchema = {
  type?: string | string[];
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  maxItems?: number;
  items?: PropSchema;
};

function mangleCase(r: Rng, s: string): string {
  return r.pick([
    s,
    s.toUpperCase(),
    ` ${s} `,
    s.replace(/[- ]/g, "_"),
    s.replace(/[ _]/g, "-"),
    s[0]!.toUpperCase() + s.slice(1),
  ]);
}

/** A plausible value for `name` given its schema (valid most of the time). */
function plausible(r: Rng, name: string, p: PropSchema): unknown {
  const types = Array.isArray(p.type) ? p.type : [p.type];
  if (p.enum) return mangleCase(r, String(r.pick(p.enum)));
  if (types.includes("integer") || types.includes("number")) {
    if (types.includes("string")) return r.pick([...CRS, 0.5, 3, 24, 0.125, 10]);
    const lo = p.minimum ?? 0;
    const hi = Math.min(p.maximum ?? 100, lo + 1000);
    const n = types.includes("integer") ? r.int(lo, hi) : Math.round((lo + r.next() * (hi - lo)) * 100) / 100;
    return r.chance(0.2) ? String(n) : n;
  }
  if (types.includes("boolean")) return r.pick([true, false, "true", "false", "yes", "no", "TRUE"]);
  if (name === "party_levels") return Array.from({ length: r.int(1, 6) }, () => r.int(1, 20));
  if (name === "monsters")
    return Array.from({ length: r.int(1, 3) }, () =>
      r.chance(0.2) ? { cr: r.pick(CRS), count: r.int(1, 20) } : { name: r.pick(NAMES), count: r.int(1, 20) },
    );
  if (types.includes("array")) {
    const pool = name === "content_types" ? CONTENT_TYPES : DOC_KEYS;
    return Array.from({ length: r.int(0, 3) }, () => r.pick(pool));
  }
  if (name === "search" || name === "query") return r.pick(QUERIES);
  if (name === "damage_dice") return r.pick(["1d8", "2d6", "1D4", "d12", "1d", "8", "1d8+2", "10d100"]);
  if (name === "cr" || name.startsWith("cr_")) return r.pick(CRS);
  if (name === "name") return r.pick([...NAMES, ...WILDCARDS.slice(0, 12)]);
  return r.pick([
    "wizard",
    "cleric",
    "1 action",
    "bonus action",
    "combat",
    "adventuring",
    "martial melee",
    "heavy",
    "wondrous item",
    "Wizard",
    "srd_wizard",
  ]);
}

/** A hostile value for a parameter of schema `p`. */
function hostile(r: Rng, p: PropSchema): unknown {
  const types = Array.isArray(p.type) ? p.type : [p.type];
  const roll = r.int(0, 5);
  if (roll <= 1) return wrongValue(r);
  if ((types.includes("integer") || types.includes("number")) && roll <= 3) {
    const lo = p.minimum ?? 0;
    const hi = p.maximum ?? 100;
    return r.pick<unknown>([
      lo - 1,
      hi + 1,
      lo - 0.5,
      hi + 0.5,
      lo + 0.5,
      -0,
      1e21,
      -1e21,
      `${hi + 1}`,
      " 3 ",
      "3.0",
      "0x10",
      "1e2",
      "١",
      "3 fire",
    ]);
  }
  if (types.includes("array") && roll <= 3) {
    return r.pick<() => unknown>([
      () => Array.from({ length: r.int(1, 4) }, () => hostileString(r)),
      () => Array.from({ length: (p.maxItems ?? 50) + 1 }, () => r.pick(DOC_KEYS)),
      () => hostileString(r),
      () => [[]],
      () => [""],
    ])();
  }
  return hostileString(r);
}

// ---------------------------------------------------------------------------------------------
// Cases

export type Expect = "answer" | "invalid-params";

export interface FuzzCase {
  id: number;
  tool: string;
  /** The raw tools/call params sent. */
  params: Record<string, unknown>;
  /** answer: a result or a tool error; invalid-params: a JSON-RPC error (-32602 / -32600) naming the problem. */
  expect: Expect;
  /** Parameters sent that the tool does not declare (the call must fail and name them). */
  unknownKeys: string[];
}

function propsOf(tool: Tool): Record<string, PropSchema> {
  return (tool.inputSchema.properties ?? {}) as Record<string, PropSchema>;
}

function argsFor(r: Rng, tool: Tool): { args: Record<string, unknown>; unknownKeys: string[] } {
  const props = propsOf(tool);
  const args: Record<string, unknown> = {};
  const hostility = r.pick([0, 0.15, 0.4, 0.8]);
  const density = r.pick([0.15, 0.3, 0.6]);
  for (const [name, p] of Object.entries(props)) {
    if (!r.chance(density) && !(tool.inputSchema.required ?? []).includes(name)) continue;
    args[name] = r.chance(hostility) ? hostile(r, p) : plausible(r, name, p);
  }
  const unknownKeys: string[] = [];
  if (r.chance(0.08)) {
    for (let i = r.int(1, 3); i > 0; i--) {
      const k = r.pick([...UNKNOWN_KEYS, ...Object.keys(props).map((n) => n.toUpperCase())]);
      if (Object.hasOwn(props, k)) continue;
      // JSON.parse makes "__proto__" an own property; an object literal would set the prototype.
      Object.defineProperty(args, k, {
        value: r.chance(0.5) ? plausible(r, "x", {}) : wrongValue(r),
        enumerable: true,
        configurable: true,
        writable: true,
      });
      if (!unknownKeys.includes(k)) unknownKeys.push(k);
    }
  }
  return { args, unknownKeys };
}

const ENVELOPES: ReadonlyArray<(r: Rng, tool: string) => { params: Record<string, unknown>; expect: Expect }> = [
  (r, t) => ({
    params: { name: t, arguments: r.pick<unknown>(["x", 42, true, [], [1, 2], ["name", "Fireball"], ""]) },
    expect: "invalid-params",
  }),
  (r) => ({ params: { name: r.pick<unknown>([42, null, true, {}, [], ""]), arguments: {} }, expect: "invalid-params" }),
  (r, t) => ({
    params: {
      name: r.pick([`${t}s`, t.toUpperCase(), ` ${t}`, "search", "' OR 1=1 --", "__proto__", "🔥", "x".repeat(5000)]),
      arguments: {},
    },
    expect: "invalid-params",
  }),
  (r, t) => ({
    params: {
      name: t,
      arguments: {},
      _meta: r.pick<unknown>(["x", 1, [], { progressToken: {} }, { progressToken: [1] }]),
    },
    expect: "invalid-params",
  }),
  (_r, t) => ({ params: { name: t, arguments: {}, task: { ttl: 1000 } }, expect: "invalid-params" }),
  (_r, t) => ({ params: { name: t, arguments: null }, expect: "answer" }),
  (_r, t) => ({ params: { name: t }, expect: "answer" }),
];

/** `n` cases over `tools` (as listed by the server), deterministic for a seed. */
export function makeCases(tools: readonly Tool[], seed: number, n: number): FuzzCase[] {
  const r = new Rng(seed);
  const out: FuzzCase[] = [];
  for (let id = 0; id < n; id++) {
    const tool = tools[id % tools.length]!;
    if (r.chance(0.04)) {
      const env = r.pick(ENVELOPES)(r, tool.name);
      out.push({
        id,
        tool: typeof env.params.name === "string" ? env.params.name : tool.name,
        params: env.params,
        expect: env.expect,
        unknownKeys: [],
      });
      continue;
    }
    const { args, unknownKeys } = argsFor(r, tool);
    out.push({ id, tool: tool.name, params: { name: tool.name, arguments: args }, expect: "answer", unknownKeys });
  }
  return out;
}

/** The case as a short line for a failure report. */
export function showCase(c: FuzzCase): string {
  const s = JSON.stringify(c.params, (_k, v: unknown) =>
    typeof v === "string" && v.length > 80 ? `${v.slice(0, 80)}…(${v.length})` : v,
  );
  return `#${c.id} ${s.length > 400 ? `${s.slice(0, 400)}…` : s}`;
}

// ---------------------------------------------------------------------------------------------
// Oracle

export type Outcome =
  | { kind: "result"; result: CallToolResult }
  | { kind: "rpc-error"; code: number; message: string }
  | { kind: "transport-error"; message: string };

/** Turn what `client.request` threw into an outcome. */
export function outcomeOfError(err: unknown): Outcome {
  const e = err as { code?: unknown; message?: string };
  const message = String(e?.message ?? err);
  if (typeof e?.code === "number" && e.code < 0)
    return { kind: "rpc-error", code: e.code, message: message.replace(/^MCP error -?\d+: /, "") };
  // Over HTTP a message the transport refuses comes back as a 4xx whose body is a JSON-RPC error.
  const body = /Error POSTing to endpoint: (\{.*\})\s*$/s.exec(message)?.[1];
  if (body) {
    try {
      const parsed = JSON.parse(body) as { error?: { code?: unknown; message?: unknown } };
      if (typeof parsed.error?.code === "number" && typeof parsed.error.message === "string")
        return { kind: "rpc-error", code: parsed.error.code, message: parsed.error.message };
    } catch {
      /* not JSON: a transport failure */
    }
  }
  return { kind: "transport-error", message };
}

const validator = new AjvJsonSchemaValidator();

export interface Oracle {
  /** undefined when the outcome is acceptable, else what is wrong. */
  check(c: FuzzCase, o: Outcome): string | undefined;
}

export function makeOracle(tools: readonly Tool[]): Oracle {
  const byName = new Map(
    tools.map((t) => [
      t.name,
      { tool: t, validate: t.outputSchema ? validator.getValidator(t.outputSchema) : undefined },
    ]),
  );
  return {
    check(c, o) {
      if (o.kind === "transport-error") return `transport failure: ${o.message.slice(0, 300)}`;
      if (o.kind === "rpc-error") {
        const leak = leaks(o.message);
        if (leak) return `JSON-RPC error leaks ${leak}: ${o.message.slice(0, 300)}`;
        if (c.expect !== "invalid-params")
          return `JSON-RPC error ${o.code} instead of a result or tool error: ${o.message.slice(0, 300)}`;
        // -32602 from the tools/call handler; -32600 when the message itself is not valid JSON-RPC
        // (e.g. "_meta": "x"). Task-augmented calls are refused by the handler too (no tool runs as a task).
        if (o.code !== -32602 && o.code !== -32600)
          return `JSON-RPC error code ${o.code}, expected -32602 or -32600: ${o.message.slice(0, 200)}`;
        if (o.message.length < 15 || o.message.length > 1000)
          return `JSON-RPC error message of ${o.message.length} characters: ${o.message.slice(0, 200)}`;
        if (!/tools\/call|arguments|Unknown tool|params|Invalid Request|task/.test(o.message))
          return `JSON-RPC error does not name the problem: ${o.message.slice(0, 200)}`;
        return undefined;
      }
      if (c.expect === "invalid-params") return "a malformed tools/call was answered with a result instead of -32602";
      const entry = byName.get(c.tool);
      if (!entry) return `no such tool ${c.tool}`;
      return checkResult(c, o.result, entry.tool, entry.validate);
    },
  };
}

function checkResult(
  c: FuzzCase,
  res: CallToolResult,
  tool: Tool,
  validate: ((v: unknown) => { valid: boolean; errorMessage?: string }) | undefined,
): string | undefined {
  const texts = (res.content ?? []).map((b) => (b.type === "text" ? b.text : ""));
  const text = texts.join("\n");
  if (texts.length === 0 || text.trim() === "") return "empty content";
  const leak = leaks(text) ?? (res.structuredContent ? leaks(JSON.stringify(res.structuredContent)) : undefined);
  if (leak) return `answer leaks ${leak}: ${text.slice(0, 300)}`;
  if (res.isError) {
    // First use of a type the store lacks, against an unreachable upstream: says what failed and how to fix it.
    if (
      /^(Could not load .+ data|The local store has no .+ data yet)/.test(text) &&
      /lorekeeper sync/.test(text) &&
      text.length < 3000
    )
      return undefined;
    if (text.length > 5000 || text.split("\n").some((l) => l.length > 500))
      return `tool error of ${text.length} characters (an input echoed whole?): ${text.slice(0, 300)}`;
    // Tools past lookup refuse some valid-looking calls with a sentence saying what to give instead.
    const domain = DOMAIN_ERRORS[c.tool];
    if (domain?.test(text))
      return text.length < 1500 ? undefined : `tool error of ${text.length} characters: ${text.slice(0, 300)}`;
    const m = /^Invalid arguments for ([\w]+):\n((?:- .+(?:\n|$))+)$/.exec(text);
    if (!m || m[1] !== c.tool) return `tool error does not say which arguments are wrong: ${text.slice(0, 300)}`;
    const props = Object.keys(tool.inputSchema.properties ?? {});
    for (const line of m[2]!.trim().split("\n")) {
      const named = /^- (unknown parameters? |arguments\b)/.test(line) || props.some((p) => line.startsWith(`- ${p}`));
      if (!named) return `tool error line names no parameter: ${line.slice(0, 200)}`;
    }
    for (const k of c.unknownKeys)
      if (!text.includes(JSON.stringify(k).slice(0, 40)))
        return `unknown parameter ${JSON.stringify(k)} not named in: ${text.slice(0, 300)}`;
    return undefined;
  }
  if (c.unknownKeys.length > 0) return `unknown parameter(s) ${JSON.stringify(c.unknownKeys)} accepted`;
  const sc = res.structuredContent as Record<string, unknown> | undefined;
  if (!sc) return "success without structuredContent";
  if (validate) {
    const v = validate(sc);
    if (!v.valid) return `structuredContent does not match the declared outputSchema: ${v.errorMessage}`;
  }
  const args = (c.params.arguments ?? {}) as Record<string, unknown>;
  if (tool.name === "list_documents") {
    const docs = sc.documents as unknown[];
    if (sc.count !== docs.length) return "count differs from documents.length";
    return args.format === undefined || String(args.format).trim().toLowerCase() !== "text"
      ? sameJson(text, sc)
      : undefined;
  }
  if (tool.name === "build_encounter") return checkEncounter(sc, args) ?? sameJson(text, sc);
  // A comparison lists its differences; a pattern or name matching several entries, its candidates.
  if (tool.name === "compare_editions") {
    const listed = Array.isArray(sc.differences) || Array.isArray(sc.candidates);
    return listed ? sameJson(text, sc) : "neither differences nor candidates";
  }
  if (tool.name === "class_progression") {
    const levels = sc.levels as Array<{ level: number }>;
    const lo = Number(args.level_min ?? 1);
    const hi = Number(args.level_max ?? 20);
    if (levels.some((l) => l.level < lo || l.level > hi)) return `levels outside ${lo}–${hi}`;
    return sameJson(text, sc);
  }
  // A tool without its own check above and without a result list (a new tool): its text and structured answer agree.
  if (!Array.isArray(sc.results)) return sameJson(text, sc);
  const results = sc.results as Array<{ similarity_score?: number }>;
  if (sc.count !== results.length) return `count ${String(sc.count)} differs from results.length ${results.length}`;
  if (results.length > 100) return `${results.length} results (limit is at most 100)`;
  const lim = Number(args.limit);
  if (args.limit !== undefined && Number.isInteger(lim) && results.length > lim)
    return `${results.length} results for limit ${lim}`;
  const ranked = String(args.search ?? args.query ?? "").trim() !== "";
  if (sc.search_mode === "structured" && ranked) return "a search was answered in structured mode";
  if (sc.search_mode !== "structured" && !ranked) return `no search but mode ${String(sc.search_mode)}`;
  let prev = 1;
  for (const h of results) {
    const s = h.similarity_score;
    if (ranked && (typeof s !== "number" || s < 0 || s > prev))
      return `similarity_score ${String(s)} out of order (previous ${prev})`;
    if (typeof s === "number") prev = s;
  }
  return sameJson(text, sc);
}

const DOMAIN_ERRORS: Record<string, RegExp> = {
  build_encounter: /^(Give the party|difficulty "|type "|No creature )/,
  class_progression: /^(No class |No .+ subclass |level_min )/,
  compare_editions: /^Neither SRD 5\.1 /,
  roll_odds: /^(Give |No creature |roll needs |half_on_save needs |.+'s actions have no attack)/,
};

/** A rated or proposed group adds up: total = Σ count × xp; 2014 adjusted = total × multiplier. */
function checkEncounter(sc: Record<string, unknown>, args: Record<string, unknown>): string | undefined {
  type Group = {
    monsters: Array<{ count: number; xp: number }>;
    total_xp: number;
    multiplier?: number;
    adjusted_xp?: number;
    difficulty: string;
  };
  const groups = [...(sc.rating ? [sc.rating as Group] : []), ...((sc.proposals as Group[] | undefined) ?? [])];
  for (const g of groups) {
    const sum = g.monsters.reduce((s, m) => s + m.count * m.xp, 0);
    if (sum !== g.total_xp) return `total_xp ${g.total_xp} but the monsters add up to ${sum}`;
    if (g.multiplier !== undefined && g.adjusted_xp !== Math.round(g.total_xp * g.multiplier))
      return `adjusted_xp ${g.adjusted_xp} is not ${g.total_xp} × ${g.multiplier}`;
  }
  if (sc.proposals && args.difficulty !== undefined) {
    const want = String(args.difficulty).trim().toLowerCase();
    for (const g of sc.proposals as Group[])
      if (g.difficulty !== want) return `proposal rated ${g.difficulty}, asked for ${want}`;
  }
  return undefined;
}

function sameJson(text: string, sc: unknown): string | undefined {
  try {
    if (JSON.stringify(JSON.parse(text)) !== JSON.stringify(sc)) return "text content differs from structuredContent";
  } catch {
    return "text content is not JSON";
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Running

export interface Tally {
  calls: number;
  results: number;
  toolErrors: number;
  rpcErrors: number;
  hybrid: number;
  /** Longest single call, ms. */
  slowest: number;
  failures: string[];
}

export function emptyTally(): Tally {
  return { calls: 0, results: 0, toolErrors: 0, rpcErrors: 0, hybrid: 0, slowest: 0, failures: [] };
}

/** Run every case through `call` with at most `concurrency` in flight, checking each outcome. */
export async function runCases(
  cases: readonly FuzzCase[],
  call: (c: FuzzCase) => Promise<Outcome>,
  oracle: Oracle,
  concurrency: number,
): Promise<Tally> {
  const t = emptyTally();
  let next = 0;
  const worker = async () => {
    while (next < cases.length) {
      const c = cases[next++]!;
      const started = performance.now();
      const o = await call(c);
      const ms = performance.now() - started;
      t.slowest = Math.max(t.slowest, ms);
      if (ms > 5000) t.failures.push(`slow call: ${ms.toFixed(0)} ms\n    case ${showCase(c)}`);
      t.calls++;
      if (o.kind === "result") {
        if (o.result.isError) t.toolErrors++;
        else t.results++;
        if ((o.result.structuredContent as { search_mode?: string } | undefined)?.search_mode === "hybrid") t.hybrid++;
      } else if (o.kind === "rpc-error") t.rpcErrors++;
      const problem = oracle.check(c, o);
      if (problem) t.failures.push(`${problem}\n    case ${showCase(c)}`);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return t;
}
