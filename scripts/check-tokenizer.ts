#!/usr/bin/env bun
/**
 * `bun run check-tokenizer -- --db STORE [--model DIR] [--native FILE.node] [--write-fixture FILE]`
 *
 * Compares the pure-JS tokenizer (packages/tokenizers-js, what fastembed and LoreKeeper's runners
 * use) with the native `@anush008/tokenizers` addon it replaced, both set up as fastembed sets
 * them up: every entity text of a synced store plus every question of the eval and the benchmark.
 * Prints the number of texts whose token ids, type ids or truncation differ, and the speed of each
 * (one thread, texts one after another). Exit 1 when any text differs.
 *
 * The native addon is not a dependency any more: pass --native, or the script fetches
 * `@anush008/tokenizers-<platform>@0.0.0` once with `npm pack` into .tmp/native-tokenizers/.
 * With the model's ONNX file beside the tokenizer (and without --no-embed) it also times query
 * embedding, LoreKeeper's query runner (onnx-runners.ts) on one onnxruntime session, per question with
 * each tokenizer (the first 100 questions, alternating; medians), and checks the vectors agree.
 * --write-fixture writes the test fixture (test/fixtures/tokenizer/reference.json): a selection of
 * long, accented and punctuation-heavy texts and questions with the native ids.
 */
import { Database } from "bun:sqlite";
import { AddedToken as JsAddedToken, Tokenizer as JsTokenizer } from "../packages/tokenizers-js/index.ts";
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { cacheDir } from "../src/config.ts";
import { activeModelDir } from "../src/search/model/model-manifest.ts";
import { callMix } from "../bench/queries.ts";
import { ALL_QUERIES } from "./eval-queries.ts";
import * as ort from "onnxruntime-node";
import { inspectModelDir } from "../src/search/model/model-source.ts";
import { onnxRunners, type TokenizerLike } from "../src/search/model/onnx-runners.ts";
import { createSession } from "../src/search/model/onnx-session.ts";
import {
  type AddedTokenClass,
  loadLikeFastembed,
  sameRecord,
  type TokenizerApi,
  type TokenizerClass,
  type TokenRecord,
  toRecord,
} from "./tokenizer-reference.ts";

const ROOT = resolve(import.meta.dir, "..");
const TRIPLES: Record<string, string> = {
  "linux-x64": "linux-x64-gnu",
  "darwin-x64": "darwin-universal",
  "darwin-arm64": "darwin-universal",
  "win32-x64": "win32-x64-msvc",
};

function die(msg: string): never {
  process.stderr.write(`check-tokenizer: ${msg}\n`);
  process.exit(2);
}

/** The native addon: the given file, or the published one for this platform, fetched once. */
function nativeAddonPath(given: string | undefined): string {
  if (given) return resolve(given);
  const triple = TRIPLES[`${process.platform}-${process.arch}`];
  if (!triple)
    die(`@anush008/tokenizers has no native build for ${process.platform}-${process.arch}; pass --native FILE.node`);
  const dir = join(ROOT, ".tmp", "native-tokenizers");
  const file = join(dir, "package", `tokenizers.${triple}.node`);
  if (existsSync(file)) return file;
  mkdirSync(dir, { recursive: true });
  const pack = Bun.spawnSync(["npm", "pack", `@anush008/tokenizers-${triple}@0.0.0`, "--silent"], {
    cwd: dir,
    stderr: "inherit",
  });
  const tgz = readdirSync(dir).find((f) => f.endsWith(".tgz"));
  if (pack.exitCode !== 0 || !tgz) die("could not fetch the native tokenizer with npm pack; pass --native FILE.node");
  if (Bun.spawnSync(["tar", "xzf", tgz], { cwd: dir, stderr: "inherit" }).exitCode !== 0 || !existsSync(file))
    die(`could not unpack ${tgz}`);
  return file;
}

function loadNative(path: string): { Tokenizer: TokenizerClass; AddedToken: AddedTokenClass } {
  const mod = { exports: {} as { Tokenizer?: TokenizerClass; AddedToken?: AddedTokenClass } };
  process.dlopen(mod, path);
  if (!mod.exports.Tokenizer || !mod.exports.AddedToken) die(`${path} is not the tokenizers addon`);
  return { Tokenizer: mod.exports.Tokenizer, AddedToken: mod.exports.AddedToken };
}

interface Text {
  source: "entity" | "question";
  text: string;
}

function questions(): string[] {
  const out = new Set<string>();
  for (const q of ALL_QUERIES) {
    const t = q.args.search ?? q.args.query;
    if (typeof t === "string") out.add(t);
  }
  for (const c of callMix()) {
    const t = c.mode === "search" ? (c.args.search ?? c.args.query) : undefined;
    if (typeof t === "string") out.add(t);
  }
  return [...out];
}

