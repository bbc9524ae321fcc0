/**
 * D&D 5e API (dnd5eapi.co) client. Lists are not paginated: `GET /api/<year>/<endpoint>` →
 * `{count, results: [{index, name, url}]}`; every record then needs its own detail GET
 * (`/api/<year>/<endpoint>/<index>` on the configured base — see `detailUrl`). Details are
 * fetched with bounded concurrency and returned in list order. A failing detail is skipped and
 * reported; a failing list throws, and so does a run where more than `maxFailureRatio` of the
 * details fail (the server is then down, and a mostly-empty result must not replace good data).
 */
import { type HttpClient, UpstreamError, type UpstreamInfo } from "../http.ts";
import { Semaphore } from "../../semaphore.ts";

import type { Dnd5eYear } from "../../entities/normalize/types.ts";
import { dnd5eApiUrl } from "./urls.ts";

export interface Dnd5eListItem {
  index: string;
  name: string;
  url: string;
  /** Present on spell lists. */
  level?: number;
}

export interface Dnd5eSkipped {
  index: string;
  url: string;
  kind: UpstreamError["kind"];
  status?: number;
  message: string;
}

export interface Dnd5eFetchResult {
  year: Dnd5eYear;
  endpoint: string;
  /** Detail bodies, in list order, skipped ones omitted. */
  records: unknown[];
  /** The list as received. */
  list: Dnd5eListItem[];
  /** `count` announced by the list. */
  count: number;
  skipped: Dnd5eSkipped[];
  warnings: string[];
}

export interface Dnd5eFetchOptions {
  /** Detail requests in flight at once for this call (default: the HTTP client's concurrency). */
  concurrency?: number;
  /** Throw when more than this share of the details fail (default 0.5). */
  maxFailureRatio?: number;
  force?: boolean;
  signal?: AbortSignal;
  /** Called after each detail settles (done counts successes and skips). */
  onProgress?: (done: number, total: number) => void;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

export class Dnd5eApiClient {
  readonly baseUrl: string;
  readonly upstream: UpstreamInfo;

  constructor(
    private readonly http: HttpClient,
    opts: { baseUrl: string },
  ) {
    this.baseUrl = opts.baseUrl.replace(/\/+$/, "");
    this.upstream = { name: "The D&D 5e API", baseUrl: this.baseUrl, envVar: "LOREKEEPER_DND5EAPI_BASE_URL" };
  }

  /** Resolves a record path (`/api/2014/spells/fireball`) or absolute URL onto the configured base. */
  resolve(pathOrUrl: string): string {
    if (/^https?:\/\//i.test(pathOrUrl)) {
      const u = new URL(pathOrUrl);
      const m = /\/api\//.exec(u.pathname);
      return `${this.baseUrl}${m ? u.pathname.slice(m.index) : u.pathname}${u.search}`;
    }
    return `${this.baseUrl}${pathOrUrl.startsWith("/") ? "" : "/"}${pathOrUrl}`;
  }

  /**
   * Where a listed record's detail lives: `/api/<year>/<endpoint>/<index>`. The listed `url` is not
   * trusted, because upstream data has stale ones (2024 proficiencies list `carpenters-tools` with url
   * `/api/2024/proficiencies/tool-carpenters-tools`, which is a 404; lookups go by index).
   */
  detailUrl(year: Dnd5eYear, endpoint: string, item: Pick<Dnd5eListItem, "index">): string {
    return dnd5eApiUrl(this.baseUrl, year, endpoint, item.index);
  }

  /** `GET /api/<year>`: endpoint name → path, e.g. {"spells": "/api/2014/spells"}. */
  async root(year: Dnd5eYear, opts: { force?: boolean; signal?: AbortSignal } = {}): Promise<Record<string, string>> {
    const url = dnd5eApiUrl(this.baseUrl, year);
    const body = await this.http.getJson(url, { ...opts, upstream: this.upstream });
    if (!isObject(body)) throw this.malformed(url, "an endpoint index");
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(body)) if (typeof v === "string") out[k] = v;
    return out;
  }

  /** Endpoint names available for a year (2024 lacks e.g. `spells`, `rules`, `rule-sections`). */
  async availableEndpoints(year: Dnd5eYear, opts: { force?: boolean; signal?: AbortSignal } = {}): Promise<string[]> {
    return Object.keys(await this.root(year, opts)).sort();
  }

