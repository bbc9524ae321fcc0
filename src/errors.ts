/**
 * One error type for every failure LoreKeeper explains to a person: a code (what kind of failure,
 * recognised by code, never by class-name strings), a message (what happened) and an optional hint
 * (how to fix it). Callers branch on `code`; the CLI and the tools print message + hint; nothing else
 * is shown to a user (other errors become "internal error, see the log").
 *
 * The named subclasses (StoreError, UpstreamError, ...) keep their constructors; each fixes its code.
 * Not here: InvalidCallError (server/protocol/protocol-checks.ts) carries a numeric JSON-RPC code for the SDK.
 */
const ERROR_CODES = [
  "usage", // bad command-line arguments (exit 64)
  "store", // the SQLite store cannot be opened or written (damaged, full, read-only, locked)
  "upstream", // an upstream API failed or answered nonsense
  "data_unavailable", // a tool's first-use load failed; the message says how to get the data
  "orcbrew", // an .orcbrew file cannot be imported
  "edn_syntax", // the EDN inside it is malformed
  "http_config", // bad options for the HTTP transport (host, port, token)
  "extract", // the compiled binary cannot unpack its model / native libraries
  "model_load", // the embedding model cannot be loaded
  "pack", // a content pack cannot be loaded (damaged, wrong checksum, other model)
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export class LoreKeeperError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly hint?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Whether `err` is a LoreKeeper error with one of `codes` (any code when none are given). */
export function isLoreKeeperError(err: unknown, ...codes: ErrorCode[]): err is LoreKeeperError {
  return err instanceof LoreKeeperError && (codes.length === 0 || codes.includes(err.code));
}

/** "message\nhint" for a LoreKeeper error that carries a hint; undefined otherwise. */
export function explained(err: unknown): string | undefined {
  return err instanceof LoreKeeperError && err.hint ? `${err.message}\n${err.hint}` : undefined;
}

/** The hint of a LoreKeeper error, if it has one. */
export function hintOf(err: unknown): string | undefined {
  return err instanceof LoreKeeperError ? err.hint : undefined;
}
