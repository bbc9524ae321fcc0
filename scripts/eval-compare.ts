/**
 * `bun run eval` with several models side by side: query classes, the tuning / held-out split of
 * the query set, the fusion grid tuned on one half only, and the final table. Pure logic, except
 * `measureEmbedding` (times the model).
 */
import type { Database } from "bun:sqlite";
import type { Embedder } from "../src/search/types.ts";
import { MODES, summarize, type Mode, type Summary } from "./eval-metrics.ts";
import type { EvalQuery } from "./eval-queries.ts";

/** typo / name (exact or partial) / meaning, by query id; meaning queries are grouped by tool too. */
export function queryClass(q: EvalQuery): "typo" | "name" | "meaning" {
  if (/typo/.test(q.id)) return "typo";
  if (/exact|partial-name/.test(q.id)) return "name";
  return "meaning";
}

/** A fixed half of the queries (FNV-1a of the id, even = tune): the same split for every model and run. */
export function isTuneQuery(q: EvalQuery): boolean {
  let h = 0x811c9dc5;
  for (let i = 0; i < q.id.length; i++) {
    h ^= q.id.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return ((h >>> 0) & 1) === 0;
}

export interface EmbeddingTimes {
  queryP50: number;
  queryP90: number;
  /** Passages per second over a fixed sample of the store's entity texts. */
  passagesPerSecond: number;
  sample: number;
}

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * q))]!;
}

/** Query embedding p50/p90 on texts never seen (no cache), and passage throughput on `passages`. */
export async function measureEmbedding(e: Embedder, queryTexts: string[], passages: string[]): Promise<EmbeddingTimes> {
  await e.embedQuery("warm-up query for the timing");
  const q: number[] = [];
  for (const [i, t] of queryTexts.entries()) {
    const t0 = performance.now();
    await e.embedQuery(`${t} (${i})`);
    q.push(performance.now() - t0);
  }
  const t0 = performance.now();
  await e.embedPassages(passages);
  const s = (performance.now() - t0) / 1000;
  return {
    queryP50: quantile(q, 0.5),
    queryP90: quantile(q, 0.9),
    passagesPerSecond: passages.length / s,
    sample: passages.length,
  };
}

/** The figures of the split report (scripts/eval-split.ts makes them). */
export interface SplitFigures {
  train: Record<Mode, Summary>;
  heldOut: Record<Mode, Summary>;
  /** Meaning queries of the held-out half by tool, per mode. */
  heldOutMeaningByTool: Record<string, Record<Mode, Summary>>;
  /** The dev set per mode (hitK: within each case's k), and by tool (hybrid). */
  dev: Record<Mode, Summary & { hitK: number }>;
  devByTool: Record<string, Summary & { hitK: number }>;
}

export interface ModelReport {
  model: string;
  id: string;
  /** Whole set per mode. */
  all: Record<Mode, Summary>;
  /** Meaning queries per mode, and per tool (hybrid). */
  meaning: Record<Mode, Summary>;
  meaningByTool: Record<string, Summary>;
  /** Training / held-out halves, held-out meaning by tool, the dev set (eval-split.ts). */
  split: SplitFigures;
  heldOutDefault: Summary;
  heldOutTuned: Summary;
  /** The per-tool fusion tuned on the training half ("spell 20/1, …"). */
  tuned: string;
  times: EmbeddingTimes;
  corpusEmbedSeconds: number | null;
  hybridQueryMs: number;
}

export function summarizeRanks(ranks: Array<number | null>): Summary {
  return summarize(ranks);
}

const f3 = (x: number) => x.toFixed(3);
const pad = (s: string, n: number) => (s.length >= n ? s : s + " ".repeat(n - s.length));

/** The side-by-side table (markdown, so it can go straight into docs). */
export function sideBySide(reports: ModelReport[]): string {
  const lines = ["", "## Models side by side", ""];
  lines.push("| model | mode | hit@1 | hit@5 | hit@10 | MRR | meaning MRR |", "|---|---|---:|---:|---:|---:|---:|");
  for (const r of reports) {
    for (const m of ["lexical", "vector", "hybrid"] as const) {
      const s = r.all[m];
      lines.push(
        `| ${m === "lexical" ? r.model : ""} | ${m} | ${f3(s.hit1)} | ` +
          `${f3(s.hit5)} | ${f3(s.hit10)} | ${f3(s.mrr)} | ${f3(r.meaning[m].mrr)} |`,
      );
    }
  }
  lines.push("", "Held-out half and dev set (hybrid):", "");
  lines.push("| model | held-out hit@5 | held-out MRR | dev hit@k | dev MRR |", "|---|---:|---:|---:|---:|");
  for (const r of reports) {
    lines.push(
      `| ${r.model} | ${f3(r.split.heldOut.hybrid.hit5)} | ${f3(r.split.heldOut.hybrid.mrr)} ` +
        `| ${f3(r.split.dev.hybrid.hitK)} | ${f3(r.split.dev.hybrid.mrr)} |`,
    );
  }
  lines.push(
    "",
    "Fusion tuned per tool on the training half only; the held-out " +
      "half with the shipped constants and with the tuned ones:",
    "",
  );
  lines.push(
    "| model | tuned k / vector weight / core prior per tool | held-out " +
      "hybrid hit@5 shipped → tuned | held-out hybrid MRR shipped → tuned |",
    "|---|---|---|---|",
  );
  for (const r of reports) {
    lines.push(
      `| ${r.model} | ${r.tuned} | ${f3(r.heldOutDefault.hit5)} → ` +
        `${f3(r.heldOutTuned.hit5)} | ${f3(r.heldOutDefault.mrr)} → ${f3(r.heldOutTuned.mrr)} |`,
    );
  }
  const tools = [...new Set(reports.flatMap((r) => Object.keys(r.meaningByTool)))].sort();
  lines.push("", "Meaning queries by tool (hybrid MRR, number of queries):", "");
  lines.push(`| model | ${tools.join(" | ")} |`, `|---|${tools.map(() => "---:").join("|")}|`);
  for (const r of reports) {
    const byTool = tools.map((t) =>
      r.meaningByTool[t] ? `${f3(r.meaningByTool[t]!.mrr)} (${r.meaningByTool[t]!.queries})` : "–",
    );
    lines.push(`| ${r.model} | ${byTool.join(" | ")} |`);
  }
  lines.push(
    "",
    "| model | query embedding p50 / p90 | corpus embedding | full corpus embed | hybrid query p50 |",
    "|---|---:|---:|---:|---:|",
  );
  for (const r of reports) {
    const corpus = r.corpusEmbedSeconds === null ? "cached" : `${r.corpusEmbedSeconds.toFixed(0)} s`;
    lines.push(
      `| ${r.model} | ${r.times.queryP50.toFixed(1)} / ${r.times.queryP90.toFixed(1)} ` +
        `ms | ${r.times.passagesPerSecond.toFixed(1)} passages/s ` +
        `(${r.times.sample}) | ${corpus} | ${r.hybridQueryMs.toFixed(1)} ms |`,
    );
  }
  lines.push("", reports.map((r) => `${pad(r.model, 20)} ${r.id}`).join("\n"));
  return lines.join("\n");
}

