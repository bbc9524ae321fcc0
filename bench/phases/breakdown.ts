/**
 * Where the time of a tool call goes, measured in the benchmark process over the same store
 * (read-only) with the real search context, the real tools and the real McpServer:
 *   search   = runSearch (the search layer: SQL, embedding, vector search, fusion, row decoding)
 *   tool     = the whole tool handler (argument parsing + search + shaping + response budget)
 *   sdk      = the same call through the SDK Client ⇄ McpServer over the in-memory transport
 *              (the SDK's request handling and zod validation on both sides; no JSON, no pipe)
 *   encode   = JSON.stringify of the JSON-RPC response the stdio transport writes
 * stdio latency − sdk ≈ serialising, the pipe, and parsing the message on the client.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { SearchContext } from "../../src/search/context.ts";
import { createEmbedderProvider } from "../../src/search/model/embedder.ts";
import { runSearch } from "../../src/search/hybrid.ts";
import { buildServer } from "../../src/server/mcp.ts";
import type { Store } from "../../src/store/db.ts";
import { DataGate } from "../../src/tools/kit/data-gate.ts";
import type { ToolDeps } from "../../src/tools/kit/deps.ts";
import { TOOLS } from "../../src/tools/index.ts";
import { now, percentile, round } from "../lib/stats.ts";
import type { CallSpec, Mode } from "../queries.ts";

export interface BreakdownRow {
  mode: Mode;
  /** p50 ms of each part. */
  search: number;
  tool: number;
  sdk: number;
  encode: number;
  /** Response message size, characters (mean). */
  messageChars: number;
}

interface Parts {
  search: number[];
  tool: number[];
  sdk: number[];
  encode: number[];
  chars: number[];
}

export interface BreakdownRunner {
  /** A pass of tool handlers and a pass of in-memory SDK calls over every spec; recorded unless `warmup`. */
  round(warmup: boolean): Promise<void>;
  rows(): BreakdownRow[];
  close(): Promise<void>;
}

export async function breakdownRunner(
  store: Store,
  modelDir: string,
  specs: readonly CallSpec[],
): Promise<BreakdownRunner> {
  const embedder = createEmbedderProvider({ modelDir, embeddedDir: null, allowDownload: false });
  if (!(await embedder.get())) throw new Error(`the model in ${modelDir} did not load`);
  const ctx: SearchContext = { store, embedder, embeddingTimeoutMs: 10_000 };
  let searchMs = 0;
  const deps: ToolDeps = {
    db: store.db,
    // The tool's own search call, timed from inside: the query embedding is as cold as in the server.
    search: async (q) => {
      const t0 = now();
      const res = await runSearch(ctx, q);
      searchMs += now() - t0;
      return res;
    },
    modelState: () => embedder.state(),
    responseBudgetChars: 60_000,
  };
  const gate = new DataGate(deps);
  const server = buildServer(deps);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "lorekeeper-bench-inmemory", version: "0.0.0" });
  await client.connect(clientSide);

  const parts = new Map<Mode, Parts>();
  const partsOf = (m: Mode) => {
    let p = parts.get(m);
    if (!p) parts.set(m, (p = { search: [], tool: [], sdk: [], encode: [], chars: [] }));
    return p;
  };
  let id = 0;
  const p50 = (xs: number[]) => round(percentile(xs, 50));
  return {
    // Two passes round the whole mix, so that every search embeds its query afresh in both.
    async round(warmup) {
      for (const s of specs) {
        const def = TOOLS.find((t) => t.name === s.tool)!;
        searchMs = 0;
        const t1 = now();
        const result = await def.call(s.args, { deps, gate, progress: () => {} });
        const toolMs = now() - t1;
        const search = searchMs;
        const t2 = now();
        const msg = JSON.stringify({ result, jsonrpc: "2.0", id: ++id });
        const encodeMs = now() - t2;
        if (warmup) continue;
        const p = partsOf(s.mode);
        p.search.push(search);
        p.tool.push(toolMs);
        p.encode.push(encodeMs);
        p.chars.push(msg.length);
      }
      for (const s of specs) {
        const t3 = now();
        await client.callTool({ name: s.tool, arguments: s.args });
        if (!warmup) partsOf(s.mode).sdk.push(now() - t3);
      }
    },
    rows: () =>
      [...parts.entries()].map(([mode, p]) => ({
        mode,
        search: p50(p.search),
        tool: p50(p.tool),
        sdk: p50(p.sdk),
        encode: p50(p.encode),
        messageChars: Math.round(p.chars.reduce((a, b) => a + b, 0) / Math.max(1, p.chars.length)),
      })),
    async close() {
      await client.close();
      await server.close();
    },
  };
}
