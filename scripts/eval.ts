#!/usr/bin/env bun
/**
 * `bun run eval [-- options]`: ranking quality of LoreKeeper's search over the real corpus.
 *
 *   1. Serves ../shared/data through the fake upstream, syncs the default sources (Open5e v2 +
 *      dnd5eapi rules, rule sections, proficiencies) into a temporary store and embeds everything
 *      with lorekeeper-static-384.
 *   2. Runs the query set (scripts/eval-queries.ts) through the tools' own argument handling, each
 *      with three rankings over the same candidates: lexical only, vector only, hybrid.
 *   3. Prints the rank of the best target per query and mode, hit@1/5/10 and MRR per mode, PASS/FAIL
 *      for every ranking expectation (on hybrid), and the median time of a structured query and of
 *      a hybrid query over the full corpus.
 *   5. The agreement audit (scripts/eval-agreement.ts): SRD 5.1 as Open5e v2, v1 and the D&D 5e API
 *      transcribe it, field by field (checked / agree / corrected / kept / unresolved per kind).
 *   4. The fidelity check (scripts/eval-fidelity.ts): key fields of every weapon, armor, spell and
 *      creature against the raw upstream record, and every new filter's count against the raw data.
 *
 * Needs ../shared (not part of `bun test`). Exit 0, or with --strict 1 when an expectation fails,
 * hybrid is below the better single leg on hit@5 or MRR, or a fidelity mismatch is unexplained. See docs/eval.md.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { loadConfig } from "../src/config.ts";
import { embedByKind } from "./embed-by-kind.ts";
import { runSync } from "../src/ingest/sync.ts";
import { setLogLevel } from "../src/log.ts";
import { createEmbedderProvider } from "../src/search/model/embedder.ts";
import { runSearch } from "../src/search/hybrid.ts";
import type { SearchContext } from "../src/search/context.ts";
import type { SearchQuery } from "../src/search/types.ts";
import { closeVectorIndex } from "../src/search/index/vector-index.ts";
import { openStore, type Store } from "../src/store/db.ts";
import { DataGate } from "../src/tools/kit/data-gate.ts";
import type { ToolDeps } from "../src/tools/kit/deps.ts";
import { TOOLS } from "../src/tools/index.ts";
import { startUpstreamFor } from "./eval-upstream.ts";
import {
  checkExpectation,
  firstRelevantRank,
  MODES,
  parseTarget,
  rankOf,
  summarize,
  type Mode,
  type RankedEntity,
} from "./eval-metrics.ts";
import { ALL_QUERIES, type EvalQuery } from "./eval-queries.ts";
import { loadDevSet } from "./eval-devset.ts";
import { fidelityLines, runFidelity } from "./eval-fidelity.ts";
import { runAgreementAudit } from "./eval-agreement.ts";
import { SHARED_DATA, SHARED_MODEL } from "./shared-dir.ts";
import {
  kindsFullyEmbedded,
  meaningByToolLines,
  measureEmbedding,
  type ModelReport,
  queryClass,
  sideBySide,
  summaries,
  summaryLines,
  TIMING_TEXTS,
} from "./eval-compare.ts";
import { DEV_SET } from "./eval-dev.ts";
import { timeQueries } from "./eval-timing.ts";
import { splitFigures, splitLines, tunePerTool } from "./eval-split.ts";
import type { Fusion } from "../src/search/types.ts";
import { fileSha256 } from "../src/search/model/model-source.ts";
import { catalogModelByOnnx, readManifest } from "../src/search/model/model-manifest.ts";
import { checkModel } from "../src/search/model/model-reference.ts";
import { upstreamsAt } from "../src/sources/index.ts";

const HELP = `Usage: bun run eval [-- options]

  --strict        exit 1 when a ranking expectation fails, or hybrid < max(lexical, vector) on hit@5 or MRR
  --data DIR      corpus served by the fake upstream (default ../shared/data or LOREKEEPER_EVAL_DATA)
  --model DIR     embedding model (default ../shared/models/lorekeeper-static-384 or LOREKEEPER_EVAL_MODEL);
                  repeat it (or LOREKEEPER_EVAL_MODEL="A:B") to compare models side by side
  --cache DIR     keep one synced, embedded store per model in DIR and reuse it (a later run syncs it
                  again and embeds only what changed), e.g. .tmp/eval-stores (git-ignored)
  --embed-budget S stop embedding a store after S seconds (what is done stays in a --cache store)
  --complete-only only queries whose candidate kinds are fully embedded in every model's store (for
                  stores embedded part way, e.g. by scripts/embed-by-kind.ts); the rest is listed
  --store FILE    reuse an already synced and embedded store (no sync; it is not deleted)
  --keep          keep the temporary store and print its path
  --queries FILE  run a development set instead of the own queries (e.g. ../shared/eval/relevance-dev.json:
                  {"cases": [{id, tool, args, k, any, prefix}]}); also reports hits within each case's k
  --only TEXT     only queries whose id contains TEXT
  --show N        print the top N names of each mode for every query
  --runs N        warm runs per timing (default 15)
  --limit N       hits per query and mode, 10–100 (default: the tool's limit, 20 unless the query sets one)
  --quick         rankings only: no timings, model check or fidelity check (while trying ranking changes)
  --no-tune       skip the fusion grid on the training half
  --fusion JSON   rank every query with these fusion constants over the tools' own (rank/fusion.ts),
                  e.g. '{"coreBoost":0.25}' or '{"method":"convex","vectorWeight":2.33}'
  --no-dev        leave out the outside dev set (../shared/eval/relevance-dev.json, reported apart)`;

const { values: opt } = parseArgs({
  options: {
    strict: { type: "boolean" },
    data: { type: "string" },
    model: { type: "string", multiple: true },
    cache: { type: "string" },
    "complete-only": { type: "boolean" },
    "embed-budget": { type: "string" },
    store: { type: "string" },
    keep: { type: "boolean" },
    only: { type: "string" },
    queries: { type: "string" },
    show: { type: "string" },
    runs: { type: "string" },
    limit: { type: "string" },
    "no-dev": { type: "boolean" },
    quick: { type: "boolean" },
    "no-tune": { type: "boolean" },
    fusion: { type: "string" },
    help: { type: "boolean", short: "h" },
  },
});
if (opt.help) {
  console.log(HELP);
  process.exit(0);
}

/**
 * Hits per query and mode: the tool's own limit (20 unless the query sets one) or --limit; ranks beyond it show as
 * "–" and count 0 in MRR.
 */
