/**
 * Open5e API client (v1 and v2): complete pagination of list endpoints.
 *
 * - Asks for large pages (`limit=1000`, the API has no maximum) and follows `next` until null;
 *   `next` links name the host that built them, so they are rewritten onto the configured base.
 * - A `next` already visited (a loop) or more pages than the data can need stop the walk with an
 *   `UpstreamError` of kind "pagination", not a partial result: a sync replaces a whole origin with
 *   what it got, so a truncated list would silently delete good records. Consumers of `pages()`
 *   must therefore commit only after the generator completes.
 * - Envelope `count` vs records received: a mismatch is a warning, not an error.
 * - The 2025 v2 shape uses the same envelope (`/v2/magicitems/` did not exist: a 404 there means
 *   "old server"). A bare JSON array instead of an envelope (some mirrors) is one last page.
 */
import { ApiClient, cacheKey, type HttpClient, UpstreamError } from "../http.ts";
import { open5eUrl, type Open5eVersion } from "./urls.ts";
import { isRec } from "../../entities/normalize/read.ts";

export type { Open5eVersion };

export interface Open5ePage {
  /** 1-based page number within this walk. */
  page: number;
  results: unknown[];
  /** Records received so far, this page included. */
  recordsSoFar: number;
  /** Envelope `count` of the first page (null when the server gave none). */
  totalCount: number | null;
  /** Envelope `count` of this page (differs from `totalCount` when the data changed during the walk). */
  count: number | null;
  fromCache: boolean;
  /** Count mismatch on the last page, empty page (a count change is the caller's to judge: `count`). */
  warnings: string[];
}

interface Open5eListOptions {
  /** `limit` to ask for (default 1000). */
  pageSize?: number;
  /** Hard cap on pages fetched (default 1000); exceeding it throws. */
  maxPages?: number;
  /** Bypass cache reads (responses are still cached). */
  force?: boolean;
}

const ENVELOPE = "a list envelope ({count, next, results})";

interface Envelope {
  count: number | null;
  next: string | null;
  results: unknown[];
}

/** A list body's envelope (a bare array is a single last page), or null when it is none. */
export function parseOpen5eEnvelope(body: unknown): Envelope | null {
  if (Array.isArray(body)) return { count: body.length, next: null, results: body };
  if (isRec(body) && Array.isArray(body.results)) {
    const count = typeof body.count === "number" && Number.isFinite(body.count) ? body.count : null;
    const next = typeof body.next === "string" && body.next.trim() !== "" ? body.next : null;
    return { count, next, results: body.results };
  }
  return null;
}

/** A pagination link moved onto `baseUrl` (which may have a path prefix): its path from `/vN/` on, and its query. */
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

export class Open5eClient extends ApiClient {
  protected readonly root = "an Open5e API root";

  constructor(http: HttpClient, opts: { baseUrl: string }) {
    super(http, opts.baseUrl, "Open5e", "LOREKEEPER_OPEN5E_BASE_URL");
  }

  /** `<base>/<version>/<endpoint>/`, with `?limit=` when given. */
  listUrl(version: Open5eVersion, endpoint: string, limit?: number): string {
    return `${open5eUrl(this.baseUrl, version, endpoint)}${limit === undefined ? "" : `?limit=${limit}`}`;
  }

  /** Walks every page of a list endpoint, yielding each page as it arrives. Throws UpstreamError. */
  async *pages(
    version: Open5eVersion,
    endpoint: string,
    opts: Open5eListOptions = {},
  ): AsyncGenerator<Open5ePage, void, undefined> {
    const pageSize = Math.max(1, Math.floor(opts.pageSize ?? 1000));
    const hardCap = Math.max(1, Math.floor(opts.maxPages ?? 1000));
    let url: string | null = this.listUrl(version, endpoint, pageSize);
    const seen = new Set<string>([visitKey(url)]);
    let page = 0;
    let recordsSoFar = 0;
    let totalCount: number | null = null;
    let cap = hardCap;
    const visited: string[] = [];
    while (url !== null) {
      page++;
      visited.push(url);
      const req = { force: opts.force };
      const { data: env, ...res } = await this.getChecked(url, req, parseOpen5eEnvelope, ENVELOPE);
      const warnings: string[] = [];
      recordsSoFar += env.results.length;
      if (page === 1) {
        totalCount = env.count;
        // The most pages this data can need at the page size the server actually used, with slack.
        if (totalCount !== null && env.results.length > 0)
          cap = Math.min(hardCap, Math.ceil(totalCount / env.results.length) + 5);
      }
      let next: string | null = null;
      if (env.next !== null) {
        if (env.results.length === 0)
          warnings.push(`${version}/${endpoint}: page ${page} is empty but has a next link`);
        if (!URL.canParse(env.next, `${this.baseUrl}/`))
          throw this.paginationError(visited, `a next link that is not a URL (${JSON.stringify(env.next)})`);
        next = rewriteOntoBase(env.next, this.baseUrl);
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
      const { results, count } = env;
      yield { page, results, recordsSoFar, totalCount, count, fromCache: res.fromCache, warnings };
      url = next;
    }
  }

  /** All records of a list endpoint, in API order, with the warnings gathered on the way. */
  async fetchAll(version: Open5eVersion, endpoint: string, opts: Open5eListOptions = {}) {
    const records: unknown[] = [];
    const warnings: string[] = [];
    for await (const p of this.pages(version, endpoint, opts)) {
      for (const r of p.results) records.push(r);
      warnings.push(...p.warnings);
    }
    return { records, warnings };
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
