/**
 * Bounding a slow promise in time: `withTimeout` rejects with a `TimeoutError` after `ms` (the
 * promise itself keeps running). Used by the vector leg (LOREKEEPER_EMBEDDING_TIMEOUT_MS) and by
 * `lorekeeper doctor`.
 */
export class TimeoutError extends Error {
  override readonly name = "TimeoutError";
}

/** `p`, or a TimeoutError after `ms` (ms ≤ 0 or not finite: no limit). `p` keeps running. */
export function withTimeout<T>(p: Promise<T>, ms: number, what = "operation"): Promise<T> {
  if (!Number.isFinite(ms) || ms <= 0) return p;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(`${what} took longer than ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
