/**
 * The call mix of the server-CPU phase: no filter, name or search text used twice, so that its
 * first pass meets every cache cold (the first use of each filter shape), as a new conversation
 * does; the same calls again make the warm passes. Modes: structured (filters only, the limits of
 * the comparison with the peer: spells 5, creatures 10), name (an existing name), typo (that name
 * misspelled: an empty answer with "did you mean") and search.
 */
import { CREATURE_TYPES, SPELL_SCHOOLS } from "../src/entities/catalog.ts";
import type { CallSpec } from "./queries.ts";

export type CpuMode = "structured" | "name" | "typo" | "search";

export interface CpuSpec extends Omit<CallSpec, "mode"> {
  mode: CpuMode;
}

type Args = Record<string, unknown>;

function structured(): Array<[string, Args]> {
  const out: Array<[string, Args]> = [];
  SPELL_SCHOOLS.forEach((school, i) => {
    out.push(["search_spell", { level: (i % 5) + 1, school, limit: 5 }]);
  });
  for (const cr of [0, "1/8", "1/4", "1/2", 1, 2, 3, 4, 6, 8]) out.push(["search_creature", { cr, limit: 10 }]);
  CREATURE_TYPES.slice(0, 6).forEach((type, i) => {
    out.push(["search_creature", { type, cr_max: i + 2, limit: 10 }]);
  });
  out.push(
    ["search_spell", { class_key: "cleric", level_max: 2, limit: 5 }],
    ["search_spell", { ritual: true, level: 1, limit: 5 }],
    ["search_spell", { concentration: true, damage_type: "cold", limit: 5 }],
    ["search_equipment", { type: "magic-item", rarity: "uncommon", limit: 10 }],
    ["search_equipment", { type: "armor", category: "medium", limit: 10 }],
    ["search_equipment", { type: "weapon", property: "finesse", limit: 10 }],
    ["search_character_option", { type: "background", limit: 10 }],
    ["search_rule", { section: "equipment", limit: 10 }],
  );
  return out;
}

/** Existing names (SRD content, in every source set the bench syncs). */
const NAMES: Array<[string, string]> = [
  ["search_spell", "Fireball"],
  ["search_spell", "Cure Wounds"],
  ["search_spell", "Mage Armor"],
  ["search_spell", "Counterspell"],
  ["search_spell", "Lightning Bolt"],
  ["search_spell", "Detect Magic"],
  ["search_creature", "Goblin"],
  ["search_creature", "Owlbear"],
  ["search_creature", "Lich"],
  ["search_creature", "Gelatinous Cube"],
  ["search_creature", "Adult Red Dragon"],
  ["search_creature", "Skeleton"],
  ["search_equipment", "Longsword"],
  ["search_equipment", "Bag of Holding"],
  ["search_equipment", "Chain Mail"],
  ["search_character_option", "Wizard"],
  ["search_character_option", "Alert"],
  ["search_rule", "Grappled"],
];

/** A misspelling of `name`: two different neighbouring letters swapped near the middle of its longest word. */
export function misspell(name: string): string {
  const words = name.split(" ");
  let at = 0;
  words.forEach((w, i) => {
    if (w.length > words[at]!.length) at = i;
  });
  const w = words[at]!;
  let i = Math.max(1, Math.floor(w.length / 2) - 1);
  while (i + 2 < w.length && w[i] === w[i + 1]) i++;
  words[at] = w.slice(0, i) + w[i + 1] + w[i] + w.slice(i + 2);
  return words.join(" ");
}

const SEARCHES: Array<[string, string]> = [
  ["search_spell", "wall of thorns that blocks a path"],
  ["search_spell", "make a creature float in the air"],
  ["search_spell", "talk to animals"],
  ["search_spell", "turn invisible for a while"],
  ["search_creature", "giant frog that swallows prey"],
  ["search_creature", "ghost haunting a castle"],
  ["search_creature", "wolf pack hunter"],
  ["search_creature", "winged serpent"],
  ["search_equipment", "armor that reduces fire damage"],
  ["search_equipment", "lantern that shows invisible things"],
  ["search_character_option", "tracker of the wilderness"],
  ["search_rule", "falling from a height"],
];

/** The mix, modes interleaved (structured, name, typo, search, structured, …). */
export function cpuMix(): CpuSpec[] {
  return interleaved([
    ["structured", structured()],
    ["name", NAMES.map(([tool, name]) => [tool, { name }])],
    ["typo", NAMES.map(([tool, name]) => [tool, { name: misspell(name) }])],
    ["search", SEARCHES.map(([tool, search]) => [tool, { search }])],
  ]);
}

/**
 * Calls of the same tools and modes with other values, run before the measured passes: a server
 * in use has loaded its model and compiled its code paths already, so "cold" measures what a new
 * filter shape costs (nothing about it cached), not a new process.
 */
export function cpuWarmup(): CpuSpec[] {
  const names: Array<[string, string]> = [
    ["search_spell", "Shield"],
    ["search_spell", "Magic Missile"],
    ["search_creature", "Orc"],
    ["search_creature", "Zombie"],
    ["search_equipment", "Dagger"],
    ["search_character_option", "Fighter"],
    ["search_rule", "Prone"],
  ];
  return interleaved([
    [
      "structured",
      [
        ["search_spell", { level: 7, limit: 5 }],
        ["search_spell", { level: 8, school: "evocation", limit: 5 }],
        ["search_creature", { cr: 12, limit: 10 }],
        ["search_creature", { type: "giant", cr_max: 9, limit: 10 }],
        ["search_equipment", { type: "magic-item", rarity: "legendary", limit: 10 }],
        ["search_character_option", { type: "feat", limit: 10 }],
        ["search_rule", { section: "combat", limit: 10 }],
      ],
    ],
    ["name", names.map(([tool, name]) => [tool, { name }])],
    ["typo", names.map(([tool, name]) => [tool, { name: misspell(name) }])],
    [
      "search",
      [
        ["search_spell", "summon a storm"],
        ["search_creature", "sea monster"],
        ["search_equipment", "boots of speed"],
        ["search_rule", "resting"],
      ].map(([tool, search]) => [tool!, { search }] as [string, Args]),
    ],
  ]);
}

function interleaved(byMode: Array<[CpuMode, Array<[string, Args]>]>): CpuSpec[] {
  const specs = byMode.map(([mode, calls]) =>
    calls.map(([tool, args], i): CpuSpec => ({ id: `${tool}/${mode}/${i}`, tool, mode, args })),
  );
  const out: CpuSpec[] = [];
  for (let i = 0; out.length < specs.flat().length; i++) for (const s of specs) if (s[i]) out.push(s[i]!);
  return out;
}
