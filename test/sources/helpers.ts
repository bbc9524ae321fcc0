/** Shared set-up for the source tests: the hand-made fixture corpus and a fast-retrying client. */
import { join } from "node:path";
import { HttpClient, type HttpClientOptions } from "../../src/sources/http.ts";
import type { RequestLog } from "../support/fake-upstream.ts";

export const FIXTURES = join(import.meta.dir, "..", "fixtures", "sources");

/** A client with tiny backoff so retry tests take milliseconds. */
export function fastClient(extra: HttpClientOptions = {}): HttpClient {
  return new HttpClient({ retries: 3, baseDelayMs: 1, maxDelayMs: 5, timeoutMs: 2000, concurrency: 4, ...extra });
}

/** Highest number of requests that were being served at the same moment. */
export function maxConcurrent(log: RequestLog[]): number {
  const events: Array<[number, number]> = [];
  for (const r of log) {
    events.push([r.startedAt, 1], [r.endedAt, -1]);
  }
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let cur = 0;
  let max = 0;
  for (const [, d] of events) {
    cur += d;
    max = Math.max(max, cur);
  }
  return max;
}
