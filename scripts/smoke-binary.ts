#!/usr/bin/env bun
/**
 * `bun scripts/smoke-binary.ts BINARY [--wrapper CMD] [--query TEXT] [--expect NAME] [--top N] [--name NAME]
 * [--timeout S]`
 *
 * The release workflow's smoke test of one built binary on its own kind of machine (and, with
 * `--wrapper qemu-aarch64-static`, of the linux-arm64 binary here). The binary is copied alone into
 * an empty temp folder and started with fresh HOME / XDG dirs and a minimal environment; over MCP
 * stdio it must: list the tools, answer a meaning question in hybrid mode with NAME in the top N
 * (default "let allies breathe underwater" → Water Breathing, top 3: needs the embedded model and
 * content pack), and find a spell by name (default Fireball). Prints each step with its time.
 * Exit 1 with the reason when a step fails.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { parseArgs } from "node:util";

const { values: opt, positionals } = parseArgs({
  args: process.argv.slice(2),
  options: {
    timeout: { type: "string" },
    wrapper: { type: "string" },
    query: { type: "string" },
    expect: { type: "string" },
    top: { type: "string" },
    name: { type: "string" },
  },
  allowPositionals: true,
});
const src = positionals[0];
if (!src || !existsSync(src)) {
  process.stderr.write(
    "usage: bun scripts/smoke-binary.ts BINARY [--wrapper CMD] " +
      "[--query TEXT] [--expect NAME] [--top N] [--name NAME]\n",
  );
  process.exit(64);
}
const query = opt.query ?? "let allies breathe underwater";
const expected = opt.expect ?? "Water Breathing";
const top = Number(opt.top ?? 3);
const lookup = opt.name ?? "Fireball";
// Generous: the first start unpacks the model and installs the pack (minutes under emulation).
const timeout = Number(opt.timeout ?? 300) * 1000;

const dir = mkdtempSync(join(tmpdir(), "lk-smoke-"));
for (const d of ["run", "home", "cache", "data", "config", "tmp"]) mkdirSync(join(dir, d));
const bin = join(dir, "run", basename(src));
copyFileSync(src, bin);
chmodSync(bin, 0o755);
const env: Record<string, string> = {
  HOME: join(dir, "home"),
  USERPROFILE: join(dir, "home"),
  XDG_CACHE_HOME: join(dir, "cache"),
  XDG_DATA_HOME: join(dir, "data"),
  XDG_CONFIG_HOME: join(dir, "config"),
  TMPDIR: join(dir, "tmp"),
  TEMP: join(dir, "tmp"),
  TMP: join(dir, "tmp"),
  // Windows needs its system folder to load DLLs; elsewhere nothing on PATH is used.
  PATH:
    process.platform === "win32"
      ? process.env.SystemRoot
        ? join(process.env.SystemRoot, "System32")
        : "C:\\Windows\\System32"
      : join(dir, "tmp"),
  ...(process.env.SystemRoot ? { SystemRoot: process.env.SystemRoot } : {}),
  LOREKEEPER_LOG_LEVEL: "info",
};

// The wrapper (qemu) is looked up on this process's PATH; the binary gets the minimal one above.
const wrapper = opt.wrapper ? opt.wrapper.split(" ") : [];
if (wrapper[0]) wrapper[0] = Bun.which(wrapper[0]) ?? wrapper[0];
const [command, ...args] = [...wrapper, bin];
const transport = new StdioClientTransport({ command: command!, args, cwd: join(dir, "run"), env, stderr: "pipe" });
let stderr = "";
transport.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
const client = new Client({ name: "lorekeeper-smoke", version: "1.0.0" });
const t0 = performance.now();
const at = () => `${Math.round(performance.now() - t0)} ms`;
let failed = false;
const check = (ok: boolean, what: string) => {
  process.stdout.write(`${ok ? "OK  " : "FAIL"} ${what} (${at()})\n`);
  if (!ok) failed = true;
};

interface Answer {
  search_mode?: string;
  results?: { name: string }[];
}

try {
  await client.connect(transport, { timeout });
  const tools = (await client.listTools({}, { timeout })).tools.map((t) => t.name);
  check(
    ["search_spell", "search_creature", "search_all", "list_documents"].every((t) => tools.includes(t)),
    `tools/list: ${tools.length} tools`,
  );
  const meaning = await client.callTool({ name: "search_spell", arguments: { search: query, limit: 5 } }, undefined, {
    timeout,
  });
  const a = (meaning.structuredContent ?? {}) as Answer;
  const names = a.results?.map((r) => r.name) ?? [];
  check(
    a.search_mode === "hybrid" && names.slice(0, top).includes(expected),
    `"${query}": ${a.search_mode ?? "no answer"}, top 5 ${JSON.stringify(names)}; want ${expected} in the top ${top}`,
  );
  const byName = await client.callTool({ name: "search_spell", arguments: { name: lookup, limit: 3 } }, undefined, {
    timeout,
  });
  const b = (byName.structuredContent ?? {}) as Answer;
  check(b.results?.[0]?.name === lookup, `name "${lookup}": ${JSON.stringify(b.results?.map((r) => r.name) ?? [])}`);
} catch (err) {
  check(false, `MCP over stdio: ${(err as Error).message}`);
} finally {
  await client.close().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
}
if (failed) process.stdout.write(`--- binary stderr ---\n${stderr}\n`);
process.exit(failed ? 1 : 0);
