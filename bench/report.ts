/**
 * Turning raw samples into the figures of the report (per mode and per tool, with floors and
 * ratios), checking the targets, and the readable tables. Pure.
 */
import type { BreakdownRow } from "./phases/breakdown.ts";
import type { ColdStartResult } from "./phases/cold-start.ts";
import type { FloorSample } from "./phases/floors.ts";
import type { DiskFootprint } from "./phases/footprint.ts";
import type { HttpResult } from "./phases/http.ts";
import type { SyncPhaseResult } from "./phases/sync.ts";
import type { ServerCpuResult } from "./phases/server-cpu.ts";
import type { SessionKind, SessionRow } from "./phases/sessions.ts";
import type { ToolCallResult } from "./phases/tool-calls.ts";
import type { CallSpec, Mode } from "./queries.ts";
import {
  fmtBytes,
  fmtMs,
  fmtRate,
  fmtRatio,
  percentile,
  ratio,
  round,
  summarize,
  table,
  type Summary,
} from "./lib/stats.ts";

export interface FloorSummary {
  total: number;
  sql: number;
  embed: number;
  usearch: number;
}

export interface LatencyRow {
  group: string;
  latency: Summary;
  floor: FloorSummary;
  /** latency p50 ÷ floor p50 */
  ratio: number;
  avgResponseChars: number;
}

export interface TargetReport {
  target: "source" | "binary" | "baseline";
  byMode: LatencyRow[];
  byTool: LatencyRow[];
  cachedSearch: Summary;
  /** stdio `ping` round trip. */
  ping: Summary;
  errors: Array<{ id: string; message: string }>;
  notHybrid: Array<{ id: string; mode: string; message?: string }>;
  servingPeakRss: number | null;
  coldStart: ColdStartResult;
  http?: HttpResult;
}

export interface Check {
  goal: string;
  measured: string;
  pass: boolean | null;
}

function floorSummary(xs: FloorSample[]): FloorSummary {
  const p = (f: (s: FloorSample) => number) => round(percentile(xs.map(f), 50));
  return { total: p((s) => s.total), sql: p((s) => s.sql), embed: p((s) => s.embed), usearch: p((s) => s.usearch) };
}

function row(
  group: string,
  specs: readonly CallSpec[],
  calls: ToolCallResult,
  floors: Map<string, FloorSample[]>,
): LatencyRow {
  const lat = specs.flatMap((s) => calls.samples.get(s.id) ?? []);
  const fl = specs.flatMap((s) => floors.get(s.id) ?? []);
  const chars = specs.map((s) => calls.responseChars.get(s.id) ?? 0);
  const latency = summarize(lat);
  const floor = floorSummary(fl);
  return {
    group,
    latency,
    floor,
    ratio: ratio(latency.p50, floor.total),
    avgResponseChars: Math.round(chars.reduce((a, b) => a + b, 0) / Math.max(1, chars.length)),
  };
}

export const MODES: readonly Mode[] = ["structured", "name", "search"];

export function latencyRows(
  specs: readonly CallSpec[],
  calls: ToolCallResult,
  floors: Map<string, FloorSample[]>,
): { byMode: LatencyRow[]; byTool: LatencyRow[] } {
  const byMode = MODES.map((m) =>
    row(
      m,
      specs.filter((s) => s.mode === m),
      calls,
      floors,
    ),
  );
  const keys = [...new Set(specs.map((s) => `${s.tool} ${s.mode}`))];
  const byTool = keys.map((k) =>
    row(
      k,
      specs.filter((s) => `${s.tool} ${s.mode}` === k),
      calls,
      floors,
    ),
  );
  return { byMode, byTool };
}