const limitOverride = opt.limit ? Math.min(100, Math.max(10, Number(opt.limit) || 20)) : undefined;
const dataDir = opt.data ?? process.env.LOREKEEPER_EVAL_DATA ?? SHARED_DATA;
const modelDirs = (opt.model ?? (process.env.LOREKEEPER_EVAL_MODEL ?? SHARED_MODEL).split(":")).map((d) => resolve(d));
const budgetSeconds = opt["embed-budget"] ? Math.max(0, Number(opt["embed-budget"]) || 0) : undefined;
const showN = opt.show ? Math.max(1, Number(opt.show) || 5) : 0;
const runs = Math.max(3, Number(opt.runs ?? 15) || 15);
const quick = opt.quick === true;
const fusionOverride = opt.fusion ? (JSON.parse(opt.fusion) as Partial<Fusion>) : undefined;
const say = (m: string) => process.stderr.write(`eval: ${m}\n`);
const ms = (t0: number) => Math.round(performance.now() - t0);

if (!process.env.LOREKEEPER_LOG_LEVEL) setLogLevel("warn");

/** Sync the corpus through the fake upstream into `path` (new, or a cached store) and embed what is pending. */
async function buildStore(path: string, modelDir: string): Promise<{ store: Store; embedSeconds: number | null }> {
  if (!existsSync(join(dataDir, "open5e", "v2"))) {
    throw new Error(
      `no corpus at ${dataDir} (expected open5e/v2/ and dnd5eapi/ as in ../shared/data); pass --data DIR`,
    );
  }
  if (!existsSync(join(modelDir, "model.onnx")))
    throw new Error(`no model at ${modelDir} (expected model.onnx); pass --model DIR`);
  const upstream = await startUpstreamFor(path, dataDir, say);
  const store = openStore({ path });
  try {
    const config = { ...loadConfig(), ...upstreamsAt(upstream.url) };
    const t0 = performance.now();
    const report = await runSync(store, { config, force: true });
    const failed = report.results.filter((r) => r.status === "failed");
    if (failed.length) {
      throw new Error(
        `sync failed for ${failed.length} content type(s): ` +
          `${failed.map((r) => r.contentType).join(", ")}; first error: ${failed[0]!.error}`,
      );
    }
    say(`synced ${report.records} records (${report.requests} requests) in ${ms(t0)} ms`);
    const t1 = performance.now();
    const provider = createEmbedderProvider({ modelDir, embeddedDir: null, allowDownload: false });
    const embedder = await provider.get();
    if (!embedder) throw new Error(`the embedding model did not load: ${provider.reason()}`);
    const before =
      store.db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM vectors WHERE model_id = ?").get(embedder.id)
        ?.n ?? 0;
    const deadline = budgetSeconds === undefined ? Number.POSITIVE_INFINITY : performance.now() + budgetSeconds * 1000;
    const emb = await embedByKind(store, embedder, {
      stop: () => performance.now() > deadline,
      log: (l) => say(`  ${l}`),
    });
    say(
      `embedded ${emb.embedded} entities with ${embedder.id} in ${ms(t1)} ms (${before} already ` +
        `embedded)${emb.complete ? "" : `; stopped after --embed-budget ${budgetSeconds} s, the next run goes on`}`,
    );
    return { store, embedSeconds: before > 0 || !emb.complete ? null : ms(t1) / 1000 };
  } catch (err) {
    store.close();
    throw err;
  } finally {
    await upstream.stop();
  }
}

