/**
 * Server CPU per call: CPU time is what a loaded machine does not distort much (wall time there
 * is mostly waiting for a core). A fresh server, once idle (its start-up work done: lib/cpu.ts
 * settle) and warmed up with other values of the same shapes (model loaded, code compiled,
 * nothing of the measured calls cached), answers the no-repeat mix (cpu-mix.ts) once — cold: the
 * first use of each filter — then the same calls `warmPasses` times — warm. `servers` fresh
 * servers in a row, their samples pooled: one cold pass holds one sample per call, so a single
 * server's cold p50 moved from run to run more than the changes it should show. Per call: the server's CPU from
 * /proc/<pid>/task/*\/schedstat (ns) around the call; per pass: utime + stime of /proc/<pid>/stat
 * over the whole batch (coarse: 10 ms ticks; whole-process, the figure `ps` reports), shared among
 * the modes in proportion to their schedstat time and divided by their calls, as a cross-check.
 * Wall time is recorded beside it.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { cpuMs, readProcCpu, settle } from "../lib/cpu.ts";
import { connectStdio, type Target } from "../lib/proc.ts";
import { now, round, summarize, type Summary } from "../lib/stats.ts";
import { type CpuMode, type CpuSpec, cpuMix, cpuWarmup } from "../cpu-mix.ts";

export interface CpuModeRow {
  mode: CpuMode;
  calls: number;
  /** Server CPU per call (schedstat), ms. */
  coldCpu: Summary;
  warmCpu: Summary;
  /** utime + stime over the passes (the mode's share), per call, ms. */
  coldBatchMs: number;
  warmBatchMs: number;
  coldWall: Summary;
  warmWall: Summary;
  /** cold p50 ÷ warm p50 (CPU). */
  coldOverWarm: number;
  /** Text characters of the answers (mean). */
  chars: number;
}

export interface ServerCpuResult {
  target: string;
  warmPasses: number;
  /** Fresh servers whose samples are pooled. */
  servers: number;
  rows: CpuModeRow[];
  errors: string[];
  available: boolean;
}

/** Fresh servers per measurement (their samples pooled). */
export const CPU_SERVERS = 3;

export async function measureServerCpu(
  target: Target,
  dbPath: string,
  env: Record<string, string>,
  warmPasses: number,
  servers = CPU_SERVERS,
): Promise<ServerCpuResult> {
  const specs = cpuMix();
  const errors: string[] = [];
  const samples = new Map<CpuMode, Samples>();
  for (const m of new Set(specs.map((x) => x.mode)))
    samples.set(m, {
      cold: [],
      warm: [],
      coldWall: [],
      warmWall: [],
      chars: [],
      coldTicks: 0,
      warmTicks: 0,
      perPass: specs.filter((x) => x.mode === m).length,
    });
  let available = true;
  for (let i = 0; i < servers && available; i++)
    available = await oneServer(target, dbPath, env, warmPasses, specs, samples, errors);
  const rows = [...samples.entries()].map(([mode, s]): CpuModeRow => {
    const n = specs.filter((x) => x.mode === mode).length;
    const coldCpu = summarize(s.cold);
    const warmCpu = summarize(s.warm);
    return {
      mode,
      calls: n,
      coldCpu,
      warmCpu,
      coldBatchMs: round(s.coldTicks / Math.max(1, s.cold.length)),
      warmBatchMs: round(s.warmTicks / Math.max(1, s.warm.length)),
      coldWall: summarize(s.coldWall),
      warmWall: summarize(s.warmWall),
      coldOverWarm: round(coldCpu.p50 / warmCpu.p50),
      chars: Math.round(s.chars.reduce((a, b) => a + b, 0) / Math.max(1, s.chars.length)),
    };
  });
  return { target: target.name, warmPasses, servers, rows, errors, available };
}

/** One fresh server's cold pass and warm passes, added to `samples`; false when /proc gives no CPU figures. */
async function oneServer(
  target: Target,
  dbPath: string,
  env: Record<string, string>,
  warmPasses: number,
  specs: readonly CpuSpec[],
  samples: Map<CpuMode, Samples>,
  errors: string[],
): Promise<boolean> {
  const conn = await connectStdio(target, dbPath, env);
  const of = (m: CpuMode) => samples.get(m)!;
  let available = readProcCpu(conn.pid) !== undefined;
  try {
    // Until any start-up work of the server is done: idle for 0.4 s.
    if (conn.pid && !(await settle(conn.pid)))
      errors.push("the server did not go idle within 20 s of starting; measured anyway");
    // Model loaded, code paths compiled: other values of the same shapes, twice (cpu-mix.ts).
    for (let i = 0; i < 2; i++)
      for (const w of cpuWarmup())
        await conn.client.callTool({ name: w.tool, arguments: w.args }).catch(() => undefined);
    for (let pass = 0; pass <= warmPasses && available; pass++) {
      const cold = pass === 0;
      const passStart = readProcCpu(conn.pid);
      for (const spec of specs) {
        const before = readProcCpu(conn.pid);
        const t0 = now();
        let res: CallToolResult | undefined;
        try {
          res = (await conn.client.callTool({ name: spec.tool, arguments: spec.args })) as CallToolResult;
        } catch (err) {
          errors.push(`${spec.id}: ${(err as Error).message}`);
        }
        const wall = now() - t0;
        const after = readProcCpu(conn.pid);
        if (!before || !after) {
          available = false;
          break;
        }
        if (res?.isError && spec.mode !== "typo") errors.push(`${spec.id}: ${textOf(res).slice(0, 200)}`);
        record(of(spec.mode), cold, cpuMs(before, after), wall, res);
      }
      // utime + stime over the whole pass (10 ms ticks), shared out by the modes' schedstat time.
      const passEnd = readProcCpu(conn.pid);
      if (passStart && passEnd) {
        const ticks = cpuMs(passStart, passEnd).ticks;
        const lastPass = (x: Samples) => sum((cold ? x.cold : x.warm).slice(-x.perPass));
        const sched = [...samples.values()].reduce((a, x) => a + lastPass(x), 0);
        for (const x of samples.values()) {
          const mine = lastPass(x);
          const share = sched > 0 ? (ticks * mine) / sched : 0;
          if (cold) x.coldTicks += share;
          else x.warmTicks += share;
        }
      }
    }
  } finally {
    await conn.close();
  }
  return available;
}

interface Samples {
  cold: number[];
  warm: number[];
  coldWall: number[];
  warmWall: number[];
  chars: number[];
  /** utime + stime (ms) attributed to the mode over the passes. */
  coldTicks: number;
  warmTicks: number;
  /** Calls of the mode per pass. */
  perPass: number;
}

function record(
  s: Samples,
  cold: boolean,
  cpu: { sched: number },
  wall: number,
  res: CallToolResult | undefined,
): void {
  (cold ? s.cold : s.warm).push(cpu.sched);
  (cold ? s.coldWall : s.warmWall).push(wall);
  if (cold && res) s.chars.push(textOf(res).length);
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

function textOf(res: CallToolResult): string {
  const first = res.content[0];
  return first && first.type === "text" ? first.text : "";
}
