/**
 * `bun run eval`'s timings over the full store: a structured query and a hybrid query over every
 * kind with new texts (so the query cache never answers), medians of warm runs.
 */
import { runSearch } from "../src/search/hybrid.ts";
import type { SearchContext } from "../src/search/context.ts";
import type { SearchQuery } from "../src/search/types.ts";
import { TIMING_TEXTS } from "./eval-compare.ts";
import type { EvalQuery } from "./eval-queries.ts";

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export async function timeQueries(
  ctx: SearchContext,
  toolQuery: (q: EvalQuery) => Promise<SearchQuery>,
  runs: number,
): Promise<{ structured: number; hybrid: number; hybridP90: number; entities: number }> {
  const entities = ctx.store.db.query<{ n: number }, []>("SELECT count(*) AS n FROM entities").get()?.n ?? 0;
  const structuredQ = await toolQuery({
    id: "timing",
    origin: "own",
    tool: "search_creature",
    args: { type: "dragon", cr_min: 10, limit: 20 },
    targets: [],
  });
  const allKinds = await toolQuery({
    id: "timing",
    origin: "own",
    tool: "search_all",
    args: { query: "x" },
    targets: [],
  });
  for (let i = 0; i < 3; i++) await runSearch(ctx, structuredQ);
  for (const t of TIMING_TEXTS.slice(0, 3)) await runSearch(ctx, { ...allKinds, search: `${t} warm-up` });
  const st: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await runSearch(ctx, structuredQ);
    st.push(performance.now() - t0);
  }
  const hy: number[] = [];
  for (let i = 0; i < runs; i++) {
    const text = TIMING_TEXTS[i % TIMING_TEXTS.length]! + (i >= TIMING_TEXTS.length ? ` ${i}` : "");
    const t0 = performance.now();
    await runSearch(ctx, { ...allKinds, search: text, limit: 20 });
    hy.push(performance.now() - t0);
  }
  const sorted = [...hy].sort((a, b) => a - b);
  return {
    structured: median(st),
    hybrid: median(hy),
    hybridP90: sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.9))]!,
    entities,
  };
}
