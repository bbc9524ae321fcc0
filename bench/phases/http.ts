/**
 * Phase 5: `serve --http` under load: `clients` SDK clients over Streamable HTTP, connected first,
 * then all calling at once, `calls` calls each, going round the mix (each client from a different
 * offset). Throughput = calls answered ÷ wall time of the calling part; latency per call as the
 * client sees it; errors = thrown requests + tool errors.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { readProcMemory, startHttpServer, type Target } from "../lib/proc.ts";
import { now, round, summarize, type Summary } from "../lib/stats.ts";
import type { CallSpec } from "../queries.ts";

export interface HttpResult {
  clients: number;
  callsPerClient: number;
  calls: number;
  errors: number;
  errorSamples: string[];
  wallMs: number;
  throughput: number;
  latency: Summary;
  connectMs: Summary;
  peakRss: number | null;
}

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: "lorekeeper-bench-http", version: "0.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

export async function measureHttp(
  target: Target,
  dbPath: string,
  env: Record<string, string>,
  specs: readonly CallSpec[],
  clients: number,
  calls: number,
): Promise<HttpResult> {
  const server = await startHttpServer(target, dbPath, env);
  const errorSamples: string[] = [];
  let errors = 0;
  const fail = (msg: string) => {
    errors++;
    if (errorSamples.length < 5) errorSamples.push(msg.slice(0, 300));
  };
  try {
    // Warm-up (not counted): model, vector index, statement caches.
    const warm = await connect(server.url);
    for (const s of specs) await warm.callTool({ name: s.tool, arguments: s.args });
    await warm.close();

    const connectTimes: number[] = [];
    const pool = await Promise.all(
      Array.from({ length: clients }, async () => {
        const t0 = now();
        const c = await connect(server.url);
        connectTimes.push(now() - t0);
        return c;
      }),
    );
    const latencies: number[] = [];
    const t0 = now();
    await Promise.all(
      pool.map(async (client, ci) => {
        for (let i = 0; i < calls; i++) {
          const s = specs[(ci * 7 + i) % specs.length]!;
          const c0 = now();
          try {
            const res = (await client.callTool({ name: s.tool, arguments: s.args })) as CallToolResult;
            latencies.push(now() - c0);
            if (res.isError) fail(`${s.id}: tool error: ${JSON.stringify(res.content)}`);
          } catch (err) {
            latencies.push(now() - c0);
            fail(`${s.id}: ${(err as Error).message ?? String(err)}`);
          }
        }
      }),
    );
    const wallMs = now() - t0;
    const mem = readProcMemory(server.pid);
    await Promise.all(pool.map((c) => c.close().catch(() => {})));
    return {
      clients,
      callsPerClient: calls,
      calls: latencies.length,
      errors,
      errorSamples,
      wallMs: round(wallMs),
      throughput: round((latencies.length / wallMs) * 1000, 1),
      latency: summarize(latencies),
      connectMs: summarize(connectTimes),
      peakRss: mem?.peakRss ?? null,
    };
  } finally {
    await server.stop();
  }
}
