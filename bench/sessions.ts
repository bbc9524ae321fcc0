#!/usr/bin/env bun
/**
 * `bun bench/sessions.ts --db STORE [--model DIR] [--peer "COMMAND ARGS…"] [--binary PATH …] [--baseline DIR]
 * [--runs N]`:
 * whole-session figures (bench/phases/sessions.ts) of LoreKeeper from source on STORE, beside the
 * compiled binary, another checkout and the peer (dnd-oracle's dialect) when given, in one run.
 * `bun run bench` measures the same sessions on the store it builds; this is for a kept store.
 * The peer: `npm install --prefix /tmp/peer dnd-oracle`, then
 * `--peer "node /tmp/peer/node_modules/dnd-oracle/dist/server.js"`.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";
import { SHARED_MODEL } from "../scripts/shared-dir.ts";
import { baselineTarget, binaryTarget, serverEnv, sourceTarget, type Target } from "./lib/proc.ts";
import { measureSessions, type SessionServer, sessionTable } from "./phases/sessions.ts";

const { values: opt } = parseArgs({
  options: {
    db: { type: "string" },
    model: { type: "string" },
    peer: { type: "string" },
    binary: { type: "string", multiple: true },
    baseline: { type: "string" },
    runs: { type: "string" },
    "no-source": { type: "boolean" },
  },
});
if (!opt.db) {
  console.error(
    "usage: bun bench/sessions.ts --db STORE [--model DIR] [--peer " +
      '"COMMAND ARGS…"] [--binary PATH] [--baseline DIR] [--runs N]',
  );
  process.exit(2);
}
const home = mkdtempSync(join(tmpdir(), "lk-sessions-"));
// Each server its own HOME and XDG folders: a binary's unpacked files and the saved graph are its
// own build's, so two builds compared in one run share nothing one of them wrote.
const envFor = (name: string) => {
  mkdirSync(join(home, name));
  return serverEnv({
    home: join(home, name),
    upstreamUrl: "http://127.0.0.1:9",
    modelDir: opt.model ?? process.env.LOREKEEPER_BENCH_MODEL ?? SHARED_MODEL,
  });
};
const lk = (t: Target | undefined, modelDir: boolean, name: string): SessionServer | undefined => {
  if (!t) return undefined;
  const e = envFor(name);
  // The binary serves the model it embeds, as a desktop client starts it.
  if (!modelDir) delete e.LOREKEEPER_MODEL_DIR;
  return { command: t.command, args: [...t.args, "serve", "--db-path", opt.db!], env: e, dialect: "lorekeeper" };
};
const servers: Record<string, SessionServer> = {};
if (!opt["no-source"]) servers.source = lk(sourceTarget(), true, "source")!;
if (opt.baseline) servers.baseline = lk(baselineTarget(opt.baseline), true, "baseline")!;
// Several binaries (e.g. this build and main's) are named binary, binary-2, …
for (const [i, path] of (opt.binary ?? []).entries()) {
  const name = i ? `binary-${i + 1}` : "binary";
  servers[name] = lk(binaryTarget(path), false, name)!;
}
if (opt.peer) {
  const [command, ...args] = opt.peer.split(/\s+/).filter(Boolean);
  servers["dnd-oracle"] = {
    command: command!,
    args,
    env: { ...getDefaultEnvironment(), HOME: home },
    dialect: "dnd-oracle",
  };
}
try {
  const load = loadavg()[0]!.toFixed(1);
  const rows = await measureSessions(servers, Math.max(1, Number(opt.runs ?? 3)), (m) => console.error(m));
  console.log(
    `load average at start ${load}, at end ${loadavg()[0]!.toFixed(1)}; medians of ${opt.runs ?? 3} sessions each`,
  );
  console.log(sessionTable(rows));
} finally {
  rmSync(home, { recursive: true, force: true });
}
