/**
 * Measure a built binary (not part of `bun test`):
 *
 *   bun test/binary/measure.ts BINARY [--runs 5] [--tool search_spell] [--query "protect from fire"]
 *
 * Copies BINARY alone into an empty temp folder and runs it with a fresh HOME / XDG dirs, `env -i`
 * and an empty PATH: first directly (the timings of the binary itself), then — when `unshare`
 * works — with no network and this repo's node_modules and ../shared hidden (those timings also
 * include creating the namespaces and the `sh` wrapper). Prints the size, then for a cold first run
 * and warm runs: exec → `tools/list` answered, and exec → first semantic result (the tool call
 * returns, with search_mode "hybrid"), with the server's CPU time up to that answer (all its
 * threads, from /proc: stable where wall time is not, on a shared machine).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ListToolsResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { makeTempDir } from "../support/tmp.ts";

const { values, positionals } = parseArgs({
  args: process.argv.slice(2),
  options: { runs: { type: "string" }, tool: { type: "string" }, query: { type: "string" } },
  allowPositionals: true,
});
const src = positionals[0];
if (!src || !existsSync(src)) {
  process.stderr.write("usage: bun test/binary/measure.ts BINARY [--runs N] [--tool T] [--query Q]\n");
  process.exit(64);
}
const runs = Number(values.runs ?? 5);
const tool = values.tool ?? "search_spell";
const query = values.query ?? "protect from fire";
const ROOT = resolve(import.meta.dir, "../..");

const tmp = makeTempDir("lk-measure-");
const dir = tmp.dir;
for (const d of ["run", "home", "cache", "data", "tmp", "empty"]) mkdirSync(join(dir, d));
const bin = join(dir, "run", "lorekeeper");
copyFileSync(src, bin);
Bun.spawnSync(["chmod", "+x", bin]);
const env = {
  HOME: join(dir, "home"),
  XDG_CACHE_HOME: join(dir, "cache"),
  XDG_DATA_HOME: join(dir, "data"),
  TMPDIR: join(dir, "tmp"),
  PATH: join(dir, "empty"),
};
const canIsolate = Bun.spawnSync(["unshare", "-rmn", "true"]).exitCode === 0;
const hide = [join(ROOT, "node_modules"), join(ROOT, "..", "shared")]
  .filter(existsSync)
  .map((p) => `mount --bind '${join(dir, "empty")}' '${p}'`);
const isolation = ["unshare", "-rmn", "sh", "-c", [...hide, 'exec "$0" "$@"'].join(" && ")];

/** CPU time (user + system, ms) the process has used so far, from /proc (every thread; Linux only). */
function cpuMs(pid: number | null): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after "(comm) ": state is [0], utime [11], stime [12].
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return ((Number(f[11]) + Number(f[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return Number.NaN;
  }
}
const CLOCK_TICKS = Number(Bun.spawnSync(["getconf", "CLK_TCK"]).stdout.toString().trim()) || 100;

interface Run {
  list: number;
  search: number;
  /** The server's CPU time (all threads) from exec to the first answer. */
  cpu: number;
  mode: string;
  top: string;
}

async function once(prefix: string[]): Promise<Run> {
  const [command, ...args] = [...prefix, "env", "-i", ...Object.entries(env).map(([k, v]) => `${k}=${v}`), bin];
  const transport = new StdioClientTransport({
    command: command!,
    args,
    cwd: join(dir, "run"),
    env: {},
    stderr: "ignore",
  });
  const client = new Client({ name: "measure", version: "1.0.0" });
  const t0 = performance.now();
  try {
    await client.connect(transport);
    // request, not listTools(): that also compiles a validator per output schema in this client (tens of ms), which is
    // not the server answering.
    await client.request({ method: "tools/list" }, ListToolsResultSchema);
    const list = performance.now() - t0;
    const res = await client.callTool({ name: tool, arguments: { search: query, limit: 5 } });
    const search = performance.now() - t0;
    const cpu = cpuMs(transport.pid);
    const a = res.structuredContent as { search_mode?: string; results?: { name: string }[] } | undefined;
    return {
      list,
      search,
      cpu,
      mode: a?.search_mode ?? "?",
      top: a?.results?.map((r) => r.name).join(", ") ?? JSON.stringify(res.content).slice(0, 200),
    };
  } finally {
    await client.close();
  }
}

const size = statSync(bin).size;
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
process.stdout.write(`binary ${src}: ${(size / 1048576).toFixed(1)} MB (${size} bytes)\n`);

async function series(label: string, prefix: string[], cold: boolean): Promise<void> {
  process.stdout.write(`\n${label}\n`);
  const rows: Run[] = [];
  for (let i = 0; i < runs + (cold ? 1 : 0); i++) {
    const r = await once(prefix);
    const name = cold && i === 0 ? "cold (unpack + pack install)" : `warm ${rows.length + 1}`;
    process.stdout.write(
      `${name.padEnd(30)} tools/list ${r.list.toFixed(0).padStart(5)} ms   first ${r.mode} result ` +
        `${r.search.toFixed(0).padStart(5)} ms   server CPU ${r.cpu.toFixed(0).padStart(4)} ms   [${r.top}]\n`,
    );
    if (!(cold && i === 0)) rows.push(r);
  }
  process.stdout.write(
    `warm median: tools/list ${med(rows.map((r) => r.list)).toFixed(0)} ms, first semantic result ` +
      `${med(rows.map((r) => r.search)).toFixed(0)} ms, server ` +
      `CPU to it ${med(rows.map((r) => r.cpu)).toFixed(0)} ms\n`,
  );
}

await series("direct (env -i, fresh HOME/XDG, empty PATH)", [], true);
if (canIsolate) {
  rmSync(join(dir, "cache"), { recursive: true, force: true });
  rmSync(join(dir, "data"), { recursive: true, force: true });
  await series(
    "isolated (unshare -rmn: no network, node_modules and ../shared hidden; fresh cache and store)",
    isolation,
    true,
  );
} else process.stdout.write("\nunshare is not available: isolated run skipped\n");
tmp.cleanup();
