/**
 * MCP over stdio: stdout carries protocol messages only (logs go to stderr). The SDK's
 * `serveStdio` picks the connection's era from its opening message (`server/discover` or a
 * request carrying the 2026-07-28 `_meta` envelope → modern; `initialize` → 2025) and pins one
 * server from buildServer to it. Our line transport answers bad lines with JSON-RPC errors
 * (stdio-transport.ts). Resolves when the client closes the connection (stdin ends) or the
 * process is told to stop.
 */
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { log } from "../../log.ts";
import type { ToolDeps } from "../../tools/kit/deps.ts";
import { buildServer } from "../mcp.ts";
import { LineStdioTransport } from "./stdio-transport.ts";

export async function runStdio(deps: ToolDeps): Promise<void> {
  const transport = new LineStdioTransport();
  let stopped!: () => void;
  const closed = new Promise<void>((resolve) => {
    stopped = resolve;
    process.stdin.once("end", () => resolve());
    process.stdin.once("close", () => resolve());
  });
  const handle = serveStdio((ctx) => buildServer(deps, ctx.era), {
    transport,
    onerror: (err) => log.debug("stdio transport", err.message),
  });
  const stop = () => stopped();
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  log.info("MCP server ready on stdio");
  await closed;
  await handle.close().catch(() => {});
  process.off("SIGINT", stop);
  process.off("SIGTERM", stop);
}
