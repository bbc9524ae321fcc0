/**
 * The fixed tool-call mix: per tool, structured-only calls (filters), `name` lookups and `search`
 * queries. There are more distinct search texts (80) than the embedder's query cache holds (64),
 * so going round the mix in order, every search call embeds its query afresh.
 */

export type Mode = "structured" | "name" | "search";

export interface CallSpec {
  /** Stable id, e.g. "search_spell/structured/0". */
  id: string;
  tool: string;
  mode: Mode;
  args: Record<string, unknown>;
}

type Args = Record<string, unknown>;

const STRUCTURED: Array<[string, Args]> = [
  ["search_spell", { level: 3, school: "evocation" }],
  ["search_spell", { class_key: "wizard", level_max: 2, concentration: true }],
  ["search_spell", { ritual: true }],
  ["search_spell", { damage_type: "fire", casting_time: "1 action" }],
  ["search_creature", { cr: 5 }],
  ["search_creature", { type: "undead", cr_max: 3 }],
  ["search_creature", { size: "huge", armor_class_min: 18 }],
  ["search_character_option", { type: "feat" }],
  ["search_character_option", { type: "class" }],
  ["search_equipment", { type: "weapon", is_simple: false }],
  ["search_equipment", { type: "magic-item", rarity: "legendary", requires_attunement: true }],
  ["search_equipment", { type: "armor", category: "heavy" }],
  ["search_rule", { rule_type: "condition" }],
  ["search_rule", { section: "combat" }],
  ["list_documents", {}],
];

const NAMES: Array<[string, Args]> = [
  ["search_spell", { name: "Fireball" }],
  ["search_spell", { name: "magic missile" }],
  ["search_spell", { name: "cure-wounds" }],
  ["search_spell", { name: "fire*" }],
  ["search_creature", { name: "Goblin" }],
  ["search_creature", { name: "Ancient Red Dragon" }],
  ["search_creature", { name: "*dragon*", limit: 10 }],
  ["search_character_option", { name: "Wizard" }],
  ["search_equipment", { name: "Longsword" }],
  ["search_equipment", { name: "Bag of Holding" }],
  ["search_rule", { name: "Grappled" }],
];

const SEARCH_TEXTS: Record<string, string[]> = {
  search_spell: [
    "damage over time",
    "protect allies from fire",
    "heal wounds",
    "teleport a short distance",
    "summon an elemental",
    "see invisible creatures",
    "control the weather",
    "charm a humanoid",
    "create light in darkness",
    "speak with the dead",
    "slow falling",
    "bind a fiend",
    "restore a lost limb",
    "freeze enemies with cold",
    "shield against arrows",
  ],
  search_creature: [
    "undead that drain life",
    "fire breathing beast",
    "shapechanger that mimics people",
    "swarm of insects",
    "giant spider in caves",
    "sea monster with tentacles",
    "flying mount",
    "demon from the abyss",
    "petrifying gaze",
    "regenerating troll",
    "ghost that possesses bodies",
    "construct guardian",
    "lycanthrope under the full moon",
    "dragon that breathes lightning",
    "plant creature in swamps",
  ],
  search_character_option: [
    "divine warrior",
    "sneaky thief",
    "nature spellcaster",
    "bard who inspires allies",
    "heavy armor fighter",
    "beast form druid",
    "half-elf heritage",
    "noble upbringing",
    "feat for archers",
    "tough dwarf",
    "stealthy halfling",
    "knowledge of arcane lore",
  ],
  search_equipment: [
    "protects against projectiles",
    "boots for walking on water",
    "ring of invisibility",
    "healing potion",
    "cloak that lets you fly",
    "sword that burns with fire",
    "bag that holds more than it should",
    "thieves tools",
    "heavy crossbow",
    "light armor for rogues",
    "staff of a wizard",
    "wand that shoots lightning",
    "rope for climbing",
    "amulet against poison",
  ],
  search_rule: [
    "what happens when I fall",
    "cover from attacks",
    "grappling a creature",
    "resting to recover hit points",
    "opportunity attacks",
    "drowning and holding breath",
    "exhaustion levels",
    "concentration on spells",
    "difficult terrain movement",
    "surprise at the start of combat",
    "death saving throws",
    "two weapon fighting",
  ],
  search_all: [
    "spells that heal wounds",
    "creatures immune to poison",
    "items that grant darkvision",
    "how invisibility works",
    "ancient red dragon",
    "fire damage",
    "frightened condition",
    "magic missile",
    "vampire",
    "holy water",
    "stealth checks",
    "portable hole",
  ],
};

/** Filters added to every 4th search text of a tool (search combined with filters). */
const SEARCH_FILTERS: Record<string, Args> = {
  search_spell: { level_max: 5 },
  search_creature: { cr_max: 10 },
  search_equipment: { type: "magic-item" },
  search_character_option: { type: "subclass" },
  search_rule: { rule_type: "rule" },
  search_all: { content_types: ["Spell", "Creature"] },
};

export function searchArgs(tool: string, text: string, i: number): Args {
  const base: Args = tool === "search_all" ? { query: text } : { search: text };
  return i % 4 === 3 ? { ...base, ...SEARCH_FILTERS[tool] } : base;
}

/** Every call of the mix, structured first, then name, then search (ids stable across runs). */
export function callMix(): CallSpec[] {
  const out: CallSpec[] = [];
  const counters = new Map<string, number>();
  const add = (tool: string, mode: Mode, args: Args) => {
    const k = `${tool}/${mode}`;
    const n = counters.get(k) ?? 0;
    counters.set(k, n + 1);
    out.push({ id: `${k}/${n}`, tool, mode, args });
  };
  for (const [tool, args] of STRUCTURED) add(tool, "structured", args);
  for (const [tool, args] of NAMES) add(tool, "name", args);
  for (const [tool, texts] of Object.entries(SEARCH_TEXTS))
    texts.forEach((t, i) => {
      add(tool, "search", searchArgs(tool, t, i));
    });
  return out;
}

/** Interleave the specs so that tools and modes alternate (no long runs of one kind). */
export function interleave(specs: readonly CallSpec[]): CallSpec[] {
  const groups = new Map<string, CallSpec[]>();
  for (const s of specs) {
    const k = `${s.tool}/${s.mode}`;
    groups.set(k, [...(groups.get(k) ?? []), s]);
  }
  const queues = [...groups.values()];
  const out: CallSpec[] = [];
  while (out.length < specs.length) for (const q of queues) if (q.length) out.push(q.shift()!);
  return out;
}

/**
 * A cycle in which the three modes take turns (structured, name, search, structured, …), each
 * going round its own specs: the HTTP load mix, where every mode weighs the same.
 */
export function balancedByMode(specs: readonly CallSpec[]): CallSpec[] {
  const byMode = (["structured", "name", "search"] as const)
    .map((m) => specs.filter((s) => s.mode === m))
    .filter((xs) => xs.length > 0);
  const longest = Math.max(0, ...byMode.map((xs) => xs.length));
  const out: CallSpec[] = [];
  for (let i = 0; i < longest; i++) for (const xs of byMode) out.push(xs[i % xs.length]!);
  return out;
}