/** The SearchQuery the tool builds for `q.args` (the tool runs with a recording search). */
async function toolQuery(store: Store, q: EvalQuery): Promise<SearchQuery> {
  const def = TOOLS.find((t) => t.name === q.tool);
  if (!def) throw new Error(`${q.id}: unknown tool ${q.tool}`);
  let captured: SearchQuery | undefined;
  const deps: ToolDeps = {
    db: store.db,
    search: async (sq) => {
      captured = sq;
      return { hits: [], total: 0, mode: "structured" };
    },
    responseBudgetChars: 60_000,
  };
  const res = await def.call(q.args, { deps, gate: new DataGate(deps), progress: () => {} });
  if (res.isError) throw new Error(`${q.id}: ${q.tool} rejected its arguments: ${JSON.stringify(res.content)}`);
  if (!captured) throw new Error(`${q.id}: ${q.tool} did not search`);
  return captured;
}

interface QueryRun {
  q: EvalQuery;
  sq: SearchQuery;
  hits: Record<Mode, RankedEntity[]>;
  rank: Record<Mode, number | null>;
}

async function runQuery(ctx: SearchContext, q: EvalQuery): Promise<QueryRun> {
  const sq = await toolQuery(ctx.store, q);
  const hits = {} as Record<Mode, RankedEntity[]>;
  const rank = {} as Record<Mode, number | null>;
  for (const mode of MODES) {
    const res = await runSearch(ctx, { ...sq, limit: limitOverride ?? Math.max(10, sq.limit), ranking: mode });
    if (res.message && mode !== "lexical") say(`${q.id} (${mode}): ${res.message}`);
    hits[mode] = res.hits.map((h) => h.entity);
    rank[mode] = firstRelevantRank(hits[mode], q.targets);
  }
  return { q, sq, hits, rank };
}

/** Targets that do not exist among the query's candidates (a broken query, not a ranking miss). */
async function missingTargets(ctx: SearchContext, sq: SearchQuery, q: EvalQuery): Promise<string[]> {
  const out: string[] = [];
  for (const t of q.targets) {
    const res = await runSearch(ctx, { ...sq, search: undefined, name: parseTarget(t).name, limit: 100 });
    if (
      rankOf(
        res.hits.map((h) => h.entity),
        t,
      ) === null
    )
      out.push(t);
  }
  return out;
}

const pad = (s: string, n: number) => (s.length >= n ? s : s + " ".repeat(n - s.length));
const lpad = (s: string, n: number) => (s.length >= n ? s : " ".repeat(n - s.length) + s);
const r2s = (r: number | null) => (r === null ? "–" : String(r));

