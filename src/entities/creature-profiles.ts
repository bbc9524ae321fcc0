/**
 * Plain-words profiles of the core creatures (SRD 5.1 and SRD 5.2): what a creature looks like,
 * where it lives, what it is known for, and the names people use for it. Reviewed data in
 * src/entities/data/creature-profiles.json (its `provenance` says where it comes from); this
 * module only reads it. Pure.
 */
import data from "./data/creature-profiles.json" with { type: "json" };

/** The documents whose creatures are "core" and get a profile. */
export const CORE_CREATURE_DOCUMENTS: readonly string[] = ["srd-2014", "srd-2024"];

export interface CreatureProfile {
  /** The record name this entry is filed under ("Owlbear"). */
  name: string;
  /** Other record names the same entry serves ("Elf, Drow" for "Drow"). */
  also?: string[];
  /** Core documents holding a creature of this name. */
  documents: string[];
  /** Sizes and creature types as the stat blocks give them (lower-case; several when the editions differ). */
  sizes: string[];
  types: string[];
  /** Names people use for it ("owl bear", "sea devil"). */
  names: string[];
  /** One or two plain sentences, no numbers. */
  profile: string;
}

export const CREATURE_PROFILES: readonly CreatureProfile[] = (data as { profiles: CreatureProfile[] }).profiles;

/**
 * The lookup key of a creature name: lower-case, and a D&D 5e API form variant ("Werewolf, Hybrid
 * Form", "Vampire, Mist Form") reads as its creature ("werewolf").
 */
export function profileKey(name: string): string {
  return name
    .trim()
    .replace(/,\s*[\w' -]+ form$/i, "")
    .toLowerCase();
}

let byKey: Map<string, CreatureProfile> | undefined;

function index(): Map<string, CreatureProfile> {
  if (byKey) return byKey;
  byKey = new Map();
  for (const p of CREATURE_PROFILES) for (const n of [p.name, ...(p.also ?? [])]) byKey.set(n.toLowerCase(), p);
  return byKey;
}

function isCoreCreatureDocument(documentKey: string): boolean {
  return CORE_CREATURE_DOCUMENTS.includes(documentKey.toLowerCase());
}

/** The profile of a core creature (null for other documents, and for a name the file lacks). */
export function creatureProfile(name: string, documentKey: string): CreatureProfile | null {
  if (!isCoreCreatureDocument(documentKey)) return null;
  return index().get(profileKey(name)) ?? null;
}

/** "Also called owl bear, owl-bear." (any profile with `names`: creature, spell or magic item) */
export function commonNamesLine(p: { names: readonly string[] }): string | null {
  return p.names.length ? `Also called ${p.names.join(", ")}.` : null;
}