export function checks(targets: readonly TargetReport[]): Check[] {
  const out: Check[] = [];
  for (const t of targets) {
    const s = t.byMode.find((r) => r.group === "structured");
    if (s) {
      out.push({
        goal: `${t.target}: structured call over stdio p50 ≤ 1.5 ms and ≤ 2× floor`,
        measured: `p50 ${fmtMs(s.latency.p50)}, ${fmtRatio(s.ratio)} floor`,
        pass: s.latency.p50 <= 1.5 && s.ratio <= 2,
      });
    }
    const n = t.byMode.find((r) => r.group === "name");
    if (n)
      out.push({
        goal: `${t.target}: name lookup over stdio p50 ≤ 1.2 ms`,
        measured: `p50 ${fmtMs(n.latency.p50)} (${fmtRatio(n.ratio)} floor)`,
        pass: n.latency.p50 <= 1.2,
      });
    const h = t.byMode.find((r) => r.group === "search");
    if (h)
      out.push({
        goal: `${t.target}: search over stdio p50 ≤ 1.2× its floor`,
        measured: `p50 ${fmtMs(h.latency.p50)}, ${fmtRatio(h.ratio)} floor (${fmtMs(h.floor.total)})`,
        pass: h.ratio <= 1.2,
      });
    if (t.target === "binary") {
      out.push({
        goal: "binary: exec → tools/list answered ≤ 150 ms",
        measured: `median ${fmtMs(t.coldStart.median.toolsListMs)}`,
        pass: t.coldStart.median.toolsListMs <= 150,
      });
    }
    if (t.servingPeakRss !== null) {
      out.push({
        goal: `${t.target}: serving RSS ≤ 300 MB (stdio)`,
        measured: `peak ${fmtBytes(t.servingPeakRss)}`,
        pass: t.servingPeakRss <= 300 * 1024 * 1024,
      });
    }
    if (t.http) {
      const x = t.http;
      out.push({
        goal: `${t.target}: HTTP ${x.clients} clients × ${x.callsPerClient} calls, zero errors`,
        measured:
          `${x.errors} errors, p99 ${fmtMs(x.latency.p99)}, ` +
          `${fmtRate(x.throughput, "calls")}${x.peakRss ? `, peak RSS ${fmtBytes(x.peakRss)}` : ""}`,
        pass: x.errors === 0 && x.calls === x.clients * x.callsPerClient,
      });
    }
  }
  return out;
}

/**
 * Server CPU targets per call (p50, warm). The cold calls are reported, not bounded: a server
 * that pays ahead of time to make its first calls cheap makes every session pay for it; the
 * whole-session checks (sessionChecks) hold what a conversation costs.
 */
const CPU_TARGETS: Partial<Record<string, number>> = { structured: 1.0, name: 0.5, typo: 2.0 };

export function cpuChecks(results: readonly ServerCpuResult[]): Check[] {
  const out: Check[] = [];
  for (const r of results) {
    if (!r.available) continue;
    for (const row of r.rows) {
      const limit = CPU_TARGETS[row.mode];
      if (limit === undefined) continue;
      out.push({
        goal: `${r.target}: server CPU per ${row.mode} call p50 ≤ ${limit} ms (warm)`,
        measured: `warm ${fmtMs(row.warmCpu.p50)}, cold ${fmtMs(row.coldCpu.p50)} (${fmtRatio(row.coldOverWarm)})`,
        pass: row.warmCpu.p50 <= limit,
      });
    }
  }
  return out;
}

/** Whole-session targets (docs/benchmark.md, "6. Whole sessions"): server CPU since exec and peak RSS, per server. */
const SESSION_TARGETS: Partial<Record<SessionKind, { cpuMs: number; peakMb: number }>> = {
  lookup: { cpuMs: 350, peakMb: 100 },
  meaning: { cpuMs: 900, peakMb: 180 },
};

export function sessionChecks(rows: readonly SessionRow[]): Check[] {
  return rows.flatMap((r) => {
    const t = SESSION_TARGETS[r.kind];
    if (!t || r.server === "dnd-oracle") return [];
    return [
      {
        goal:
          `${r.server}: a ${r.kind === "lookup" ? "one-lookup" : "one-meaning-search"} ` +
          `session (start, call, idle 6 s) ≤ ${t.cpuMs / 1000} s CPU, ≤ ${t.peakMb} MB peak RSS`,
        measured: `${(r.cpuMs / 1000).toFixed(2)} s, ${Math.round(r.peakMb)} MB`,
        pass: r.cpuMs <= t.cpuMs && r.peakMb <= t.peakMb,
      },
    ];
  });
}

export function cpuSection(results: readonly ServerCpuResult[]): string[] {
  const out: string[] = [];
  for (const r of results) {
    if (!r.available) continue;
    out.push(
      "",
      `== Server CPU per call: ${r.target} (no-repeat mix; cold = first use of each filter, ` +
        `warm = ${r.warmPasses} passes again; ${r.servers} fresh server${r.servers === 1 ? "" : "s"}, ` +
        `samples pooled; /proc schedstat, utime+stime per batch as a check) ==`,
    );
    out.push(
      table(
        [
          "mode",
          "calls",
          "cold CPU p50",
          "warm CPU p50",
          "cold ÷ warm",
          "cold p95",
          "warm p95",
          "batch cold",
          "batch warm",
          "wall cold",
          "wall warm",
          "chars",
        ],
        r.rows.map((x) => [
          x.mode,
          x.calls,
          fmtMs(x.coldCpu.p50),
          fmtMs(x.warmCpu.p50),
          fmtRatio(x.coldOverWarm),
          fmtMs(x.coldCpu.p95),
          fmtMs(x.warmCpu.p95),
          fmtMs(x.coldBatchMs),
          fmtMs(x.warmBatchMs),
          fmtMs(x.coldWall.p50),
          fmtMs(x.warmWall.p50),
          x.chars,
        ]),
        new Set([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]),
      ),
    );
  }
  return out;
}

