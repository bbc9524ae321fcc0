/**
 * MCP over stdio: stdout carries protocol messages only (logs go to stderr). Resolves when the
 * client closes the connection (stdin ends) or the process is told to stop. Bad lines are answered
 * with JSON-RPC errors (stdio-transport.ts).
 */
import { log } from "../log.ts";
import type { ToolDeps } from "../tools/deps.ts";
import { buildServer } from "./mcp.ts";
import { LineStdioTransport } from "./stdio-transport.ts";

export async function runStdio(deps: ToolDeps): Promise<void> {
  const server = buildServer(deps);
  const transport = new LineStdioTransport();
  transport.onerror = (err) => log.debug("stdio transport", err.message);
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = () => resolve();
    process.stdin.once("end", () => resolve());
    process.stdin.once("close", () => resolve());
  });
  const stop = () => {
    void server.close().catch(() => {});
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  await server.connect(transport);
  log.info("MCP server ready on stdio");
  await closed;
  await server.close().catch(() => {});
  process.off("SIGINT", stop);
  process.off("SIGTERM", stop);
}
