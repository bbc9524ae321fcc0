/**
 * Logging to stderr only: stdout belongs to the MCP stdio transport.
 * Level from LOREKEEPER_LOG_LEVEL (debug|info|warn|error|silent) or `-v` (setLogLevel("debug")).
 */
import { logLevelSetting } from "./config.ts";
import { safeText } from "./text/sanitize.ts";

export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 };

const setting = logLevelSetting();
let current: LogLevel = setting in ORDER ? (setting as LogLevel) : "info";
const warnedOnce = new Set<string>();

export function getLogLevel(): LogLevel {
  return current;
}

export function setLogLevel(level: LogLevel): void {
  current = level;
}

function fmtDetail(detail: unknown): string {
  if (detail === undefined) return "";
  if (detail instanceof Error)
    return ` ${detail.name}: ${detail.message}${current === "debug" && detail.stack ? `\n${detail.stack}` : ""}`;
  if (typeof detail === "string") return ` ${detail}`;
  try {
    return ` ${JSON.stringify(detail)}`;
  } catch {
    return ` ${String(detail)}`;
  }
}

/** Where log lines go: stderr, unless a sink was set (the tests capture them). */
export type LogSink = (line: string) => void;
const toStderr: LogSink = (line) => process.stderr.write(line);
let sink: LogSink = toStderr;

/** Sends log lines to `s` instead of stderr; `undefined` restores stderr. */
export function setLogSink(s: LogSink | undefined): void {
  sink = s ?? toStderr;
}

function emit(level: Exclude<LogLevel, "silent">, msg: string, detail?: unknown): void {
  if (ORDER[level] < ORDER[current]) return;
  sink(safeText(`[lorekeeper] ${level.toUpperCase()} ${msg}${fmtDetail(detail)}\n`));
}

export const log = {
  debug: (msg: string, detail?: unknown) => emit("debug", msg, detail),
  info: (msg: string, detail?: unknown) => emit("info", msg, detail),
  warn: (msg: string, detail?: unknown) => emit("warn", msg, detail),
  error: (msg: string, detail?: unknown) => emit("error", msg, detail),
  /** Warn only the first time `key` is seen in this process. */
  warnOnce: (key: string, msg: string, detail?: unknown) => {
    if (warnedOnce.has(key)) return;
    warnedOnce.add(key);
    emit("warn", msg, detail);
  },
};
