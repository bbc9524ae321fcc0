/**
 * Calls the server makes to itself once after start, while nobody asks anything: name lookups,
 * misspelled names and filtered lists of every search tool over entries of the store, and
 * list_documents (whose table of the store's documents is then remembered), sent as JSON-RPC lines
 * to an in-process server (loopback.ts): the line transport, the SDK's request handling, the tool
 * handlers, the answer shaping and its encoding, as a client's requests run. Their answers are
 * dropped.
 *
 * Why: JavaScriptCore compiles a function to machine code only after it has run many times, so a
 * new server's first calls run in the interpreter and cost 1.5–2× what the same calls cost later
 * (docs/benchmark.md, issue 22). Running the common paths a few dozen times while the server is
 * idle moves the first real questions of a conversation into compiled code. Through the transport
 * rather than the tool handlers alone: a misspelled name's first use then cost 0.94–1.05 ms of
 * server CPU instead of 1.16–1.33 (ninth session). Each tool's other filter families too (a
 * class's spells, armor by category, rules by section…): a list of a family the warm-up had not
 * run cost 20 % more server CPU on its first use, since its statements and code paths were new
 * (tenth session).
 *
 * And a search by meaning a round, when the embedding model is loaded already (the server loads
 * it at start for a store with vectors of it): the query embedding, both legs and their fusion
 * were the largest code compiled during a new server's first questions (tenth session).
 *
 * What it does not do: load data (no first-use download: only kinds the store holds, and the
 * tools get no loader), write anything, load a model (no search while none is loaded), or stand in
 * a question's way: each call waits until no search of a tool call runs (`whenIdle`), and the
 * warm-up stops after its rounds, or after the round in which its calls passed their budget of
 * milliseconds.
 */
import type { Database } from "bun:sqlite";
import { kindsOfGroup } from "../entities/catalog.ts";
import { ENTITY_KINDS, type EntityKind } from "../entities/types.ts";
import { log } from "../log.ts";
import { emptyKinds } from "../store/entities.ts";
import { DataGate } from "../tools/data-gate.ts";
import type { ToolDeps } from "../tools/deps.ts";
import { TOOL_BY_NAME } from "../tools/index.ts";
import type { WhenIdle } from "./deps.ts";
import { type Loopback, openLoopback } from "./loopback.ts";

/** Rounds over the call shapes, and the most time the warm-up may spend in calls. */
const WARM_ROUNDS = 24;
const WARM_BUDGET_MS = 800;

type Args = Record<string, unknown>;

interface Shape {
  tool: string;
  kinds: readonly EntityKind[];
  /** The shape asks for the store's names of `kinds` (a name lookup or a misspelling). */
  named?: boolean;
  /** A search by meaning: run only when the embedding model is loaded already. */
  ranked?: boolean;
  /** The arguments of round `i`, from the store's names of `kinds` (cycled) when `named`. */
  args(i: number, names: readonly string[]): Args | undefined;
}

const SCHOOLS = ["evocation", "abjuration", "conjuration", "divination", "enchantment", "illusion", "necromancy", "transmutation"];
const CRS = [0.125, 0.25, 0.5, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13];
const TYPES = ["beast", "humanoid", "undead", "fiend", "dragon", "monstrosity", "elemental", "construct"];
const CLASSES = ["wizard", "druid", "bard", "paladin", "ranger", "sorcerer", "warlock"];
const DAMAGE = ["fire", "lightning", "necrotic", "radiant", "thunder", "acid", "poison"];
const SECTIONS = ["combat", "spellcasting", "abilities", "adventuring", "monsters"];
/** A creature list by a filter column beyond CR and type (their statements differ), one per round. */
const CREATURE_FILTERS: Args[] = [{ size: "large", cr_max: 5 }, { legendary: true }, { damage_immunity: ["poison"] }, { environment: "forest" }, { spellcaster: true, cr_min: 3 }];

