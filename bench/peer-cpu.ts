#!/usr/bin/env bun
/**
 * `bun bench/peer-cpu.ts --db STORE --peer "COMMAND ARGS…" [--dialect dnd-oracle] [--pairs N] [--passes N] [--model
 * DIR]`:
 * server CPU per call of LoreKeeper (this checkout, from source, on STORE) against a peer MCP
 * server, the same questions in each one's parameters (bench/peer-mix.ts), over stdio with the
 * same SDK client. Fresh servers in turns, the order swapped every pair (a machine's speed drifts
 * within minutes); per server: two warm-up rounds of other values, a cold pass (the first use of
 * each value), then `passes` warm passes. Per call: the server's CPU from /proc schedstat around
 * it, as the server-CPU phase of `bun run bench` measures it (bench/phases/server-cpu.ts).
 *
 * The peer is not installed by this repository (no network in tests). For dnd-oracle:
 *   npm install --prefix /tmp/peer dnd-oracle   (its better-sqlite3 needs its install script)
 *   bun bench/peer-cpu.ts --db STORE --peer "node /tmp/peer/node_modules/dnd-oracle/dist/server.js"
 * STORE: a synced and embedded store, e.g. one kept by `bun run bench -- --keep`.
 * `--peer` is split at spaces (no quoting): give a path without spaces, and the server itself,
 * not a wrapper such as `npx` (the CPU measured is that of the process started).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { SHARED_MODEL } from "../scripts/shared-dir.ts";
import { inspectModelDir } from "../src/search/model/model-source.ts";
import { cpuMs, readProcCpu, settle } from "./lib/cpu.ts";
import { connectStdio, serverEnv, sourceTarget } from "./lib/proc.ts";
import { median } from "./lib/stats.ts";
import { DIALECTS, type Dialect, type PeerCall, type PeerMode, peerMix, peerWarmup } from "./peer-mix.ts";

const { values: opt } = parseArgs({
  options: {
    db: { type: "string" },
    peer: { type: "string" },
    dialect: { type: "string" },
    pairs: { type: "string" },
    passes: { type: "string" },
    model: { type: "string" },
  },
});
const dialect = (opt.dialect ?? "dnd-oracle") as Dialect;
if (!opt.db || !opt.peer || !DIALECTS.includes(dialect) || dialect === "lorekeeper") {
  console.error(
    'usage: bun bench/peer-cpu.ts --db STORE --peer "COMMAND ARGS…" ' +
      "[--dialect dnd-oracle] [--pairs N] [--passes N] [--model DIR]",
  );
  process.exit(2);
}
const pairs = Math.max(1, Math.floor(Number(opt.pairs ?? 3)) || 1);
const passes = Math.max(1, Math.floor(Number(opt.passes ?? 5)) || 1);
const modelDir = opt.model ?? process.env.LOREKEEPER_BENCH_MODEL ?? SHARED_MODEL;
const model = inspectModelDir(modelDir);
if (!model.ok) {
  console.error(`${model.problem}: pass --model DIR`);
  process.exit(2);
}

const MODES: readonly PeerMode[] = ["structured", "name", "typo"];
type ModeFigures = { cold: number; warm: number; chars: number };
type Figures = Record<PeerMode, ModeFigures>;

async function measure(
  client: Client,
  pid: number,
  mix: readonly PeerCall[],
  warmup: readonly PeerCall[],
): Promise<Figures> {
  // Until the server's start-up work, if any, is done.
  await settle(pid);
  for (let i = 0; i < 2; i++) for (const c of warmup) await client.callTool({ name: c.tool, arguments: c.args });
  const cold = new Map<PeerMode, number[]>(MODES.map((m) => [m, []]));
  const warm = new Map<PeerMode, number[]>(MODES.map((m) => [m, []]));
  const chars = new Map<PeerMode, number[]>(MODES.map((m) => [m, []]));
  for (let pass = 0; pass <= passes; pass++) {
    for (const c of mix) {
      const before = readProcCpu(pid);
      const res = (await client.callTool({ name: c.tool, arguments: c.args })) as CallToolResult;
      const after = readProcCpu(pid);
      if (!before || !after) throw new Error("no /proc CPU figures for the server (Linux only)");
      (pass === 0 ? cold : warm).get(c.mode)!.push(cpuMs(before, after).sched);
      const first = res.content[0];
      if (pass === 0) chars.get(c.mode)!.push(first?.type === "text" ? first.text.length : 0);
    }
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  return Object.fromEntries(
    MODES.map((m) => [
      m,
      { cold: median(cold.get(m)!), warm: median(warm.get(m)!), chars: Math.round(mean(chars.get(m)!)) },
    ]),
  ) as Figures;
}

async function lorekeeper(home: string): Promise<Figures> {
  const conn = await connectStdio(
    sourceTarget(),
    opt.db!,
    serverEnv({ home, upstreamUrl: "http://127.0.0.1:9", modelDir }),
  );
  try {
    if (!conn.pid) throw new Error("LoreKeeper's server has no pid");
    return await measure(conn.client, conn.pid, peerMix("lorekeeper"), peerWarmup("lorekeeper"));
  } finally {
    await conn.close();
  }
}

async function peer(home: string): Promise<Figures> {
  const [command, ...args] = opt.peer!.split(/\s+/).filter(Boolean);
  const transport = new StdioClientTransport({
    command: command!,
    args,
    env: { ...getDefaultEnvironment(), HOME: home },
    stderr: "ignore",
  });
  const client = new Client({ name: "lorekeeper-bench", version: "0.0.0" });
  await client.connect(transport);
  try {
    if (!transport.pid) throw new Error("the peer's server has no pid");
    return await measure(client, transport.pid, peerMix(dialect), peerWarmup(dialect));
  } finally {
    await client.close();
  }
}

const f = (x: number) => x.toFixed(2).padStart(5);
const line = (who: string, r: Figures) =>
  `${who.padEnd(11)} ${MODES.map((m) => `${m} ${f(r[m].cold)} /${f(r[m].warm)}`).join("   ")}`;
const home = mkdtempSync(join(tmpdir(), "lk-peer-"));
const ours: Figures[] = [];
const theirs: Figures[] = [];
try {
  for (let i = 0; i < pairs; i++) {
    // Swapped every pair: neither server always runs first.
    const order = i % 2 === 0 ? (["lorekeeper", dialect] as const) : ([dialect, "lorekeeper"] as const);
    for (const who of order) {
      const r = who === "lorekeeper" ? await lorekeeper(home) : await peer(home);
      (who === "lorekeeper" ? ours : theirs).push(r);
      console.log(`pair ${i + 1}: ${line(who, r)}  (server CPU ms per call, cold / warm p50)`);
    }
  }
} finally {
  rmSync(home, { recursive: true, force: true });
}
console.log(`median of ${pairs} pairs (ms per call, server CPU p50; ratio = LoreKeeper ÷ ${dialect}, pair by pair):`);
for (const m of MODES) {
  const med = (rs: Figures[], k: "cold" | "warm") => median(rs.map((r) => r[m][k]));
  const ratio = (k: "cold" | "warm") => median(ours.map((r, i) => r[m][k] / theirs[i]![m][k]));
  console.log(
    `  ${m.padEnd(10)} LoreKeeper ${f(med(ours, "cold"))} /${f(med(ours, "warm"))}  ${dialect} ` +
      `${f(med(theirs, "cold"))} /${f(med(theirs, "warm"))}  ratio cold ${ratio("cold").toFixed(2)} ` +
      `warm ${ratio("warm").toFixed(2)}  answer chars ${ours[0]![m].chars} / ${theirs[0]![m].chars}`,
  );
}
