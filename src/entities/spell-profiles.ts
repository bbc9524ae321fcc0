/**
 * Plain-words profiles of the core spells (SRD 5.1 and SRD 5.2): what a spell does and what
 * people reach for it for, in the words they use when they do not remember its name, and the
 * names people call it. Reviewed data in src/entities/data/spell-profiles.json (its `provenance`
 * says where it comes from); this module only reads it. Pure.
 */
import data from "./data/spell-profiles.json" with { type: "json" };
import { CORE_CREATURE_DOCUMENTS } from "./creature-profiles.ts";

/** The documents whose spells and magic items are "core" and get a profile (the same as for creatures). */
export const CORE_PROFILE_DOCUMENTS: readonly string[] = CORE_CREATURE_DOCUMENTS;

export interface SpellProfile {
  /** The record name this entry is filed under ("Feather Fall"). */
  name: string;
  /** Other record names the same entry serves. */
  also?: string[];
  /** Core documents holding a spell of this name. */
  documents: string[];
  /** Spell levels as the records give them (0 = cantrip; several when the editions differ). */
  levels: number[];
  /** Schools of magic as the records give them (lower-case; several when the editions differ). */
  schools: string[];
  /** Names people use for it ("slow fall", "Melf's acid arrow"). */
  names: string[];
  /** One or two plain sentences, no numbers. */
  profile: string;
}

export const SPELL_PROFILES: readonly SpellProfile[] = (data as { profiles: SpellProfile[] }).profiles;

let byKey: Map<string, SpellProfile> | undefined;

function index(): Map<string, SpellProfile> {
  if (byKey) return byKey;
  byKey = new Map();
  for (const p of SPELL_PROFILES) for (const n of [p.name, ...(p.also ?? [])]) byKey.set(n.toLowerCase(), p);
  return byKey;
}

export function isCoreProfileDocument(documentKey: string): boolean {
  return CORE_PROFILE_DOCUMENTS.includes(documentKey.toLowerCase());
}

/** The profile of a core spell (null for other documents, and for a name the file lacks). */
export function spellProfile(name: string, documentKey: string): SpellProfile | null {
  if (!isCoreProfileDocument(documentKey)) return null;
  return index().get(name.trim().toLowerCase()) ?? null;
}
