/** The command registry: one line per command. */
import type { Command } from "../command.ts";
import { serveCommand } from "./serve.ts";

export const COMMANDS: Command[] = [serveCommand];
