/** The command registry: one line per command. */
import type { Command } from "../command.ts";
import { doctorCommand } from "./doctor.ts";
import { documentsCommand } from "./documents.ts";
import { healthCommand } from "./health.ts";
import { importCommand } from "./import.ts";
import { modelCommand } from "./model.ts";
import { searchCommand } from "./search.ts";
import { serveCommand } from "./serve.ts";
import { syncCommand } from "./sync.ts";

export const COMMANDS: Command[] = [
  serveCommand,
  syncCommand,
  importCommand,
  searchCommand,
  documentsCommand,
  doctorCommand,
  healthCommand,
  modelCommand,
];
