/**
 * Every in-process cache of values derived from the store, declared in one place, with one rule:
 * a value lives as long as the store version it was computed from (version-cache.ts: `PRAGMA
 * data_version` + `total_changes()`); any write, by this process or another, drops them all.
 * Each entry names the component that owns it; call sites use `CACHES.<name>` (no string keys
 * elsewhere). Pass a `VersionMemo` (one per ranked call) instead of the database to read the change
 * token once for the whole call.
 *
 * Other caches, not derived from the store (so not here): the HNSW index + vector cache of
 * search/index/vector-index.ts (per store and model; same rule: refreshed when the change token moves),
 * the embedder's query-vector cache (per model, search/model/embedder.ts), the tools/list answer (static,
 * tools/tool-list.ts), HTTP responses (in SQLite, store/http-cache.ts).
 */
import type { Database } from "bun:sqlite";
import { VersionMemo, versionMemo } from "./version-cache.ts";

type Where = Database | VersionMemo;

function memoOf(where: Where): VersionMemo {
  return where instanceof VersionMemo ? where : versionMemo(where);
}

/** One value per store version; `peek`: the value when it has been computed already. */
function slot(key: string, owner: string) {
  return {
    key,
    owner,
    get: <T>(where: Where, compute: () => T): T => memoOf(where).get(key, compute),
    peek: <T>(where: Where): T | undefined => memoOf(where).peek(key),
  };
}

/** Many values per store version, by key; at most `max` kept (least recently used dropped first). */
function family(key: string, owner: string, max: number) {
  const get = <T>(where: Where, k: string, compute: () => T): T => memoOf(where).lru(key, k, max, compute);
  return { key, owner, max, get };
}

export const CACHES = {
  rankPreference: slot("store:rank-preference", "store/canonical.ts: the preference the stored ranks follow"),
  traitNames: slot("entities:trait-names", "store/entities.ts traitsOnlyWhenNamed: trait names as matched words"),
  nonEmptyKinds: slot("entities:non-empty-kinds", "store/entities.ts emptyKinds: kinds known to hold entities"),
  entityCount: slot("search:entity-count", "search/rank/lexical.ts: entities in the store (word rarity)"),
  duplicates: slot("store:duplicates", "store/duplicates.ts duplicatesOf: duplicate ids by the id they duplicate"),
  nameIndex: slot("search:name-index", "search/filter/name-index.ts: names, slugs and keys of answering entities"),
  nameVocabulary: slot("search:name-vocabulary", "search/rank/name-vocab.ts: name words for typo correction"),
  phraseHits: slot("search:phrase-hits", "search/rank/phrase-hits.ts: FTS5 hits of recent phrases"),
  documentKeys: slot("search:document-keys", "search/hybrid.ts: document keys for the `documents` filter"),
  lastSynced: slot("tools:last-synced", "tools/kit/run-search.ts: metadata.data_synced_at"),
  compactBodies: slot("tools:compact-bodies", "tools/answer/compact-bodies.ts: compact row bodies made"),
  candidates: family("search:candidates", "search/filter/candidates.ts: candidate ids per filter", 16),
  textHits: family("search:text-hits", "search/rank/lexical.ts: texts holding a word", 4096),
  hasVectors: family("search:has-vectors", "search/rank/semantic-leg.ts: whether a model has stored vectors", 64),
  documentRows: family("tools:list-documents", "tools/list-documents.ts: list_documents rows per source", 16),
  health: slot("http:health", "server/transports/http.ts: GET /health counts per kind and last sync"),
  pendingVectors: slot("search:pending-vectors", "search/index/pending-vectors.ts: entities without a vector"),
  totals: family("search:totals", "search/rank/page-order.ts: matches (or name groups) per filter", 64),
  fewMatches: family("search:few-matches", "search/rank/page-order.ts: few matches per filter", 64),
  columnValues: family("search:explain-values", "search/rank/explain.ts: stored values of a free-text filter", 32),
  // A name index each (about 1 MB for a whole document's creatures), asked only when a name matched nothing.
  kindNames: family("search:explain-names", "search/rank/explain.ts: name index per kinds and documents", 4),
} as const;
