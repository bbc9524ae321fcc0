/**
 * Names that changed between SRD 5.1 and SRD 5.2 ("Thug" is "Tough", "Goblin" is "Goblin Warrior",
 * "Feeblemind" is "Befuddlement"): reviewed data in renames.json, with how it was found. Name
 * lookups, build_encounter and "did you mean" use it to find an entry by the other edition's name
 * and say so. Pure.
 */
import table from "./renames.json" with { type: "json" };
import { groupByKeys } from "./normalize/read.ts";
import type { EntityKind } from "./types.ts";

export interface Rename {
  kind: EntityKind;
  /** the SRD 5.1 (srd-2014) name */
  srd51: string;
  /** the SRD 5.2 (srd-2024) name */
  srd52: string;
}

export const RENAMES: readonly Rename[] = (table as { renames: Rename[] }).renames;

export interface Counterpart {
  rename: Rename;
  /** the name asked for is the SRD 5.1 one (so the counterpart is SRD 5.2's), or the reverse */
  asked: "srd51" | "srd52";
  /** the other edition's name */
  other: string;
  /** the document of the other name */
  otherDocument: "srd-2014" | "srd-2024";
}

/** The renames by either name, lower-cased, in table order (a name lookup asks on every call). */
const BY_NAME = groupByKeys(RENAMES, (r) => [r.srd51.toLowerCase(), r.srd52.toLowerCase()]);

/** The other edition's name of `name` among `kinds` (case-insensitive), if it was renamed. */
export function counterpart(kinds: readonly string[], name: string): Counterpart | undefined {
  const n = name.trim().toLowerCase();
  for (const r of BY_NAME.get(n) ?? []) {
    if (!kinds.includes(r.kind)) continue;
    if (r.srd51.toLowerCase() === n) return { rename: r, asked: "srd51", other: r.srd52, otherDocument: "srd-2024" };
    if (r.srd52.toLowerCase() === n) return { rename: r, asked: "srd52", other: r.srd51, otherDocument: "srd-2014" };
  }
  return undefined;
}

/** The sentence an answer carries when it used the other edition's name. */
export function renameNote(c: Counterpart): string {
  return `"${c.rename.srd51}" (SRD 5.1, srd-2014) is named "${c.rename.srd52}" in SRD 5.2 (srd-2024).`;
}
