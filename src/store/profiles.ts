/**
 * How many of a store's core creatures (SRD 5.1 / 5.2) carry their plain-words profile
 * (src/entities/creature-profiles.ts). A store synced before the profiles existed, or a content
 * pack built before them, lacks them until its creatures are synced again.
 */
import type { Database } from "bun:sqlite";
import { CORE_CREATURE_DOCUMENTS } from "../entities/creature-profiles.ts";

export interface ProfileCoverage {
  /** Core creature rows in the store. */
  core: number;
  /** Of them, rows whose data has a profile. */
  withProfile: number;
  /** Names of the rows without one (distinct, sorted, at most `max`). */
  lacking: string[];
  /** All distinct names without one. */
  lackingCount: number;
}

export function profileCoverage(db: Database, max = 10): ProfileCoverage {
  const docs = CORE_CREATURE_DOCUMENTS.map(() => "?").join(",");
  const where = `kind = 'creature' AND lower(document_key) IN (${docs})`;
  const counts = db
    .query<{ core: number; with_profile: number }, string[]>(`SELECT count(*) AS core, count(json_extract(data, '$.profile')) AS with_profile FROM entities WHERE ${where}`)
    .get(...CORE_CREATURE_DOCUMENTS) ?? { core: 0, with_profile: 0 };
  const names = db
    .query<{ name: string }, string[]>(`SELECT DISTINCT name FROM entities WHERE ${where} AND json_extract(data, '$.profile') IS NULL ORDER BY name`)
    .all(...CORE_CREATURE_DOCUMENTS)
    .map((r) => r.name);
  return { core: counts.core, withProfile: counts.with_profile, lacking: names.slice(0, max), lackingCount: names.length };
}
