/** What a search needs, built once by the server / CLI and passed to `runSearch`. */
import type { Store } from "../store/db.ts";
import type { EmbedderProvider, Fusion, Neighbor, VectorIndex } from "./types.ts";

/** Where the vector leg finds neighbours among the vectors of one model (`modelId` = the embedder's id). */
export interface VectorBackend {
  /** Exact cosine similarity of `query` to the stored vectors of `ids`; best `k`, best first. */
  exactSearch(modelId: string, query: Float32Array, ids: readonly number[], k: number): Neighbor[];
  /** The HNSW index over all stored vectors of `modelId` (`dim` floats), or null when there is none. */
  annIndex(modelId: string, dim: number): VectorIndex | null;
  /** Whether any vector of `modelId` is stored (false → semantic ranking is off, with a message). */
  hasVectors(modelId: string): boolean;
}

export interface SearchContext {
  store: Store;
  embedder: EmbedderProvider;
  /** Default: `storeVectorBackend(store)` (semantic-leg.ts). Tests may inject one. */
  vectors?: VectorBackend;
  /** Give up on the query embedding after this long and rank lexically. */
  embeddingTimeoutMs: number;
  /** Candidate sets up to this size are ranked by exact cosine; larger ones by HNSW (default 2000). */
  exactSearchMax?: number;
  /** Fusion constants over every profile's own: `bun run eval`'s tuning grid. */
  fusion?: Partial<Fusion>;
}
