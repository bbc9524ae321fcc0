/**
 * The HTTP client every upstream source uses: JSON GETs with a per-request timeout, retries
 * (exponential backoff with full jitter; `Retry-After` honoured) on network errors, timeouts,
 * 429 and 5xx, a User-Agent, bounded concurrency shared by all requests of one client, and an
 * optional response cache. The cache is an interface declared here and implemented by the store
 * (`src/store/http-cache.ts`), so sources never import the store. Failures are worded for the person
 * who hit them: which API, which address, what went wrong and what to do.
 */
import { LoreKeeperError } from "../errors.ts";
import { USER_AGENT, type Config } from "../config.ts";
import { log } from "../log.ts";
import { Semaphore } from "../semaphore.ts";

export type UpstreamErrorKind =
  | "network"
  | "timeout"
  | "http"
  | "malformed"
  | "too-large"
  | "recent-failure"
  | "pagination";

/** Which service a request belongs to, for actionable error messages. */
export interface UpstreamInfo {
  /** Human name, e.g. "Open5e". */
  name: string;
  /** Configured base URL, e.g. "https://api.open5e.com". */
  baseUrl: string;
  /** Environment variable that overrides the base URL, e.g. "LOREKEEPER_OPEN5E_BASE_URL". */
  envVar: string;
}

/** The default largest response body (LOREKEEPER_HTTP_MAX_MB): the biggest real page is about 6 MB. */
const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;
/** An error page is read this far at most (only its first line is shown). */
const ERROR_BODY_BYTES = 64 * 1024;

export class UpstreamError extends LoreKeeperError {
  override readonly name = "UpstreamError";
  constructor(
    readonly kind: UpstreamErrorKind,
    readonly url: string,
    message: string,
    readonly status?: number,
    /** For "recent-failure": epoch ms when the request may be sent again. */
    readonly retryAt?: number,
  ) {
    super("upstream", message);
  }
}

/** A cached response as the cache hands it back (only entries that are still fresh). */
export interface HttpCacheEntry {
  url: string;
  ok: boolean;
  status: number;
  /** Response text for successes. */
  body: string | null;
  /** For failures: what went wrong. */
  errorKind: UpstreamErrorKind | null;
  errorMessage: string | null;
  fetchedAt: number;
  expiresAt: number;
}

export interface HttpCacheFailure {
  status: number;
  kind: UpstreamErrorKind;
  message: string;
}

/** Implemented by the store. TTLs and the clock belong to the implementation. */
export interface HttpCache {
  /** A fresh entry for this URL (see `cacheKey`), or undefined when absent or expired. */
  get(url: string): HttpCacheEntry | undefined;
  putSuccess(url: string, status: number, body: string): void;
  putFailure(url: string, failure: HttpCacheFailure): void;
  delete(url: string): void;
}

/** Cache key: origin + path + query params sorted by name (a repeated name keeps its order); no fragment. */
export function cacheKey(url: string): string {
  if (!URL.canParse(url)) return url;
  const u = new URL(url);
  u.searchParams.sort();
  const q = u.searchParams.toString();
  return `${u.origin}${u.pathname}${q ? `?${q}` : ""}`;
}

/** Parses `Retry-After` (delta seconds or an HTTP date) into milliseconds from `now`; undefined if absent/invalid. */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number | undefined {
  const v = value?.trim();
  if (!v) return undefined;
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000);
  const at = Date.parse(v);
  if (Number.isNaN(at)) return undefined;
  return Math.max(0, at - now);
}

/** Full-jitter exponential backoff: uniform in [0, min(maxDelay, base * 2^attempt)]. attempt is 0-based. */
export function backoffDelay(attempt: number, baseDelayMs: number, maxDelayMs: number, random = Math.random): number {
  return Math.floor(random() * Math.min(maxDelayMs, baseDelayMs * 2 ** attempt));
}

