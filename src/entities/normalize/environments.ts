/**
 * Creature environments as data. Open5e v2 lists 140 creatures (12 of SRD 5.1, e.g. the Quasit, and
 * 128 of Tome of Beasts) in all 31 environments it has, from the Abyss to Urban: a placeholder, not
 * a habitat (open5e/open5e-api#257), which put a Quasit into every forest encounter. Such a list is
 * replaced: for SRD 5.1 creatures by what Open5e v1 (`wotc-srd`, the Monster Manual's appendix)
 * gives, in v2's environment names ("Any" there says nothing about where, so it is left out); for
 * the others by no environment. Each replacement is stated in `upstream_notes`. Pure.
 */

/** A list naming at least this many environments names (nearly) all of them: upstream's largest real list has 16. */
const EVERY_ENVIRONMENT = 25;

/** SRD 5.1 creatures Open5e v2 lists everywhere, with Open5e v1's environments (v2 names; "Any" dropped). */
const SRD51_FROM_V1: Readonly<Record<string, { v1: string; envs: string[] }>> = {
  "srd_clay-golem": { v1: "Any", envs: [] },
  "srd_flesh-golem": { v1: "Any", envs: [] },
  "srd_iron-golem": { v1: "Any", envs: [] },
  "srd_stone-golem": { v1: "Any", envs: [] },
  srd_lizardfolk: { v1: "Swamp, Jungle, Forest", envs: ["Swamp or Marsh", "Forest or Jungle"] },
  srd_quasit: { v1: "Abyss", envs: ["The Abyss"] },
  srd_succubusincubus: { v1: "Any, Hell", envs: ["Hell"] },
  "srd_swarm-of-centipedes": {
    v1: "Ruins, Caves, Underdark, Forest, Any",
    envs: ["Ruins", "Caves", "Underworld", "Forest or Jungle"],
  },
  "srd_swarm-of-spiders": {
    v1: "Ruins, Caves, Underdark, Forest, Any",
    envs: ["Ruins", "Caves", "Underworld", "Forest or Jungle"],
  },
  "srd_swarm-of-wasps": { v1: "Any, Forest", envs: ["Forest or Jungle"] },
  "srd_warhorse-skeleton": { v1: "Ruins, Any", envs: ["Ruins"] },
  "srd_young-brass-dragon": { v1: "Desert, Volcano, Any", envs: ["Desert"] },
};

/** An Open5e v2 creature's environments with the every-environment placeholder replaced, and the note saying so. */
export function correctV2Environments(key: string, envs: string[]): { environments: string[]; notes: string[] } {
  if (envs.length < EVERY_ENVIRONMENT) return { environments: envs, notes: [] };
  const srd = SRD51_FROM_V1[key];
  const every = `all ${envs.length} of its environments`;
  const lead = `Open5e v2 lists this creature in ${every}, a placeholder rather than a habitat`;
  if (srd) {
    const now = srd.envs.length ? srd.envs.join(", ") : "none";
    return {
      environments: [...srd.envs],
      notes: [`${lead}; Open5e v1 (SRD 5.1) gives "${srd.v1}". Corrected to: ${now}.`],
    };
  }
  return { environments: [], notes: [`${lead}; no source says where it lives, so it has no environment here.`] };
}
