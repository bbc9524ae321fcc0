#!/usr/bin/env bun
/**
 * `bun run bench [-- options]`: LoreKeeper's performance figures, measured side by side in one run
 * on the real corpus (../shared/data served by the fake upstream). Not part of `bun test`.
 * See docs/benchmark.md for what each number means.
 *
 *   1. sync + embedding throughput vs raw fastembed on the same texts
 *   2. tool-call latency over stdio (source, and the compiled binary when dist/ has one) vs floors
 *   3. cold start   4. footprint   5. HTTP under concurrent clients
 *   6. whole sessions (start, calls, idle 6 s: server CPU and peak RSS), beside the peer with --peer
 *
 * Progress goes to stderr; the report table to stdout; everything to bench/results.json.
 */
import { execSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { DEFAULT_SOURCES, SYNC_SOURCES, type SyncSource } from "../src/ingest/sync.ts";
import { closeVectorIndex } from "../src/search/index/vector-index.ts";
import { openStore } from "../src/store/db.ts";
import {
  baselineTarget,
  binaryPath,
  binaryTarget,
  connectStdio,
  readProcMemory,
  REPO_ROOT,
  serverEnv,
  sourceTarget,
  startFakeUpstreamProcess,
  type StdioConnection,
  type Target,
} from "./lib/proc.ts";
import { summarize, table } from "./lib/stats.ts";
import { breakdownRunner } from "./phases/breakdown.ts";
import { type AnswerSizeResult, answerSizeChecks, answerSizeTable, measureAnswerSizes } from "./phases/answer-size.ts";
import { type ColdStartResult, measureColdStart } from "./phases/cold-start.ts";
import { floorRunner, openFloorContext } from "./phases/floors.ts";
import { measureDisk } from "./phases/footprint.ts";
import { measureHttp } from "./phases/http.ts";
import { runSyncPhase } from "./phases/sync.ts";
import { settle } from "./lib/cpu.ts";
import { CPU_SERVERS, measureServerCpu, type ServerCpuResult } from "./phases/server-cpu.ts";
import { measureSessions, type SessionRow, type SessionServer, sessionTable } from "./phases/sessions.ts";
import { type ToolCallRunner, toolCallRunner } from "./phases/tool-calls.ts";
import { balancedByMode, callMix, interleave } from "./queries.ts";
import {
  checks,
  cpuChecks,
  cpuSection,
  latencyRows,
  renderReport,
  sessionChecks,
  type TargetReport,
} from "./report.ts";
import { SHARED_DATA, SHARED_MODEL } from "../scripts/shared-dir.ts";

const HELP = `Usage: bun run bench [-- options]

  --quick             fewer rounds, default sources, 10 HTTP clients × 50 calls (~1 min)
  --build             run \`bun run build -- --model <model>\` first (into --binary when given)
  --binary PATH       the compiled binary to measure (default dist/lorekeeper-<os>-<arch>)
  --no-binary         skip the compiled binary even if dist/ has one
  --no-http           skip the HTTP load phase
  --http-all          HTTP load on every target (default: the binary when present, else source;
                      with --baseline: source and baseline)
  --baseline DIR      also measure another checkout from source, side by side in the same run
                      (e.g. \`git worktree add /tmp/lk-before <commit>\` + bun install there)
  --sources S         all (default: open5e_v2, open5e_v1, dnd5e_api, every type) | default
                      (what \`lorekeeper sync\` fetches) | a comma-separated list
  --data DIR          the corpus (default ../shared/data or LOREKEEPER_BENCH_DATA)
  --model DIR         the embedding model (default ../shared/models/lorekeeper-static-384
                      or LOREKEEPER_BENCH_MODEL)
  --rounds N          rounds over the call mix per target (default 15, quick 5)
  --raw-all           raw fastembed over every text (default: every n-th text, about 6000)
  --cpu-passes N      warm passes over the no-repeat mix in the server-CPU phase (default 3)
  --cpu-servers N     fresh servers in the server-CPU phase, samples pooled (default 3, quick 1)
  --clients N         HTTP clients (default 50)     --calls N   calls per HTTP client (default 200)
  --peer "CMD ARGS"    also run the whole sessions on a peer MCP server speaking dnd-oracle's
                      dialect, e.g. "node /tmp/peer/node_modules/dnd-oracle/dist/server.js"
  --session-runs N    sessions of each kind per target (default 3, quick 1)
  --keep              keep the temporary folder (store, index) and print its path
  --out FILE          JSON results (default bench/results.json)`;

const { values: opt } = parseArgs({
  options: {
    quick: { type: "boolean" },
    build: { type: "boolean" },
    binary: { type: "string" },
    "no-binary": { type: "boolean" },
    "no-http": { type: "boolean" },
    "http-all": { type: "boolean" },
    baseline: { type: "string" },
    sources: { type: "string" },
    data: { type: "string" },
    model: { type: "string" },
    rounds: { type: "string" },
    "raw-all": { type: "boolean" },
    "cpu-passes": { type: "string" },
    "cpu-servers": { type: "string" },
    clients: { type: "string" },
    calls: { type: "string" },
    keep: { type: "boolean" },
    peer: { type: "string" },
    "session-runs": { type: "string" },
    out: { type: "string" },
    help: { type: "boolean", short: "h" },
  },
});
if (opt.help) {
  console.log(HELP);
  process.exit(0);
}

const quick = opt.quick ?? false;
const int = (s: string | undefined, d: number) => (s !== undefined && /^\d+$/.test(s) ? Number(s) : d);
const dataDir = opt.data ?? process.env.LOREKEEPER_BENCH_DATA ?? SHARED_DATA;
const modelDir = opt.model ?? process.env.LOREKEEPER_BENCH_MODEL ?? SHARED_MODEL;
const rounds = int(opt.rounds, quick ? 5 : 15);
const rawLimit = opt["raw-all"] ? undefined : quick ? 3000 : 6000;
const httpClients = int(opt.clients, quick ? 10 : 50);
const httpCalls = int(opt.calls, quick ? 50 : 200);
const coldRuns = quick ? 3 : 7;
const cpuPasses = int(opt["cpu-passes"], 3);
const cpuServers = Math.max(1, int(opt["cpu-servers"], quick ? 1 : CPU_SERVERS));
const outFile = opt.out ?? join(REPO_ROOT, "bench", "results.json");

function parseSources(s: string | undefined): SyncSource[] {
  if (s === undefined) return quick ? [...DEFAULT_SOURCES] : [...SYNC_SOURCES];
  if (s === "all") return [...SYNC_SOURCES];
  if (s === "default") return [...DEFAULT_SOURCES];
  const list = s.split(",").map((x) => x.trim()) as SyncSource[];
  for (const x of list)
    if (!SYNC_SOURCES.includes(x)) throw new Error(`unknown source ${x}; valid: ${SYNC_SOURCES.join(", ")}`);
  return list;
}

const say = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);
const started = Date.now();
const notes: string[] = [];
const loadAtStart = loadavg()[0] ?? 0;

