/**
 * D&D 5e API (dnd5eapi.co) client. Lists are not paginated: `GET /api/<year>/<endpoint>` →
 * `{count, results: [{index, name, url}]}`; every record then needs its own detail GET, fetched
 * (bounded by the HTTP client's concurrency) and returned in list order. A failing detail is skipped
 * and reported; a failing list throws, and so does a run where more than half of the details fail
 * (the server is then down, and a mostly-empty result must not replace good data).
 */
import { ApiClient, type HttpClient, UpstreamError } from "../http.ts";
import { isRec, type Rec } from "../../entities/normalize/read.ts";
import type { Dnd5eYear } from "../../entities/normalize/types.ts";
import { dnd5eApiUrl } from "./urls.ts";

type Dnd5eSkipped = { index: string; url: string } & Pick<UpstreamError, "kind" | "status" | "message">;

type Opts = { force?: boolean };
type Progress = (done: number, total: number) => void;

const record = (b: unknown): Rec | null => (isRec(b) ? b : null);
const list = (b: unknown) => (Array.isArray(b) ? (b as unknown[]) : null);

export class Dnd5eApiClient extends ApiClient {
  protected readonly root = "the API root (e.g. https://www.dnd5eapi.co)";

  constructor(http: HttpClient, opts: { baseUrl: string }) {
    super(http, opts.baseUrl, "The D&D 5e API", "LOREKEEPER_DND5EAPI_BASE_URL");
  }

  /** Endpoint names of a year, from `GET /api/<year>` (2024 lacks e.g. `spells`, `rules`, `rule-sections`). */
  async availableEndpoints(year: Dnd5eYear, opts: Opts = {}): Promise<string[]> {
    const { data: body } = await this.getChecked(dnd5eApiUrl(this.baseUrl, year), opts, record, "an endpoint index");
    return Object.keys(body)
      .filter((k) => typeof body[k] === "string")
      .sort();
  }

  /**
   * The indexes of one endpoint's list. Throws UpstreamError. Details are looked up by index: the
   * listed `url`s are not trusted (2024 proficiencies list `carpenters-tools` with a url that is a 404).
   */
  async list(year: Dnd5eYear, endpoint: string, opts: Opts = {}): Promise<{ count: number; indexes: string[] }> {
    const { data: body } = await this.getChecked(
      dnd5eApiUrl(this.baseUrl, year, endpoint),
      opts,
      (b) => (isRec(b) && Array.isArray(b.results) ? { count: b.count, results: b.results } : null),
      "a list ({count, results})",
    );
    const indexes = body.results.flatMap((r) =>
      isRec(r) && typeof r.index === "string" && r.index !== "" ? [r.index] : [],
    );
    return { count: typeof body.count === "number" ? body.count : indexes.length, indexes };
  }

  /** The list, then every detail, in list order. */
  async fetchAll(year: Dnd5eYear, endpoint: string, opts: Opts & { onProgress?: Progress } = {}) {
    const { count, indexes } = await this.list(year, endpoint, opts);
    const warnings: string[] = [];
    if (count !== indexes.length) {
      warnings.push(
        `dnd5eapi ${year}/${endpoint}: the list announced ${count} records but carried ${indexes.length} usable ` +
          `entries`,
      );
    }
    let done = 0;
    const req = { force: opts.force };
    const got = await Promise.all(
      indexes.map(async (index): Promise<{ record: unknown } | { failed: Dnd5eSkipped }> => {
        const url = dnd5eApiUrl(this.baseUrl, year, endpoint, index);
        try {
          return { record: (await this.getChecked(url, req, record, "a record object")).data };
        } catch (err) {
          if (!(err instanceof UpstreamError)) throw err;
          return { failed: { index, url, kind: err.kind, status: err.status, message: err.message } };
        } finally {
          done++;
          opts.onProgress?.(done, indexes.length);
        }
      }),
    );
    const records = got.flatMap((g) => ("record" in g ? [g.record] : []));
    const skipped = got.flatMap((g) => ("failed" in g ? [g.failed] : []));
    if (skipped.length > 0.5 * indexes.length) {
      const first = skipped[0]!;
      throw new UpstreamError(
        first.kind,
        dnd5eApiUrl(this.baseUrl, year, endpoint),
        `${skipped.length} of ${indexes.length} ${year} ${endpoint} records could not be fetched from ` +
          `${this.upstream.name} at ${this.baseUrl}; ` +
          `first error: ${first.message}`,
        first.status,
      );
    }
    return { records, count, listed: indexes.length, skipped, warnings };
  }

  /**
   * Level tables of classes: `/api/<year>/classes/<index>/levels` answers a plain JSON array of level
   * records (there is no top-level `levels` endpoint). One request per class, concatenated in order.
   */
  async classLevels(year: Dnd5eYear, classIndexes: readonly string[], opts: Opts = {}): Promise<unknown[]> {
    const out: unknown[] = [];
    for (const index of classIndexes) {
      const url = `${dnd5eApiUrl(this.baseUrl, year, "classes", index)}/levels`;
      out.push(...(await this.getChecked(url, opts, list, "a list of level records")).data);
    }
    return out;
  }
}
