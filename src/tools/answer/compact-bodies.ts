/**
 * Compact rows remembered: the body of an entity's compact row — the JSON of its fields after the
 * identity (`name`, `kind`, `document_key`, `uri`), exactly what compactRow makes of it as presented
 * without a documents filter by the server's preference — kept in memory per store version
 * (CACHES) once an answer has made it. A later list that shows the same entity reads no entity data
 * for it (3–8 KB of JSON per creature, parsed, merged with its same-document copies, shaped): its
 * identity row and one JSON.parse of a ~150-character body. Nothing is made ahead: a session pays
 * only for the rows it shows. Answers are the same either way (test/tools/compact-bodies.test.ts).
 */
import type { Database } from "bun:sqlite";
import { documentRank } from "../../search/rank/preference.ts";
import { CACHES } from "../../store/caches.ts";
import type { VersionMemo } from "../../store/version-cache.ts";

export interface CompactBodies {
  /** The body remembered for entity `id`, if any. */
  get(id: number): string | undefined;
  /** Remember entity `id`'s body (made by an answer of this store version and preference). */
  remember(id: number, body: string): void;
}

interface Bodies {
  /** The preference the bodies follow (documentRank id). */
  prefer: string;
  byId: Map<number, string>;
}

/**
 * The bodies of `prefer` remembered for the store version `version` (the one the caller has read
 * already; else the current one). Undefined when another preference holds the version's bodies.
 */
export function compactBodies(
  db: Database,
  prefer: readonly string[] | undefined,
  version: Database | VersionMemo = db,
): CompactBodies | undefined {
  const id = documentRank(prefer).id;
  const s = CACHES.compactBodies.get(version, (): Bodies => ({ prefer: id, byId: new Map() }));
  if (s.prefer !== id) return undefined;
  return { get: (entity) => s.byId.get(entity), remember: (entity, body) => void s.byId.set(entity, body) };
}
