/** What every CLI command looks like. Commands print results on stdout, progress/logs on stderr. */
import type { Config } from "../config.ts";
import { LoreKeeperError } from "../errors.ts";
import type { EmbedderProvider } from "../search/types.ts";

/**
 * What the edge (main.ts) hands every command: the Config, loaded once, and the process's one
 * embedding model provider (created on first use; nothing loads before a command asks for the model).
 */
export interface CommandContext {
  config: Config;
  embedder(): EmbedderProvider;
}

export interface Command {
  name: string;
  summary: string;
  /** Full help text (usage, options, examples), printed by `lorekeeper <name> --help`. */
  help: string;
  /** Returns the process exit code. `argv` excludes the command name. */
  run(argv: string[], ctx: CommandContext): Promise<number>;
}

/** Exit codes shared by commands. */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_PARTIAL = 2;
export const EXIT_USAGE = 64;

export class UsageError extends LoreKeeperError {
  override name = "UsageError";
  constructor(message: string, hint?: string) {
    super("usage", message, hint);
  }
}
