#!/usr/bin/env bun
/**
 * `bun run embed-throughput -- --db STORE [--model DIR] [--texts 384] [--questions 100]`
 *
 * The embedding model's speed as LoreKeeper runs it, next to raw onnxruntime, in one run:
 * - passages: the first N entity texts of a store, embedded the way `lorekeeper sync` does
 *   (EMBED_BATCH texts per call through the Embedder) and by raw onnxruntime on the same model file and texts
 *   (same tokens, sorted by length, batches of 16 padded to their longest text): once with
 *   LoreKeeper's session options (onnx-session.ts; the ratio) and once with onnxruntime's defaults;
 *   entities/s of each, their ratio, and CPU time / wall time (how many cores worked);
 * - queries: warm query embedding per question (the eval's and the benchmark's questions, each
 *   once, after a warm-up): p50 and p90.
 * The passage runs alternate (pipeline, raw, raw with defaults, twice) so that load on a shared
 * machine hits them alike; the figures are the better of each one's runs.
 */
import { Database } from "bun:sqlite";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { cacheDir } from "../src/config.ts";
import { EMBED_BATCH } from "../src/ingest/embed.ts";
import { createEmbedderProvider } from "../src/search/model/embedder.ts";
import { activeModelDir } from "../src/search/model/model-manifest.ts";
import { inspectModelDir } from "../src/search/model/model-source.ts";
import { createSession } from "../src/search/model/onnx-session.ts";
import { callMix } from "../bench/queries.ts";
import { ALL_QUERIES } from "./eval-queries.ts";
import { AddedToken, Tokenizer } from "../packages/tokenizers-js/index.ts";
import { type AddedTokenClass, loadLikeFastembed, type TokenizerClass } from "./tokenizer-reference.ts";

const { values: opt } = parseArgs({
  args: process.argv.slice(2),
  options: {
    db: { type: "string" },
    model: { type: "string" },
    texts: { type: "string" },
    questions: { type: "string" },
    help: { type: "boolean", short: "h" },
  },
});
if (opt.help || !opt.db) {
  process.stdout.write("usage: bun run embed-throughput -- --db STORE [--model DIR] [--texts 384] [--questions 100]\n");
  process.exit(opt.help ? 0 : 2);
}
const modelDir = opt.model ?? activeModelDir(join(cacheDir(), "models"));
if (!modelDir) throw new Error("no installed model: pass --model DIR");
const check = inspectModelDir(modelDir);
if (!check.ok) throw new Error(check.problem);
const db = new Database(opt.db, { readonly: true });
const texts = db
  .query<{ text: string }, [number]>("SELECT text FROM entities ORDER BY id LIMIT ?")
  .all(Number(opt.texts ?? 384))
  .map((r) => r.text);
db.close();

const cpu = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1e6;
};
interface Run {
  perSecond: number;
  cores: number;
  cpuMsPerEntity: number;
}
async function timed(f: () => Promise<void>): Promise<Run> {
  const c0 = cpu();
  const t0 = performance.now();
  await f();
  const wall = (performance.now() - t0) / 1000;
  const used = cpu() - c0;
  return { perSecond: texts.length / wall, cores: used / wall, cpuMsPerEntity: (used * 1000) / texts.length };
}

// LoreKeeper's pipeline, loaded as the server and sync load it.
const provider = createEmbedderProvider({ modelDir, embeddedDir: null, allowDownload: false });
const embedder = await provider.get();
if (!embedder) throw new Error(`the model did not load: ${provider.reason()}`);
const maxTokens = provider.info()?.maxTokens ?? 256;
const pipeline = async () => {
  for (let i = 0; i < texts.length; i += EMBED_BATCH) await embedder.embedPassages(texts.slice(i, i + EMBED_BATCH));
};

