#!/usr/bin/env bun
/**
 * `lorekeeper [command] [options]` — with no command, runs the MCP server over stdio.
 */
import { hintOf } from "../errors.ts";
import { safeText } from "../text/sanitize.ts";
import { APP_VERSION, type Config, ConfigError, dbPath, dbPathOption, loadConfig } from "../config.ts";
import { log, setLogLevel } from "../log.ts";
import { createEmbedderProvider, type LazyEmbedderProvider } from "../search/model/embedder.ts";
import { storeFailure } from "../store/db.ts";
import { type CommandContext, EXIT_FAILED, EXIT_USAGE, UsageError } from "./command.ts";
import { COMMANDS } from "./commands/index.ts";

function usage(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length), 8);
  return [
    `LoreKeeper ${APP_VERSION} — an MCP server for D&D 5e content ` +
      "(Open5e, D&D 5e API, OrcBrew and 5etools homebrew).",
    "",
    "Usage: lorekeeper [command] [options]",
    "",
    "Commands:",
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    "",
    "Global options:",
    "  --db-path PATH   the SQLite store (default $XDG_DATA_HOME/lorekeeper/lorekeeper.db; env LOREKEEPER_DB_PATH)",
    "  -v, --verbose    debug logs on stderr",
    "  --version        print the version",
    "  -h, --help       this help; `lorekeeper <command> --help` for a command",
    "",
    "With no command, `lorekeeper` runs `serve` (MCP over stdio).",
  ].join("\n");
}

export async function main(argv: string[], given?: Config): Promise<number> {
  const rest = argv.filter((a) => a !== "-v" && a !== "--verbose");
  if (rest.length < argv.length) setLogLevel("debug");
  const first = rest[0];
  if (first === "--version" || first === "version") {
    process.stdout.write(`lorekeeper ${APP_VERSION}\n`);
    return 0;
  }
  if (first === "-h" || first === "--help" || first === "help") {
    process.stdout.write(`${usage()}\n`);
    return 0;
  }
  const named = first !== undefined && !first.startsWith("-");
  const cmdArgs = named ? rest.slice(1) : rest;
  const cmd = COMMANDS.find((c) => c.name === (named ? first : "serve"));
  if (!cmd) {
    process.stderr.write(safeText(`Unknown command "${first}".\n\n${usage()}\n`));
    return EXIT_USAGE;
  }
  if (cmdArgs.includes("-h") || cmdArgs.includes("--help")) {
    process.stdout.write(`${cmd.help}\n`);
    return 0;
  }
  let config: Config;
  try {
    config = given ?? loadConfig();
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(safeText(`lorekeeper ${cmd.name}: ${err.message}\n${err.hint ?? ""}\n`));
    return EXIT_USAGE;
  }
  // The edge: the Config is loaded here (or by the binary's bootstrap, which passes it) and handed down.
  let provider: LazyEmbedderProvider | undefined;
  const ctx: CommandContext = { config, embedder: () => (provider ??= createEmbedderProvider({ config })) };
  try {
    return await cmd.run(cmdArgs, ctx);
  } catch (err) {
    if (err instanceof UsageError) {
      process.stderr.write(
        safeText(`lorekeeper ${cmd.name}: ${err.message}\nRun \`lorekeeper ${cmd.name} --help\` for usage.\n`),
      );
      return EXIT_USAGE;
    }
    // A SQLite failure about the store itself (damaged, disk full, read-only…) names the file and the fix.
    const e = storeFailure(err, dbPath(dbPathOption(cmdArgs))) ?? err;
    const hint = hintOf(e);
    process.stderr.write(
      safeText(`lorekeeper ${cmd.name}: ${e instanceof Error ? e.message : String(e)}\n${hint ? `${hint}\n` : ""}`),
    );
    log.debug("command failed", err);
    return EXIT_FAILED;
  }
}

if (import.meta.main) {
  // Every command, serve included, returns only when it is done.
  process.exit(await main(process.argv.slice(2)));
}
