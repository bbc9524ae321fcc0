/**
 * Replicas behind a real load balancer: N `lorekeeper serve --http` processes (each on its own
 * copy of one store, as a content pack makes replicas identical), HAProxy from the Debian package
 * in front (loopback only, health check GET /health, retries on a refused connection), and a load
 * of MCP clients of both eras (v2 pinned to 2026-07-28, v1 on 2025-11-25) doing mixed calls.
 * Used by test/scale/replicas.test.ts (zero failed calls once a killed replica is dropped) and
 * bench/replicas.ts (calls/s and p99 with 3 replicas vs 1).
 */
import { Client as V1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as V1Http } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Subprocess } from "bun";
import { copyFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isolatedEnv, REPO_ROOT } from "./mcp.ts";
import { connectV2Http } from "./v2-client.ts";

export function findHaproxy(): string | undefined {
  return Bun.which("haproxy") ?? Bun.which("haproxy", { PATH: "/usr/sbin:/sbin" }) ?? undefined;
}

async function freePort(): Promise<number> {
  const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
  const port = probe.port!;
  await probe.stop(true);
  return port;
}

async function waitFor(url: string, timeoutMs = 20_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      /* not up yet */
    }
    if (Date.now() > until) throw new Error(`${url} did not come up within ${timeoutMs} ms`);
    await Bun.sleep(50);
  }
}

export interface Replica {
  port: number;
  proc: Subprocess;
}

/** `n` replicas, each on its own copy of `dbPath`, offline (no model download, upstreams refused), logs at warn. */
export async function startReplicas(
  n: number,
  dbPath: string,
  dir: string,
  command: string[] = [process.execPath, join(REPO_ROOT, "src/cli/main.ts")],
): Promise<Replica[]> {
  const replicas: Replica[] = [];
  // Upstreams on a local port that refuses connections: a replica never reaches the network.
  const env = { ...process.env, ...(await isolatedEnv(dir)), LOREKEEPER_OFFLINE: "1", LOREKEEPER_LOG_LEVEL: "warn" };
  for (let i = 0; i < n; i++) {
    const db = join(dir, `replica-${i}.db`);
    copyFileSync(dbPath, db);
    const port = await freePort();
    const proc = Bun.spawn(
      [...command, "serve", "--http", "--host", "127.0.0.1", "--port", String(port), "--db-path", db],
      {
        stdout: "ignore",
        stderr: "ignore",
        env,
      },
    );
    replicas.push({ port, proc });
  }
  await Promise.all(replicas.map((r) => waitFor(`http://127.0.0.1:${r.port}/health`)));
  return replicas;
}

export interface Balancer {
  url: string;
  statsUrl: string;
  stop(): Promise<void>;
}

/**
 * HAProxy in front of `ports`: round robin, health check every 250 ms (down after 2 failures,
 * each allowed 3 s: a busy replica is slow, not dead),
 * a refused connection retried on another replica (the tools are read-only, so a retry is safe).
 */
export async function startHaproxy(haproxy: string, ports: number[], dir: string): Promise<Balancer> {
  const front = await freePort();
  const stats = await freePort();
  const cfg = join(dir, `haproxy-${front}.cfg`);
  writeFileSync(
    cfg,
    [
      "global",
      "  maxconn 2048",
      "defaults",
      "  mode http",
      "  timeout connect 2s",
      "  timeout client 60s",
      "  timeout server 60s",
      // A busy replica may take a while to answer /health; only a dead one (connection refused) fails fast.
      "  timeout check 3s",
      "  retries 3",
      "  option redispatch 1",
      "  retry-on conn-failure empty-response",
      "frontend mcp",
      `  bind 127.0.0.1:${front}`,
      "  default_backend lorekeeper",
      "backend lorekeeper",
      "  balance roundrobin",
      "  option httpchk",
      "  http-check send meth GET uri /health ver HTTP/1.1 hdr Host 127.0.0.1",
      "  http-check expect status 200",
      "  default-server inter 250ms fall 2 rise 1",
      ...ports.map((p, i) => `  server r${i} 127.0.0.1:${p} check`),
      "listen stats",
      `  bind 127.0.0.1:${stats}`,
      "  stats enable",
      "  stats uri /stats",
      "",
    ].join("\n"),
  );
  const proc = Bun.spawn([haproxy, "-f", cfg, "-db"], { stdout: "ignore", stderr: "pipe" });
  const statsUrl = `http://127.0.0.1:${stats}/stats;csv`;
  await waitFor(statsUrl, 10_000);
  // Wait until every replica is UP in the balancer's eyes.
  const until = Date.now() + 10_000;
  while (Object.values(await backendStatus(statsUrl)).filter((s) => s.startsWith("UP")).length < ports.length) {
    if (Date.now() > until) throw new Error("HAProxy did not see every replica UP");
    await Bun.sleep(50);
  }
  return {
    url: `http://127.0.0.1:${front}/mcp`,
    statsUrl,
    stop: async () => {
      proc.kill();
      await proc.exited;
    },
  };
}

