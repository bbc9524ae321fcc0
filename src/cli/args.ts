/** Argument parsing on node:util parseArgs, with errors turned into UsageError. */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { splitList } from "../config.ts";
import { UsageError } from "./command.ts";

export type Options = NonNullable<ParseArgsConfig["options"]>;

export function parse<T extends Options>(argv: string[], options: T, allowPositionals = false) {
  try {
    return parseArgs({
      args: argv,
      options: { "db-path": { type: "string" }, ...options },
      allowPositionals,
      strict: true,
    });
  } catch (err) {
    throw new UsageError((err as Error).message.replace(/^TypeError \[[A-Z_]+\]: /, ""));
  }
}

/** "a,b" or repeated flags → list, trimmed, empties dropped. */
export function list(v: string | string[] | boolean | undefined): string[] | undefined {
  if (v === undefined || typeof v === "boolean") return undefined;
  const out = (Array.isArray(v) ? v : [v]).flatMap(splitList);
  return out.length ? out : undefined;
}
