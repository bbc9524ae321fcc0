#!/usr/bin/env bun
/**
 * `bun bench/server-cpu-only.ts --db STORE [--model DIR] [--runs N] [--cpu-passes N] [--servers N] [--binary PATH]`:
 * the server-CPU phase of `bun run bench` alone (bench/phases/server-cpu.ts), on a store that is
 * already synced and embedded (e.g. one kept by `bun run bench -- --keep`), N runs in a row, each
 * over `--servers` fresh servers (default 3, as the bench: their samples pooled); prints each
 * run's per-mode CPU p50 (cold / warm) and the median over the runs. For quick
 * before/after checks while working on per-call speed; the figures of record come from
 * `bun run bench`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { inspectModelDir } from "../src/search/model/model-source.ts";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { SHARED_MODEL } from "../scripts/shared-dir.ts";
import { binaryTarget, serverEnv, sourceTarget } from "./lib/proc.ts";
import { CPU_SERVERS, measureServerCpu, type CpuModeRow } from "./phases/server-cpu.ts";
import { median } from "./lib/stats.ts";

const { values: opt } = parseArgs({
  options: {
    db: { type: "string" },
    model: { type: "string" },
    runs: { type: "string" },
    "cpu-passes": { type: "string" },
    servers: { type: "string" },
    binary: { type: "string" },
  },
});
if (!opt.db) {
  console.error(
    "usage: bun bench/server-cpu-only.ts --db STORE [--model DIR] " +
      "[--runs N] [--cpu-passes N] [--servers N] [--binary PATH]",
  );
  process.exit(2);
}
const runs = Math.max(1, Math.floor(Number(opt.runs ?? 3)) || 1);
const passes = Number(opt["cpu-passes"] ?? 3);
const servers = Math.max(1, Math.floor(Number(opt.servers ?? CPU_SERVERS)) || 1);
const target = opt.binary ? binaryTarget(opt.binary) : sourceTarget();
if (!target) throw new Error(`no binary at ${opt.binary}`);
const modelDir = opt.model ?? process.env.LOREKEEPER_BENCH_MODEL ?? SHARED_MODEL;
// A server without its model ranks searches by keywords alone: cheaper, and not what is measured.
const model = inspectModelDir(modelDir);
if (!model.ok) {
  console.error(
    `${model.problem}: pass --model DIR (a checkout elsewhere, e.g. a git worktree, has no ../shared beside it)`,
  );
  process.exit(2);
}
const home = mkdtempSync(join(tmpdir(), "lk-cpu-"));
const env = serverEnv({ home, upstreamUrl: "http://127.0.0.1:9", modelDir });
const all: CpuModeRow[][] = [];
const f = (x: number) => x.toFixed(2).padStart(6);
try {
  for (let i = 0; i < runs; i++) {
    const r = await measureServerCpu(target, opt.db, env, passes, servers);
    if (r.errors.length) console.error(r.errors.slice(0, 5).join("\n"));
    all.push(r.rows);
    console.log(
      `run ${i + 1}: ${r.rows.map((x) => `${x.mode} ${f(x.coldCpu.p50)} /${f(x.warmCpu.p50)}`).join("  ")} ` +
        ` (ms cold / warm CPU p50)`,
    );
  }
} finally {
  rmSync(home, { recursive: true, force: true });
}
console.log(
  `median of ${runs} run${runs === 1 ? "" : "s"} (${servers} ` +
    `fresh server${servers === 1 ? "" : "s"} each, samples pooled):`,
);
for (const mode of all[0]!.map((r) => r.mode)) {
  const rows = all.map((rs) => rs.find((r) => r.mode === mode)!);
  const cold = median(rows.map((r) => r.coldCpu.p50));
  const warm = median(rows.map((r) => r.warmCpu.p50));
  console.log(
    `  ${mode.padEnd(10)} cold ${f(cold)} ms  warm ${f(warm)} ms  cold÷warm ` +
      `${(cold / warm).toFixed(2)}  wall warm ${f(median(rows.map((r) => r.warmWall.p50)))} ms`,
  );
}
