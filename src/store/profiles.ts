/**
 * How many of a store's core entries (SRD 5.1 / 5.2) that this version has a plain-words profile
 * for carry it: creatures, spells, magic items and rules (src/entities/profiles.ts). A store
 * synced before the profiles existed, or a content pack built before them, lacks them until those
 * entries are synced again.
 */
import type { Database } from "bun:sqlite";
import {
  CORE_PROFILE_DOCUMENTS,
  creatureProfile,
  itemProfile,
  ruleProfile,
  spellProfile,
} from "../entities/profiles.ts";

export interface ProfileCoverage {
  /** Core rows of the group's kinds that this version has a profile for. */
  core: number;
  /** Of them, rows whose data has a profile. */
  withProfile: number;
  /** Names of the rows without one (distinct, sorted, at most `max`). */
  lacking: string[];
  /** All distinct names without one. */
  lackingCount: number;
}

/** The kinds a profile check covers together, and the `sync --types` that stores them again. */
export interface ProfileGroup {
  /** "creatures", "spells", "magic items", "rules" */
  label: string;
  kinds: readonly string[];
}

export const PROFILE_GROUPS: readonly ProfileGroup[] = [
  { label: "creatures", kinds: ["creature"] },
  { label: "spells", kinds: ["spell"] },
  // Magic gear a document files as an item (SRD 5.2 potions) has its magic item's profile.
  { label: "magic items", kinds: ["magic_item", "item"] },
  { label: "rules", kinds: ["rule", "rule_section"] },
];

/** Whether this version has a profile for a core row, by kind (the lookups the normalizers make). */
const HAS_PROFILE: Record<string, (name: string, doc: string, section: string | null) => boolean> = {
  creature: (name, doc) => creatureProfile(name, doc) !== null,
  spell: (name, doc) => spellProfile(name, doc) !== null,
  magic_item: (name, doc) => itemProfile(name, doc) !== null,
  item: (name, doc) => itemProfile(name, doc) !== null,
  rule: (name, doc, section) => ruleProfile("rule", name, doc, section) !== null,
  rule_section: (name, doc) => ruleProfile("rule_section", name, doc, name.trim().toLowerCase()) !== null,
};

export function profileCoverage(db: Database, group: ProfileGroup = PROFILE_GROUPS[0]!, max = 10): ProfileCoverage {
  const docs = CORE_PROFILE_DOCUMENTS.map(() => "?").join(",");
  const kinds = group.kinds.map(() => "?").join(",");
  const rows = db
    .query<{ kind: string; name: string; doc: string; section: string | null; has: number }, string[]>(
      `SELECT kind, name, document_key AS doc, json_extract(data, '$.section') AS section,` +
        ` json_extract(data, '$.profile') IS NOT NULL AS has` +
        ` FROM entities WHERE kind IN (${kinds}) AND lower(document_key) IN (${docs})`,
    )
    .all(...group.kinds, ...CORE_PROFILE_DOCUMENTS);
  let core = 0;
  let withProfile = 0;
  const lacking = new Set<string>();
  for (const r of rows) {
    // A row that has one counts even when this version would not write it (a newer pack's).
    const section = typeof r.section === "string" ? r.section : null;
    if (!r.has && !HAS_PROFILE[r.kind]?.(r.name, r.doc, section)) continue;
    core++;
    if (r.has) withProfile++;
    else lacking.add(r.name);
  }
  const names = [...lacking].sort();
  return { core, withProfile, lacking: names.slice(0, max), lackingCount: names.length };
}