export interface HttpClientOptions {
  /** Per attempt, covering headers and body (default 30 000). */
  timeoutMs?: number;
  /** Extra attempts after the first (default 4). */
  retries?: number;
  /** Requests in flight at once, across all callers of this client (default 6). */
  concurrency?: number;
  /** Backoff base (default 500 ms) and ceiling (default 30 000 ms). */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Longest `Retry-After` wait honoured (default 120 000 ms); longer ones are capped. */
  maxRetryAfterMs?: number;
  /** Largest response body read, bytes (default DEFAULT_MAX_BODY_BYTES); a larger one fails the request, unretried. */
  maxBodyBytes?: number;
  cache?: HttpCache;
  /** Clock used in messages (default Date.now). */
  now?: () => number;
}

interface RequestOptions {
  /** Skip cache reads (a fresh success or a recent failure); the result is still written. */
  force?: boolean;
  upstream?: UpstreamInfo;
}

/** Why an attempt failed, before deciding to retry. */
interface AttemptFailure {
  kind: "network" | "timeout" | "http" | "malformed" | "too-large";
  status?: number;
  detail: string;
  retryAfterMs?: number;
  /** The error thrown, when `detail` is a person's version of it (logged whole). */
  cause?: unknown;
}

type Attempt = { ok: true; data: unknown; text: string; status: number } | (AttemptFailure & { ok: false });

function upstreamFor(url: string, given?: UpstreamInfo): UpstreamInfo {
  const origin = URL.canParse(url) ? new URL(url).origin : url;
  return given ?? { name: "The upstream API", baseUrl: origin, envVar: "the source's base-URL variable" };
}

function retryable(f: AttemptFailure): boolean {
  if (f.kind === "network" || f.kind === "timeout") return true;
  if (f.kind === "http") return f.status === 429 || (f.status !== undefined && f.status >= 500);
  return false;
}

export class HttpClient {
  /** Requests = attempts actually sent (retries included); cachedFailures = answered without a request. */
  readonly stats = { requests: 0, cacheHits: 0, cachedFailures: 0, retries: 0, failures: 0 };
  private readonly sem: Semaphore;
  private readonly o: Required<Omit<HttpClientOptions, "cache">> & { cache?: HttpCache };

  constructor(opts: HttpClientOptions = {}) {
    this.o = {
      timeoutMs: opts.timeoutMs ?? 30_000,
      retries: Math.max(0, Math.floor(opts.retries ?? 4)),
      concurrency: Math.max(1, Math.floor(opts.concurrency ?? 6)),
      baseDelayMs: opts.baseDelayMs ?? 500,
      maxDelayMs: opts.maxDelayMs ?? 30_000,
      maxRetryAfterMs: opts.maxRetryAfterMs ?? 120_000,
      maxBodyBytes: Math.max(1024, Math.floor(opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES)),
      cache: opts.cache,
      now: opts.now ?? Date.now,
    };
    this.sem = new Semaphore(this.o.concurrency);
  }

  /** A client configured from `loadConfig()` values. */
  static fromConfig(
    config: Pick<Config, "httpTimeoutMs" | "httpRetries" | "httpConcurrency" | "httpMaxBodyBytes">,
    extra: HttpClientOptions = {},
  ): HttpClient {
    return new HttpClient({
      timeoutMs: config.httpTimeoutMs,
      retries: config.httpRetries,
      concurrency: config.httpConcurrency,
      maxBodyBytes: config.httpMaxBodyBytes,
      ...extra,
    });
  }

  /**
   * For callers that find a 2xx body unusable (bad envelope, looping pagination): forget the cached
   * successes of `urls` and record `err` as a failure of each, so the error cache applies to it.
   */
  rejectResponses(urls: string[], err: UpstreamError): void {
    const cache = this.o.cache;
    if (!cache) return;
    for (const u of urls) {
      safeWrite(u, () => {
        cache.delete(u);
        cache.putFailure(u, { status: err.status ?? 0, kind: err.kind, message: err.message });
      });
    }
  }

