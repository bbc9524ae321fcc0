/** Shared bits of the search tests: providers without a model, a fake topic embedder, names of hits. */
import type { Database } from "bun:sqlite";
import { listPendingVectors, writeVectors } from "../../src/store/vectors.ts";
import type { SearchContext } from "../../src/search/context.ts";
import type { Store } from "../../src/store/db.ts";
import type { Embedder, EmbedderProvider, SearchResponse } from "../../src/search/types.ts";

export function unavailableProvider(reason = "no embedding model is installed"): EmbedderProvider {
  return { state: () => "unavailable", get: async () => null, reason: () => reason };
}

export function readyProvider(embedder: Embedder): EmbedderProvider {
  return { state: () => "ready", get: async () => embedder, reason: () => undefined };
}

/** Axes of the fake embedding space and the words that point along them. */
const AXES: ReadonlyArray<readonly string[]> = [
  ["fire", "flame", "flames", "blaze", "inferno", "burn", "burning", "fiery", "hellish", "spark", "ember"],
  ["cold", "ice", "frost", "hail", "freezing", "chill"],
  ["undead", "drain", "drains", "life", "corpse", "vampire", "bite", "necrotic", "soul"],
  ["heal", "heals", "healing", "wounds", "regains", "cure", "mend", "restore"],
  ["protect", "protects", "protecting", "barrier", "shield", "ward", "armor", "deflect"],
  ["dragon", "wyrm", "breath", "exhales", "scales"],
  ["thrown", "returns", "throw", "hammer", "warhammer", "boomerang"],
];

/**
 * A deterministic bag-of-topics embedder: each word on an axis adds 1 there; a constant small
 * component keeps every vector non-zero. Unit length, like a real model's output.
 */
export class TopicEmbedder implements Embedder {
  readonly id: string;
  readonly dim = AXES.length + 1;
  calls = 0;
  constructor(id = "fake:topics@1") {
    this.id = id;
  }
  vector(text: string): Float32Array {
    const v = new Float32Array(this.dim);
    v[this.dim - 1] = 0.05;
    for (const w of text.toLowerCase().match(/[a-z]+/g) ?? []) {
      AXES.forEach((words, i) => {
        if (words.includes(w)) v[i]! += 1;
      });
    }
    let n = 0;
    for (const x of v) n += x * x;
    n = Math.sqrt(n);
    return v.map((x) => x / n);
  }
  async embedPassages(texts: string[]): Promise<Float32Array[]> {
    return texts.map((t) => this.vector(t));
  }
  async embedQuery(text: string): Promise<Float32Array> {
    this.calls++;
    return this.vector(text);
  }
}

/** Embed every entity that lacks a current vector (what ingest does), returns how many. */
export async function embedAll(db: Database, embedder: Embedder): Promise<number> {
  const pending = listPendingVectors(db, embedder.id, 100_000);
  const vectors = await embedder.embedPassages(pending.map((p) => p.text));
  return writeVectors(
    db,
    embedder.id,
    pending.map((p, i) => ({ id: p.id, contentHash: p.content_hash, vector: vectors[i]! })),
  );
}

export function ctxOf(
  store: Store,
  embedder: EmbedderProvider = unavailableProvider(),
  extra: Partial<SearchContext> = {},
): SearchContext {
  return { store, embedder, embeddingTimeoutMs: 2000, ...extra };
}

/** "Name [document_key]" of each hit, in order. */
export function labels(r: SearchResponse): string[] {
  return r.hits.map((h) => `${h.entity.name} [${h.entity.document_key}]`);
}

export function names(r: SearchResponse): string[] {
  return r.hits.map((h) => h.entity.name);
}

/** Brute-force cosine ranking (a stand-in HNSW index for tests): best `k`, best first. */
export function exactCosine(
  query: Float32Array,
  vectors: ReadonlyMap<number, Float32Array>,
  k: number,
): Array<{ id: number; similarity: number }> {
  const norm = (v: Float32Array) => Math.sqrt(v.reduce((a, x) => a + x * x, 0));
  const qn = norm(query);
  const out = [...vectors].map(([id, v]) => ({
    id,
    similarity: v.reduce((a, x, i) => a + x * query[i]!, 0) / (qn * norm(v)),
  }));
  return out.sort((a, b) => b.similarity - a.similarity || a.id - b.id).slice(0, k);
}
