/**
 * Clients from the v2 SDK (@modelcontextprotocol/client), speaking MCP 2026-07-28 (`modern`,
 * server/discover and per-request `_meta`) or falling back to 2025 (`auto` against an old server),
 * to the server in-process (createMcpHandler's fetch, no socket), over HTTP or over stdio.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { createMcpHandler } from "@modelcontextprotocol/server";
import { join } from "node:path";
import { buildServer } from "../../src/server/mcp.ts";
import type { ToolDeps } from "../../src/tools/kit/deps.ts";
import { REPO_ROOT } from "./mcp.ts";

export type Negotiation = "modern" | "auto" | "legacy";

export function v2Client(mode: Negotiation): Client {
  const versionNegotiation =
    mode === "modern" ? { mode: { pin: "2026-07-28" } } : mode === "auto" ? { mode: "auto" as const } : undefined;
  return new Client({ name: "lorekeeper-test-v2", version: "0.0.0" }, versionNegotiation ? { versionNegotiation } : {});
}

/** A v2 client talking to the same handler the HTTP front mounts, in-process. */
export async function connectV2InProcess(
  deps: ToolDeps,
  mode: Negotiation = "modern",
): Promise<{ client: Client; close: () => Promise<void> }> {
  const handler = createMcpHandler((ctx) => buildServer(deps, ctx.era));
  const transport = new StreamableHTTPClientTransport(new URL("http://lorekeeper.test/mcp"), {
    fetch: (url, init) => handler.fetch(new Request(String(url), init)),
  });
  const client = v2Client(mode);
  await client.connect(transport);
  return {
    client,
    close: async () => {
      await client.close();
      await handler.close();
    },
  };
}

export async function connectV2Http(
  url: string,
  mode: Negotiation = "modern",
  token?: string,
): Promise<{ client: Client; close: () => Promise<void> }> {
  const transport = new StreamableHTTPClientTransport(
    new URL(url),
    token ? { requestInit: { headers: { Authorization: `Bearer ${token}` } } } : {},
  );
  const client = v2Client(mode);
  await client.connect(transport);
  return { client, close: () => client.close() };
}

/** Spawn `command args` (default: `bun src/cli/main.ts`) and connect a v2 client over stdio. */
export async function connectV2Stdio(
  args: string[],
  env: Record<string, string> = {},
  mode: Negotiation = "auto",
  command?: string,
): Promise<{ client: Client; close: () => Promise<void> }> {
  const transport = new StdioClientTransport({
    command: command ?? process.execPath,
    args: command ? args : [join(REPO_ROOT, "src", "cli", "main.ts"), ...args],
    env: { ...getDefaultEnvironment(), LOREKEEPER_LOG_LEVEL: "warn", ...env },
    cwd: REPO_ROOT,
    stderr: "ignore",
  });
  const client = v2Client(mode);
  await client.connect(transport);
  return { client, close: () => client.close() };
}