const R = new Set([1, 2, 3, 4, 5, 6, 7, 8, 9]);

function latencyTable(rows: LatencyRow[]): string {
  return table(
    ["calls", "n", "p50", "p95", "p99", "floor p50", "sql", "embed", "usearch", "÷ floor", "resp chars"],
    rows.map((r) => [
      r.group,
      r.latency.n,
      fmtMs(r.latency.p50),
      fmtMs(r.latency.p95),
      fmtMs(r.latency.p99),
      fmtMs(r.floor.total),
      fmtMs(r.floor.sql),
      r.floor.embed ? fmtMs(r.floor.embed) : "",
      r.floor.usearch ? fmtMs(r.floor.usearch) : "",
      fmtRatio(r.ratio),
      r.avgResponseChars,
    ]),
    new Set([...R, 10]),
  );
}

function breakdownTable(breakdown: readonly BreakdownRow[], targets: readonly TargetReport[]): string {
  const rows: Array<Array<string | number>> = breakdown.map((b) => [
    b.mode,
    ...targets.map((t) => fmtMs(t.byMode.find((r) => r.group === b.mode)?.latency.p50 ?? Number.NaN)),
    fmtMs(b.sdk),
    fmtMs(b.tool),
    fmtMs(b.search),
    fmtMs(b.tool - b.search),
    fmtMs(b.encode),
    Math.round(b.messageChars / 1000),
  ]);
  const head = [
    "calls (p50)",
    ...targets.map((t) => `stdio ${t.target}`),
    "SDK in-memory",
    "tool handler",
    "search layer",
    "tool rest",
    "encode",
    "msg kchars",
  ];
  return table(head, rows, new Set(head.map((_, i) => i).slice(1)));
}

