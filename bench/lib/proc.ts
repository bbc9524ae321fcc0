/**
 * Processes the benchmark drives: the fake upstream (a separate process, so that serving the corpus
 * does not share the sync's event loop), and the LoreKeeper server from source or as the compiled
 * binary, over stdio (SDK Client) or Streamable HTTP. Also /proc memory readings.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Subprocess } from "bun";

export const REPO_ROOT = join(import.meta.dir, "..", "..");

/** How to start LoreKeeper: `bun src/cli/main.ts …` or the compiled binary. */
export interface Target {
  name: "source" | "binary" | "baseline";
  command: string;
  args: string[];
}

/** Another checkout of LoreKeeper (e.g. a git worktree of the commit before a change), run from its source. */
export function baselineTarget(dir: string): Target | undefined {
  const main = join(dir, "src", "cli", "main.ts");
  return existsSync(main) ? { name: "baseline", command: process.execPath, args: [main] } : undefined;
}

export function sourceTarget(): Target {
  return { name: "source", command: process.execPath, args: [join(REPO_ROOT, "src", "cli", "main.ts")] };
}

/** dist/lorekeeper-<os>-<arch>[.exe] as `bun run build` names it. */
export function binaryPath(): string {
  const os = process.platform === "win32" ? "windows" : process.platform;
  return join(REPO_ROOT, "dist", `lorekeeper-${os}-${process.arch}${process.platform === "win32" ? ".exe" : ""}`);
}

export function binaryTarget(path?: string): Target | undefined {
  const p = path ?? binaryPath();
  return existsSync(p) ? { name: "binary", command: p, args: [] } : undefined;
}

/** Memory of a live process from /proc (kB → bytes); undefined where /proc is missing. */
export interface ProcMemory {
  /** Peak resident set size (VmHWM). */
  peakRss: number;
  /** Current resident set size (VmRSS). */
  rss: number;
}

export function readProcMemory(pid: number | null | undefined): ProcMemory | undefined {
  if (!pid) return undefined;
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (field: string) => {
      const m = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, "m").exec(status);
      return m ? Number(m[1]) * 1024 : Number.NaN;
    };
    return { peakRss: kb("VmHWM"), rss: kb("VmRSS") };
  } catch {
    return undefined;
  }
}

/** The fake Open5e + D&D 5e API over a data folder, as its own process. */
export async function startFakeUpstreamProcess(dataDir: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const proc = Bun.spawn(
    [process.execPath, join(REPO_ROOT, "test", "support", "fake-upstream.ts"), "--data", dataDir, "--port", "0"],
    {
      stdout: "pipe",
      stderr: "inherit",
      cwd: REPO_ROOT,
    },
  );
  const reader = proc.stdout.getReader();
  let buf = "";
  const deadline = Date.now() + 15_000;
  while (!buf.includes("\n")) {
    if (Date.now() > deadline) throw new Error("the fake upstream did not start within 15 s");
    const { value, done } = await reader.read();
    if (done) throw new Error("the fake upstream exited before printing its URL");
    buf += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  const url = buf.trim().split("\n")[0]!.trim();
  return { url, stop: () => stopProcess(proc) };
}

async function stopProcess(proc: Subprocess): Promise<void> {
  if (proc.exitCode !== null) return;
  proc.kill("SIGTERM");
  const timer = setTimeout(() => proc.kill("SIGKILL"), 3000);
  await proc.exited;
  clearTimeout(timer);
}

/** The environment every server process gets: offline, private folders, the benchmark model. */
export function serverEnv(opts: { home: string; upstreamUrl: string; modelDir: string }): Record<string, string> {
  return {
    ...getDefaultEnvironment(),
    HOME: opts.home,
    XDG_DATA_HOME: join(opts.home, "data"),
    XDG_CACHE_HOME: join(opts.home, "cache"),
    LOREKEEPER_OPEN5E_BASE_URL: opts.upstreamUrl,
    LOREKEEPER_DND5EAPI_BASE_URL: opts.upstreamUrl,
    LOREKEEPER_MODEL_DIR: opts.modelDir,
    LOREKEEPER_LOG_LEVEL: "warn",
  };
}

export interface StdioConnection {
  client: Client;
  pid: number | null;
  stderr: () => string;
  close: () => Promise<void>;
}

/**
 * Spawn `target serve --db-path db` and connect the SDK client over stdio. `connect` resolves when
 * `initialize` has been answered (and `notifications/initialized` sent).
 */
export async function connectStdio(
  target: Target,
  dbPath: string,
  env: Record<string, string>,
): Promise<StdioConnection> {
  const transport = new StdioClientTransport({
    command: target.command,
    args: [...target.args, "serve", "--db-path", dbPath],
    env,
    cwd: REPO_ROOT,
    stderr: "pipe",
  });
  let err = "";
  transport.stderr?.on("data", (d: Buffer) => {
    err += d.toString();
    if (err.length > 200_000) err = err.slice(-100_000);
  });
  const client = new Client({ name: "lorekeeper-bench", version: "0.0.0" });
  await client.connect(transport);
  return { client, pid: transport.pid, stderr: () => err, close: () => client.close() };
}

export interface HttpServerProcess {
  /** e.g. http://127.0.0.1:40123/mcp */
  url: string;
  pid: number;
  stderr: () => string;
  stop: () => Promise<void>;
}

/** Spawn `target serve --http --port 0` and wait for the line naming its URL. */
export async function startHttpServer(
  target: Target,
  dbPath: string,
  env: Record<string, string>,
): Promise<HttpServerProcess> {
  const proc = Bun.spawn([target.command, ...target.args, "serve", "--http", "--port", "0", "--db-path", dbPath], {
    env,
    cwd: REPO_ROOT,
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe",
  });
  let err = "";
  const decoder = new TextDecoder();
  const reader = proc.stderr.getReader();
  const deadline = Date.now() + 30_000;
  let url: string | undefined;
  while (!url) {
    if (Date.now() > deadline) {
      proc.kill("SIGKILL");
      throw new Error(`the HTTP server did not announce its URL within 30 s:\n${err}`);
    }
    const { value, done } = await reader.read();
    if (done) throw new Error(`the HTTP server exited (code ${proc.exitCode}):\n${err}`);
    err += decoder.decode(value);
    url = /(http:\/\/[^\s]+\/mcp)\b/.exec(err)?.[1];
  }
  // Keep draining stderr so the server never blocks on a full pipe.
  void (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      err += decoder.decode(value);
      if (err.length > 200_000) err = err.slice(-100_000);
    }
  })().catch(() => {});
  return { url, pid: proc.pid, stderr: () => err, stop: () => stopProcess(proc) };
}