/**
 * Both tokenizers over the same texts, alternating which goes first, so that load on a shared machine hits both alike.
 */
async function encodeBoth(
  a: TokenizerApi,
  b: TokenizerApi,
  texts: readonly Text[],
): Promise<Array<{ records: TokenRecord[]; ms: number[] }>> {
  const out = [a, b].map(() => ({ records: [] as TokenRecord[], ms: [] as number[] }));
  const one = async (k: 0 | 1, text: string) => {
    const t0 = performance.now();
    const e = await [a, b][k]!.encode(text);
    out[k]!.ms.push(performance.now() - t0);
    out[k]!.records.push(toRecord(e));
  };
  for (const [i, t] of texts.entries()) {
    const first = (i % 2) as 0 | 1;
    await one(first, t.text);
    await one((1 - first) as 0 | 1, t.text);
  }
  return out;
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s[(s.length - 1) >> 1]! + s[s.length >> 1]!) / 2 : 0;
};

/** Long, accented, punctuation-heavy entity texts and every kind, plus questions: the test fixture. */
function pickFixture(texts: readonly Text[], kinds: readonly string[]): Text[] {
  const entities = texts.map((t, i) => ({ ...t, kind: kinds[i] ?? "" })).filter((t) => t.source === "entity");
  const punct = (s: string) => (s.match(/[^\p{L}\p{N}\s]/gu)?.length ?? 0) / Math.max(1, s.length);
  const picked = new Map<string, Text>();
  const take = (xs: Array<Text & { kind: string }>, n: number) => {
    for (const x of xs.slice(0, n)) picked.set(x.text, { source: x.source, text: x.text.slice(0, 2000) });
  };
  take(
    [...entities].sort((a, b) => b.text.length - a.text.length),
    6,
  );
  take(
    entities.filter((t) => /[À-ÖØ-öø-ɏ]/.test(t.text)).sort((a, b) => a.text.length - b.text.length),
    16,
  );
  take(
    entities
      .filter((t) => /[^\x00-\x7F]/.test(t.text) && !/[À-ÖØ-öø-ɏ]/.test(t.text))
      .sort((a, b) => a.text.length - b.text.length),
    6,
  );
  take(
    [...entities].sort((a, b) => punct(b.text) - punct(a.text)),
    8,
  );
  for (const k of new Set(entities.map((e) => e.kind)))
    take(
      entities.filter((e) => e.kind === k && e.text.length > 900),
      1,
    );
  const qs = texts.filter((t) => t.source === "question");
  for (const q of qs.filter((_, i) => i % 3 === 0)) picked.set(q.text, q);
  const edge = [
    "",
    "   ",
    "Fireball!!!",
    "Mordenkainen’s Faithful Hound — “Sword”; (2d6 + 3) — DC 15?",
    "Drow élite, naïve Ysgard café: Ünterwelt façade",
    "火球 fireball 🔥",
    `x${"a".repeat(150)}`,
    "tab\tnew\nline\r\u0000control",
  ];
  for (const e of edge) picked.set(e, { source: "question", text: e });
  return [...picked.values()];
}

const { values: opt } = parseArgs({
  args: process.argv.slice(2),
  options: {
    db: { type: "string" },
    model: { type: "string" },
    native: { type: "string" },
    "max-length": { type: "string" },
    "write-fixture": { type: "string" },
    "no-embed": { type: "boolean" },
    help: { type: "boolean", short: "h" },
  },
});
if (opt.help || !opt.db) {
  process.stdout.write(
    "usage: bun run check-tokenizer -- --db STORE [--model DIR] " +
      "[--native FILE.node] [--max-length 256] [--write-fixture FILE]\n",
  );
  process.exit(opt.help ? 0 : 2);
}
const modelDir = resolve(
  opt.model ??
    activeModelDir(join(cacheDir(), "models")) ??
    die("no installed model; pass --model DIR (a folder with tokenizer.json)"),
);
const maxLength = Number(opt["max-length"] ?? 256);
if (!existsSync(opt.db)) die(`${opt.db} does not exist`);
const db = new Database(opt.db, { readonly: true });
const rows = db.query<{ text: string; kind: string }, []>("SELECT text, kind FROM entities ORDER BY id").all();
db.close();
const texts: Text[] = [
  ...rows.map((r) => ({ source: "entity" as const, text: r.text })),
  ...questions().map((q) => ({ source: "question" as const, text: q })),
];
const kinds = rows.map((r) => r.kind);

