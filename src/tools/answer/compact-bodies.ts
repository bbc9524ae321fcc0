/**
 * Compact rows remembered: the JSON of a compact row's fields after the identity, as rowsOf makes it without a
 * documents filter, kept per store version (CACHES) once an answer made it. A later list showing the entity reads
 * no entity data for it (3–8 KB of JSON per creature), only its identity row and one JSON.parse of ~150 characters.
 * Nothing is made ahead. Answers are the same either way (test/tools/compact-bodies.test.ts).
 */
import type { Database } from "bun:sqlite";
import { documentRank } from "../../entities/preference.ts";
import { CACHES } from "../../store/caches.ts";
import type { VersionMemo } from "../../store/version-cache.ts";

/**
 * The bodies of `prefer` remembered for the store version `version` (the one the caller has read
 * already; else the current one), by entity id. Undefined when another preference holds the version's bodies.
 */
export function compactBodies(
  db: Database,
  prefer: readonly string[] | undefined,
  version: Database | VersionMemo = db,
): Map<number, string> | undefined {
  const id = documentRank(prefer).id;
  // The bodies follow one preference (documentRank id).
  const s = CACHES.compactBodies.get(version, () => ({ prefer: id, byId: new Map<number, string>() }));
  return s.prefer === id ? s.byId : undefined;
}
