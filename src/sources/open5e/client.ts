/**
 * Open5e API client (v1 and v2): complete pagination of list endpoints.
 *
 * - Asks for large pages (`limit=1000`, the API has no maximum) and follows `next` until null.
 * - `next` links are absolute and name the host that built them (production is
 *   `https://api.open5e.com`); they are rewritten onto the configured base URL, keeping the path from
 *   `/v1/` or `/v2/` on and the query.
 * - Guards: a `next` already visited (a loop) or more pages than the data can need (a page cap) stop
 *   the walk with an `UpstreamError` of kind "pagination". Choice: an error, not a partial result,
 *   because a sync replaces a whole origin with what it got — a truncated list would silently delete
 *   good records. Consumers of `pages()` must therefore commit only after the generator completes.
 * - Envelope `count` vs records received: a mismatch is a warning (on the last page and in
 *   `fetchAll`), not an error — the data is what the server gave.
 * - The 2025 v2 shape uses the same envelope (records then also carried `url`, and `/v2/magicitems/`
 *   did not exist: a 404 there means "old server"; `root("v2")` tells which endpoints exist).
 *   A bare JSON array instead of an envelope (non-paginated endpoints, some mirrors) is one last page.
 */
import { cacheKey, type HttpClient, UpstreamError, type UpstreamInfo } from "../http.ts";
import { open5eUrl, type Open5eVersion } from "./urls.ts";

export type { Open5eVersion };

const OPEN5E_DEFAULT_PAGE_SIZE = 1000;
const OPEN5E_DEFAULT_MAX_PAGES = 1000;

export interface Open5ePage {
  version: Open5eVersion;
  endpoint: string;
  /** 1-based page number within this walk. */
  page: number;
  /** The URL actually requested (on the configured base). */
  url: string;
  results: unknown[];
  /** Records received so far, this page included. */
  recordsSoFar: number;
  /** Envelope `count` of the first page (null when the server gave none). */
  totalCount: number | null;
  /** Envelope `count` of this page (differs from `totalCount` when the data changed during the walk). */
  count: number | null;
  /** True on the final page (no `next`). */
  last: boolean;
  fromCache: boolean;
  /** Problems noticed on this page (count mismatch on the last page, count change, empty page). */
  warnings: string[];
}

export interface Open5eListOptions {
  /** `limit` to ask for (default 1000). */
  pageSize?: number;
  /** Hard cap on pages fetched (default 1000); exceeding it throws. */
  maxPages?: number;
  /** Extra query params (filters). */
  query?: Record<string, string | number | boolean>;
  /** Bypass cache reads (responses are still cached). */
  force?: boolean;
  signal?: AbortSignal;
}

export interface Open5eListResult {
  version: Open5eVersion;
  endpoint: string;
  records: unknown[];
  /** Envelope count of the first page, or null. */
  count: number | null;
  pages: number;
  /** Requests answered from the cache. */
  cachedPages: number;
  warnings: string[];
}

interface Envelope {
  count: number | null;
  next: string | null;
  results: unknown[];
}

/** Validates a list body; a bare array is accepted as a single last page. Throws "malformed". */
export function parseOpen5eEnvelope(body: unknown, url: string, upstream: UpstreamInfo): Envelope {
  if (Array.isArray(body)) return { count: body.length, next: null, results: body };
  if (body && typeof body === "object" && Array.isArray((body as { results?: unknown }).results)) {
    const b = body as { count?: unknown; next?: unknown; results: unknown[] };
    const count = typeof b.count === "number" && Number.isFinite(b.count) ? b.count : null;
    const next = typeof b.next === "string" && b.next.trim() !== "" ? b.next : null;
    return { count, next, results: b.results };
  }
  throw new UpstreamError(
    "malformed",
    url,
    `${upstream.name} at ${upstream.baseUrl} answered ${url} with JSON that is not a list envelope ({count, next, ` +
      `results}). Check that ${upstream.envVar} points at an Open5e API root.`,
  );
}

/**
 * Moves an absolute (or relative) pagination link onto `baseUrl`: the path from its `/v1/` or `/v2/`
 * segment on (else the whole path) plus the query, appended to the base (which may have a path prefix).
 */
export function rewriteOntoBase(link: string, baseUrl: string): string {
  const base = baseUrl.replace(/\/+$/, "");
  const u = new URL(link, `${base}/`);
  const m = /\/v\d+\//.exec(u.pathname);
  const path = m ? u.pathname.slice(m.index) : u.pathname;
  return `${base}${path}${u.search}`;
}

/** Loop-detection key: canonical URL with `page=1` treated as no page. */
function visitKey(url: string): string {
  const u = new URL(url);
  if (u.searchParams.get("page") === "1") u.searchParams.delete("page");
  return cacheKey(u.toString());
}

export class Open5eClient {
  readonly baseUrl: string;
  readonly upstream: UpstreamInfo;

  constructor(
    private readonly http: HttpClient,
    opts: { baseUrl: string },
  ) {
    this.baseUrl = opts.baseUrl.replace(/\/+$/, "");
    this.upstream = { name: "Open5e", baseUrl: this.baseUrl, envVar: "LOREKEEPER_OPEN5E_BASE_URL" };
  }

  /** `<base>/<version>/<endpoint>/?<sorted query>`. */
  listUrl(version: Open5eVersion, endpoint: string, query: Record<string, string | number | boolean> = {}): string {
    const params = Object.entries(query)
      .map(([k, v]) => [k, String(v)] as [string, string])
      .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    const q = new URLSearchParams(params).toString();
    return `${open5eUrl(this.baseUrl, version, endpoint)}${q ? `?${q}` : ""}`;
  }