  /** The list of one endpoint. Throws UpstreamError. */
  async list(
    year: Dnd5eYear,
    endpoint: string,
    opts: { force?: boolean; signal?: AbortSignal } = {},
  ): Promise<{ count: number; results: Dnd5eListItem[] }> {
    const url = dnd5eApiUrl(this.baseUrl, year, endpoint);
    const body = await this.http.getJson(url, { ...opts, upstream: this.upstream });
    if (!isObject(body) || !Array.isArray(body.results)) {
      const err = this.malformed(url, "a list ({count, results})");
      this.http.rejectResponses([url], err);
      throw err;
    }
    const results: Dnd5eListItem[] = [];
    for (const r of body.results) {
      if (!isObject(r) || typeof r.index !== "string" || r.index === "") continue;
      const item: Dnd5eListItem = {
        index: r.index,
        name: typeof r.name === "string" ? r.name : r.index,
        url: typeof r.url === "string" && r.url !== "" ? r.url : `/api/${year}/${endpoint}/${r.index}`,
      };
      if (typeof r.level === "number") item.level = r.level;
      results.push(item);
    }
    const count = typeof body.count === "number" ? body.count : results.length;
    return { count, results };
  }

  /** The list, then every detail (bounded concurrency), in list order. */
  async fetchAll(year: Dnd5eYear, endpoint: string, opts: Dnd5eFetchOptions = {}): Promise<Dnd5eFetchResult> {
    const { count, results } = await this.list(year, endpoint, opts);
    const warnings: string[] = [];
    if (count !== results.length) {
      warnings.push(
        `dnd5eapi ${year}/${endpoint}: the list announced ${count} records but carried ${results.length} usable ` +
          `entries`,
      );
    }
    const sem = new Semaphore(Math.max(1, Math.floor(opts.concurrency ?? this.http.concurrency)));
    const slots: Array<unknown | undefined> = new Array(results.length);
    const failed: Array<Dnd5eSkipped | undefined> = new Array(results.length);
    let done = 0;
    const req = { force: opts.force, signal: opts.signal, upstream: this.upstream };
    await Promise.all(
      results.map((item, i) =>
        sem.run(async () => {
          const url = this.detailUrl(year, endpoint, item);
          try {
            const body = await this.http.getJson(url, req);
            if (!isObject(body)) {
              const err = this.malformed(url, "a record object");
              this.http.rejectResponses([url], err);
              throw err;
            }
            slots[i] = body;
          } catch (err) {
            if (!(err instanceof UpstreamError)) throw err;
            failed[i] = { index: item.index, url, kind: err.kind, status: err.status, message: err.message };
          } finally {
            done++;
            opts.onProgress?.(done, results.length);
          }
        }),
      ),
    );
    const records: unknown[] = [];
    const skipped: Dnd5eSkipped[] = [];
    for (let i = 0; i < results.length; i++) {
      const f = failed[i];
      if (f) skipped.push(f);
      else records.push(slots[i]);
    }
    const ratio = opts.maxFailureRatio ?? 0.5;
    if (skipped.length > 0 && skipped.length > ratio * results.length) {
      const first = skipped[0]!;
      throw new UpstreamError(
        first.kind,
        dnd5eApiUrl(this.baseUrl, year, endpoint),
        `${skipped.length} of ${results.length} ${year} ${endpoint} records could not be fetched from ` +
          `${this.upstream.name} at ${this.baseUrl}; ` +
          `first error: ${first.message}`,
        first.status,
      );
    }
    return { year, endpoint, records, list: results, count, skipped, warnings };
  }

  /**
   * Level tables of classes: `/api/<year>/classes/<index>/levels` answers a plain JSON array of level
   * records (there is no top-level `levels` endpoint). One request per class, concatenated in order.
   */
  async classLevels(
    year: Dnd5eYear,
    classIndexes: readonly string[],
    opts: { force?: boolean; signal?: AbortSignal } = {},
  ): Promise<unknown[]> {
    const out: unknown[] = [];
    for (const index of classIndexes) {
      const url = `${this.baseUrl}/api/${year}/classes/${encodeURIComponent(index)}/levels`;
      const body = await this.http.getJson(url, { ...opts, upstream: this.upstream });
      if (!Array.isArray(body)) {
        const err = this.malformed(url, "a list of level records");
        this.http.rejectResponses([url], err);
        throw err;
      }
      out.push(...body);
    }
    return out;
  }

  private malformed(url: string, expected: string): UpstreamError {
    return new UpstreamError(
      "malformed",
      url,
      `${this.upstream.name} at ${this.baseUrl} answered ${url} with JSON that is not ${expected}. ` +
        `Check that ${this.upstream.envVar} points at the API root (e.g. https://www.dnd5eapi.co).`,
    );
  }
}
