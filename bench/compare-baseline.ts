#!/usr/bin/env bun
/**
 * `bun bench/compare-baseline.ts <DIR>`: per-call cost of this checkout's server against another
 * checkout's (e.g. `git worktree add /tmp/lk-before <commit>` + `bun install` there), measured in
 * one run with calls interleaved, so both see the same machine load. Small store (the tests'
 * sample entities), no model: it measures the protocol and tool layers, not search quality.
 *
 * - stdio: both servers spawned, a v1 SDK client each; wall time per call (median of rounds) and
 *   the server process's CPU per call (/proc utime + stime, robust on a busy machine).
 * - HTTP: both `startHttpServer`s in this process, raw POSTs of the same tools/call (2025 era),
 *   and this checkout's in the 2026-07-28 era too; wall time per call.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startHttpServer } from "../src/server/transports/http.ts";
import { makeStore } from "../test/support/entities.ts";
import { makeDeps, REPO_ROOT } from "../test/support/mcp.ts";

const baseline = process.argv[2];
if (!baseline || !existsSync(join(baseline, "src/cli/main.ts"))) {
  console.error("usage: bun bench/compare-baseline.ts <checkout dir with src/cli/main.ts and node_modules>");
  process.exit(2);
}
const ROUNDS = Number(process.env.ROUNDS ?? 150);
const CALLS: Array<[string, Record<string, unknown>]> = [
  ["search_spell", { name: "Fireball" }],
  ["search_creature", { cr: "1/4" }],
  ["list_documents", {}],
  ["search_spell", { search: "explosion of flame" }],
];
const med = (x: number[]) => [...x].sort((a, b) => a - b)[Math.floor(x.length / 2)]!;
const made = makeStore();

async function spawnStdio(dir: string): Promise<{ client: Client; pid: number }> {
  const t = new StdioClientTransport({
    command: process.execPath,
    args: [join(dir, "src/cli/main.ts"), "serve", "--db-path", made.store.db.filename],
    env: { ...getDefaultEnvironment(), LOREKEEPER_OFFLINE: "1", LOREKEEPER_LOG_LEVEL: "warn" },
    stderr: "ignore",
  });
  const client = new Client({ name: "compare", version: "0" });
  await client.connect(t);
  return { client, pid: t.pid! };
}
/** CPU time of a process so far, ms (Linux /proc; clock ticks of 10 ms). */
function cpuMs(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(f[11]) + Number(f[12])) * 10;
}

const sides = { this: await spawnStdio(REPO_ROOT), baseline: await spawnStdio(baseline) };
for (const s of Object.values(sides))
  for (const [name, args] of CALLS) await s.client.callTool({ name, arguments: args });
const wall: Record<string, number[]> = { this: [], baseline: [] };
const cpu0 = { this: cpuMs(sides.this.pid), baseline: cpuMs(sides.baseline.pid) };
for (let r = 0; r < ROUNDS; r++) {
  for (const k of ["this", "baseline"] as const) {
    const t0 = performance.now();
    for (const [name, args] of CALLS) await sides[k].client.callTool({ name, arguments: args });
    wall[k]!.push((performance.now() - t0) / CALLS.length);
  }
}
const n = ROUNDS * CALLS.length;
const cpu = {
  this: (cpuMs(sides.this.pid) - cpu0.this) / n,
  baseline: (cpuMs(sides.baseline.pid) - cpu0.baseline) / n,
};
for (const s of Object.values(sides)) await s.client.close();

const deps = makeDeps(made.store);
// A baseline from before server/ had parts keeps its HTTP front at the top of server/.
const baselineHttp = ["src/server/transports/http.ts", "src/server/http.ts"]
  .map((p) => join(baseline, p))
  .find((p) => existsSync(p))!;
const { startHttpServer: startBaseline } = (await import(baselineHttp)) as { startHttpServer: typeof startHttpServer };
const http = { this: await startHttpServer(deps, { port: 0 }), baseline: await startBaseline(deps, { port: 0 }) };
const envelope = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "compare", version: "0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};
async function post(url: string, name: string, args: Record<string, unknown>, modern: boolean): Promise<void> {
  const headers: Record<string, string> = {
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
  };
  if (modern)
    Object.assign(headers, { "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": name });
  const params = { name, arguments: args, ...(modern ? { _meta: envelope } : {}) };
  const res = await fetch(url, {
    method: "POST",
    headers,
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params }),
  });
  if (!(await res.text()).includes('"result"')) throw new Error(`${url}: no result`);
}
const hw: Record<string, number[]> = { this: [], baseline: [], "this 2026": [] };
for (let r = 0; r < ROUNDS; r++) {
  for (const [k, url, modern] of [
    ["this", http.this.url, false],
    ["baseline", http.baseline.url, false],
    ["this 2026", http.this.url, true],
  ] as const) {
    const t0 = performance.now();
    for (const [name, args] of CALLS) await post(url, name, args, modern);
    hw[k]!.push((performance.now() - t0) / CALLS.length);
  }
}
await http.this.stop();
await http.baseline.stop();
made.cleanup();

const f = (x: number) => `${x.toFixed(3)} ms`;
console.log(`${n} calls per side (${ROUNDS} rounds × ${CALLS.length}), interleaved; baseline ${baseline}`);
console.log(
  `stdio wall per call (median):  this ${f(med(wall.this!))}  baseline ` +
    `${f(med(wall.baseline!))}  ratio ${(med(wall.this!) / med(wall.baseline!)).toFixed(2)}`,
);
console.log(
  `stdio server CPU per call:     this ${f(cpu.this)}  baseline ` +
    `${f(cpu.baseline)}  ratio ${(cpu.this / cpu.baseline).toFixed(2)}`,
);
console.log(
  `HTTP wall per call (median):   this ${f(med(hw.this!))}  baseline ${f(med(hw.baseline!))}  ratio ` +
    `${(med(hw.this!) / med(hw.baseline!)).toFixed(2)}  (this, 2026-07-28: ${f(med(hw["this 2026"]!))})`,
);
process.exit(0);
