/**
 * Plain-words profiles of the core magic items (SRD 5.1 and SRD 5.2): what an item does and what
 * people reach for it for, and the names people call it. One entry can serve a whole family of
 * records ("Flame Tongue" serves "Flame Tongue (Longsword)" and, through `also`, "Flame Tongue
 * Longsword"). Reviewed data in src/entities/data/item-profiles.json (its `provenance` says where
 * it comes from); this module only reads it. Pure.
 */
import data from "./data/item-profiles.json" with { type: "json" };
import { isCoreProfileDocument } from "./spell-profiles.ts";

export interface ItemProfile {
  /** The record name this entry is filed under ("Flame Tongue"). */
  name: string;
  /** Other record names the same entry serves ("Flame Tongue Longsword"). */
  also?: string[];
  /** True when the entry also serves every "Name (Variant)" record ("Flame Tongue (Rapier)"). */
  variants?: boolean;
  /** Core documents holding an item this entry serves. */
  documents: string[];
  /** Rarities as the records give them, lower-case ("very rare", "varies" when the record says so). */
  rarities: string[];
  /** Names people use for it ("fire sword", "bag of holding"). */
  names: string[];
  /** One or two plain sentences, no numbers. */
  profile: string;
}

export const ITEM_PROFILES: readonly ItemProfile[] = (data as { profiles: ItemProfile[] }).profiles;

let byKey: Map<string, ItemProfile> | undefined;

function index(): Map<string, ItemProfile> {
  if (byKey) return byKey;
  byKey = new Map();
  for (const p of ITEM_PROFILES) for (const n of [p.name, ...(p.also ?? [])]) byKey.set(n.toLowerCase(), p);
  return byKey;
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
  if (!isCoreProfileDocument(documentKey)) return null;
  const exact = index().get(name.trim().toLowerCase());
  if (exact) return exact;
  const family = itemFamilyKey(name);
  const p = family ? index().get(family) : undefined;
  return p?.variants ? p : null;
}