function printTable(results: QueryRun[]): void {
  const w = Math.max(...results.map((r) => r.q.id.length), 5);
  console.log(
    `\n${pad("query", w)}  ${lpad("lexical", 7)}  ${lpad("vector", 7)}  ${lpad("hybrid", 7)}  search text → targets`,
  );
  for (const r of results) {
    const text = String(r.q.args.search ?? r.q.args.query ?? "");
    const cells = MODES.map((m) => lpad(r2s(r.rank[m]), 7)).join("  ");
    console.log(
      `${pad(r.q.id, w)}  ${cells}  "${text}" → ` +
        `${r.q.targets.slice(0, 3).join(", ")}${r.q.targets.length > 3 ? ", …" : ""}`,
    );
    if (showN)
      for (const m of MODES)
        console.log(
          `${" ".repeat(w)}    ${pad(m, 8)}${r.hits[m]
            .slice(0, showN)
            .map((e) => `${e.name} [${e.kind}/${e.document_key}]`)
            .join(" | ")}`,
        );
  }
}

/** The store for one model: `--store`, a cached one under `--cache`, or a new temporary one. */
async function storeFor(modelDir: string): Promise<{ store: Store; tmp?: string; embedSeconds: number | null }> {
  if (opt.store) {
    say(`using the store ${opt.store}`);
    return { store: openStore({ path: opt.store }), embedSeconds: null };
  }
  const tmp = mkdtempSync(join(tmpdir(), "lorekeeper-eval-"));
  // Private XDG dirs: nothing of the user's LoreKeeper setup is read or written.
  process.env.XDG_DATA_HOME = join(tmp, "data");
  process.env.XDG_CACHE_HOME = join(tmp, "cache");
  let path = join(tmp, "eval.db");
  if (opt.cache) {
    mkdirSync(opt.cache, { recursive: true });
    const onnx = ["model.onnx", "model_optimized.onnx"].map((f) => join(modelDir, f)).find((f) => existsSync(f));
    const sha = onnx ? (await fileSha256(onnx)).slice(0, 12) : "none";
    path = join(resolve(opt.cache), `${basename(modelDir)}-${sha}.db`);
    say(`${existsSync(path) ? "reusing" : "creating"} the cached store ${path}`);
    // Part-way embedded stores are ranked as they are (no sync, no embedding pass).
    if (opt["complete-only"] && existsSync(path)) return { store: openStore({ path }), tmp, embedSeconds: null };
  }
  try {
    const built = await buildStore(path, modelDir);
    return { ...built, tmp };
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
}

interface ModelRun {
  report: ModelReport;
  failures: number;
  broken: number;
  fusionOk: boolean;
  /** Corpus fidelity differences without an explanation (eval-fidelity.ts). */
  unexplained: number;
}

type OpenedStore = Awaited<ReturnType<typeof storeFor>>;

/** Whether every candidate kind of `q` has a current vector of the store's model. */
async function complete(o: OpenedStore, q: EvalQuery): Promise<boolean> {
  return kindsFullyEmbedded(o.store.db, (await toolQuery(o.store, q)).kinds);
}

async function evaluateModel(
  modelDir: string,
  opened: OpenedStore,
  queries: EvalQuery[],
  devQueries: EvalQuery[],
): Promise<ModelRun> {
  const { store, tmp, embedSeconds } = opened;
  try {
    const provider = createEmbedderProvider({ modelDir, embeddedDir: null, allowDownload: false });
    const ctx: SearchContext = {
      store,
      embedder: provider,
      embeddingTimeoutMs: 30_000,
      ...(fusionOverride ? { fusion: fusionOverride } : {}),
    };
    const results: QueryRun[] = [];
    let broken = 0;
    for (const q of queries) {
      const r = await runQuery(ctx, q);
      const missing = await missingTargets(ctx, r.sq, q);
      if (missing.length) {
        if (missing.length === q.targets.length) broken++;
        say(`${q.id}: target${missing.length > 1 ? "s" : ""} not among the candidates: ${missing.join(", ")}`);
      }
      results.push(r);
    }
    console.log(`\n# ${basename(modelDir)}`);
    printTable(results);

    const all = summaries(results);
    const meaning = results.filter((r) => queryClass(r.q) === "meaning");
    const lines = [
      ...summaryLines(`All queries (${results.length})`, all),
      ...summaryLines(
        `Spec scenarios (${results.filter((r) => r.q.origin === "spec").length})`,
        summaries(results.filter((r) => r.q.origin === "spec")),
      ),
      ...summaryLines(
        `Own queries (${results.filter((r) => r.q.origin === "own").length})`,
        summaries(results.filter((r) => r.q.origin === "own")),
      ),
      ...summaryLines(`Meaning queries (${meaning.length}; not typos or names)`, summaries(meaning)),
    ];
    console.log(lines.join("\n"));
    console.log(meaningByToolLines(meaning));

    console.log("\nRanking expectations (hybrid; lexical / vector for comparison)");
    let failures = 0;
    for (const r of results) {
      for (const x of r.q.expect ?? []) {
        const res = checkExpectation(r.hits.hybrid, x);
        const others = (["lexical", "vector"] as const)
          .map((m) => (checkExpectation(r.hits[m], x).pass ? "pass" : "fail"))
          .join(" / ");
        if (!res.pass) failures++;
        console.log(`${res.pass ? "PASS" : "FAIL"}  ${r.q.id}: ${res.what} (${res.detail}) [${others}]`);
      }
    }

    const best = (k: "hit5" | "mrr") => Math.max(all.lexical[k], all.vector[k]);
    const fusionOk = all.hybrid.hit5 >= best("hit5") && all.hybrid.mrr >= best("mrr") - 1e-9;
    console.log(
      `\nhybrid vs best single leg: hit@5 ${all.hybrid.hit5.toFixed(3)} vs ${best("hit5").toFixed(3)}, ` +
        `MRR ${all.hybrid.mrr.toFixed(3)} vs ${best("mrr").toFixed(3)} → ${fusionOk ? "OK" : "BELOW"}`,
    );

    // The outside dev set, reported apart; then the split (held-out first) and fusion tuned per tool
    // on the training half only (each query is embedded once: the embedder caches it).
    const devRuns: QueryRun[] = [];
    for (const q of devQueries) {
      const r = await runQuery(ctx, q);
      const missing = await missingTargets(ctx, r.sq, q);
      if (missing.length === q.targets.length) broken++;
      if (missing.length)
        say(`${q.id}: target${missing.length > 1 ? "s" : ""} not among the candidates: ${missing.join(", ")}`);
      devRuns.push(r);
    }
    if (devRuns.length) {
      console.log(`\n# dev set (${DEV_SET})`);
      printTable(devRuns);
    }
    const split = splitFigures(results, devRuns);
    console.log(splitLines(split).join("\n"));
    const tuning = await tunePerTool(
      opt["no-tune"] ? [] : results,
      async (r, fusion) => {
        const run = r as QueryRun;
        const res = await runSearch(
          { ...ctx, fusion },
          { ...run.sq, limit: limitOverride ?? Math.max(10, run.sq.limit), ranking: "hybrid" },
        );
        return firstRelevantRank(
          res.hits.map((h) => h.entity),
          r.q.targets,
        );
      },
      (r) => (r as QueryRun).sq.profile,
    );
    console.log(tuning.lines.join("\n"));
    const heldOutDefault = tuning.heldOutShipped;
    const heldOutTuned = tuning.heldOutTuned;
    const tuned = Object.entries(tuning.tuned)
      .map(([p, f]) => `${p} ${f.method} ${f.k}/${f.vectorWeight}/${f.coreBoost}`)
      .join(", ");

    const t = quick
      ? { entities: 0, structured: 0, hybrid: 0, hybridP90: 0 }
      : await timeQueries(ctx, (q) => toolQuery(ctx.store, q), runs);
    if (!quick)
      console.log(
        `\nTiming over the full corpus (${t.entities} entities, median of ${runs} ` +
          `warm runs): structured query ${t.structured.toFixed(2)} ms; hybrid query ` +
          `over all kinds ${t.hybrid.toFixed(2)} ms (p90 ${t.hybridP90.toFixed(2)} ms)`,
      );
    const embedder = await provider.get();
    if (!embedder) throw new Error(`the model did not load: ${provider.reason()}`);
    // Faithful to the published model (docs/models.md), when it is a known one.
    const manifest = readManifest(modelDir);
    const known = manifest ? catalogModelByOnnx(manifest.source_onnx_sha256) : undefined;
    for (const c of known && !quick ? await checkModel(embedder, manifest, known.reference) : [])
      console.log(`${c.pass ? "PASS" : "FAIL"}  model check ${c.name}: ${c.detail}`);
    const sample = store.db
      .query<{ text: string }, []>("SELECT text FROM entities ORDER BY id LIMIT 64 OFFSET 1000")
      .all()
      .map((r) => r.text);
    const times = quick
      ? { queryP50: 0, queryP90: 0, passagesPerSecond: 0, sample: 0 }
      : await measureEmbedding(embedder, TIMING_TEXTS, sample);
    if (!quick)
      console.log(
        `embedding: query p50 ${times.queryP50.toFixed(1)} ms, p90 ${times.queryP90.toFixed(1)} ` +
          `ms; ${times.passagesPerSecond.toFixed(1)} passages/s over ${times.sample} entity ` +
          `texts${embedSeconds === null ? "" : `; whole corpus embedded in ${embedSeconds.toFixed(0)} s`}`,
      );
    const meaningByTool: Record<string, ReturnType<typeof summarize>> = {};
    for (const tool of [...new Set(meaning.map((r) => r.q.tool))])
      meaningByTool[tool] = summarize(meaning.filter((r) => r.q.tool === tool).map((r) => r.rank.hybrid));
    const report: ModelReport = {
      model: basename(modelDir),
      id: embedder.id,
      all,
      split,
      meaning: summaries(meaning),
      meaningByTool,
      heldOutDefault,
      heldOutTuned,
      tuned,
      times,
      corpusEmbedSeconds: embedSeconds,
      hybridQueryMs: t.hybrid,
    };
    const fidelity = quick ? { lines: [], unexplained: 0 } : fidelityLines(runFidelity(store.db, dataDir));
    console.log(fidelity.lines.join("\n"));
    console.log(
      `expectations: ${failures} failed; ${broken} ` +
        `${broken === 1 ? "query has" : "queries have"} no target among the candidates`,
    );
    return { report, failures, broken, fusionOk, unexplained: fidelity.unexplained };
  } finally {
    closeVectorIndex(store);
    store.close();
    if (tmp && !opt.keep) rmSync(tmp, { recursive: true, force: true });
    else if (tmp) say(`kept ${tmp}`);
  }
}

async function main(): Promise<number> {
  const started = performance.now();
  const runsOut: ModelRun[] = [];
  const opened: OpenedStore[] = [];
  for (const dir of modelDirs) opened.push(await storeFor(dir));
  let queries = (opt.queries ? loadDevSet(opt.queries) : ALL_QUERIES).filter(
    (q) => !opt.only || q.id.includes(opt.only),
  );
  // The outside dev set beside the own queries, reported apart (not with --queries, which runs a set instead).
  const devQueries =
    opt["no-dev"] || opt.queries || !existsSync(DEV_SET)
      ? []
      : loadDevSet(DEV_SET).filter((q) => !opt.only || q.id.includes(opt.only));
  if (!opt["no-dev"] && !opt.queries && !existsSync(DEV_SET))
    say(`no dev set at ${DEV_SET}; only the project's queries are ranked`);
  if (opt["complete-only"]) {
    const keep: EvalQuery[] = [];
    for (const q of queries) {
      let ok = true;
      for (const o of opened) ok = ok && (await complete(o, q));
      if (ok) keep.push(q);
    }
    say(
      `--complete-only: ${keep.length} of ${queries.length} queries have every candidate embedded; left out: ${
        queries
          .filter((q) => !keep.includes(q))
          .map((q) => q.id)
          .join(", ") || "none"
      }`,
    );
    queries = keep;
  }
  for (const [i, dir] of modelDirs.entries()) runsOut.push(await evaluateModel(dir, opened[i]!, queries, devQueries));
  if (runsOut.length > 1) console.log(sideBySide(runsOut.map((r) => r.report)));
  if (!opt.only) console.log(`\n${(await runAgreementAudit(dataDir, say)).join("\n")}`);
  console.log(`\ntotal ${(ms(started) / 1000).toFixed(1)} s`);
  const bad = runsOut.some((r) => r.failures > 0 || r.broken > 0 || !r.fusionOk || r.unexplained > 0);
  return opt.strict && bad ? 1 : 0;
}

try {
  process.exitCode = await main();
} catch (err) {
  process.stderr.write(`eval: ${(err as Error).message}\n`);
  process.exitCode = 2;
}