  /** GET a JSON document, saying whether the cache answered. Throws UpstreamError. */
  async request(url: string, opts: RequestOptions = {}): Promise<{ data: unknown; fromCache: boolean }> {
    const up = upstreamFor(url, opts.upstream);
    const cache = this.o.cache;
    if (cache && !opts.force) {
      const hit = this.readCache(cache, url, up);
      if (hit) return hit;
    }
    let attempt = 0;
    for (;;) {
      const res = await this.sem.run(() => this.attempt(url));
      if (res.ok) {
        if (cache) safeWrite(url, () => cache.putSuccess(url, res.status, res.text));
        return { data: res.data, fromCache: false };
      }
      const f = res;
      if (retryable(f) && attempt < this.o.retries) {
        const wait =
          f.retryAfterMs !== undefined
            ? Math.min(this.o.maxRetryAfterMs, f.retryAfterMs)
            : backoffDelay(attempt, this.o.baseDelayMs, this.o.maxDelayMs);
        attempt++;
        this.stats.retries++;
        log.debug(`retry ${attempt}/${this.o.retries} of ${url} in ${wait} ms (${f.detail})`);
        await Bun.sleep(wait);
        continue;
      }
      this.stats.failures++;
      // The message leaves out what only a developer of Bun reads; the log keeps the whole error.
      if (f.cause !== undefined) log.warn(`${up.name}: ${url} failed`, f.cause);
      const err = new UpstreamError(f.kind, url, failureMessage(up, url, f, attempt + 1, this.o.timeoutMs), f.status);
      if (cache)
        safeWrite(url, () => cache.putFailure(url, { status: f.status ?? 0, kind: f.kind, message: err.message }));
      throw err;
    }
  }

  private readCache(cache: HttpCache, url: string, up: UpstreamInfo): { data: unknown; fromCache: true } | undefined {
    let entry: HttpCacheEntry | undefined;
    try {
      entry = cache.get(url);
    } catch (err) {
      log.warn(`HTTP cache read failed for ${url}; fetching instead`, err);
      return undefined;
    }
    if (!entry) return undefined;
    if (entry.ok) {
      try {
        const data: unknown = JSON.parse(entry.body ?? "");
        this.stats.cacheHits++;
        return { data, fromCache: true };
      } catch {
        log.debug(`cached body for ${url} is not JSON; refetching`);
        return undefined;
      }
    }
    this.stats.cachedFailures++;
    const inMs = Math.max(0, entry.expiresAt - this.o.now());
    const when = new Date(entry.expiresAt).toISOString();
    // A failure recorded by an earlier version may still carry Bun's advice.
    const what = entry.errorMessage ? ` Last error: ${withoutFetchAdvice(entry.errorMessage)}.` : "";
    throw new UpstreamError(
      "recent-failure",
      url,
      `${up.name} request ${url} failed recently, so it is not retried until ${when} (in about ${fmtSeconds(inMs)}).` +
        `${what} ` +
        `To retry now, run the sync again with --force (or lower LOREKEEPER_ERROR_CACHE_TTL_SECONDS).`,
      entry.status || undefined,
      entry.expiresAt,
    );
  }

  private async attempt(url: string): Promise<Attempt> {
    const timeout = AbortSignal.timeout(this.o.timeoutMs);
    this.stats.requests++;
    let status = 0;
    try {
      const resp = await fetch(url, {
        method: "GET",
        headers: { "User-Agent": USER_AGENT, Accept: "application/json" },
        redirect: "follow",
        signal: timeout,
      });
      status = resp.status;
      const cap = resp.ok ? this.o.maxBodyBytes : ERROR_BODY_BYTES;
      const declared = Number(resp.headers.get("content-length") ?? NaN);
      if (resp.ok && declared > cap) {
        await resp.body?.cancel();
        return { ok: false, kind: "too-large", status, detail: `it announces ${fmtBytes(declared)}` };
      }
      const { text, cut } = await readCapped(resp, cap);
      if (resp.ok && cut) return { ok: false, kind: "too-large", status, detail: `it sent more than ${fmtBytes(cap)}` };
      if (!resp.ok) {
        const retryAfterMs =
          resp.status === 429 || resp.status === 503 ? parseRetryAfter(resp.headers.get("retry-after")) : undefined;
        const detail = `HTTP ${resp.status}${snippet(text)}`;
        return { ok: false, kind: "http", status: resp.status, detail, retryAfterMs };
      }
      try {
        return { ok: true, data: JSON.parse(text), text, status: resp.status };
      } catch (err) {
        return { ok: false, kind: "malformed", status: resp.status, detail: (err as Error).message };
      }
    } catch (err) {
      if (timeout.aborted) return { ok: false, kind: "timeout", status: status || undefined, detail: "timed out" };
      return { ok: false, kind: "network", detail: fetchErrorText(err), cause: err };
    }
  }
}

