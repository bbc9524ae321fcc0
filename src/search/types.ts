/** Contracts of the search layer: the query a tool builds, its answer, the embedder and the vector index. */
import type { Entity, EntityKind } from "../entities/types.ts";

export type { StructuredFilters } from "../entities/filters.ts";
import type { StructuredFilters } from "../entities/filters.ts";

/** What a search tool ranks for (rank/fusion.ts keeps the fusion constants per profile). */
export const RANKING_PROFILES = ["spell", "creature", "equipment", "character_option", "rule", "all"] as const;
export type RankingProfile = (typeof RANKING_PROFILES)[number];

export interface SearchQuery {
  kinds: readonly EntityKind[];
  filters?: StructuredFilters;
  /** Exact / wildcard / slug name match (filter/names.ts). */
  name?: string;
  /** Natural-language query, ranked hybrid. Empty/whitespace = none. */
  search?: string;
  /** null/undefined = no filter; [] = empty result; unknown keys = empty result + message. */
  documents?: string[] | null;
  limit: number;
  offset?: number;
  /** One entry per kind and name: same-name entities of several documents are one hit, the preferred one's. */
  collapse?: boolean;
  /** Document keys to prefer, in order (preference.ts). */
  prefer?: readonly string[];
  /** Tool answers: no `entity.text` (never shown), and one wording of records carrying several. */
  omitText?: boolean;
  /** Which tool ranks (fusion.ts); the default fusion when absent. */
  profile?: RankingProfile;
  /**
   * The body of an entity's compact row, made already (tools/answer/compact-bodies.ts): such a hit
   * comes with it (`SearchHit.compact`) and without its data. Ignored with a documents filter.
   */
  compactBody?: (id: number) => string | undefined;
  /** Evaluation only: one leg alone over the same candidates, without the name boost (default: hybrid). */
  ranking?: "hybrid" | "lexical" | "vector";
}

export type SearchMode = "structured" | "lexical" | "hybrid";

/** Another document's version of a collapsed hit. */
export interface OtherVersion {
  kind: string;
  key: string;
  document_key: string;
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
   * Collapsed, without a documents filter: the most preferred version when it is not this hit,
   * because it misses the filters (the 2024 Sending is not evocation) or has another name (2014
   * "Crossbow, heavy" vs 2024 "Heavy Crossbow").
   */
  preferred_version?: PreferredVersion;
  /** The hit's compact row body (SearchQuery.compactBody): the entity then carries its identity only. */
  compact?: string;
  /** Same-document copies from less preferred sources (store/duplicates.ts), merged by presentHits. */
  duplicates?: ReadonlyArray<Entity & { id: number }>;
}

export interface SearchResponse {
  hits: SearchHit[];
  /** Entries in all (after collapsing); ranked: those the legs returned, at most legDepth(limit) each. */
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

export interface Neighbor {
  id: number;
  /** Cosine similarity, 1 = identical. */
  similarity: number;
}

/** HNSW index over entity ids, persisted beside the database. */
export interface VectorIndex {
  readonly size: number;
  /** The k nearest, best first. */
  search(query: Float32Array, k: number): Neighbor[];
}

/** rrf: weight / (k + rank); convex: each leg's scores min-max normalized, weighted. */
export type FusionMethod = "rrf" | "convex";

/** How the two legs of a ranked search are fused (values: rank/fusion.ts). */
export interface Fusion {
  method: FusionMethod;
  /** The RRF constant. */
  k: number;
  lexicalWeight: number;
  vectorWeight: number;
  /** The core prior: fused score × (1 + coreBoost) for the official SRDs, preferred documents and homebrew. */
  coreBoost: number;
  /** At most `perKind` entries of one kind among the first `top` (page.ts spreadKinds). */
  spread?: { top: number; perKind: number };
  /** The edition prior: a further × (1 + editionBoost) for the preferred edition's SRD. */
  editionBoost?: number;
}
