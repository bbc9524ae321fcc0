/**
 * The floor of each call of the mix, measured in the benchmark process over the same store (opened
 * read-only): what no server can avoid doing for that call.
 *
 * - The SearchQuery a tool builds is captured by running the tool itself with a recording `search`
 *   dependency, so the floor uses exactly the kinds, filters and name the server would.
 * - structured / name: the one SELECT that produces the page (filters from buildFilterWhere, the
 *   name clause from resolveName — both resolved before timing), rows fetched, not decoded.
 *   list_documents: the store's listDocuments.
 * - search: raw fastembed on the text the server embeds (typo-corrected), the raw USearch HNSW
 *   search at the depth the server uses, and the FTS5 query of the lexical leg.
 */
import type { Database } from "bun:sqlite";
import { EmbeddingModel, FlagEmbedding } from "fastembed";
import { DEFAULT_MAX_TOKENS } from "../../src/search/model/load-model.ts";
import { andWhere, buildFilterWhere, type SqlValue, type WhereClause } from "../../src/search/filter/filters.ts";
import { legDepth } from "../../src/search/hybrid.ts";
import { analyzeQuery, lexicalSearch, semanticText } from "../../src/search/rank/lexical.ts";
import { resolveName } from "../../src/search/filter/names.ts";
import type { SearchQuery } from "../../src/search/types.ts";
import { loadOrBuildIndex, type HnswVectorIndex } from "../../src/search/index/vector-index.ts";
import type { Store } from "../../src/store/db.ts";
import { listDocuments } from "../../src/store/documents.ts";
import { getEmbeddingMeta } from "../../src/store/vectors.ts";
import { DataGate } from "../../src/tools/kit/data-gate.ts";
import type { ToolDeps } from "../../src/tools/kit/deps.ts";
import { TOOLS } from "../../src/tools/index.ts";
import type { CallSpec } from "../queries.ts";
import { now } from "../lib/stats.ts";

/** One measurement of a call's floor, ms per component. */
export interface FloorSample {
  /** The SQL of the answer (structured/name), or the FTS5 query (search). */
  sql: number;
  embed: number;
  usearch: number;
  total: number;
}

export interface FloorResult {
  samples: Map<string, FloorSample[]>;
  /** What the search floors ran on. */
  index: { size: number; k: number };
}

/** The SearchQuery `spec`'s tool passes to the search layer (undefined for list_documents). */
export async function captureQuery(spec: CallSpec, db: Database): Promise<SearchQuery | undefined> {
  const def = TOOLS.find((t) => t.name === spec.tool);
  if (!def) throw new Error(`unknown tool ${spec.tool}`);
  if (spec.tool === "list_documents") return undefined;
  let captured: SearchQuery | undefined;
  const deps: ToolDeps = {
    db,
    search: async (q) => {
      captured = q;
      return { hits: [], total: 0, mode: "structured" };
    },
    responseBudgetChars: 60_000,
  };
  const res = await def.call(spec.args, { deps, gate: new DataGate(deps), progress: () => {} });
  if (res.isError) throw new Error(`${spec.id}: the tool rejected its arguments: ${JSON.stringify(res.content)}`);
  if (!captured) throw new Error(`${spec.id}: the tool did not search`);
  return captured;
}

type Plan = () => Promise<FloorSample>;

function sqlPlan(db: Database, where: WhereClause, limit: number): Plan {
  const stmt = db.query<Record<string, unknown>, SqlValue[]>(
    `SELECT e.* FROM entities e WHERE ${where.sql} ORDER BY e.name COLLATE NOCASE, e.document_key, e.key LIMIT ?`,
  );
  const params = [...where.params, limit];
  return async () => {
    const t0 = now();
    stmt.all(...params);
    const sql = now() - t0;
    return { sql, embed: 0, usearch: 0, total: sql };
  };
}

export interface FloorContext {
  store: Store;
  model: FlagEmbedding;
  index: HnswVectorIndex;
}

export async function openFloorContext(store: Store, modelDir: string): Promise<FloorContext> {
  const meta = getEmbeddingMeta(store.db);
  if (!meta) throw new Error("the store has no embeddings");
  const index = loadOrBuildIndex(store, meta.modelId, meta.dim);
  const model = await FlagEmbedding.init({
    model: EmbeddingModel.CUSTOM,
    modelAbsoluteDirPath: modelDir,
    modelName: "model.onnx",
    maxLength: DEFAULT_MAX_TOKENS,
    showDownloadProgress: false,
  });
  return { store, model, index };
}

async function embedRaw(model: FlagEmbedding, text: string): Promise<Float32Array> {
  const r = await model.embed([text], 1).next();
  const v = r.done ? undefined : r.value[0];
  if (!v) throw new Error("fastembed returned no vector");
  return Float32Array.from(v);
}

export function searchK(limit: number, indexSize: number): number {
  return Math.min(indexSize, Math.max(legDepth(limit) * 2, 64));
}

async function planFor(spec: CallSpec, ctx: FloorContext): Promise<Plan> {
  const db = ctx.store.db;
  if (spec.tool === "list_documents") {
    return async () => {
      const t0 = now();
      listDocuments(db);
      const sql = now() - t0;
      return { sql, embed: 0, usearch: 0, total: sql };
    };
  }
  const q = await captureQuery(spec, db);
  if (!q) throw new Error(`${spec.id}: no query`);
  if (q.documents) throw new Error(`${spec.id}: document filters are not part of the mix`);
  const filtered = buildFilterWhere(q.kinds, q.filters, null);
  if (!filtered.ok) throw new Error(`${spec.id}: ${filtered.message}`);
  let where = filtered.where;
  if (q.name) {
    const step = resolveName(db, where, q.name);
    if (!step) throw new Error(`${spec.id}: the name matches nothing`);
    where = andWhere(where, step.clause);
  }
  if (!q.search) return sqlPlan(db, where, q.limit);

  const analysis = analyzeQuery(db, q.search);
  const text = semanticText(analysis);
  const depth = legDepth(q.limit);
  const k = searchK(q.limit, ctx.index.size);
  const vector = await embedRaw(ctx.model, text);
  const raw = ctx.index.index;
  return async () => {
    const t0 = now();
    await embedRaw(ctx.model, text);
    const t1 = now();
    raw.search(vector, k, 1);
    const t2 = now();
    lexicalSearch(db, where, analysis, depth);
    const t3 = now();
    return { embed: t1 - t0, usearch: t2 - t1, sql: t3 - t2, total: t3 - t0 };
  };
}

export interface FloorRunner {
  /** One measurement of every spec's floor, in order; recorded unless `warmup`. */
  round(warmup: boolean): Promise<void>;
  result: FloorResult;
}

export async function floorRunner(specs: readonly CallSpec[], ctx: FloorContext): Promise<FloorRunner> {
  const plans = new Map<string, Plan>();
  for (const s of specs) plans.set(s.id, await planFor(s, ctx));
  const samples = new Map<string, FloorSample[]>(specs.map((s) => [s.id, []]));
  return {
    result: { samples, index: { size: ctx.index.size, k: searchK(20, ctx.index.size) } },
    async round(warmup) {
      for (const s of specs) {
        const m = await plans.get(s.id)!();
        if (!warmup) samples.get(s.id)!.push(m);
      }
    },
  };
}
