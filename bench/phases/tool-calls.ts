/**
 * Phase 2: tool-call latency over stdio, as the SDK client sees it (request written → result
 * parsed), going round the fixed mix. The client never calls tools/list here, so it does not
 * validate results against output schemas: the figure is the server's work plus the stdio
 * round trip and JSON (de)serialisation on both sides.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { StdioConnection } from "../lib/proc.ts";
import { now } from "../lib/stats.ts";
import type { CallSpec } from "../queries.ts";

export interface ToolCallResult {
  samples: Map<string, number[]>;
  /** Characters of the first text content, per spec (last call). */
  responseChars: Map<string, number>;
  /** The same search repeated: the query embedding comes from the server's cache. */
  cachedSearch: number[];
  /** `ping` round trips: the transport's own floor (SDK on both sides + the pipe), no tool work. */
  ping: number[];
  errors: Array<{ id: string; message: string }>;
  /** Search specs that did not come back in "hybrid" mode (semantic ranking off). */
  notHybrid: Array<{ id: string; mode: string; message?: string }>;
  calls: number;
}

interface Answer {
  search_mode?: string;
  message?: string;
}

async function call(
  conn: StdioConnection,
  spec: CallSpec,
): Promise<{ ms: number; res?: CallToolResult; error?: string }> {
  const t0 = now();
  try {
    const res = (await conn.client.callTool({ name: spec.tool, arguments: spec.args })) as CallToolResult;
    return { ms: now() - t0, res };
  } catch (err) {
    return { ms: now() - t0, error: (err as Error).message ?? String(err) };
  }
}

function textOf(res: CallToolResult): string {
  const first = res.content[0];
  return first && first.type === "text" ? first.text : "";
}

export interface ToolCallRunner {
  /** One call of every spec, in order; recorded unless `warmup`. */
  round(warmup: boolean): Promise<void>;
  /** Ping round trips and the repeated (cached-embedding) searches. */
  extras(pings: number, cachedRepeats?: number): Promise<void>;
  result: ToolCallResult;
}

/** Tool calls over one stdio connection, round by round (so that other measurements can interleave). */
export function toolCallRunner(conn: StdioConnection, specs: readonly CallSpec[]): ToolCallRunner {
  const out: ToolCallResult = {
    samples: new Map(specs.map((s) => [s.id, []])),
    responseChars: new Map(),
    cachedSearch: [],
    ping: [],
    errors: [],
    notHybrid: [],
    calls: 0,
  };
  let rounds = 0;
  return {
    result: out,
    async round(warmup) {
      const first = rounds++ === 0;
      for (const s of specs) {
        const c = await call(conn, s);
        out.calls++;
        const err = c.error ?? (c.res?.isError ? textOf(c.res).slice(0, 300) : undefined);
        if (err) {
          out.errors.push({ id: s.id, message: err });
          continue;
        }
        if (first && s.mode === "search") {
          const a = (c.res?.structuredContent ?? {}) as Answer;
          if (a.search_mode !== "hybrid")
            out.notHybrid.push({ id: s.id, mode: String(a.search_mode), message: a.message });
        }
        if (warmup) continue;
        out.samples.get(s.id)!.push(c.ms);
        if (c.res) out.responseChars.set(s.id, textOf(c.res).length);
      }
    },
    async extras(pings, cachedRepeats = 20) {
      for (let i = 0; i < 20 + pings; i++) {
        const t0 = now();
        await conn.client.ping();
        if (i >= 20) out.ping.push(now() - t0);
      }
      // The same query again and again: the server answers from its query-embedding cache.
      const searches = specs.filter((s) => s.mode === "search");
      const picks = searches.filter((_, i) => i % Math.max(1, Math.floor(searches.length / 8)) === 0).slice(0, 8);
      for (const s of picks) {
        for (let i = 0; i <= cachedRepeats; i++) {
          const c = await call(conn, s);
          out.calls++;
          if (c.error || c.res?.isError)
            out.errors.push({ id: `${s.id} (cached)`, message: c.error ?? textOf(c.res!).slice(0, 300) });
          else if (i > 0) out.cachedSearch.push(c.ms);
        }
      }
    },
  };
}
