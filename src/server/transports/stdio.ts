/**
 * MCP over stdio (stdout carries protocol messages only). The SDK's `serveStdio` picks the era from
 * the opening message and pins one server from buildServer to it; our line transport answers bad
 * lines (stdio-transport.ts).
 */
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { log } from "../../log.ts";
import type { ToolDeps } from "../../tools/kit/deps.ts";
import { buildServer } from "../mcp.ts";
import { LineStdioTransport } from "./stdio-transport.ts";

/** Serves until stdin ends or `stop` settles (the serve command's stop signal). */
export async function runStdio(deps: ToolDeps, stop: Promise<unknown>): Promise<void> {
  const handle = serveStdio((ctx) => buildServer(deps, ctx.era), {
    transport: new LineStdioTransport(),
    onerror: (err) => log.debug("stdio transport", err.message),
  });
  log.info("MCP server ready on stdio");
  const ended = new Promise((resolve) => {
    process.stdin.once("end", resolve);
    process.stdin.once("close", resolve);
  });
  await Promise.race([stop, ended]);
  await handle.close().catch(() => {});
}