/** Searches by meaning, two texts per tool; one tool a round (an embedding costs more than a lookup). */
const PHRASES: ReadonlyArray<[string, EntityKind[], readonly string[]]> = [
  ["search_spell", ["spell"], ["breathe under water", "make a light in a dark cave"]],
  ["search_creature", ["creature"], ["a beast that climbs walls", "a spirit that possesses people"]],
  ["search_equipment", ["magic_item"], ["boots that let you walk on air", "a cloak that makes you hard to see"]],
  ["search_rule", ["rule"], ["resting to regain hit points", "being blinded in combat"]],
];
const SEARCH_SHAPES: Shape[] = PHRASES.map(([tool, kinds, texts], k) => ({
  tool,
  kinds,
  ranked: true,
  args: (i) => (i % PHRASES.length === k ? { search: texts[Math.floor(i / PHRASES.length) % texts.length] } : undefined),
}));

/** A misspelling of `name` (two letters swapped near its middle): the "did you mean" path. Pure. */
export function swapped(name: string): string {
  const i = Math.max(1, Math.floor(name.length / 2) - 1);
  return i + 1 < name.length ? name.slice(0, i) + name[i + 1] + name[i] + name.slice(i + 2) : `${name}x`;
}

/** A name lookup of round `i` (the store's names cycled), or its misspelling. */
function byName(tool: string, kinds: readonly EntityKind[], misspelt = false): Shape {
  return {
    tool,
    kinds,
    named: true,
    args: (i, names) => {
      const name = names.length ? names[(i + (misspelt ? 7 : 0)) % names.length]! : undefined;
      return name ? { name: misspelt ? swapped(name) : name } : undefined;
    },
  };
}

export const WARM_SHAPES: readonly Shape[] = [
  byName("search_spell", ["spell"]),
  byName("search_creature", ["creature"]),
  byName("search_equipment", kindsOfGroup("equipment")),
  byName("search_character_option", kindsOfGroup("character_option")),
  byName("search_rule", ["rule", "condition"]),
  byName("search_spell", ["spell"], true),
  byName("search_creature", ["creature"], true),
  { tool: "search_spell", kinds: ["spell"], args: (i) => ({ level: (i % 9) + 1, school: SCHOOLS[i % SCHOOLS.length], limit: 5 }) },
  { tool: "search_creature", kinds: ["creature"], args: (i) => ({ cr: CRS[i % CRS.length], limit: 10 }) },
  { tool: "search_creature", kinds: ["creature"], args: (i) => ({ type: TYPES[i % TYPES.length], cr_min: (i % 5) + 1, limit: 10 }) },
  { tool: "search_equipment", kinds: ["magic_item"], args: (i) => ({ type: "magic-item", rarity: ["rare", "very rare", "legendary"][i % 3], offset: 10 * (i % 3) }) },
  // The other filter families of each tool: a class's spells, flags and damage types, armor and
  // weapons by category or property, character options by type, rules by section.
  { tool: "search_spell", kinds: ["spell"], args: (i) => ({ class_key: CLASSES[i % CLASSES.length], level_max: (i % 4) + 1, limit: 5 }) },
  { tool: "search_spell", kinds: ["spell"], args: (i) => (i % 2 ? { ritual: true, level: (i % 3) + 2, limit: 5 } : { concentration: true, damage_type: DAMAGE[i % DAMAGE.length], limit: 5 }) },
  { tool: "search_creature", kinds: ["creature"], args: (i) => ({ ...CREATURE_FILTERS[i % CREATURE_FILTERS.length], limit: 10 }) },
  {
    tool: "search_equipment",
    kinds: ["armor", "weapon"],
    args: (i) => (i % 2 ? { type: "armor", category: ["light", "heavy", "shield"][i % 3], limit: 10 } : { type: "weapon", property: ["versatile", "thrown", "reach", "heavy"][(i / 2) % 4], limit: 10 }),
  },
  { tool: "search_character_option", kinds: kindsOfGroup("character_option"), args: (i) => ({ type: ["feat", "species", "class", "subclass"][i % 4], limit: 10 }) },
  { tool: "search_rule", kinds: ["rule"], args: (i) => ({ section: SECTIONS[i % SECTIONS.length], limit: 10 }) },
  ...SEARCH_SHAPES,
  // Often an assistant's first call; its table groups the whole store (30–55 ms), then is remembered.
  { tool: "list_documents", kinds: ENTITY_KINDS, args: () => ({}) },
];