/** Server name → status (UP, DOWN, "UP 1/2"…) from HAProxy's CSV stats. */
export async function backendStatus(statsUrl: string): Promise<Record<string, string>> {
  const csv = await (await fetch(statsUrl)).text();
  const out: Record<string, string> = {};
  for (const line of csv.split("\n")) {
    const f = line.split(",");
    if (f[0] === "lorekeeper" && f[1] && f[1] !== "BACKEND") out[f[1]] = f[17] ?? "";
  }
  return out;
}

export interface CallRecord {
  client: string;
  era: "2026-07-28" | "2025-11-25";
  startedAt: number;
  ms: number;
  ok: boolean;
  error?: string;
}

const MIX: Array<{ tool?: string; args?: Record<string, unknown>; resource?: string }> = [
  { tool: "search_spell", args: { name: "Fireball" } },
  { tool: "search_creature", args: { cr: "1/4" } },
  { tool: "search_equipment", args: { search: "sword", limit: 3 } },
  { tool: "list_documents", args: {} },
  { resource: "lorekeeper://creature/srd_goblin" },
  { tool: "build_encounter", args: { party_levels: [3, 3, 4], monsters: [{ name: "Goblin", count: 4 }] } },
];

interface AnyClient {
  callTool(p: { name: string; arguments: Record<string, unknown> }): Promise<{ isError?: boolean }>;
  readResource(p: { uri: string }): Promise<unknown>;
  close(): Promise<void>;
}

async function connectV1(url: string): Promise<AnyClient> {
  const client = new V1Client({ name: "lorekeeper-replica-v1", version: "0.0.0" });
  await client.connect(new V1Http(new URL(url)));
  return client as unknown as AnyClient;
}

/**
 * `modern` v2 clients (2026-07-28) and `legacy` v1 clients (2025-11-25) calling the mix in a loop
 * until `durationMs` has passed. Every call is recorded (a failed one with its error).
 */
export async function driveLoad(
  url: string,
  opts: { modern: number; legacy: number; durationMs: number },
): Promise<CallRecord[]> {
  const records: CallRecord[] = [];
  const clients: Array<{ name: string; era: CallRecord["era"]; client: AnyClient }> = [];
  for (let i = 0; i < opts.modern; i++)
    clients.push({
      name: `v2-${i}`,
      era: "2026-07-28",
      client: (await connectV2Http(url, "modern")).client as unknown as AnyClient,
    });
  for (let i = 0; i < opts.legacy; i++)
    clients.push({ name: `v1-${i}`, era: "2025-11-25", client: await connectV1(url) });
  const end = performance.now() + opts.durationMs;
  await Promise.all(
    clients.map(async ({ name, era, client }, ci) => {
      for (let k = ci; performance.now() < end; k++) {
        const step = MIX[k % MIX.length]!;
        const startedAt = performance.now();
        try {
          if (step.resource) await client.readResource({ uri: step.resource });
          else {
            const r = await client.callTool({ name: step.tool!, arguments: step.args! });
            if (r.isError) throw new Error(`tool error from ${step.tool}`);
          }
          records.push({ client: name, era, startedAt, ms: performance.now() - startedAt, ok: true });
        } catch (err) {
          records.push({
            client: name,
            era,
            startedAt,
            ms: performance.now() - startedAt,
            ok: false,
            error: String(err).slice(0, 200),
          });
        }
      }
    }),
  );
  await Promise.all(clients.map((c) => c.client.close().catch(() => {})));
  return records;
}

export function summarizeCalls(
  records: CallRecord[],
  durationMs: number,
): { calls: number; failed: number; callsPerSecond: number; p50: number; p99: number } {
  const ms = records
    .filter((r) => r.ok)
    .map((r) => r.ms)
    .sort((a, b) => a - b);
  const q = (p: number) => ms[Math.min(ms.length - 1, Math.floor(p * ms.length))] ?? Number.NaN;
  return {
    calls: records.length,
    failed: records.filter((r) => !r.ok).length,
    callsPerSecond: ms.length / (durationMs / 1000),
    p50: q(0.5),
    p99: q(0.99),
  };
}
