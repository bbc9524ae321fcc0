/**
 * Runs the official MCP conformance suite (@modelcontextprotocol/conformance 0.2.0-alpha.12, the
 * first release with the 2026-07-28 requirement set) against `lorekeeper serve --http` on a
 * temporary empty store, in both protocol eras, for the scenarios that apply to LoreKeeper.
 *   bun scripts/conformance.ts [--binary PATH] [--era 2025-11-25|2026-07-28]
 * Exit 1 when an applicable check fails. The server runs with debug logs, and every scenario's
 * line says which era the requests were served in (servers built per request, by era).
 *
 * A check that says "Not testable: server does not list the diagnostic tool …" needs a fixture
 * tool only the suite's reference server has; it is counted as not applicable, not as passed.
 *
 * Not applicable, in both eras: tools-call-* and json-schema-2020-12 (they call the reference
 * server's fixture tools test_simple_text, test_image_content, json_schema_2020_12_tool…),
 * prompts-get-* and completion-complete (fixture prompts such as test_prompt_with_arguments;
 * LoreKeeper answers an unknown prompt with -32602), resources-read-text/-binary and
 * resources-templates-read (fixture resources test://…; sep-2164-resource-not-found does read a
 * missing resource and applies), input-required-result-* (LoreKeeper never asks the client for
 * input: no elicitation, sampling or roots), tasks-* (extension; no tool runs as a task),
 * http-custom-header-server-validation (no tool declares x-mcp-header parameters),
 * sep-2640-skills-* (extension). 2025-11-25 only: server-session-lifecycle and server-sse-polling
 * (sessions and SSE resumability on a stateless server), tools-call-with-logging (logging
 * notifications), resources-(un)subscribe, elicitation-*.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";

const ERAS: Record<string, readonly string[]> = {
  "2025-11-25": [
    "server-initialize",
    "logging-set-level",
    "ping",
    "tools-list",
    "resources-list",
    "prompts-list",
    "server-sse-multiple-streams",
    "dns-rebinding-protection",
  ],
  "2026-07-28": [
    "server-stateless",
    "tools-list",
    "resources-list",
    "prompts-list",
    "sep-2164-resource-not-found",
    "caching",
    "http-header-validation",
    "server-sse-multiple-streams",
    "dns-rebinding-protection",
  ],
};

const { values: opt } = parseArgs({ options: { binary: { type: "string" }, era: { type: "string" } } });
const root = join(import.meta.dir, "..");
const cli = join(root, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
const dir = mkdtempSync(join(tmpdir(), "lk-conformance-"));
const port = 18000 + Math.floor(Math.random() * 2000);
const command = opt.binary ? [opt.binary] : ["bun", join(root, "src/cli/main.ts")];
const server = Bun.spawn([...command, "serve", "--http", "--port", String(port), "--db-path", join(dir, "lk.db")], {
  stdout: "ignore",
  stderr: "pipe",
  env: { ...process.env, LOREKEEPER_OFFLINE: "1", LOREKEEPER_LOG_LEVEL: "debug" },
});

/** Server log lines, read as they come (to tell which era each scenario was served in). */
let serverLog = "";
void (async () => {
  const decoder = new TextDecoder();
  for await (const chunk of server.stderr) serverLog += decoder.decode(chunk);
})();

interface Check {
  id: string;
  status: string;
  errorMessage?: string;
}

function checksOf(out: string): Check[] {
  const start = out.indexOf("[");
  if (start < 0) return [];
  try {
    // The JSON array comes first; a summary may follow it.
    let depth = 0;
    for (let i = start; i < out.length; i++) {
      if (out[i] === "[") depth++;
      else if (out[i] === "]" && --depth === 0) return JSON.parse(out.slice(start, i + 1)) as Check[];
    }
  } catch {
    /* not JSON */
  }
  return [];
}

function erasServed(log: string): string {
  const modern = (log.match(/server built for a modern request/g) ?? []).length;
  const legacy = (log.match(/server built for a legacy request/g) ?? []).length;
  return `served: ${modern} × 2026-07-28, ${legacy} × 2025`;
}

let failed = 0;
let ran = 0;
try {
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) break;
    } catch {
      /* not up yet */
    }
    await Bun.sleep(50);
  }
  for (const [era, scenarios] of Object.entries(ERAS)) {
    if (opt.era && opt.era !== era) continue;
    process.stdout.write(`\n== ${era} ==\n`);
    for (const s of scenarios) {
      const logStart = serverLog.length;
      const p = Bun.spawn(
        [
          "bun",
          cli,
          "server",
          "--url",
          `http://localhost:${port}/mcp`,
          "--scenario",
          s,
          "--spec-version",
          era,
          "--verbose",
        ],
        { stdout: "pipe", stderr: "pipe" },
      );
      const out = await new Response(p.stdout).text();
      const code = await p.exited;
      const checks = checksOf(out);
      const notTestable = checks.filter((c) => c.status === "FAILURE" && /^Not testable:/.test(c.errorMessage ?? ""));
      const bad = checks.filter((c) => c.status === "FAILURE" && !notTestable.includes(c));
      const warn = checks.filter((c) => c.status === "WARNING");
      const passed = checks.filter((c) => c.status === "SUCCESS").length;
      const ok = checks.length > 0 && bad.length === 0 && (code === 0 || notTestable.length > 0);
      ran++;
      if (!ok) failed++;
      const info = checks.filter((c) => c.status === "INFO").length;
      const na = notTestable.length ? `, ${notTestable.length} not applicable (need the suite's fixture tools)` : "";
      process.stdout.write(
        `${ok ? "PASS" : "FAIL"}  ${s.padEnd(30)} ${passed}/${checks.length} passed${na}, ` +
          `${info} info, ${warn.length} warnings; ${erasServed(serverLog.slice(logStart))}\n`,
      );
      for (const c of bad) process.stdout.write(`      ✗ ${c.id}: ${(c.errorMessage ?? "").slice(0, 300)}\n`);
      for (const c of warn) process.stdout.write(`      ! ${c.id}: ${(c.errorMessage ?? "").slice(0, 200)}\n`);
      if (checks.length === 0) process.stdout.write(`      (no checks reported; exit ${code})\n${out.slice(0, 500)}\n`);
    }
  }
} finally {
  server.kill();
  await server.exited;
  rmSync(dir, { recursive: true, force: true });
}
process.stdout.write(`\n${ran - failed}/${ran} applicable conformance scenario runs passed.\n`);
process.exit(failed ? 1 : 0);