export function renderReport(
  sync: SyncPhaseResult,
  targets: readonly TargetReport[],
  breakdown: readonly BreakdownRow[],
  disk: DiskFootprint,
  notes: readonly string[],
  cs: readonly Check[],
  /** Extra sections before the targets (answer sizes). */
  extra: readonly string[] = [],
): string {
  const out: string[] = [];
  out.push("== 1. Sync (fake upstream → temporary store) ==");
  out.push(
    table(
      ["step", "count", "time", "rate", "ratio"],
      [
        [
          "sync (fetch + normalize + store)",
          sync.records,
          fmtMs(sync.syncMs),
          fmtRate(sync.recordsPerSecond, "records"),
          "",
        ],
        [
          "embed (embedPending)",
          sync.embedded,
          fmtMs(sync.embedMs),
          fmtRate(sync.embeddingsPerSecond, "emb"),
          fmtRatio(sync.embeddingRatio),
        ],
        [
          "raw fastembed, same texts",
          sync.raw.texts,
          fmtMs(sync.raw.ms),
          fmtRate(sync.raw.embeddingsPerSecond, "emb"),
          "1.00×",
        ],
        ["vector index build + save", sync.indexSize, fmtMs(sync.indexBuildMs), "", ""],
        ["model load", "", fmtMs(sync.modelLoadMs), "", ""],
      ],
      new Set([1, 2, 3, 4]),
    ),
  );
  out.push(
    `sources: ${sync.sources.join(", ")}; ${sync.requests} requests; ` +
      `model ${sync.modelId} (dim ${sync.dim}); ratio = pipeline ÷ raw`,
  );
  for (const t of targets) {
    out.push(
      "",
      `== 2. Tool calls over stdio: ${t.target} (latency as the SDK client sees it; floor measured in-process) ==`,
    );
    out.push(latencyTable(t.byMode), "", latencyTable(t.byTool));
    out.push(
      `search with the query embedding cached (same query repeated): ` +
        `p50 ${fmtMs(t.cachedSearch.p50)}, p99 ${fmtMs(t.cachedSearch.p99)}`,
    );
    if (t.errors.length)
      out.push(
        `ERRORS (${t.errors.length}): ${t.errors
          .slice(0, 3)
          .map((e) => `${e.id}: ${e.message}`)
          .join(" | ")}`,
      );
    if (t.notHybrid.length)
      out.push(
        `NOT HYBRID (${t.notHybrid.length}): ${t.notHybrid
          .slice(0, 3)
          .map((e) => `${e.id}: ${e.mode} ${e.message ?? ""}`)
          .join(" | ")}`,
      );
  }
  if (breakdown.length) {
    out.push(
      "",
      "== Where the time of a tool call goes (p50; SDK in-memory / " +
        "tool handler / search layer measured in the bench process) ==",
    );
    out.push(breakdownTable(breakdown, targets));
    out.push(`stdio ping round trip p50: ${targets.map((t) => `${t.target} ${fmtMs(t.ping.p50)}`).join(", ")}`);
  }
  out.push("", "== 3. Cold start (median; exec → …) ==");
  out.push(
    table(
      [
        "target",
        "runs",
        "initialize",
        "tools/list",
        "1st semantic",
        "1st semantic call",
        "very first start: tools/list",
      ],
      targets.map((t) => [
        t.target,
        t.coldStart.runs.length,
        fmtMs(t.coldStart.median.initializeMs),
        fmtMs(t.coldStart.median.toolsListMs),
        fmtMs(t.coldStart.median.firstSemanticMs),
        fmtMs(t.coldStart.median.firstSemanticCallMs),
        fmtMs(t.coldStart.first.toolsListMs),
      ]),
      new Set([1, 2, 3, 4, 5, 6]),
    ),
  );
  out.push("", "== 4. Footprint ==");
  const rows: Array<Array<string | number>> = [];
  for (const t of targets) {
    const m = t.coldStart.median;
    if (m.rssAfterToolsList !== null) rows.push([`RSS at tools/list (${t.target})`, fmtBytes(m.rssAfterToolsList)]);
    if (m.rssAfterFirstSemantic !== null)
      rows.push([`RSS after the first semantic search (${t.target})`, fmtBytes(m.rssAfterFirstSemantic)]);
    rows.push([
      `peak RSS serving the mix (${t.target}, stdio)`,
      t.servingPeakRss === null ? "—" : fmtBytes(t.servingPeakRss),
    ]);
  }
  for (const t of targets)
    if (t.http?.peakRss) rows.push([`peak RSS serving (${t.target}, HTTP load)`, fmtBytes(t.http.peakRss)]);
  rows.push(
    ["store (SQLite, checkpointed)", fmtBytes(disk.storeBytes)],
    ["  of which http_cache (sync's response cache)", fmtBytes(disk.httpCacheBytes)],
    ["vector index (.usearch + sidecar)", fmtBytes(disk.indexBytes + disk.indexSidecarBytes)],
    ["binary", disk.binaryBytes === null ? "— (not built)" : fmtBytes(disk.binaryBytes)],
  );
  out.push(table(["what", "size"], rows, new Set([1])));
  if (disk.tables.length)
    out.push(`largest tables: ${disk.tables.map((t) => `${t.name} ${fmtBytes(t.bytes)}`).join(", ")}`);
  const http = targets.filter((t) => t.http);
  if (http.length) {
    out.push("", "== 5. HTTP (serve --http) under concurrent clients ==");
    out.push(
      table(
        ["target", "clients × calls", "calls/s", "p50", "p95", "p99", "errors", "connect p50"],
        http.map((t) => {
          const h = t.http!;
          return [
            t.target,
            `${h.clients} × ${h.callsPerClient}`,
            Math.round(h.throughput),
            fmtMs(h.latency.p50),
            fmtMs(h.latency.p95),
            fmtMs(h.latency.p99),
            h.errors,
            fmtMs(h.connectMs.p50),
          ];
        }),
        new Set([2, 3, 4, 5, 6, 7]),
      ),
    );
    for (const t of http)
      if (t.http!.errorSamples.length) out.push(`${t.target} errors: ${t.http!.errorSamples.join(" | ")}`);
  }
  out.push(...extra);
  out.push("", "== Targets ==");
  out.push(
    table(
      ["", "goal", "measured"],
      cs.map((c) => [c.pass === null ? "?" : c.pass ? "PASS" : "MISS", c.goal, c.measured]),
    ),
  );
  if (notes.length) out.push("", "Notes:", ...notes.map((n) => `- ${n}`));
  return out.join("\n");
}