/** Distinct texts, so the embedder's query cache never answers. */
export const TIMING_TEXTS = [
  "creatures that live underwater",
  "spells that control the weather",
  "armor for a stealthy rogue",
  "how does initiative work",
  "magic rings that grant protection",
  "summon an elemental ally",
  "poisonous monsters in swamps",
  "a cantrip that deals cold damage",
  "feats for archers",
  "ancient giant of the mountains",
  "tools for picking locks",
  "spells that let you speak with the dead",
  "rules for travelling overland",
  "a potion that grants flight",
  "fey creatures that trick travellers",
  "shields that reflect spells",
  "fighting while mounted",
  "a staff of power",
  "heal the whole party",
  "insect swarm",
  "undead horse",
  "banish a demon",
  "boots of speed",
  "dwarven heritage",
];

/** Whether every entity of `kinds` has a current vector of the store's model (meta embedding_model_id). */
export function kindsFullyEmbedded(db: Database, kinds: readonly string[]): boolean {
  const modelId =
    db.query<{ value: string }, []>("SELECT value FROM meta WHERE key = 'embedding_model_id'").get()?.value ?? "";
  const row = db
    .query<{ n: number }, string[]>(
      `SELECT count(*) AS n FROM entities e LEFT JOIN vectors v ON v.entity_id ` +
        `= e.id AND v.model_id = ?
       WHERE e.kind IN (${kinds.map(() => "?").join(",")}) ` +
        `AND (v.entity_id IS NULL OR v.content_hash <> e.content_hash)`,
    )
    .get(modelId, ...kinds);
  return (row?.n ?? 1) === 0;
}

const lpad = (s: string, n: number) => (s.length >= n ? s : " ".repeat(n - s.length) + s);

export function summaryLines(label: string, s: Record<Mode, Summary>): string[] {
  const f = (x: number) => x.toFixed(3);
  const lines = [
    `\n${label}`,
    `${pad("mode", 8)}  ${lpad("hit@1", 6)}  ${lpad("hit@5", 6)}  ${lpad("hit@10", 6)}  ${lpad("MRR", 6)}`,
  ];
  for (const m of MODES)
    lines.push(
      `${pad(m, 8)}  ${lpad(f(s[m].hit1), 6)}  ${lpad(f(s[m].hit5), 6)} ` +
        ` ${lpad(f(s[m].hit10), 6)}  ${lpad(f(s[m].mrr), 6)}`,
    );
  return lines;
}

export function summaries(results: ReadonlyArray<{ rank: Record<Mode, number | null> }>): Record<Mode, Summary> {
  const out = {} as Record<Mode, Summary>;
  for (const m of MODES) out[m] = summarize(results.map((r) => r.rank[m]));
  return out;
}

/**
 * Hybrid meaning MRR and hits by tool, over all meaning queries and over the held-out half (the
 * queries fusion is never tuned on); "in k" counts hits within each query's own k (default 5).
 */
export function meaningByToolLines(
  meaning: ReadonlyArray<{ q: EvalQuery; rank: Record<Mode, number | null> }>,
): string {
  const out = ["\nMeaning queries by tool, hybrid (all | held-out half): n, MRR, hits in k"];
  const cell = (rs: ReadonlyArray<{ q: EvalQuery; rank: Record<Mode, number | null> }>) => {
    const s = summarize(rs.map((r) => r.rank.hybrid));
    const inK = rs.filter((r) => r.rank.hybrid !== null && r.rank.hybrid <= (r.q.k ?? 5)).length;
    return `${String(rs.length).padStart(2)}  ${s.mrr.toFixed(3)}  ${inK}/${rs.length}`;
  };
  for (const tool of [...new Set(meaning.map((r) => r.q.tool))].sort()) {
    const rs = meaning.filter((r) => r.q.tool === tool);
    out.push(`  ${tool.padEnd(24)} ${cell(rs)}  |  ${cell(rs.filter((r) => !isTuneQuery(r.q)))}`);
  }
  return out.join("\n");
}
