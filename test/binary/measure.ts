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
 * returns, with search_mode "hybrid").
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { copyFileSync, existsSync, mkdirSync, rmSync, statSync } from "node:fs";
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
const env = { HOME: join(dir, "home"), XDG_CACHE_HOME: join(dir, "cache"), XDG_DATA_HOME: join(dir, "data"), TMPDIR: join(dir, "tmp"), PATH: join(dir, "empty") };
const canIsolate = Bun.spawnSync(["unshare", "-rmn", "true"]).exitCode === 0;
const hide = [join(ROOT, "node_modules"), join(ROOT, "..", "shared")].filter(existsSync).map((p) => `mount --bind '${join(dir, "empty")}' '${p}'`);
const isolation = ["unshare", "-rmn", "sh", "-c", [...hide, 'exec "$0" "$@"'].join(" && ")];

async function once(prefix: string[]): Promise<{ list: number; search: number; mode: string; top: string }> {
  const [command, ...args] = [...prefix, "env", "-i", ...Object.entries(env).map(([k, v]) => `${k}=${v}`), bin];
  const transport = new StdioClientTransport({ command: command!, args, cwd: join(dir, "run"), env: {}, stderr: "ignore" });
  const client = new Client({ name: "measure", version: "1.0.0" });
  const t0 = performance.now();
  try {
    await client.connect(transport);
    await client.listTools();
    const list = performance.now() - t0;
    const res = await client.callTool({ name: tool, arguments: { search: query, limit: 5 } });
    const search = performance.now() - t0;
    const a = res.structuredContent as { search_mode?: string; results?: { name: string }[] } | undefined;
    return { list, search, mode: a?.search_mode ?? "?", top: a?.results?.map((r) => r.name).join(", ") ?? JSON.stringify(res.content).slice(0, 200) };
  } finally {
    await client.close();
  }
}

const size = statSync(bin).size;
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
process.stdout.write(`binary ${src}: ${(size / 1048576).toFixed(1)} MB (${size} bytes)\n`);

async function series(label: string, prefix: string[], cold: boolean): Promise<void> {
  process.stdout.write(`\n${label}\n`);
  const rows: Array<{ list: number; search: number }> = [];
  for (let i = 0; i < runs + (cold ? 1 : 0); i++) {
    const r = await once(prefix);
    const name = cold && i === 0 ? "cold (unpack + pack install)" : `warm ${rows.length + 1}`;
    process.stdout.write(`${name.padEnd(30)} tools/list ${r.list.toFixed(0).padStart(5)} ms   first ${r.mode} result ${r.search.toFixed(0).padStart(5)} ms   [${r.top}]\n`);
    if (!(cold && i === 0)) rows.push(r);
  }
  process.stdout.write(`warm median: tools/list ${med(rows.map((r) => r.list)).toFixed(0)} ms, first semantic result ${med(rows.map((r) => r.search)).toFixed(0)} ms\n`);
}

await series("direct (env -i, fresh HOME/XDG, empty PATH)", [], true);
if (canIsolate) {
  rmSync(join(dir, "cache"), { recursive: true, force: true });
  rmSync(join(dir, "data"), { recursive: true, force: true });
  await series("isolated (unshare -rmn: no network, node_modules and ../shared hidden; fresh cache and store)", isolation, true);
} else process.stdout.write("\nunshare is not available: isolated run skipped\n");
tmp.cleanup();