const native = loadNative(nativeAddonPath(opt.native));
const nativeTok = loadLikeFastembed(native.Tokenizer, native.AddedToken, modelDir, maxLength);
const jsTok = loadLikeFastembed(
  JsTokenizer as unknown as TokenizerClass,
  JsAddedToken as unknown as AddedTokenClass,
  modelDir,
  maxLength,
);
// Warm both once (JIT, lazy set-up), then measure the same texts in the same run.
await encodeBoth(nativeTok, jsTok, texts.slice(0, 50));
const [n, j] = (await encodeBoth(nativeTok, jsTok, texts)) as [
  { records: TokenRecord[]; ms: number[] },
  { records: TokenRecord[]; ms: number[] },
];
const diffs = texts.map((t, i) => ({ t, a: n.records[i]!, b: j.records[i]! })).filter((d) => !sameRecord(d.a, d.b));
const qIdx = texts.map((t, i) => (t.source === "question" ? i : -1)).filter((i) => i >= 0);
const eIdx = texts.map((t, i) => (t.source === "entity" ? i : -1)).filter((i) => i >= 0);
const pick = (xs: number[], idx: number[]) => idx.map((i) => xs[i]!);

console.log(`model ${modelDir}, truncation ${maxLength} tokens (as fastembed sets it)`);
console.log(
  `texts: ${eIdx.length} entity texts + ${qIdx.length} questions; ` +
    `truncated: ${n.records.filter((r) => r.overflowing > 0).length}`,
);
console.log(`token-id differences: ${diffs.length}`);
for (const d of diffs.slice(0, 10))
  console.log(
    `  DIFF ${JSON.stringify(d.t.text.slice(0, 80))}: native ${d.a.ids.length} ids, js ${d.b.ids.length} ids`,
  );
console.log(
  `native @anush008/tokenizers: entity texts ${sum(pick(n.ms, eIdx)).toFixed(0)} ` +
    `ms, questions median ${(median(pick(n.ms, qIdx)) * 1000).toFixed(0)} µs`,
);
console.log(
  `pure-JS tokenizer:           entity texts ${sum(pick(j.ms, eIdx)).toFixed(0)} ` +
    `ms, questions median ${(median(pick(j.ms, qIdx)) * 1000).toFixed(0)} µs`,
);

const onnx = inspectModelDir(modelDir);
if (!opt["no-embed"] && onnx.ok) {
  const session = await createSession(ort, join(modelDir, onnx.onnxFile));
  const runners = [nativeTok, jsTok].map((t) => onnxRunners(ort, session, t as unknown as TokenizerLike).query);
  const qs = texts
    .filter((t) => t.source === "question")
    .slice(0, 100)
    .map((t) => t.text);
  const ms: [number[], number[]] = [[], []];
  let maxDiff = 0;
  for (const q of qs.slice(0, 10)) for (const r of runners) await r!(q); // warm-up
  for (const [i, q] of qs.entries()) {
    const order = i % 2 === 0 ? ([0, 1] as const) : ([1, 0] as const);
    const vs: Float32Array[] = [];
    for (const k of order) {
      const t0 = performance.now();
      vs[k] = await runners[k]!(q);
      ms[k].push(performance.now() - t0);
    }
    for (let d = 0; d < vs[0]!.length; d++) maxDiff = Math.max(maxDiff, Math.abs(vs[0]![d]! - vs[1]![d]!));
  }
  console.log(
    `query embedding (${onnx.onnxFile}, ${qs.length} questions, ` +
      `median): native tokenizer ${median(ms[0]).toFixed(2)} ` +
      `ms, pure-JS tokenizer ${median(ms[1]).toFixed(2)} ms; largest vector difference ${maxDiff}`,
  );
}

if (opt["write-fixture"]) {
  const chosen = pickFixture(texts, kinds);
  const out = [];
  for (const t of chosen)
    out.push({ source: t.source, text: t.text, native: toRecord(await nativeTok.encode(t.text)) });
  const head = {
    model: "all-MiniLM-L6-v2",
    maxLength,
    generatedBy: "bun run check-tokenizer --write-fixture (native @anush008/tokenizers 0.0.0)",
  };
  const body = out.map((o) => `    ${JSON.stringify(o)}`).join(",\n");
  await Bun.write(
    opt["write-fixture"],
    `${JSON.stringify(head, null, 2).slice(0, -2)},\n  "texts": [\n${body}\n  ]\n}\n`,
  );
  console.log(`fixture: ${out.length} texts → ${opt["write-fixture"]}`);
}
process.exit(diffs.length ? 1 : 0);
