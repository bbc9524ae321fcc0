/**
 * Compact rows made ahead of the calls: for every entity that can answer (not a copy from a less
 * preferred source), the body of its compact row — the JSON of its fields after the identity
 * (`name`, `kind`, `document_key`, `uri`), exactly what compactRow makes of it as presented without
 * a documents filter by the server's preference — kept in memory per store version (CACHES).
 *
 * A list call then reads no entity data for those rows (3–8 KB of JSON per creature, parsed per
 * hit, merged with its same-document copies, shaped): the page's identity rows and one JSON.parse
 * of a ~150-character body each. The first call of a new store version, and every call while the
 * bodies are still being made, answers the usual way for the rows not made yet; answers are the
 * same either way (test/tools/compact-bodies.test.ts).
 *
 * Made in the background, a few hundred entities per turn of the event loop (about 30 µs each:
 * ~0.3 s of CPU for the default sources, ~1.3 MB of text), after the server starts and after the
 * store changes. A store change seen mid-way drops the rest (the new version starts over).
 */
import type { Database } from "bun:sqlite";
import { log } from "../log.ts";
import { documentRank } from "../search/rank/preference.ts";
import { presentHits } from "../search/rank/present.ts";
import { CACHES } from "../store/caches.ts";
import { getEntitiesByIds } from "../store/entities.ts";
import type { VersionMemo } from "../store/version-cache.ts";
import { compactFields } from "./rows.ts";

/** Entities made per turn of the event loop (~4 ms of CPU here): a call arriving meanwhile waits at most that. */
const CHUNK = 128;

interface Bodies {
  /** The preference the bodies follow (documentRank id). */
  prefer: string;
  byId: Map<number, string>;
  /** Resolves when every answering entity has its body, or the build stopped. */
  done?: Promise<void>;
}

/** The body of `e`'s compact row (e presented already): its fields and summary (rows.ts adds identity and the rest). Pure. */
function compactBodyOf(e: Parameters<typeof compactFields>[0]): string {
  return JSON.stringify(compactFields(e));
}

function stateOf(version: Database | VersionMemo, prefer: string): Bodies | undefined {
  const s = CACHES.compactBodies.get(version, (): Bodies => ({ prefer, byId: new Map() }));
  return s.prefer === prefer ? s : undefined;
}

/** Make the bodies of one chunk of ids (one read snapshot); false when the store changed meanwhile. */
function makeChunk(db: Database, s: Bodies, prefer: readonly string[], ids: number[]): boolean {
  return db.transaction(() => {
    const entities = getEntitiesByIds(db, ids, false);
    const hits = presentHits(
      db,
      [...entities.values()].map((entity) => ({ entity })),
      { documents: null, prefer, compact: true },
    );
    // Same version as the state (checked inside the snapshot the rows were read in).
    if (stateOf(db, s.prefer) !== s) return false;
    for (const h of hits) s.byId.set(h.entity.id, compactBodyOf(h.entity));
    return true;
  })();
}

async function build(db: Database, s: Bodies, prefer: readonly string[]): Promise<void> {
  const ids = db.query<{ id: number }, []>("SELECT id FROM entities WHERE dup_of IS NULL ORDER BY id").all().map((r) => r.id);
  for (let i = 0; i < ids.length; i += CHUNK) {
    await new Promise<void>((resolve) => setTimeout(resolve, 0));
    if (!makeChunk(db, s, prefer, ids.slice(i, i + CHUNK))) return;
  }
  log.debug(`compact rows made for ${s.byId.size} entities`);
}

/**
 * The bodies for `prefer` as far as they are made (a lookup by entity id); starts making them
 * when this store version has none yet. Undefined when another preference holds the version's
 * bodies. `version`: the store version the caller has read already (else the current one).
 */
export function compactBodies(db: Database, prefer: readonly string[] | undefined, version: Database | VersionMemo = db): ((id: number) => string | undefined) | undefined {
  const s = stateOf(version, documentRank(prefer).id);
  if (!s) return undefined;
  if (!s.done) {
    s.done = build(db, s, prefer ?? []).catch((err: unknown) => {
      // A closed or damaged store: calls answer the usual way.
      log.debug("making compact rows stopped", err);
    });
  }
  return (id) => s.byId.get(id);
}

/** Start making the bodies now (server start) and resolve when they are made. */
export function makeCompactBodies(db: Database, prefer: readonly string[] | undefined): Promise<void> {
  compactBodies(db, prefer);
  return stateOf(db, documentRank(prefer).id)?.done ?? Promise.resolve();
}
