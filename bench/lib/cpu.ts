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
