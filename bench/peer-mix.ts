/**
 * The calls bench/peer-cpu.ts makes of LoreKeeper and of a peer MCP server, the same questions in
 * each server's own parameters: spells by level and school (`limit` 5) and creatures by CR
 * (`limit` 10), the limits the peer comparison has always used; names; the same names misspelled. Each has its warm-up:
 * other values of the same shapes, so that "cold" is the first use of each value, not of the code.
 *
 * Peers: gregario/dnd-oracle (npm `dnd-oracle`), whose `query` looks names and words up in one
 * parameter. A peer with other tools needs its own dialect here.
 */
import { SPELL_SCHOOLS } from "../src/entities/catalog.ts";
import { misspell } from "./cpu-mix.ts";

export type PeerMode = "structured" | "name" | "typo";
export type PeerCall = { mode: PeerMode; tool: string; args: Record<string, unknown> };
export type Dialect = "lorekeeper" | "dnd-oracle";
export const DIALECTS: readonly Dialect[] = ["lorekeeper", "dnd-oracle"];

const CRS = ["0", "1/8", "1/4", "1/2", "1", "2", "3", "4", "6", "8"];
const SPELLS = ["Fireball", "Cure Wounds", "Mage Armor", "Counterspell", "Lightning Bolt", "Detect Magic"];
const CREATURES = ["Goblin", "Owlbear", "Lich", "Gelatinous Cube", "Adult Red Dragon", "Skeleton"];

/** One question in a dialect's tool and arguments. */
interface Speaker {
  spells(level: number, school: string): [string, Record<string, unknown>];
  creaturesOfCr(cr: string): [string, Record<string, unknown>];
  spell(name: string): [string, Record<string, unknown>];
  creature(name: string): [string, Record<string, unknown>];
}

/** LoreKeeper takes a CR as a number or a fraction string. */
const lkCr = (cr: string): string | number => (cr.includes("/") ? cr : Number(cr));

const SPEAKERS: Record<Dialect, Speaker> = {
  lorekeeper: {
    spells: (level, school) => ["search_spell", { level, school, limit: 5 }],
    creaturesOfCr: (cr) => ["search_creature", { cr: lkCr(cr), limit: 10 }],
    spell: (name) => ["search_spell", { name }],
    creature: (name) => ["search_creature", { name }],
  },
  "dnd-oracle": {
    spells: (level, school) => ["search_spells", { level, school, limit: 5 }],
    creaturesOfCr: (cr) => ["search_monsters", { cr, limit: 10 }],
    spell: (name) => ["search_spells", { query: name, limit: 5 }],
    creature: (name) => ["search_monsters", { query: name, limit: 10 }],
  },
};

function call(mode: PeerMode, [tool, args]: [string, Record<string, unknown>]): PeerCall {
  return { mode, tool, args };
}

/** The measured calls, modes interleaved (structured, name, typo, structured, …). Pure. */
export function peerMix(dialect: Dialect): PeerCall[] {
  const s = SPEAKERS[dialect];
  const byMode: PeerCall[][] = [
    [
      ...SPELL_SCHOOLS.map((school, i) => call("structured", s.spells((i % 5) + 1, school))),
      ...CRS.map((cr) => call("structured", s.creaturesOfCr(cr))),
    ],
    [...SPELLS.map((n) => call("name", s.spell(n))), ...CREATURES.map((n) => call("name", s.creature(n)))],
    [
      ...SPELLS.map((n) => call("typo", s.spell(misspell(n)))),
      ...CREATURES.map((n) => call("typo", s.creature(misspell(n)))),
    ],
  ];
  const out: PeerCall[] = [];
  for (let i = 0; i < Math.max(...byMode.map((m) => m.length)); i++) for (const m of byMode) if (m[i]) out.push(m[i]!);
  return out;
}

/** Other values of the same shapes, run twice before the measured passes. Pure. */
export function peerWarmup(dialect: Dialect): PeerCall[] {
  const s = SPEAKERS[dialect];
  return [
    call("structured", s.spells(7, "evocation")),
    call("structured", s.creaturesOfCr("12")),
    call("name", s.spell("Shield")),
    call("name", s.creature("Orc")),
    call("typo", s.spell(misspell("Magic Missile"))),
    call("typo", s.creature(misspell("Zombie"))),
  ];
}
