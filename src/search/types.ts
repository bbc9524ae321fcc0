/**
 * Contracts of the search layer: the query a tool builds, what comes back, and the interfaces of
 * the embedding model and the vector index (implemented in model/embedder.ts / index/vector-index.ts).
 */
import type { Entity, EntityKind } from "../entities/types.ts";

/** Structured filters as tools receive them (all optional; ANDed): one key per parameter of the filter table. */
export type { StructuredFilters } from "../entities/filters.ts";
import type { StructuredFilters } from "../entities/filters.ts";

/** What a search tool ranks for (rank/fusion.ts keeps the fusion constants per profile). */
export type RankingProfile = "spell" | "creature" | "equipment" | "character_option" | "rule" | "all";

export interface SearchQuery {
  /** Kinds to search (one list ranked together). */
  kinds: readonly EntityKind[];
  filters?: StructuredFilters;
  /** Exact / wildcard / slug name match (spec file 2). */
  name?: string;
  /** Natural-language query: hybrid lexical + semantic ranking. Empty/whitespace = none. */
  search?: string;
  /** null/undefined = no filter; [] = empty result; unknown keys = empty result + message. */
  documents?: string[] | null;
  limit: number;
  /** Entries to skip (paging); default 0. */
  offset?: number;
  /**
   * One entry per kind and name (the tools set it; default false): same-name entities from several
   * documents become one hit, the preferred document's (`prefer`), naming the others.
   */
  collapse?: boolean;
  /** Document keys to prefer, in order (the server's document preference; see preference.ts). */
  prefer?: readonly string[];
  /**
   * The tools' answers: leave each hit's `entity.text` (the search text) empty (cheaper; they never
   * show it), and quote one wording of records carrying several (the others named in `other_wordings`).
   */
  omitText?: boolean;
  /** Which tool ranks (fusion.ts: its fusion constants); the default fusion when absent. */
  profile?: RankingProfile;
  /**
   * The tools' compact rows, made already (tools/answer/compact-bodies.ts): the body of an entity's
   * compact row as presented without a documents filter, by the caller's preference, or undefined.
   * A hit whose body is known comes with it (`SearchHit.compact`) and without its data, which is
   * then not read. Only for callers that show compact rows; ignored with a documents filter.
   */
  compactBody?: (id: number) => string | undefined;
  /**
   * Internal (evaluation only; tools never set it): rank `search` with both legs fused (default),
   * or with one leg alone over the same candidates — "lexical" (BM25 order) or "vector" (cosine
   * order), without the name boosts of the fused ranking.
   */
  ranking?: RankingMode;
}

export type RankingMode = "hybrid" | "lexical" | "vector";

export type SearchMode = "structured" | "lexical" | "hybrid";

/** Another document's version of a collapsed hit. */
export interface OtherVersion {
  kind: string;
  key: string;
  document_key: string;
  /** its source: part of its address (`lorekeeper://creature/open5e_v1:ogre`) */
  document_source: string;
}

/** The preferred document's version of a hit that is not shown, and why (SearchHit.preferred_version). */
export interface PreferredVersion extends OtherVersion {
  name: string;
  because: "filters" | "name";
}

export interface SearchHit {
  entity: Entity & { id: number };
  /** 0..1, present when ranked by `search`. */
  similarity_score?: number;
  /** The other documents' versions of this entry (collapsed), in preference order. */
  others?: OtherVersion[];
  /**
   * Collapsed, without a documents filter: the version of the most preferred document, when it is
   * not this hit because it does not match the filters (the 2024 Sending is not evocation, so a
   * list of evocation spells shows the 2014 one and says so), or because it has another name (the
   * 2014 "Crossbow, heavy" asked by name; the 2024 one is "Heavy Crossbow"). Without filters and
   * under the same name there is nothing to explain: left out.
   */
  preferred_version?: PreferredVersion;
  /**
   * The body of this hit's compact row (SearchQuery.compactBody: JSON of its fields after the
   * identity): the entity then carries its identity only (`data` empty, not read, not presented).
   */
  compact?: string;
  /**
   * The entity's same-document copies from less preferred sources (store/duplicates.ts), read
   * with it (page.ts): presentHits fills the entity's empty fields from them. Absent: not read.
   */
  duplicates?: ReadonlyArray<Entity & { id: number }>;
}

export interface SearchResponse {
  hits: SearchHit[];
  /**
   * How many entries there are in all (after collapsing), of which `hits` is the page at `offset`.
   * Structured: every entry matching the filters. Ranked: the entries the ranking returned
   * (keyword matches and nearest by meaning, at most legDepth(limit) before collapsing).
   */
  total: number;
  mode: SearchMode;
  /** Something the caller should read (e.g. unknown document keys, semantic ranking off). */
  message?: string;
}

export interface Embedder {
  /** Model identity recorded in the store, e.g. "custom:lorekeeper-static-384@<sha>" */
  readonly id: string;
  readonly dim: number;
  /** Passages (entity texts); unit-length vectors. */
  embedPassages(texts: string[]): Promise<Float32Array[]>;
  /** One query (model's query convention applied, truncated to its limit). */
  embedQuery(text: string): Promise<Float32Array>;
}

export type ModelState = "unloaded" | "loading" | "ready" | "unavailable";

/** Lazily loads the model on first use; never on the MCP handshake path. */
export interface EmbedderProvider {
  state(): ModelState;
  /** null when no model can load (semantic ranking off, one warning logged). */
  get(): Promise<Embedder | null>;
  /** Human-readable reason when unavailable. */
  reason(): string | undefined;
}

/** HNSW index over entity ids, persisted beside the database. */
export interface VectorIndex {
  readonly size: number;
  /** k nearest ids by cosine similarity (1 = identical), best first. */
  search(query: Float32Array, k: number): Array<{ id: number; similarity: number }>;
}

/** rrf: by ranks (weight / (k + rank)); convex: by each leg's scores, min-max normalized, weighted. */
export type FusionMethod = "rrf" | "convex";

/** How the two legs of a ranked search are fused (values: rank/fusion.ts). */
export interface Fusion {
  method: FusionMethod;
  /** The RRF constant. */
  k: number;
  lexicalWeight: number;
  vectorWeight: number;
  /** The core prior: fused score × (1 + coreBoost) for entries of the official SRDs (and preferred documents). */
  coreBoost: number;
  /**
   * Kinds spread over the first places of an answer of several kinds: among the first `top` entries
   * at most `perKind` of one kind, the next-best entries of other kinds moving up; the rest follows
   * in rank order (scores still never increase down the list). None when absent.
   */
  spread?: { top: number; perKind: number };
  /**
   * The edition prior: entries of the preferred edition's SRD (the first SRD of the document
   * preference) get a further × (1 + editionBoost), so that when both editions have an entry that
   * answers, the preferred edition's comes first. None when absent.
   */
  editionBoost?: number;
}
