/**
 * Retry and concurrency helpers of the HTTP client (pure, no I/O): `Retry-After` parsing,
 * full-jitter exponential backoff, and a FIFO counting semaphore.
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
export function backoffDelay(attempt: number, baseDelayMs: number, maxDelayMs: number, random: () => number = Math.random): number {
  const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** attempt);
  return Math.floor(random() * ceiling);
}

/** A counting semaphore (FIFO). */
export class Semaphore {
  private active = 0;
  private readonly waiters: Array<() => void> = [];
  constructor(readonly limit: number) {
    if (!(limit >= 1)) throw new Error(`Semaphore limit must be >= 1 (got ${limit})`);
  }
  get inFlight(): number {
    return this.active;
  }
  async acquire(): Promise<void> {
    if (this.active < this.limit) {
      this.active++;
      return;
    }
    await new Promise<void>((resolve) => this.waiters.push(resolve));
  }
  release(): void {
    const next = this.waiters.shift();
    if (next) next(); // hand the slot over directly
    else this.active--;
  }
  async run<T>(fn: () => Promise<T>): Promise<T> {
    await this.acquire();
    try {
      return await fn();
    } finally {
      this.release();
    }
  }
}
