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
import { type VersionMemo, versionMemo } from "./version-cache.ts";

type Where = Database | VersionMemo;

function memoOf(where: Where): VersionMemo {
  return "lru" in where ? where : versionMemo(where);
}

/** One value per store version. */
interface Slot {
  readonly key: string;
  readonly owner: string;
  get<T>(where: Where, compute: () => T): T;
  /** The value of this store version when it has been computed already, else undefined. */
  peek<T>(where: Where): T | undefined;
}

/** Many values per store version, by key; at most `max` kept (least recently used dropped first). */
interface Family {
  readonly key: string;
  readonly owner: string;
  readonly max: number;
  get<T>(where: Where, key: string, compute: () => T): T;
}

function slot(key: string, owner: string): Slot {
  return {
    key,
    owner,
    get: (where, compute) => memoOf(where).get(key, compute),
    peek: (where) => memoOf(where).peek(key),
  };
}

function family(key: string, owner: string, max: number): Family {
  return { key, owner, max, get: (where, k, compute) => memoOf(where).lru(key, k, max, compute) };
}

export const CACHES = {
  rankPreference: slot(
    "store:rank-preference",
    "store/canonical.ts: the document preference the stored group ranks follow",
  ),
  traitNames: slot(
    "entities:trait-names",
    "store/entities.ts mentionsTrait: the stored trait reference rows' names as the words they are matched by",
  ),
  nonEmptyKinds: slot(
    "entities:non-empty-kinds",
    "store/entities.ts emptyKinds: kinds known to hold entities (a Set filled as learnt)",
  ),
  entityCount: slot("search:entity-count", "search/rank/lexical.ts: entities in the store (word rarity)"),
  duplicates: slot(
    "store:duplicates",
    "store/duplicates.ts duplicatesOf: every duplicate's id by the id it duplicates",
  ),
  nameIndex: slot(
    "search:name-index",
    "search/filter/name-index.ts: names, slugs and keys of answering entities (name fallbacks, did-you-mean)",
  ),
  nameVocabulary: slot("search:name-vocabulary", "search/rank/name-vocab.ts: name words for typo correction"),
  phraseHits: slot(
    "search:phrase-hits",
    "search/rank/phrase-hits.ts: FTS5 hits of recent phrases (bounded by matches held)",
  ),
  documentKeys: slot("search:document-keys", "search/hybrid.ts: document keys for the `documents` filter"),
  lastSynced: slot("tools:last-synced", "tools/kit/run-search.ts: metadata.data_synced_at"),
  compactBodies: slot(
    "tools:compact-bodies",
    "tools/answer/compact-bodies.ts: the compact row bodies answers have made",
  ),
  candidates: family("search:candidates", "search/filter/candidates.ts: candidate ids per filter", 16),
  textHits: family("search:text-hits", "search/rank/lexical.ts: texts holding a word", 4096),
  hasVectors: family("search:has-vectors", "search/rank/semantic-leg.ts: whether a model has stored vectors", 64),
  documentRows: family("tools:list-documents", "tools/list-documents.ts: list_documents rows per source", 16),
  health: slot("http:health", "server/transports/http.ts: GET /health counts per kind and last sync"),
  pendingVectors: slot(
    "search:pending-vectors",
    "search/index/pending-vectors.ts: entities without a vector of the store's model",
  ),
  totals: family(
    "search:totals",
    "search/rank/page-order.ts: matches (or kind + name groups) per filter, for `total`",
    64,
  ),
  fewMatches: family("search:few-matches", "search/rank/page-order.ts: few matches per filter (pages sorted here)", 64),
  columnValues: family(
    "search:explain-values",
    "search/rank/explain.ts: stored values of a free-text filter, for suggestions",
    32,
  ),
  kindNames: family(
    "search:explain-names",
    "search/rank/explain.ts: distinct names per kinds and documents, for did-you-mean",
    16,
  ),
} as const;
