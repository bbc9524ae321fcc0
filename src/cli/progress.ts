/**
 * Sync/import progress on stderr: a live line per content type on a TTY, plain lines otherwise.
 * Output only (no logic the commands depend on).
 */
import { safeJson, safeLine, safeText } from "../text/sanitize.ts";
export interface ProgressLine {
  label: string;
  done: number;
  total: number | null;
  startedAt: number;
}

function fmtRate(n: number, ms: number): string {
  const s = ms / 1000;
  return s > 0 ? `${Math.round(n / s)}/s` : "-";
}

function fmtEta(done: number, total: number | null, ms: number): string {
  if (!total || done === 0 || done >= total) return "";
  const rest = ((total - done) * ms) / done / 1000;
  return ` ETA ${rest < 60 ? `${Math.ceil(rest)}s` : `${Math.ceil(rest / 60)}m`}`;
}

export class Progress {
  private readonly out = process.stderr;
  private readonly tty: boolean;
  private lastPlain = 0;
  private live = false;

  /** `ci`: Config `ci` (CI=true): lines only, never redrawn in place. */
  constructor(
    ci: boolean,
    private readonly quiet = false,
  ) {
    this.tty = !!this.out.isTTY && !ci;
  }

  update(p: ProgressLine, extra = ""): void {
    if (this.quiet) return;
    const ms = Date.now() - p.startedAt;
    const pct = p.total ? ` ${Math.min(100, Math.floor((p.done / p.total) * 100))}%` : "";
    const line =
      `${p.label}: ${p.done}${p.total ? `/${p.total}` : ""} records${pct} ${fmtRate(p.done, ms)}` +
      `${fmtEta(p.done, p.total, ms)}${extra}`;
    if (this.tty) {
      this.out.write(`\r\x1b[2K${safeLine(line)}`);
      this.live = true;
    } else if (Date.now() - this.lastPlain > 2000) {
      this.out.write(`${safeLine(line)}\n`);
      this.lastPlain = Date.now();
    }
  }

  line(text: string): void {
    if (this.quiet) return;
    if (this.live) {
      this.out.write("\r\x1b[2K");
      this.live = false;
    }
    this.out.write(`${safeText(text)}\n`);
  }
}

/** Aligned text table. */
export function table(
  headers: string[],
  rows: Array<Array<string | number>>,
  rightAlign: Set<number> = new Set(),
): string {
  // Cells come from the store (names from upstream and imported packs): one line, no control characters.
  const cells = [headers, ...rows.map((r) => r.map((c) => safeLine(String(c))))];
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? "").length)));
  const fmt = (r: string[]) =>
    r
      .map((c, i) => (rightAlign.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [fmt(cells[0]!), widths.map((w) => "-".repeat(w)).join("  "), ...cells.slice(1).map(fmt)].join("\n");
}

/** `value` as indented JSON on stdout, with the controls a terminal acts on escaped. */
export function printJson(value: unknown): void {
  process.stdout.write(`${safeJson(JSON.stringify(value, null, 2))}\n`);
}
