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
