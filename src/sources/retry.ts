/**
 * Retry and concurrency helpers of the HTTP client (pure, no I/O): `Retry-After` parsing,
 * full-jitter exponential backoff. The semaphore is src/semaphore.ts.
 */

/** Parses `Retry-After` (delta seconds or an HTTP date) into milliseconds from `now`; undefined if absent/invalid. */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (value === null || value === undefined) return undefined;
  const v = value.trim();
  if (v === "") return undefined;
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

/** Full-jitter exponential backoff: uniform in [0, min(maxDelay, base * 2^attempt)]. attempt is 0-based. */
export function backoffDelay(
  attempt: number,
  baseDelayMs: number,
  maxDelayMs: number,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** attempt);
  return Math.floor(random() * ceiling);
}
