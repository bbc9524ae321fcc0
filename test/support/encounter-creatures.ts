/** Creatures for encounter tests: SRD-like CRs and types, plus non-SRD undead an SRD-only proposal must not use. */
import type { Entity } from "../../src/entities/types.ts";
import { makeEntity } from "./entities.ts";

type Obj = Record<string, unknown>;

const creature = (name: string, cr: number, type: string, doc: string, extra: Obj = {}): Entity => {
  const e = makeEntity("creature", name, { cr, creature_type: type, size: "medium" }, { doc });
  Object.assign(e.data, extra);
  return e;
};

/** SRD-like creatures (CR / type as in the books) plus non-SRD undead that an SRD-only proposal must not use. */
export function encounterCreatures(): Entity[] {
  return [
    creature("Ogre", 2, "giant", "srd-2014", { xp: 450 }),
    creature("Goblin", 0.25, "humanoid", "srd-2014", { xp: 50 }),
    creature("Ogre", 2, "giant", "srd-2024"),
    creature("Goblin Warrior", 0.25, "humanoid", "srd-2024"),
    creature("Zombie", 0.25, "undead", "srd-2024", { environments: ["Urban", "Underdark"] }),
    creature("Skeleton", 0.25, "undead", "srd-2024"),
    creature("Shadow", 0.5, "undead", "srd-2024"),
    creature("Ghoul", 1, "undead", "srd-2024", { environments: ["Swamp", "Underdark"] }),
    creature("Specter", 1, "undead", "srd-2024"),
    creature("Ghast", 2, "undead", "srd-2024"),
    creature("Wight", 3, "undead", "srd-2024"),
    creature("Mummy", 3, "undead", "srd-2024"),
    creature("Wraith", 5, "undead", "srd-2024"),
    creature("Vampire", 13, "undead", "srd-2024"),
    creature("Zombie", 0.25, "undead", "srd-2014"),
    creature("Ghost Knight", 3, "undead", "tob"),
    creature("Bone Swarm", 2, "undead", "tob"),
  ];
}
