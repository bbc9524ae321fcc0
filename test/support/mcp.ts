/**
 * MCP test helpers: tool deps over a real store, and real SDK clients connected in-process, over
 * stdio (spawning the CLI) or over HTTP.
 */
import { loadConfig } from "../../src/config.ts";
import { createSearchSlots } from "../../src/tools/kit/deps.ts";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { join } from "node:path";
import type { SearchContext } from "../../src/search/context.ts";
import { runSearch } from "../../src/search/hybrid.ts";
import type { EmbedderProvider } from "../../src/search/types.ts";
import type { Store } from "../../src/store/db.ts";
import { buildServer } from "../../src/server/mcp.ts";
import type { ToolDeps } from "../../src/tools/kit/deps.ts";
import { TOOLS } from "../../src/tools/index.ts";
import { upstreamEnvAt } from "../../src/sources/index.ts";

export const REPO_ROOT = join(import.meta.dir, "..", "..");

/** The tools the server lists, in order, read from the registry (issues add tools: never hard-code the count). */
export const TOOL_NAMES: readonly string[] = TOOLS.map((t) => t.name);

export function noModel(reason = "no embedding model in tests"): EmbedderProvider {
  return { state: () => "unavailable", get: async () => null, reason: () => reason };
}

/** Tool deps over `store` with the real search (no model unless given). */
export function makeDeps(store: Store, over: Partial<ToolDeps> & { embedder?: EmbedderProvider } = {}): ToolDeps {
  const { embedder, ...rest } = over;
  const provider = embedder ?? noModel();
  const ctx: SearchContext = { store, embedder: provider, embeddingTimeoutMs: 2000 };
  return {
    db: store.db,
    search: (q) => runSearch(ctx, q),
    modelState: () => provider.state(),
    responseBudgetChars: 60_000,
    // As the server does (server/deps.ts): at most maxConcurrentCalls searches at once.
    searchSlots: createSearchSlots(loadConfig().maxConcurrentCalls),
    ...rest,
  };
}

/** A client connected to a fresh server over an in-memory transport pair. */
export async function connectInMemory(deps: ToolDeps): Promise<{ client: Client; close: () => Promise<void> }> {
  const server = buildServer(deps);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "lorekeeper-test", version: "0.0.0" });
  await client.connect(clientSide);
  return {
    client,
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

/** Spawn `bun src/cli/main.ts serve ...` and connect over stdio. */
export async function connectStdio(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ client: Client; transport: StdioClientTransport; stderr: () => string; close: () => Promise<void> }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(REPO_ROOT, "src", "cli", "main.ts"), ...args],
    env: { ...getDefaultEnvironment(), LOREKEEPER_LOG_LEVEL: "warn", ...env },
    cwd: REPO_ROOT,
    stderr: "pipe",
  });
  let err = "";
  transport.stderr?.on("data", (d: Buffer) => {
    err += d.toString();
  });
  const client = new Client({ name: "lorekeeper-test", version: "0.0.0" });
  await client.connect(transport);
  return { client, transport, stderr: () => err, close: () => client.close() };
}

/** A client over Streamable HTTP. */
export async function connectHttp(
  url: string,
  token?: string,
  headers: Record<string, string> = {},
): Promise<{ client: Client; close: () => Promise<void> }> {
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...headers } },
  });
  const client = new Client({ name: "lorekeeper-test", version: "0.0.0" });
  await client.connect(transport);
  return { client, close: () => client.close() };
}

export function textOf(r: unknown): string {
  const content = (r as CallToolResult).content ?? [];
  return content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
}

export interface Answer {
  results: Array<Record<string, unknown>>;
  count: number;
  total: number;
  offset: number;
  has_more: boolean;
  next_offset?: number;
  detail: "summary" | "full";
  search_mode: string;
  message?: string;
  truncated?: boolean;
  metadata: { generated_at: string; data_synced_at: string | null; sources: string[] };
}

/** The structured answer of a successful search tool call (asserts it is not an error). */
export function answerOf(r: unknown): Answer {
  const res = r as CallToolResult;
  if (res.isError) throw new Error(`tool error: ${textOf(res)}`);
  return res.structuredContent as unknown as Answer;
}

export function namesOf(r: unknown): string[] {
  return answerOf(r).results.map((x) => String(x.name));
}

/**
 * Environment for a spawned `lorekeeper`: its own HOME / XDG folders under `dir`, upstreams on a
 * local port that refuses connections (bind one, note it, close it), no retries, and the given model.
 */
export async function isolatedEnv(
  dir: string,
  modelDir: string = join(dir, "no-model"),
): Promise<Record<string, string>> {
  const probe = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
  const dead = `http://127.0.0.1:${probe.port}`;
  await probe.stop(true);
  return {
    HOME: dir,
    XDG_DATA_HOME: join(dir, "data"),
    XDG_CACHE_HOME: join(dir, "cache"),
    ...upstreamEnvAt(dead),
    LOREKEEPER_HTTP_RETRIES: "0",
    LOREKEEPER_HTTP_TIMEOUT_MS: "2000",
    LOREKEEPER_MODEL_DIR: modelDir,
  };
}
