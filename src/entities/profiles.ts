/**
 * Plain-words profiles of the core creatures, spells, magic items and rules (SRD 5.1 and SRD 5.2):
 * what a thing is or does and what people reach for it for, in the words they use when they do not
 * remember its name ("holding my breath"), and the names people call it; and plain words for the
 * game's conditions ("knocked down" = Prone). Reviewed data in src/entities/data/*.json (each file's
 * `provenance` says where it comes from); this module only reads it. Pure.
 */
import conditionData from "./data/condition-words.json" with { type: "json" };
import creatureData from "./data/creature-profiles.json" with { type: "json" };
import itemData from "./data/item-profiles.json" with { type: "json" };
import ruleData from "./data/rule-profiles.json" with { type: "json" };
import spellData from "./data/spell-profiles.json" with { type: "json" };
import { groupByKeys } from "./normalize/read.ts";

/** The documents whose creatures, spells, magic items and rules are "core" and get a profile. */
export const CORE_PROFILE_DOCUMENTS: readonly string[] = ["srd-2014", "srd-2024"];

/** What every profile entry holds. */
interface Profile {
  /** The record name this entry is filed under ("Owlbear", "Feather Fall", "The Order of Combat"). */
  name: string;
  /** Other record names the same entry serves ("Elf, Drow" for "Drow"; a source's misspelling "Rnged Attacks"). */
  also?: string[];
  /** Core documents holding a record this entry serves. */
  documents: string[];
  /** Names and topics people use for it ("owl bear", "slow fall", "surprise"). */
  names: string[];
  /** One or two plain sentences, no numbers (rules: what it covers and which questions it answers). */
  profile: string;
}

export interface CreatureProfile extends Profile {
  /** Sizes and creature types as the stat blocks give them (lower-case; several when the editions differ). */
  sizes: string[];
  types: string[];
}

export interface SpellProfile extends Profile {
  /** Spell levels as the records give them (0 = cantrip; several when the editions differ). */
  levels: number[];
  /** Schools of magic as the records give them (lower-case; several when the editions differ). */
  schools: string[];
}

/** One entry can serve a whole family of records ("Flame Tongue" serves "Flame Tongue (Longsword)"). */
export interface ItemProfile extends Profile {
  /** True when the entry also serves every "Name (Variant)" record ("Flame Tongue (Rapier)"). */
  variants?: boolean;
  /** Rarities as the records give them, lower-case ("very rare", "varies" when the record says so). */
  rarities: string[];
}

export interface RuleProfile extends Profile {
  kind: "rule" | "rule_section";
  /** Lower-case sections the entry is limited to, when a document uses the name twice ("Hit Points"). */
  sections?: string[];
}

/** A condition's everyday words ("knocked down" for "Prone") and one plain sentence. */
export type ConditionWords = Pick<Profile, "name" | "names" | "profile">;

export const CREATURE_PROFILES: readonly CreatureProfile[] = (creatureData as { profiles: CreatureProfile[] }).profiles;
export const SPELL_PROFILES: readonly SpellProfile[] = (spellData as { profiles: SpellProfile[] }).profiles;
export const ITEM_PROFILES: readonly ItemProfile[] = (itemData as { profiles: ItemProfile[] }).profiles;
export const RULE_PROFILES: readonly RuleProfile[] = (ruleData as { profiles: RuleProfile[] }).profiles;
export const CONDITION_WORDS: readonly ConditionWords[] = (conditionData as { conditions: ConditionWords[] })
  .conditions;

/** Entries by each lower-case name they are filed under (after `prefix`), for core documents; indexed on first use. */
function byName<P extends Profile>(profiles: readonly P[], prefix: (p: P) => string = () => "") {
  let index: Map<string, P[]> | undefined;
  return (key: string, documentKey: string): P[] => {
    if (!CORE_PROFILE_DOCUMENTS.includes(documentKey.toLowerCase())) return [];
    index ??= groupByKeys(profiles, (p) => [p.name, ...(p.also ?? [])].map((n) => prefix(p) + n.toLowerCase()));
    return index.get(key) ?? [];
  };
}

const creatures = byName(CREATURE_PROFILES);
const spells = byName(SPELL_PROFILES);
const items = byName(ITEM_PROFILES);
const rules = byName(RULE_PROFILES, (p) => `${p.kind}\u0000`);

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

/** The profile of a core creature (null for other documents, and for a name the file lacks). */
export function creatureProfile(name: string, documentKey: string): CreatureProfile | null {
  return creatures(profileKey(name), documentKey)[0] ?? null;
}

/** The profile of a core spell (null for other documents, and for a name the file lacks). */
export function spellProfile(name: string, documentKey: string): SpellProfile | null {
  return spells(name.trim().toLowerCase(), documentKey)[0] ?? null;
}

/** "Flame Tongue (Longsword)" → "flame tongue"; null when the name has no trailing variant in parentheses. */
export function itemFamilyKey(name: string): string | null {
  const m = /^(.+?)\s*\([^()]+\)$/.exec(name.trim());
  return m ? m[1]!.toLowerCase() : null;
}

/**
 * The profile of a core magic item (null for other documents, and for a name the file lacks): the
 * entry filed under the name, else the family entry of a "Family (Variant)" record.
 */
export function itemProfile(name: string, documentKey: string): ItemProfile | null {
  const exact = items(name.trim().toLowerCase(), documentKey)[0];
  if (exact) return exact;
  const family = itemFamilyKey(name);
  const p = family ? items(family, documentKey)[0] : undefined;
  return p?.variants ? p : null;
}

/**
 * The profile of a core rule or rule section (null for other documents, and for a name the file
 * lacks): of the entries filed under its kind and name, the one whose sections admit `section`,
 * its own document's before another's.
 */
export function ruleProfile(
  kind: RuleProfile["kind"],
  name: string,
  documentKey: string,
  section: string | null = null,
): RuleProfile | null {
  const doc = documentKey.toLowerCase();
  const sec = section?.trim().toLowerCase() ?? null;
  const named = rules(`${kind}\u0000${name.trim().toLowerCase()}`, documentKey);
  const fits = named.filter((p) => !p.sections || (sec !== null && p.sections.includes(sec)));
  return fits.find((p) => p.documents.includes(doc)) ?? fits[0] ?? null;
}

/**
 * The lead of a profiled entity's search text: its profile, then the names people use for it ("Makes
 * falling creatures drift down … Also called slow fall, featherfall."); null without a profile.
 */
export function profileLead(p: { profile: string; names: readonly string[] } | null | undefined): string | null {
  if (!p) return null;
  return p.names.length ? `${p.profile} Also called ${p.names.join(", ")}.` : p.profile;
}

const conditionsByName = new Map(CONDITION_WORDS.map((c) => [c.name.toLowerCase(), c]));

/**
 * The plain words of a condition by its name (any document: a condition is the same game term), or
 * null. A condition's search text (keywords and what is embedded) leads with them; its data and
 * answers do not carry them.
 */
export function conditionWords(name: string): ConditionWords | null {
  return conditionsByName.get(name.trim().toLowerCase()) ?? null;
}

/** "The creature is lying flat on the ground … Also called knocked down, tripped." */
export function conditionLead(name: string): string | null {
  return profileLead(conditionWords(name));
}
