/**
 * CPU time of another process from /proc (Linux): stable under load where wall time is not.
 *   - `schedNs`: the sum over its threads of /proc/<pid>/task/<tid>/schedstat's first field (time
 *     on a CPU, nanoseconds): fine enough for one call.
 *   - `ticks`: utime + stime of /proc/<pid>/stat (clock ticks, 10 ms each here): what `ps` and
 *     `time` report, whole-process, coarse; over a batch of calls its mean per call checks the former.
 * Undefined where /proc is missing (then the benchmark leaves CPU figures out).
 */
import { readdirSync, readFileSync } from "node:fs";

/** Clock ticks per second of /proc/<pid>/stat (USER_HZ; 100 on Linux). */
export const CLOCK_TICKS = 100;

export interface ProcCpu {
  schedNs: number;
  ticks: number;
}

export function readProcCpu(pid: number | null | undefined): ProcCpu | undefined {
  if (!pid) return undefined;
  try {
    let schedNs = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        schedNs += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
      } catch {
        // the thread ended between listing and reading
      }
    }
    // Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return { schedNs, ticks: Number(f[11]) + Number(f[12]) };
  } catch {
    return undefined;
  }
}

/** Milliseconds of CPU between two readings: [by schedstat, by utime+stime]. */
export function cpuMs(a: ProcCpu, b: ProcCpu): { sched: number; ticks: number } {
  return { sched: (b.schedNs - a.schedNs) / 1e6, ticks: ((b.ticks - a.ticks) * 1000) / CLOCK_TICKS };
}

/**
 * Wait until process `pid` is idle: its CPU time (schedstat, all threads) grew by less than
 * `maxBusy` of the wall time over the last `quietMs`, polled every `stepMs`; at least `minMs`,
 * at most `maxMs` (then it gives up and returns false). Background work a server does after it
 * answers `initialize` (a peer's, or a LoreKeeper's own after its first meaning question) would
 * otherwise be charged to the calls it interleaves with.
 */
export async function settle(
  pid: number,
  opts: { minMs?: number; quietMs?: number; maxMs?: number; stepMs?: number; maxBusy?: number } = {},
): Promise<boolean> {
  const { minMs = 500, quietMs = 400, maxMs = 20_000, stepMs = 50, maxBusy = 0.02 } = opts;
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const started = performance.now();
  await sleep(minMs);
  const window: Array<{ t: number; ns: number }> = [];
  while (performance.now() - started < maxMs) {
    const c = readProcCpu(pid);
    if (!c) return false;
    const t = performance.now();
    window.push({ t, ns: c.schedNs });
    // The oldest reading kept is the latest one at least quietMs old.
    while (window.length > 2 && t - window[1]!.t >= quietMs) window.shift();
    const first = window[0]!;
    if (t - first.t >= quietMs && (c.schedNs - first.ns) / 1e6 < maxBusy * (t - first.t)) return true;
    await sleep(stepMs);
  }
  return false;
}
