/**
 * Runs the official MCP conformance suite (@modelcontextprotocol/conformance) against
 * `lorekeeper serve --http` on a temporary empty store, for the scenarios that apply to LoreKeeper.
 *   bun scripts/conformance.ts [--db-path P]
 * Exit 1 when an applicable scenario fails.
 *
 * Not applicable (they call fixture tools/prompts/resources that only the suite's reference server
 * has — test_simple_text, test_simple_prompt, test_prompt_with_arguments, test://…,
 * json_schema_2020_12_tool — or need server features LoreKeeper does not offer: sampling,
 * elicitation, subscriptions, SSE resumability on a stateless server): tools-call-*,
 * completion-complete (it completes an argument of the fixture prompt test_prompt_with_arguments;
 * LoreKeeper answers an unknown prompt with -32602 as the completion spec asks),
 * prompts-get-simple / -with-args / -embedded-resource / -with-image (fixture prompts),
 * json-schema-2020-12, elicitation-*, resources-read-*, resources-templates-read,
 * resources-(un)subscribe, server-sse-polling.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const APPLICABLE = ["server-initialize", "logging-set-level", "ping", "tools-list", "resources-list", "prompts-list", "server-sse-multiple-streams", "dns-rebinding-protection"];
const root = join(import.meta.dir, "..");
const dir = mkdtempSync(join(tmpdir(), "lk-conformance-"));
const port = 18000 + Math.floor(Math.random() * 2000);
const server = Bun.spawn(["bun", join(root, "src/cli/main.ts"), "serve", "--http", "--port", String(port), "--db-path", join(dir, "lk.db")], {
  stdout: "ignore",
  stderr: "pipe",
  env: { ...process.env, LOREKEEPER_OFFLINE: "1" },
});
let failed = 0;
try {
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) break;
    } catch {
      /* not up yet */
    }
    await Bun.sleep(50);
  }
  for (const s of APPLICABLE) {
    const p = Bun.spawn(["bun", join(root, "node_modules/@modelcontextprotocol/conformance/dist/index.js"), "server", "--url", `http://localhost:${port}/mcp`, "--scenario", s], {
      stdout: "pipe",
      stderr: "pipe",
    });
    const out = await new Response(p.stdout).text();
    const code = await p.exited;
    const summary = /Passed: (\d+)\/(\d+), (\d+) failed, (\d+) warnings/.exec(out);
    const ok = code === 0 && (!summary || summary[3] === "0");
    if (!ok) failed++;
    process.stdout.write(`${ok ? "PASS" : "FAIL"}  ${s.padEnd(30)} ${summary ? summary[0] : `exit ${code}`}\n`);
  }
} finally {
  server.kill();
  await server.exited;
  rmSync(dir, { recursive: true, force: true });
}
process.stdout.write(`\n${APPLICABLE.length - failed}/${APPLICABLE.length} applicable conformance scenarios passed.\n`);
process.exit(failed ? 1 : 0);
