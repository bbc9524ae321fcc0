/**
 * `bun run eval`: the fixed training / held-out split of the query set, the outside dev set, and
 * fusion tuned per tool on the training half only. Ranking changes are tuned on the training half
 * and kept when the held-out half improves; the report leads with the held-out figures. Pure
 * (formatting and choosing), no I/O.
 */
import type { Fusion, RankingProfile } from "../src/search/types.ts";
import { MODES, summarize, type Mode, type Summary } from "./eval-metrics.ts";
import { devSummary } from "./eval-dev.ts";
import { isTuneQuery, queryClass, type SplitFigures, summaries, summaryLines } from "./eval-compare.ts";
import type { EvalQuery } from "./eval-queries.ts";

/** What the split report reads of one ranked query. */
export interface RankedQuery {
  q: EvalQuery;
  rank: Record<Mode, number | null>;
}

const f3 = (x: number) => x.toFixed(3);

function byTool<T>(rs: readonly RankedQuery[], f: (group: RankedQuery[]) => T): Record<string, T> {
  const out: Record<string, T> = {};
  for (const tool of [...new Set(rs.map((r) => r.q.tool))].sort()) out[tool] = f(rs.filter((r) => r.q.tool === tool));
  return out;
}

/** The figures of the split and the dev set. `own` = the project's queries, `dev` = the outside set. */
export type { SplitFigures };

export function splitFigures(own: readonly RankedQuery[], dev: readonly RankedQuery[]): SplitFigures {
  const held = own.filter((r) => !isTuneQuery(r.q));
  const devBy = {} as Record<Mode, Summary & { hitK: number }>;
  for (const m of MODES) devBy[m] = devSummary(dev.map((r) => ({ q: r.q, rank: r.rank[m] })));
  return {
    train: summaries(own.filter((r) => isTuneQuery(r.q))),
    heldOut: summaries(held),
    heldOutMeaningByTool: byTool(
      held.filter((r) => queryClass(r.q) === "meaning"),
      (g) => summaries(g),
    ),
    dev: devBy,
    devByTool: byTool(dev, (g) => devSummary(g.map((r) => ({ q: r.q, rank: r.rank.hybrid })))),
  };
}

/** The report's lines: held-out and training halves, held-out meaning MRR per tool and mode, the dev set. */
export function splitLines(f: SplitFigures): string[] {
  const lines = [
    ...summaryLines(`Held-out half (${f.heldOut.hybrid.queries} queries; never tuned on)`, f.heldOut),
    ...summaryLines(`Training half (${f.train.hybrid.queries} queries)`, f.train),
    "",
    "Held-out meaning queries by tool, MRR (lexical / vector / hybrid, queries):",
  ];
  for (const [tool, s] of Object.entries(f.heldOutMeaningByTool)) {
    lines.push(
      `  ${tool.padEnd(24)} ${f3(s.lexical.mrr)} / ${f3(s.vector.mrr)} / ${f3(s.hybrid.mrr)}  (${s.hybrid.queries})`,
    );
  }
  if (f.dev.hybrid.queries > 0) {
    lines.push(
      "",
      `Dev set (${f.dev.hybrid.queries} outside questions; hit = a target within the case's k)`,
      "mode      hit@k    hit@1    hit@5    MRR",
    );
    for (const m of MODES)
      lines.push(
        `${m.padEnd(8)}  ${f3(f.dev[m].hitK)}    ${f3(f.dev[m].hit1)}    ${f3(f.dev[m].hit5)}    ${f3(f.dev[m].mrr)}`,
      );
    lines.push("Dev set by tool (hybrid): hits / queries, MRR");
    for (const [tool, s] of Object.entries(f.devByTool))
      lines.push(`  ${tool.padEnd(24)} ${Math.round(s.hitK * s.queries)}/${s.queries}  ${f3(s.mrr)}`);
  }
  return lines;
}

/** The grid tried per tool on the training half (k × vector weight × core prior; the lexical weight stays 1). */
export const FUSION_GRID: Fusion[] = [
  ...[10, 20, 40, 60].flatMap((k) =>
    [0.5, 0.75, 1, 1.5, 2].flatMap((vectorWeight) =>
      [0, 0.1, 0.25].map((coreBoost) => ({ method: "rrf" as const, k, lexicalWeight: 1, vectorWeight, coreBoost })),
    ),
  ),
  // convex: vector weight 1 / 1.5 / 2.33 / 4 against lexical 1 = α 0.5 / 0.6 / 0.7 / 0.8 on the vector leg
  ...[1, 1.5, 2.33, 4].flatMap((vectorWeight) =>
    [0, 0.1, 0.25].map((coreBoost) => ({
      method: "convex" as const,
      k: 20,
      lexicalWeight: 1,
      vectorWeight,
      coreBoost,
    })),
  ),
];

