/**
 * What an upstream failure says to the person who hit it: which API, which address, what went wrong
 * and what to do (wait, raise a limit, point the base-URL variable elsewhere). Pure wording; the
 * client (http.ts) decides when a failure happens and whether it is retried.
 */

/** Which service a request belongs to, for actionable error messages. */
export interface UpstreamInfo {
  /** Human name, e.g. "Open5e". */
  name: string;
  /** Configured base URL, e.g. "https://api.open5e.com". */
  baseUrl: string;
  /** Environment variable that overrides the base URL, e.g. "LOREKEEPER_OPEN5E_BASE_URL". */
  envVar: string;
}

/**
 * The largest response body read (default; LOREKEEPER_HTTP_MAX_MB): the biggest real page (1,000 Open5e creatures) is
 * about 6 MB. Messages name it.
 */
export const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;

/** Why an attempt failed, before deciding to retry. */
export interface AttemptFailure {
  kind: "network" | "timeout" | "http" | "malformed" | "too-large";
  status?: number;
  detail: string;
  retryAfterMs?: number;
  /** The error thrown, when `detail` is a person's version of it (logged whole). */
  cause?: unknown;
}

export function fmtSeconds(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
}

export const fmtBytes = (n: number) => `${(n / 1024 / 1024).toFixed(n < 1024 * 1024 ? 2 : 0)} MB`;

/** Bun's advice to its own developers that its fetch errors end with. */
const BUN_ADVICE = /\.?\s*For more information, pass `verbose: true` in the second argument to fetch\(\)\.?/gi;

/** An upstream error's text for a person: Bun's debugging advice left out, no trailing stop. */
export function withoutFetchAdvice(text: string): string {
  return text
    .replace(BUN_ADVICE, "")
    .replace(/[.\s]+$/, "")
    .trim();
}

/** Why a fetch threw, as a clause ("ECONNRESET: The socket connection was closed unexpectedly"). */
export function fetchErrorText(err: unknown): string {
  const e = err as Error | null;
  if (e?.name === "TimeoutError" || e?.name === "AbortError") return "no answer in time";
  return withoutFetchAdvice(String(e?.message ?? err)) || "the connection failed";
}

/** A short, single-line piece of an error body (nothing for HTML pages). */
export function snippet(text: string): string {
  const t = text.replace(/\s+/g, " ").trim();
  if (t === "" || t.startsWith("<")) return "";
  return `: ${t.length > 160 ? `${t.slice(0, 160)}…` : t}`;
}

export function failureMessage(
  up: UpstreamInfo,
  url: string,
  f: AttemptFailure,
  attempts: number,
  timeoutMs: number,
): string {
  const tries = attempts > 1 ? ` after ${attempts} attempts` : "";
  const later = "run `lorekeeper sync` later";
  const mirror = `or set ${up.envVar} to a mirror`;
  switch (f.kind) {
    case "network":
      return (
        `${up.name} at ${up.baseUrl} is unreachable (${f.detail})${tries} while fetching ${url}. Check the ` +
        `network, ${later}, ${mirror}.`
      );
    case "timeout":
      return (
        `${up.name} at ${up.baseUrl} did not answer within ${fmtSeconds(timeoutMs)}${tries} (${url}). ` +
        `It may be overloaded: ${later}, raise LOREKEEPER_HTTP_TIMEOUT_MS, ${mirror}.`
      );
    case "too-large":
      return (
        `${up.name} at ${up.baseUrl} answered ${url} with a body too large to read (${f.detail}; ` +
        `the limit is LOREKEEPER_HTTP_MAX_MB, default ${DEFAULT_MAX_BODY_BYTES / 1024 / 1024}). ` +
        `Check that ${up.envVar} points at the API itself, not a file server or proxy; the previous data is kept.`
      );
    case "malformed":
      return (
        `${up.name} at ${up.baseUrl} returned a body that is not valid JSON for ${url} (${f.detail}). ` +
        `Check that ${up.envVar} points at the API itself (not a web page or proxy), or ${later}.`
      );
    case "http": {
      const s = f.status ?? 0;
      if (s === 429)
        return (
          `${up.name} at ${up.baseUrl} is rate-limiting us (HTTP 429${tries}) for ${url}. Wait a while and ` +
          `${later}, or lower LOREKEEPER_HTTP_CONCURRENCY.`
        );
      if (s >= 500)
        return (
          `${up.name} at ${up.baseUrl} failed with ${f.detail}${tries} for ${url}. The service may be down: ` +
          `${later}, ${mirror}.`
        );
      if (s === 404)
        return (
          `${up.name} at ${up.baseUrl} has no ${url} (HTTP 404). Check that ${up.envVar} points at the API root ` +
          `(e.g. the default), and that the endpoint exists on that server.`
        );
      return (
        `${up.name} at ${up.baseUrl} refused ${url} with ${f.detail}. ` + `Check ${up.envVar} and any proxy in between.`
      );
    }
  }
}
