/**
 * MCP over stdio (stdout carries protocol messages only). The SDK's `serveStdio` picks the era from
 * the opening message and pins one server from buildServer to it; our line transport answers bad
 * lines (stdio-transport.ts). Resolves when stdin ends or the process is told to stop.
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