/** Best by MRR, then hit@5; ties keep the earlier setting. Never looks at the held-out half. */
export function pickBest(scored: ReadonlyArray<{ setting: Fusion; summary: Summary }>): Fusion {
  let best = scored[0]!;
  for (const s of scored) {
    if (
      s.summary.mrr > best.summary.mrr + 1e-9 ||
      (Math.abs(s.summary.mrr - best.summary.mrr) <= 1e-9 && s.summary.hit5 > best.summary.hit5 + 1e-9)
    )
      best = s;
  }
  return best.setting;
}

/**
 * Fusion tuned per tool: for each tool, the grid setting with the best MRR over that tool's
 * training queries (`rankWith` ranks one query with one setting). Returns the settings and the
 * held-out summary with the shipped constants and with the tuned ones.
 */
export async function tunePerTool(
  own: readonly RankedQuery[],
  rankWith: (r: RankedQuery, f: Fusion) => Promise<number | null>,
  profileOf: (r: RankedQuery) => RankingProfile | undefined,
): Promise<{
  tuned: Partial<Record<RankingProfile, Fusion>>;
  heldOutShipped: Summary;
  heldOutTuned: Summary;
  lines: string[];
}> {
  if (own.length === 0) {
    const none = summarize([]);
    return { tuned: {}, heldOutShipped: none, heldOutTuned: none, lines: ["", "(fusion grid skipped)"] };
  }
  const train = own.filter((r) => isTuneQuery(r.q));
  const held = own.filter((r) => !isTuneQuery(r.q));
  // Every training query under every setting (each query is embedded once; the embedder caches it).
  const ranks = new Map<RankedQuery, Array<number | null>>();
  for (const r of train) {
    const mine: Array<number | null> = [];
    for (const setting of FUSION_GRID) mine.push(await rankWith(r, setting));
    ranks.set(r, mine);
  }
  const best = (rs: readonly RankedQuery[]) =>
    pickBest(FUSION_GRID.map((setting, i) => ({ setting, summary: summarize(rs.map((r) => ranks.get(r)![i]!)) })));
  const tuned: Partial<Record<RankingProfile, Fusion>> = {};
  for (const p of [...new Set(own.map(profileOf))]) {
    const mine = train.filter((r) => profileOf(r) === p);
    if (p && mine.length > 0) tuned[p] = best(mine);
  }
  const global = best(train);
  const heldRanks: Array<number | null> = [];
  const heldGlobal: Array<number | null> = [];
  for (const r of held) {
    const p = profileOf(r);
    const f = p ? tuned[p] : undefined;
    heldRanks.push(f ? await rankWith(r, f) : r.rank.hybrid);
    heldGlobal.push(await rankWith(r, global));
  }
  const heldOutShipped = summarize(held.map((r) => r.rank.hybrid));
  const heldOutTuned = summarize(heldRanks);
  const heldOutGlobal = summarize(heldGlobal);
  const show = (f: Fusion) =>
    `${f.method}${f.method === "rrf" ? ` k ${f.k}` : ""}, lexical ` +
    `${f.lexicalWeight}, vector ${f.vectorWeight}, core prior ${f.coreBoost}`;
  const lines = [
    "",
    "Fusion tuned on the training half, per tool and one for all:",
    ...Object.entries(tuned).map(([p, f]) => `  ${p.padEnd(18)} ${show(f)}`),
    `  ${"(all tools)".padEnd(18)} ${show(global)}`,
    `held-out ${held.length} queries, hybrid MRR / hit@5: shipped ${f3(heldOutShipped.mrr)} ` +
      `/ ${f3(heldOutShipped.hit5)}; tuned per tool ${f3(heldOutTuned.mrr)} / ` +
      `${f3(heldOutTuned.hit5)}; tuned for all ${f3(heldOutGlobal.mrr)} / ${f3(heldOutGlobal.hit5)}`,
  ];
  return { tuned, heldOutShipped, heldOutTuned, lines };
}