/** A client of one upstream API: its base URL (no trailing slash) and how messages name the API. */
export abstract class ApiClient {
  readonly baseUrl: string;
  readonly upstream: UpstreamInfo;
  /** Where `envVar` should point, as a malformed answer's message says it ("an Open5e API root"). */
  protected abstract readonly root: string;

  constructor(
    protected readonly http: HttpClient,
    baseUrl: string,
    name: string,
    envVar: string,
  ) {
    this.baseUrl = baseUrl.replace(/\/+$/, "");
    this.upstream = { name, baseUrl: this.baseUrl, envVar };
  }

  /** GET a JSON body that `read` can use (else null: "malformed", `expected` wanted, and the cache forgets it). */
  protected async getChecked<T>(
    url: string,
    opts: RequestOptions,
    read: (body: unknown) => T | null,
    expected: string,
  ) {
    const res = await this.http.request(url, { ...opts, upstream: this.upstream });
    const data = read(res.data);
    if (data !== null) return { data, fromCache: res.fromCache };
    const err = new UpstreamError(
      "malformed",
      url,
      `${this.upstream.name} at ${this.baseUrl} answered ${url} with JSON that is not ${expected}. ` +
        `Check that ${this.upstream.envVar} points at ${this.root}.`,
    );
    this.http.rejectResponses([url], err);
    throw err;
  }
}

/** The body as text, reading at most `cap` bytes (the rest is cancelled, never buffered). */
async function readCapped(resp: Response, cap: number): Promise<{ text: string; cut: boolean }> {
  const parts: Uint8Array[] = [];
  let size = 0;
  let cut = false;
  // Leaving the loop early cancels the stream.
  for await (const value of resp.body ?? []) {
    cut = size + value.length > cap;
    parts.push(cut ? value.subarray(0, cap - size) : value);
    if (cut) break;
    size += value.length;
  }
  return { text: new TextDecoder().decode(Buffer.concat(parts)), cut };
}

function safeWrite(url: string, fn: () => void): void {
  try {
    fn();
  } catch (err) {
    log.warn(`HTTP cache write failed for ${url}; continuing without caching it`, err);
  }
}

function fmtSeconds(ms: number): string {
  return ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`;
}

const fmtBytes = (n: number) => `${(n / 1024 / 1024).toFixed(n < 1024 * 1024 ? 2 : 0)} MB`;

/** Bun's advice to its own developers that its fetch errors end with. */
const BUN_ADVICE = /\.?\s*For more information, pass `verbose: true` in the second argument to fetch\(\)\.?/gi;

/** An upstream error's text for a person: Bun's debugging advice left out, no trailing stop. */
function withoutFetchAdvice(text: string): string {
  return text
    .replace(BUN_ADVICE, "")
    .replace(/[.\s]+$/, "")
    .trim();
}

/** Why a fetch threw, as a clause ("ECONNRESET: The socket connection…"); a timeout names `timeoutMs` if given. */
export function fetchErrorText(err: unknown, timeoutMs?: number): string {
  const e = err as Error | null;
  if (e?.name === "TimeoutError" || e?.name === "AbortError")
    return timeoutMs === undefined ? "no answer in time" : `no answer within ${timeoutMs} ms`;
  return withoutFetchAdvice(String(e?.message ?? err)) || "the connection failed";
}

/** A short, single-line piece of an error body (nothing for HTML pages). */
function snippet(text: string): string {
  const t = text.replace(/\s+/g, " ").trim();
  if (t === "" || t.startsWith("<")) return "";
  return `: ${t.length > 160 ? `${t.slice(0, 160)}…` : t}`;
}

function failureMessage(up: UpstreamInfo, url: string, f: AttemptFailure, attempts: number, timeoutMs: number): string {
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
