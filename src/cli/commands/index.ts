/** The command registry: one line per command. */
import type { Command } from "../command.ts";

export const COMMANDS: Command[] = [];