  /** Walks every page of a list endpoint, yielding each page as it arrives. Throws UpstreamError. */
  async *pages(
    version: Open5eVersion,
    endpoint: string,
    opts: Open5eListOptions = {},
  ): AsyncGenerator<Open5ePage, void, undefined> {
    const pageSize = Math.max(1, Math.floor(opts.pageSize ?? OPEN5E_DEFAULT_PAGE_SIZE));
    const hardCap = Math.max(1, Math.floor(opts.maxPages ?? OPEN5E_DEFAULT_MAX_PAGES));
    let url: string | null = this.listUrl(version, endpoint, { ...opts.query, limit: pageSize });
    const seen = new Set<string>([visitKey(url)]);
    let page = 0;
    let recordsSoFar = 0;
    let totalCount: number | null = null;
    let cap = hardCap;
    const visited: string[] = [];
    while (url !== null) {
      page++;
      visited.push(url);
      const res = await this.http.request(url, { force: opts.force, signal: opts.signal, upstream: this.upstream });
      let env: Envelope;
      try {
        env = parseOpen5eEnvelope(res.data, url, this.upstream);
      } catch (err) {
        if (err instanceof UpstreamError) this.http.rejectResponses([url], err);
        throw err;
      }
      const warnings: string[] = [];
      recordsSoFar += env.results.length;
      if (page === 1) {
        totalCount = env.count;
        if (totalCount !== null && env.results.length > 0) {
          // The most pages this data can need at the page size the server actually used, with slack.
          cap = Math.min(hardCap, Math.ceil(totalCount / env.results.length) + 5);
        }
      } else if (env.count !== null && totalCount !== null && env.count !== totalCount) {
        warnings.push(
          `${version}/${endpoint}: count changed from ${totalCount} to ${env.count} during pagination (data changed ` +
            `upstream?)`,
        );
      }
      let next: string | null = null;
      if (env.next !== null) {
        if (env.results.length === 0)
          warnings.push(`${version}/${endpoint}: page ${page} is empty but has a next link`);
        try {
          next = rewriteOntoBase(env.next, this.baseUrl);
        } catch {
          throw this.paginationError(visited, `a next link that is not a URL (${JSON.stringify(env.next)})`);
        }
        const key = visitKey(next);
        if (seen.has(key))
          throw this.paginationError(visited, `a next link that loops back to an already fetched page (${env.next})`);
        seen.add(key);
        if (page >= cap) {
          throw this.paginationError(
            visited,
            `more pages than expected (stopped after ${page} pages, ${recordsSoFar} records, count ` +
              `${totalCount ?? "unknown"})`,
          );
        }
      } else if (totalCount !== null && recordsSoFar !== totalCount) {
        warnings.push(`${version}/${endpoint}: the server announced ${totalCount} records but sent ${recordsSoFar}`);
      }
      yield {
        version,
        endpoint,
        page,
        url,
        results: env.results,
        recordsSoFar,
        totalCount,
        count: env.count,
        last: next === null,
        fromCache: res.fromCache,
        warnings,
      };
      url = next;
    }
  }

  /** All records of a list endpoint, in API order, with the warnings gathered on the way. */
  async fetchAll(
    version: Open5eVersion,
    endpoint: string,
    opts: Open5eListOptions & { onPage?: (p: Open5ePage) => void } = {},
  ): Promise<Open5eListResult> {
    const records: unknown[] = [];
    const warnings: string[] = [];
    let pages = 0;
    let cachedPages = 0;
    let count: number | null = null;
    for await (const p of this.pages(version, endpoint, opts)) {
      for (const r of p.results) records.push(r);
      warnings.push(...p.warnings);
      pages = p.page;
      count = p.totalCount;
      if (p.fromCache) cachedPages++;
      opts.onPage?.(p);
    }
    return { version, endpoint, records, count, pages, cachedPages, warnings };
  }

  /** Endpoint names listed by the version root (`/v2/` → {"spells": ".../v2/spells/", ...}). */
  async root(version: Open5eVersion, opts: { force?: boolean; signal?: AbortSignal } = {}): Promise<string[]> {
    const url = open5eUrl(this.baseUrl, version);
    const body = await this.http.getJson(url, { ...opts, upstream: this.upstream });
    if (!body || typeof body !== "object" || Array.isArray(body)) {
      throw new UpstreamError(
        "malformed",
        url,
        `${this.upstream.name} at ${this.baseUrl} answered ${url} with something other than an endpoint index.`,
      );
    }
    return Object.keys(body).filter((k) => typeof (body as Record<string, unknown>)[k] === "string");
  }

  /** One record by its key (v2 `key`, v1 `slug`). Throws UpstreamError (status 404 when absent). */
  async getDetail(
    version: Open5eVersion,
    endpoint: string,
    key: string,
    opts: { force?: boolean; signal?: AbortSignal } = {},
  ): Promise<unknown> {
    const url = open5eUrl(this.baseUrl, version, endpoint, key);
    return this.http.getJson(url, { ...opts, upstream: this.upstream });
  }

  /** Builds the error and makes the cache forget the walk, so a retry starts from the network. */
  private paginationError(visited: string[], what: string): UpstreamError {
    const first = visited[0] ?? this.baseUrl;
    const err = new UpstreamError(
      "pagination",
      first,
      `${this.upstream.name} at ${this.baseUrl} returned ${what} while listing ${first}, so the list cannot be ` +
        `trusted to be complete. Run \`lorekeeper sync\` later, or set ${this.upstream.envVar} to another mirror.`,
    );
    this.http.rejectResponses(visited, err);
    return err;
  }
}