if (opt.build) {
  say("building the binary (bun run build)…");
  const outfile = opt.binary ? ` --outfile "${opt.binary}"` : "";
  execSync(`"${process.execPath}" build.ts --model "${modelDir}"${outfile}`, {
    cwd: REPO_ROOT,
    stdio: ["ignore", 2, 2],
  }); // build output → stderr
}

const tmp = mkdtempSync(join(tmpdir(), "lorekeeper-bench-"));
const dbPath = join(tmp, "bench.db");
const fake = await startFakeUpstreamProcess(dataDir);
try {
  // 1. Sync + embedding.
  const store = openStore({ path: dbPath });
  const sync = await runSyncPhase({
    store,
    upstreamUrl: fake.url,
    modelDir,
    sources: parseSources(opt.sources),
    say,
    rawLimit,
  });
  closeVectorIndex(store);
  store.close();
  if (sync.raw.texts < sync.embedded)
    notes.push(
      `raw fastembed ran on every ${Math.ceil(sync.embedded / sync.raw.texts)}th ` +
        `text (${sync.raw.texts} of ${sync.embedded}); --raw-all for all`,
    );

  const sourceEnv = serverEnv({ home: join(tmp, "home"), upstreamUrl: fake.url, modelDir });
  const specs = interleave(callMix());
  const targets: Target[] = [sourceTarget()];
  const bin = opt["no-binary"] ? undefined : binaryTarget(opt.binary);
  if (bin) {
    targets.push(bin);
    const newest = newestSource(join(REPO_ROOT, "src"));
    if (statSync(bin.command).mtimeMs < newest.mtimeMs) {
      notes.push(
        `the binary is older than ${newest.path.slice(REPO_ROOT.length + 1)}: ` +
          `source and binary may run different code (use --build)`,
      );
    }
  } else
    notes.push(
      opt["no-binary"]
        ? "binary skipped (--no-binary)"
        : `binary skipped: ${opt.binary ?? binaryPath()} does not ` +
            `exist (build it with \`bun run build\` or pass --build)`,
    );
  const baseline = opt.baseline ? baselineTarget(opt.baseline) : undefined;
  if (opt.baseline && !baseline) throw new Error(`--baseline ${opt.baseline}: no src/cli/main.ts there`);
  if (baseline) {
    targets.push(baseline);
    notes.push(
      `baseline: ${opt.baseline} (${gitCommit(opt.baseline) ?? "unknown commit"}) ` +
        `from source, same store, calls and rounds as source`,
    );
  }

  // 3. Cold start, per target. The binary runs as shipped, with the model it embeds, unless that
  // model's vectors are not the ones in the store (then it gets LOREKEEPER_MODEL_DIR too).
  const envs = new Map<Target, Record<string, string>>();
  const colds = new Map<Target, ColdStartResult>();
  for (const target of targets) {
    say(`${target.name}: cold start × ${coldRuns}…`);
    let env = target.name === "binary" ? withoutModelDir(sourceEnv) : sourceEnv;
    let coldStart = await measureColdStart(target, dbPath, env, coldRuns);
    if (coldStart.first.searchMode !== "hybrid" && env !== sourceEnv) {
      notes.push(
        `the binary's embedded model does not match the store's vectors (search mode ` +
          `${coldStart.first.searchMode}); it was run with LOREKEEPER_MODEL_DIR=${modelDir}`,
      );
      env = sourceEnv;
      coldStart = await measureColdStart(target, dbPath, env, coldRuns);
    } else if (target.name === "binary") notes.push("binary: run with its embedded model (no LOREKEEPER_MODEL_DIR)");
    if (coldStart.first.searchMode !== "hybrid")
      notes.push(`${target.name}: the first semantic search came back in ${coldStart.first.searchMode} mode`);
    envs.set(target, env);
    colds.set(target, coldStart);
  }

  // 2. Tool calls over stdio, with the floors and the in-process breakdown measured round by round
  // in between, so that all of them see the same machine load.
  const ro = openStore({ path: dbPath, readonly: true });
  const floors = await floorRunner(specs, await openFloorContext(ro, modelDir));
  const breakdown = await breakdownRunner(ro, modelDir, specs);
  const conns = new Map<Target, StdioConnection>();
  const runners = new Map<Target, ToolCallRunner>();
  const reports: TargetReport[] = [];
  let answers: AnswerSizeResult | undefined;
  try {
    for (const t of targets) {
      const conn = await connectStdio(t, dbPath, envs.get(t)!);
      conns.set(t, conn);
      runners.set(t, toolCallRunner(conn, specs));
    }
    // Latency of a server in use: any background work after its start done first, as in the CPU phase.
    for (const c of conns.values())
      if (c.pid && !(await settle(c.pid)))
        notes.push("a stdio server did not go idle within 20 s of starting; measured anyway");
    const warmup = 2;
    say(
      `tool calls over stdio (${targets.map((t) => t.name).join(" + ")}), ` +
        `floors and breakdown: ${specs.length} calls × ${rounds} rounds…`,
    );
    for (let r = 0; r < warmup + rounds; r++) {
      const warm = r < warmup;
      for (const t of targets) await runners.get(t)!.round(warm);
      await floors.round(warm);
      if (warm || r % 2 === 0) await breakdown.round(warm);
    }
    for (const t of targets) {
      const runner = runners.get(t)!;
      await runner.extras(rounds * 10);
      const rss = readProcMemory(conns.get(t)!.pid);
      const calls = runner.result;
      reports.push({
        target: t.name,
        ...latencyRows(specs, calls, floors.result.samples),
        cachedSearch: summarize(calls.cachedSearch),
        ping: summarize(calls.ping),
        errors: calls.errors,
        notHybrid: calls.notHybrid,
        servingPeakRss: rss?.peakRss ?? null,
        coldStart: colds.get(t)!,
      });
    }
    // After every server's peak RSS is read: only the first target pages through the DM questions,
    // and a peak that counts that work for one server and not the others compares nothing.
    say("answer sizes: tools/list, DM questions paged to the end…");
    answers = await measureAnswerSizes(conns.get(targets[0]!)!, specs, runners.get(targets[0]!)!.result.responseChars);
  } finally {
    for (const c of conns.values()) await c.close();
    await breakdown.close();
  }
  const breakdownRows = breakdown.rows();
  ro.close();

  // 2b. Server CPU per call, cold (first use of each filter) and warm, on fresh servers per target (samples pooled).
  const cpu: ServerCpuResult[] = [];
  for (const t of targets) {
    say(
      `${t.name}: server CPU per call, no-repeat mix, 1 cold + ` +
        `${cpuPasses} warm passes on each of ${cpuServers} fresh servers…`,
    );
    const r = await measureServerCpu(t, dbPath, envs.get(t)!, cpuPasses, cpuServers);
    if (!r.available) notes.push(`${t.name}: /proc CPU readings unavailable: no server-CPU figures`);
    if (r.errors.length) notes.push(`${t.name} server-CPU phase errors: ${r.errors.slice(0, 3).join(" | ")}`);
    cpu.push(r);
  }

  // 5. HTTP load: the binary when there is one (every target with --http-all).
  if (!opt["no-http"]) {
    for (const [i, t] of targets.entries()) {
      const wanted = opt["http-all"] || (baseline ? t.name !== "binary" : i === targets.length - 1);
      if (!wanted) continue;
      say(`${t.name}: HTTP, ${httpClients} clients × ${httpCalls} calls…`);
      reports[i]!.http = await measureHttp(t, dbPath, envs.get(t)!, balancedByMode(specs), httpClients, httpCalls);
    }
  }

  // 6. Whole sessions as a desktop client runs them: fresh servers, a few calls, idle 6 s.
  say("whole sessions: one lookup, one meaning search, 20 calls; each then idle 6 s…");
  const sessionServers: Record<string, SessionServer> = {};
  for (const t of targets)
    sessionServers[t.name] = {
      command: t.command,
      args: [...t.args, "serve", "--db-path", dbPath],
      env: envs.get(t)!,
      dialect: "lorekeeper",
    };
  if (opt.peer) {
    const [command, ...args] = opt.peer.split(/\s+/).filter(Boolean);
    sessionServers["dnd-oracle"] = { command: command!, args, env: { ...sourceEnv }, dialect: "dnd-oracle" };
  }
  const sessions: SessionRow[] = await measureSessions(sessionServers, int(opt["session-runs"], quick ? 1 : 3), say);

  const disk = measureDisk(dbPath, bin?.command);
  notes.push(
    `machine: ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${Math.round(totalmem() / 1024 ** 3)} ` +
      `GB RAM, ${process.platform}-${process.arch}, Bun ${Bun.version}; load average ${loadAtStart.toFixed(2)} ` +
      `at the start, ${(loadavg()[0] ?? 0).toFixed(2)} at the end (other processes share the CPU)`,
    "HTTP mix: structured, name and search calls take turns (each mode 1/3 of " +
      "the calls); stdio mix: every spec once per round (80 of 106 are searches)",
    `floors: search = raw fastembed + raw USearch (k=${floors.result.index.k} of ` +
      `${floors.result.index.size}) + the FTS5 query; structured/name = the final SELECT`,
  );
  const cs = [
    ...cpuChecks(cpu),
    ...sessionChecks(sessions),
    ...checks(reports),
    ...(answers ? answerSizeChecks(answers) : []),
  ];
  const extra = [
    ...cpuSection(cpu),
    "",
    "== Whole sessions (server CPU since exec and peak RSS; medians) ==",
    sessionTable(sessions),
    ...(answers
      ? ["", `== Answer sizes (${targets[0]!.name}, characters of the text block) ==`, answerSizeTable(answers, table)]
      : []),
  ];
  console.log(renderReport(sync, reports, breakdownRows, disk, notes, cs, extra));
  const results = {
    generated_at: new Date().toISOString(),
    duration_s: Math.round((Date.now() - started) / 1000),
    options: { quick, rounds, httpClients, httpCalls, coldRuns, dataDir, modelDir },
    git: gitCommit(),
    machine: {
      cpus: cpus().length,
      cpu: cpus()[0]?.model ?? null,
      memBytes: totalmem(),
      platform: process.platform,
      arch: process.arch,
      bun: Bun.version,
    },
    sync,
    floors: { index: floors.result.index },
    breakdown: breakdownRows,
    answers,
    serverCpu: cpu,
    sessions,
    targets: reports,
    footprint: disk,
    checks: cs,
    notes,
  };
  writeFileSync(outFile, `${JSON.stringify(results, null, 2)}\n`);
  say(`done in ${Math.round((Date.now() - started) / 1000)} s; results in ${outFile}`);
} finally {
  await fake.stop();
  if (opt.keep) say(`kept ${tmp}`);
  else rmSync(tmp, { recursive: true, force: true });
}

function newestSource(dir: string): { path: string; mtimeMs: number } {
  let best = { path: dir, mtimeMs: 0 };
  for (const name of readdirSync(dir, { recursive: true, encoding: "utf8" })) {
    const p = join(dir, name);
    const m = statSync(p).mtimeMs;
    if (m > best.mtimeMs && p.endsWith(".ts")) best = { path: p, mtimeMs: m };
  }
  return best;
}

function withoutModelDir(env: Record<string, string>): Record<string, string> {
  const { LOREKEEPER_MODEL_DIR: _, ...rest } = env;
  return rest;
}

function gitCommit(dir: string = REPO_ROOT): string | null {
  try {
    return execSync("git rev-parse --short HEAD", { cwd: dir, stdio: ["ignore", "pipe", "ignore"] })
      .toString()
      .trim();
  } catch {
    return null;
  }
}