// Raw onnxruntime: the same model file and tokens, nothing else; with LoreKeeper's session options
// (the ratio: what the pipeline adds) and with onnxruntime's own defaults (spinning worker threads).
const ort = await import("onnxruntime-node");
const ownSession = await createSession(ort, join(modelDir, check.onnxFile));
const defaultSession = await ort.InferenceSession.create(join(modelDir, check.onnxFile), {
  graphOptimizationLevel: "all",
});
const tok = loadLikeFastembed(
  Tokenizer as unknown as TokenizerClass,
  AddedToken as unknown as AddedTokenClass,
  modelDir,
  maxTokens,
) as unknown as Tokenizer;
const rawWith = (session: typeof ownSession) => async () => {
  const encs = texts.map((t) => tok.encodeSync(t, true, false)).sort((a, b) => a.getLength() - b.getLength());
  for (let i = 0; i < encs.length; i += 16) {
    const batch = encs.slice(i, i + 16);
    const width = Math.max(...batch.map((e) => e.getLength()));
    const ids = new BigInt64Array(batch.length * width);
    const mask = new BigInt64Array(batch.length * width);
    const types = new BigInt64Array(batch.length * width);
    batch.forEach((e, r) => {
      e.getIds().forEach((id, c) => {
        ids[r * width + c] = BigInt(id);
        mask[r * width + c] = 1n;
      });
    });
    const all: Record<string, BigInt64Array> = { input_ids: ids, attention_mask: mask, token_type_ids: types };
    const feeds = Object.fromEntries(
      session.inputNames.map((n) => [n, new ort.Tensor("int64", all[n]!, [batch.length, width])]),
    );
    await session.run(feeds);
  }
};

const raw = rawWith(ownSession);
const rawDefaults = rawWith(defaultSession);
await pipeline(); // warm-up (and the batch runner's one check)
await raw();
await rawDefaults();
const runs: { pipeline: Run[]; raw: Run[]; rawDefaults: Run[] } = { pipeline: [], raw: [], rawDefaults: [] };
for (let k = 0; k < 2; k++) {
  runs.pipeline.push(await timed(pipeline));
  runs.raw.push(await timed(raw));
  runs.rawDefaults.push(await timed(rawDefaults));
}
const best = (xs: Run[]) => xs.reduce((a, b) => (b.perSecond > a.perSecond ? b : a));
const [p, r, d] = [best(runs.pipeline), best(runs.raw), best(runs.rawDefaults)];

// The raw sessions' weights would share the CPU caches with the model's during the queries.
await ownSession.release();
await defaultSession.release();

// Warm query embedding: distinct questions, each embedded once (the query cache never answers).
const questions = [
  ...new Set([
    ...ALL_QUERIES.map((q) => q.args.search ?? q.args.query),
    ...callMix()
      .filter((c) => c.mode === "search")
      .map((c) => c.args.search ?? c.args.query),
  ]),
]
  .filter((q): q is string => typeof q === "string")
  .slice(0, Number(opt.questions ?? 100));
for (const q of ["warm-up one", "warm-up two", "warm-up three"]) await embedder.embedQuery(q);
const ms: number[] = [];
const cpuMs: number[] = [];
for (const q of questions) {
  const c0 = cpu();
  const t0 = performance.now();
  await embedder.embedQuery(q);
  ms.push(performance.now() - t0);
  cpuMs.push((cpu() - c0) * 1000);
}
const pctOf = (xs: number[], f: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(f * xs.length))]!;
const pct = (f: number) => pctOf(ms, f);

console.log(
  `model ${embedder.id} (${modelDir}), ${texts.length} entity texts of ` +
    `${opt.db}, ${maxTokens} tokens at most, ${availableParallelism()} cores`,
);
console.log(
  `passages, LoreKeeper (as sync embeds): ${p.perSecond.toFixed(1)} entities/s, ` +
    `${p.cores.toFixed(2)} cores busy, ${p.cpuMsPerEntity.toFixed(1)} ms CPU per entity`,
);
console.log(
  `passages, raw onnxruntime:             ${r.perSecond.toFixed(1)} entities/s, ${r.cores.toFixed(2)} ` +
    `cores busy, ${r.cpuMsPerEntity.toFixed(1)} ms CPU per entity (LoreKeeper's session options)`,
);
console.log(
  `passages, raw onnxruntime, its defaults: ${d.perSecond.toFixed(1)} entities/s, ${d.cores.toFixed(2)} ` +
    `cores busy, ${d.cpuMsPerEntity.toFixed(1)} ms CPU per entity (spinning worker threads)`,
);
console.log(
  `ratio LoreKeeper / raw: ${(p.perSecond / r.perSecond).toFixed(2)}× (/ raw ` +
    `with onnxruntime's defaults: ${(p.perSecond / d.perSecond).toFixed(2)}×)`,
);
console.log(
  `query embedding, warm, ${ms.length} questions: p50 ${pct(0.5).toFixed(2)} ` +
    `ms, p90 ${pct(0.9).toFixed(2)} ms (CPU p50 ${pctOf(cpuMs, 0.5).toFixed(2)} ms)`,
);
