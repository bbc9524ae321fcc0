/** `lorekeeper serve`: the MCP server, over stdio (default) or Streamable HTTP (--http). */
import { log } from "../../log.ts";
import { list, parse } from "../args.ts";
import { type Command, EXIT_OK, UsageError } from "../command.ts";
import { UPSTREAM_ENV_VARS } from "../../sources/index.ts";

const HELP =
  `Usage: lorekeeper serve [--http [--host H] [--port P] [--token T] [--allowed-origin O ...] ` +
  `[--allowed-host H ...]] [--prefer-documents K,...] [--db-path PATH]

Run the LoreKeeper MCP server. \`lorekeeper\` with no command does the same (stdio).

  (default)            MCP over stdio: stdout carries protocol messages only, logs go to stderr.
  --http               MCP over Streamable HTTP at http://HOST:PORT/mcp (stateless), plus GET /health.
  --host H             address to bind (default 127.0.0.1). Binding anything but loopback needs a token.
  --port P             port (default 8000; 0 = any free port)
  --token T            require \`Authorization: Bearer T\` (default env LOREKEEPER_HTTP_TOKEN)
  --allowed-origin O   also accept this browser Origin, e.g. https://app.example.com (repeatable)
  --allowed-host H     also accept this Host name, e.g. lorekeeper.lan (repeatable)
  --prefer-documents K,...  whose version of an entry several documents hold comes first, e.g.
                       srd-2014 to play 2014 rules (default env LOREKEEPER_PREFER_DOCUMENTS; then
                       srd-2024, srd-2014, other open content, homebrew)
  --db-path PATH       the store (default $XDG_DATA_HOME/lorekeeper/lorekeeper.db)

Content is loaded on first use of each type (or beforehand with \`lorekeeper sync\`).
Environment: LOREKEEPER_RESPONSE_BUDGET_CHARS (default 60000), LOREKEEPER_PREFER_DOCUMENTS,
${UPSTREAM_ENV_VARS.join(", ")}, LOREKEEPER_MODEL_DIR, LOREKEEPER_LOG_LEVEL.`;

function parsePort(raw: string | undefined): number {
  if (raw === undefined) return 8000;
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || n > 65535)
    throw new UsageError(`--port must be a whole number from 0 to 65535 (got "${raw}")`);
  return n;
}

function waitForStopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const stop = (sig: NodeJS.Signals) => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve(sig);
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}

/** stdout belongs to the protocol: anything printed through console goes to stderr instead. */
function protectStdout(): void {
  const toErr = (...args: unknown[]) =>
    process.stderr.write(`${args.map((a) => (typeof a === "string" ? a : Bun.inspect(a))).join(" ")}\n`);
  console.log = toErr;
  console.info = toErr;
  console.debug = toErr;
}

export const serveCommand: Command = {
  name: "serve",
  summary: "run the MCP server (stdio, or Streamable HTTP with --http)",
  help: HELP,
  async run(argv, ctx) {
    const { values } = parse(argv, {
      http: { type: "boolean" },
      host: { type: "string" },
      port: { type: "string" },
      token: { type: "string" },
      "allowed-origin": { type: "string", multiple: true },
      "allowed-host": { type: "string", multiple: true },
      "prefer-documents": { type: "string", multiple: true },
    });
    const port = parsePort(values.port);
    if (
      !values.http &&
      (values.host || values.port || values.token || values["allowed-origin"] || values["allowed-host"])
    ) {
      throw new UsageError("--host, --port, --token, --allowed-origin and --allowed-host need --http");
    }
    if (!values.http) protectStdout();
    const { createServeDeps } = await import("../../server/deps.ts");
    const served = await createServeDeps({
      config: ctx.config,
      embedder: ctx.embedder(),
      dbPath: values["db-path"],
      preferDocuments: list(values["prefer-documents"]),
    });
    try {
      if (!values.http) {
        const { runStdio } = await import("../../server/transports/stdio.ts");
        await runStdio(served.deps, waitForStopSignal());
        return EXIT_OK;
      }
      const { startHttpServer } = await import("../../server/transports/http.ts");
      const handle = await startHttpServer(served.deps, {
        host: values.host,
        port,
        token: values.token ?? ctx.config.httpToken,
        allowedOrigins: list(values["allowed-origin"]),
        allowedHosts: list(values["allowed-host"]),
      });
      process.stderr.write(
        `LoreKeeper MCP server on ${handle.url} (health: ${handle.url.replace(/\/mcp$/, "/health")})\n`,
      );
      const sig = await waitForStopSignal();
      log.info(`${sig} received; shutting down`);
      await handle.stop();
      return EXIT_OK;
    } finally {
      served.close();
    }
  },
};
