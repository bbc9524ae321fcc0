/** Timing and summary statistics for the benchmark (pure, except `now`). */

/** Milliseconds, sub-microsecond resolution (monotonic). */
export function now(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** Run `fn` and return how long it took in ms. */
export async function timeAsync(fn: () => Promise<unknown>): Promise<number> {
  const t0 = now();
  await fn();
  return now() - t0;
}

export function timeSync(fn: () => unknown): number {
  const t0 = now();
  fn();
  return now() - t0;
}

/** Nearest-rank percentile (p in 0..100) of unsorted samples; NaN when empty. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank - 1))]!;
}

export interface Summary {
  n: number;
  mean: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

export function summarize(samples: readonly number[]): Summary {
  const n = samples.length;
  const mean = n ? samples.reduce((a, b) => a + b, 0) / n : Number.NaN;
  return {
    n,
    mean: round(mean),
    p50: round(percentile(samples, 50)),
    p95: round(percentile(samples, 95)),
    p99: round(percentile(samples, 99)),
    max: round(n ? Math.max(...samples) : Number.NaN),
  };
}

export function median(samples: readonly number[]): number {
  return percentile(samples, 50);
}

/** Round to 3 decimals (JSON output); NaN/Infinity stay as they are. */
export function round(x: number, digits = 3): number {
  if (!Number.isFinite(x)) return x;
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** a / b rounded to 2 decimals, NaN when b is not positive. */
export function ratio(a: number, b: number): number {
  return b > 0 && Number.isFinite(a) ? round(a / b, 2) : Number.NaN;
}

/** "1.23" ms style for tables. */
export function fmtMs(x: number): string {
  if (!Number.isFinite(x)) return "—";
  if (x >= 1000) return `${(x / 1000).toFixed(2)} s`;
  if (x >= 100) return `${x.toFixed(0)} ms`;
  if (x >= 10) return `${x.toFixed(1)} ms`;
  return `${x.toFixed(2)} ms`;
}

export function fmtBytes(n: number): string {
  if (!Number.isFinite(n)) return "—";
  if (n >= 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MB`;
  if (n >= 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${n} B`;
}

export function fmtRate(perSecond: number, unit: string): string {
  return Number.isFinite(perSecond) ? `${Math.round(perSecond).toLocaleString("en-US")} ${unit}/s` : "—";
}

export function fmtRatio(x: number): string {
  return Number.isFinite(x) ? `${x.toFixed(2)}×` : "—";
}

/** Aligned text table; `right` = indexes of right-aligned columns. */
export function table(
  head: string[],
  rows: Array<Array<string | number>>,
  right: ReadonlySet<number> = new Set(),
): string {
  const cells = rows.map((r) => r.map((c) => String(c)));
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((r) => (r[i] ?? "").length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => (right.has(i) ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  return [line(head), line(widths.map((w) => "-".repeat(w))), ...cells.map(line)].join("\n");
}
