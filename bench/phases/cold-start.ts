/**
 * Phase 3: cold start, from exec to `initialize` answered, to `tools/list` answered, and to the
 * first semantic search answered (model load + vector index load + the search itself).
 * Times are taken when the answer has arrived and been parsed by the SDK client.
 * One unrecorded start first (it warms the OS file cache and, for the binary, unpacks its native
 * libraries into the cache folder); then `runs` recorded starts.
 */
import { type CallToolResult, ListToolsResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { connectStdio, readProcMemory, type Target } from "../lib/proc.ts";
import { median, now, round } from "../lib/stats.ts";

export interface ColdStartRun {
  initializeMs: number;
  toolsListMs: number;
  firstSemanticMs: number;
  /** The first semantic call alone (request → answer). */
  firstSemanticCallMs: number;
  searchMode: string;
  /** Resident memory (VmRSS) once tools/list is answered, and after the first semantic search. */
  rssAfterToolsList: number | null;
  rssAfterFirstSemantic: number | null;
}

export interface ColdStartResult {
  /** The unrecorded first start (binary: includes unpacking native files when the cache is empty). */
  first: ColdStartRun;
  runs: ColdStartRun[];
  median: {
    initializeMs: number;
    toolsListMs: number;
    firstSemanticMs: number;
    firstSemanticCallMs: number;
    rssAfterToolsList: number | null;
    rssAfterFirstSemantic: number | null;
  };
}

export const COLD_QUERY = { name: "search_creature", arguments: { search: "undead that drain life" } };

async function once(target: Target, dbPath: string, env: Record<string, string>): Promise<ColdStartRun> {
  const t0 = now();
  const conn = await connectStdio(target, dbPath, env);
  try {
    const initializeMs = now() - t0;
    // client.request, not client.listTools: the latter then compiles a JSON-schema validator per
    // output schema on the client (tens of ms), which is not the server answering.
    const { tools } = await conn.client.request({ method: "tools/list" }, ListToolsResultSchema);
    const toolsListMs = now() - t0;
    if (tools.length === 0) throw new Error("tools/list returned no tools");
    const rssAfterToolsList = readProcMemory(conn.pid)?.rss ?? null;
    const c0 = now();
    const res = (await conn.client.callTool(COLD_QUERY)) as CallToolResult;
    const t1 = now();
    if (res.isError) throw new Error(`the first search failed: ${JSON.stringify(res.content).slice(0, 300)}`);
    const rssAfterFirstSemantic = readProcMemory(conn.pid)?.rss ?? null;
    const mode = String((res.structuredContent as { search_mode?: string } | undefined)?.search_mode);
    return {
      initializeMs: round(initializeMs),
      toolsListMs: round(toolsListMs),
      firstSemanticMs: round(t1 - t0),
      firstSemanticCallMs: round(t1 - c0),
      searchMode: mode,
      rssAfterToolsList,
      rssAfterFirstSemantic,
    };
  } catch (err) {
    throw new Error(`${(err as Error).message}\nserver stderr:\n${conn.stderr().slice(-2000)}`);
  } finally {
    await conn.close();
  }
}

export async function measureColdStart(
  target: Target,
  dbPath: string,
  env: Record<string, string>,
  runs: number,
): Promise<ColdStartResult> {
  const first = await once(target, dbPath, env);
  const out: ColdStartRun[] = [];
  for (let i = 0; i < runs; i++) out.push(await once(target, dbPath, env));
  const m = (f: (r: ColdStartRun) => number) => round(median(out.map(f)));
  const mem = (f: (r: ColdStartRun) => number | null) => {
    const xs = out.map(f).filter((x): x is number => x !== null);
    return xs.length ? median(xs) : null;
  };
  return {
    first,
    runs: out,
    median: {
      initializeMs: m((r) => r.initializeMs),
      toolsListMs: m((r) => r.toolsListMs),
      firstSemanticMs: m((r) => r.firstSemanticMs),
      firstSemanticCallMs: m((r) => r.firstSemanticCallMs),
      rssAfterToolsList: mem((r) => r.rssAfterToolsList),
      rssAfterFirstSemantic: mem((r) => r.rssAfterFirstSemantic),
    },
  };
}