/** Up to `n` names of answering entries of `kinds`, spread over the store. */
function namesOf(db: Database, kinds: readonly EntityKind[], n: number): string[] {
  const rows = db
    .query<{ name: string }, string[]>(`SELECT name FROM entities WHERE kind IN (${kinds.map(() => "?").join(",")}) AND dup_of IS NULL AND group_rank = 0 ORDER BY id`)
    .all(...kinds);
  const step = Math.max(1, Math.floor(rows.length / n));
  return rows.filter((_, i) => i % step === 0).slice(0, n).map((r) => r.name);
}

/**
 * Warm the tools' code paths (see above) over `deps`' store; resolves when done. Shapes whose
 * kinds the store lacks are left out; a store with none of them warms nothing.
 */
export async function warmCalls(deps: ToolDeps, whenIdle: WhenIdle, rounds = WARM_ROUNDS, budgetMs = WARM_BUDGET_MS, open: (deps: ToolDeps) => Promise<Loopback> = openLoopback): Promise<number> {
  // No loader: a warm-up never downloads, refreshes or waits for data. Its failures are not a client's (debug log).
  const quiet: ToolDeps = { ...deps, ensureData: undefined, background: true };
  const ctx = { deps: quiet, gate: new DataGate(quiet), progress: () => {} };
  // Searches only where the model is loaded already (the store has vectors of it): a warm-up never loads a model.
  const ranked = deps.modelState?.() === "ready";
  const shapes = WARM_SHAPES.filter((s) => (ranked || !s.ranked) && emptyKinds(deps.db, s.kinds).length < s.kinds.length);
  // The store's names per set of kinds, read once, when a shape first asks for them.
  const names = new Map<string, string[]>();
  const namesFor = (kinds: readonly EntityKind[]) => {
    const key = kinds.join(",");
    let list = names.get(key);
    if (!list) names.set(key, (list = namesOf(deps.db, kinds, rounds + 8)));
    return list;
  };
  let spent = 0;
  let calls = 0;
  // One step per idle moment: a question that comes meanwhile waits for one step at most.
  const idle = () => new Promise<void>((resolve) => whenIdle(0, resolve));
  // Through the transport when the in-process server answers; else the tool handlers alone.
  let loopback: Loopback | undefined;
  if (shapes.length > 0) {
    await idle();
    loopback = await open(quiet).catch((err: unknown) => void log.debug("warm-up loopback unavailable", err));
  }
  const one = async (shape: Shape, i: number) => {
    const args = shape.args(i, shape.named ? namesFor(shape.kinds) : []);
    const def = TOOL_BY_NAME.get(shape.tool);
    if (!args || !def) return;
    const t0 = performance.now();
    if (loopback) {
      const r = await loopback.request("tools/call", { name: shape.tool, arguments: args });
      if ("error" in r) log.debug(`warm-up call ${shape.tool} answered an error`, r.error);
    } else JSON.stringify({ jsonrpc: "2.0", id: 0, result: await def.call(args, ctx) });
    spent += performance.now() - t0;
    calls++;
  };
  try {
    // The first round always runs; the budget is checked between rounds.
    for (let i = 0; i < rounds && (i === 0 || spent < budgetMs); i++) {
      for (const shape of shapes) {
        await idle();
        await one(shape, i).catch((err: unknown) => log.debug("warm-up call failed", err));
      }
    }
  } finally {
    await loopback?.close();
  }
  log.debug(`code warm-up: ${calls} calls in ${Math.round(spent)} ms${loopback ? " (through the line transport)" : ""}`);
  return calls;
}
