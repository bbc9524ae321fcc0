#!/usr/bin/env bun
/**
 * `bun bench/replicas.ts [--replicas 3] [--seconds 8] [--modern 6] [--legacy 6] [--db PATH] [--binary PATH]`:
 * calls/s and latency of `serve --http` replicas behind HAProxy (Debian package) against one
 * replica behind the same balancer, measured in one run (alternating phases, so both see the
 * same machine load), with clients of both protocol eras doing the mixed calls of
 * test/support/replicas.ts. Then a kill run: one replica SIGKILLed mid-phase; failed calls before
 * and after the balancer drops it. Store: the tests' sample entities, or --db (e.g. a content pack).
 */
import { existsSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { makeStore } from "../test/support/entities.ts";
import {
  backendStatus,
  type CallRecord,
  driveLoad,
  findHaproxy,
  startHaproxy,
  startReplicas,
  summarizeCalls,
} from "../test/support/replicas.ts";
import { makeTempDir } from "../test/support/tmp.ts";

const { values: opt } = parseArgs({
  options: {
    replicas: { type: "string", default: "3" },
    seconds: { type: "string", default: "8" },
    modern: { type: "string", default: "6" },
    legacy: { type: "string", default: "6" },
    rounds: { type: "string", default: "2" },
    db: { type: "string" },
    binary: { type: "string" },
  },
});
const haproxy = findHaproxy();
if (!haproxy) {
  console.error("haproxy is not installed (apt-get install haproxy)");
  process.exit(2);
}
const n = Number(opt.replicas);
const ms = Number(opt.seconds) * 1000;
const load = { modern: Number(opt.modern), legacy: Number(opt.legacy), durationMs: ms };
const tmp = makeTempDir("lk-bench-replicas-");
let db = opt.db;
if (!db) {
  const made = makeStore();
  db = join(tmp.dir, "pack.db");
  made.store.db.exec(`VACUUM INTO '${db}'`);
  made.cleanup();
} else if (!existsSync(db)) throw new Error(`--db ${db} does not exist`);

const command = opt.binary ? [opt.binary] : undefined;
const replicas = await startReplicas(n, db, tmp.dir, command);
const many = await startHaproxy(
  haproxy,
  replicas.map((r) => r.port),
  tmp.dir,
);
const one = await startHaproxy(haproxy, [replicas[0]!.port], tmp.dir);
const say = (s: string) => process.stderr.write(`[replicas] ${s}\n`);
try {
  // Every replica answers the whole mix first (first calls load what they need), directly.
  say("warming every replica…");
  for (const r of replicas)
    await driveLoad(`http://127.0.0.1:${r.port}/mcp`, { modern: 1, legacy: 1, durationMs: 1500 });
  const got: Record<string, CallRecord[]> = { one: [], many: [] };
  for (let r = 0; r < Number(opt.rounds); r++) {
    for (const [k, lb] of [
      ["one", one],
      ["many", many],
    ] as const) {
      say(
        `round ${r + 1}: ${k === "one" ? 1 : n} replica(s), ${load.modern} + ${load.legacy} clients, ${ms / 1000} s…`,
      );
      got[k]!.push(...(await driveLoad(lb.url, load)));
    }
  }
  const total = ms * Number(opt.rounds);
  const s1 = summarizeCalls(got.one!, total);
  const sn = summarizeCalls(got.many!, total);

  say(`kill run: ${n} replicas, one SIGKILLed after ${ms / 3000} s…`);
  let killedAt = 0;
  let droppedAt = 0;
  const watcher = (async () => {
    await Bun.sleep(ms / 3);
    replicas[n - 1]!.proc.kill("SIGKILL");
    killedAt = performance.now();
    while (!(await backendStatus(many.statsUrl))[`r${n - 1}`]?.startsWith("DOWN")) await Bun.sleep(20);
    droppedAt = performance.now();
  })();
  const kill = await driveLoad(many.url, load);
  await watcher;
  const before = kill.filter((c) => c.startedAt < droppedAt);
  const after = kill.filter((c) => c.startedAt >= droppedAt);

  const f = (x: number) => `${x.toFixed(1)} ms`;
  console.log(
    `== Replicas behind HAProxy (${load.modern} clients on 2026-07-28 + ${load.legacy} ` +
      `on 2025-11-25, mixed calls, ${Number(opt.rounds)} × ${ms / 1000} s each) ==`,
  );
  console.log("replicas  calls  failed  calls/s     p50      p99");
  for (const [label, s] of [
    ["1", s1],
    [String(n), sn],
  ] as const) {
    console.log(
      `${label.padEnd(8)}  ${String(s.calls).padStart(5)}  ${String(s.failed).padStart(6)}  ` +
        `${s.callsPerSecond.toFixed(1).padStart(7)}  ${f(s.p50).padStart(8)}  ${f(s.p99).padStart(8)}`,
    );
  }
  const errors = [...new Set([...got.one!, ...got.many!].filter((c) => !c.ok).map((c) => `${c.era}: ${c.error}`))];
  if (errors.length) console.log(`errors (distinct, first 3): ${errors.slice(0, 3).join(" | ")}`);
  console.log(
    `ratio ${n} vs 1: ${(sn.callsPerSecond / s1.callsPerSecond).toFixed(2)}× ` +
      `calls/s, p99 ${(sn.p99 / s1.p99).toFixed(2)}×`,
  );
  console.log(
    `kill run: replica r${n - 1} dropped by the health check ${(droppedAt - killedAt).toFixed(0)} ms after SIGKILL; ` +
      `${before.length} calls before the drop (${before.filter((c) => !c.ok).length} ` +
      `failed), ${after.length} after (${after.filter((c) => !c.ok).length} failed)`,
  );
  console.log(
    `machine: ${cpus().length} cores, load average ${loadavg()[0]?.toFixed(1)}; replicas: ` +
      `${command ? opt.binary : "source"}; store: ${opt.db ?? "the tests' sample entities"}`,
  );
} finally {
  await many.stop();
  await one.stop();
  for (const r of replicas) r.proc.kill();
  await Promise.all(replicas.map((r) => r.proc.exited));
  tmp.cleanup();
}
process.exit(0);
