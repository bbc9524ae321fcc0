/**
 * A fake Open5e + D&D 5e API server over a data directory laid out like `../shared/data`:
 *   open5e/v2/<ep>.json, open5e/v1/<ep>.json      arrays of records (detail by `key` / `slug`)
 *   open5e/raw/{v1-root,v2-root}.json             optional root bodies
 *   dnd5eapi/<year>/<ep>.json                     arrays of detail bodies (by `index`)
 *   dnd5eapi/raw/root-<year>.json                 optional root bodies
 * Behaves like the real APIs (envelopes, absolute `next` links with sorted params, 301 for a
 * missing trailing slash, `404 Invalid page.`), with fault injection per path pattern.
 * Open5e filter params are NOT applied (every list returns all records; the params still appear in
 * `next` links); dnd5eapi lists apply `name` (case-insensitive substring) only.
 *
 * Script: `bun test/support/fake-upstream.ts --data ../shared/data [--port 8787] [--host 127.0.0.1]`
 * prints its base URL on stdout and serves until interrupted.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export interface RequestLog {
  method: string;
  /** Path without query, e.g. "/v2/spells/". */
  path: string;
  /** Query string including "?", or "". */
  search: string;
  status: number;
  startedAt: number;
  endedAt: number;
  /** Requests being handled when this one started, itself included. */
  inFlight: number;
  userAgent: string | null;
}

/** What to do to matching requests. `times` limits how many matching requests are affected. */
export interface Fault {
  /** Answered in turn by successive matching requests (0 = answer normally); afterwards normal. */
  statuses?: number[];
  /** Body sent with a fault status (default `{"detail":"Injected fault."}`). */
  body?: string;
  /** `Retry-After` header sent with fault statuses. */
  retryAfter?: string;
  /** Wait before answering (timeouts). */
  delayMs?: number;
  /** Corrupt a successful body: junk text, or the JSON cut in half. */
  malformed?: "garbage" | "truncated";
  /** Open5e lists: `next` points back at this page, or at page 1. */
  loopNext?: "self" | "first";
  /** Open5e lists: append this record to the page; dnd5eapi lists: append to results. */
  injectRecord?: unknown;
  /** Open5e lists: add this to the envelope `count`. */
  countOffset?: number;
  /** Stop the whole server on this request (it never answers; later requests are refused). */
  die?: boolean;
  times?: number;
}

/** Exact path, a path prefix ending with `*`, or a RegExp tested against path + query. */
export type FaultPattern = string | RegExp;

export interface FakeUpstreamOptions {
  dataDir: string;
  port?: number;
  hostname?: string;
  /** Base used in absolute Open5e links (default: this server's own URL), e.g. "https://api.open5e.com". */
  linkBase?: string;
}

export interface FakeUpstream {
  /** Base URL without trailing slash, e.g. "http://127.0.0.1:40123". */
  url: string;
  port: number;
  requests: RequestLog[];
  setFault(pattern: FaultPattern, fault: Fault): void;
  clearFaults(): void;
  stop(): Promise<void>;
}

interface Reply {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

const json = (status: number, v: unknown, headers?: Record<string, string>): Reply => ({
  status,
  body: JSON.stringify(v),
  headers: { "Content-Type": "application/json", ...headers },
});
const text = (status: number, body: string, type = "text/plain"): Reply => ({
  status,
  body,
  headers: { "Content-Type": type },
});
const html404 = () =>
  text(
    404,
    '\n<!doctype html>\n<html lang="en">\n<head>\n  <title>Not ' +
      "Found</title>\n</head>\n<body>\n  <h1>Not Found</h1></body>\n</html>\n",
    "text/html",
  );

type Rec = Record<string, unknown>;

/** Parsed data files, cached across servers in this process (the corpus is read-only). */
const fileCache = new Map<string, { records: Rec[]; byKey: Map<string, Map<string, Rec>> } | null>();

function loadArray(path: string): { records: Rec[]; byKey: Map<string, Map<string, Rec>> } | null {
  if (fileCache.has(path)) return fileCache.get(path)!;
  let v: { records: Rec[]; byKey: Map<string, Map<string, Rec>> } | null = null;
  if (existsSync(path)) {
    const parsed: unknown = JSON.parse(readFileSync(path, "utf8"));
    if (Array.isArray(parsed)) v = { records: parsed as Rec[], byKey: new Map() };
  }
  fileCache.set(path, v);
  return v;
}

function lookup(
  file: { records: Rec[]; byKey: Map<string, Map<string, Rec>> },
  field: string,
  key: string,
): Rec | undefined {
  let m = file.byKey.get(field);
  if (!m) {
    m = new Map();
    for (const r of file.records) if (typeof r[field] === "string") m.set(r[field] as string, r);
    file.byKey.set(field, m);
  }
  return m.get(key);
}

function loadJson(path: string): unknown {
  return existsSync(path) ? JSON.parse(readFileSync(path, "utf8")) : undefined;
}

function listEndpoints(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json") && f !== "levels.json")
    .map((f) => f.slice(0, -5))
    .sort();
}

function sortedQuery(params: URLSearchParams): string {
  const entries = [...params.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const q = new URLSearchParams(entries).toString();
  return q ? `?${q}` : "";
}

function matches(pattern: FaultPattern, path: string, search: string): boolean {
  if (pattern instanceof RegExp) return pattern.test(path + search);
  if (pattern.endsWith("*")) return path.startsWith(pattern.slice(0, -1));
  return path === pattern;
}

export async function startFakeUpstream(opts: FakeUpstreamOptions): Promise<FakeUpstream> {
  const requests: RequestLog[] = [];
  let faults: Array<{ pattern: FaultPattern; fault: Fault; hits: number }> = [];
  let inFlight = 0;
  let selfUrl = "";
  const linkBase = () => (opts.linkBase ?? selfUrl).replace(/\/+$/, "");

  function open5eList(version: string, ep: string, url: URL, fault: Fault | undefined): Reply {
    const file = loadArray(join(opts.dataDir, "open5e", version, `${ep}.json`));
    if (!file) return html404();
    const q = url.searchParams;
    const rawLimit = Number.parseInt(q.get("limit") ?? "", 10);
    const limit = Number.isFinite(rawLimit) && rawLimit > 0 ? rawLimit : 50;
    const count = file.records.length;
    const pages = Math.max(1, Math.ceil(count / limit));
    const rawPage = q.get("page");
    const page =
      rawPage === null ? 1 : rawPage === "last" ? pages : /^\d+$/.test(rawPage) ? Number(rawPage) : Number.NaN;
    if (!(page >= 1 && page <= pages)) return json(404, { detail: "Invalid page." });
    const results: unknown[] = file.records.slice((page - 1) * limit, page * limit);
    if (fault?.injectRecord !== undefined) results.push(fault.injectRecord);
    const link = (p: number | null) => {
      const params = new URLSearchParams(q);
      if (p === null || p === 1) params.delete("page");
      else params.set("page", String(p));
      if (p === 1 && fault?.loopNext === "first") params.set("page", "1");
      return `${linkBase()}${url.pathname}${sortedQuery(params)}`;
    };
    let next = page < pages ? link(page + 1) : null;
    if (fault?.loopNext === "self") next = link(page);
    if (fault?.loopNext === "first") next = link(1);
    const previous = page > 1 ? link(page - 1) : null;
    const headers: Record<string, string> =
      version === "v1"
        ? { Warning: "299 Deprecated API: use /v2/ instead. /v1/ will be maintained until 2024-12-31." }
        : {};
    return json(200, { count: count + (fault?.countOffset ?? 0), next, previous, results }, headers);
  }

  function open5e(url: URL, fault: Fault | undefined): Reply {
    const m = /^\/(v1|v2)\/(?:([^/]+)(?:\/([^/]+))?(\/?))?$/.exec(url.pathname);
    if (!m) return html404();
    const [, version, ep, key, slash] = m as unknown as [
      string,
      string,
      string | undefined,
      string | undefined,
      string,
    ];
    if (ep === undefined) {
      const raw = loadJson(join(opts.dataDir, "open5e", "raw", `${version}-root.json`));
      const names =
        raw && typeof raw === "object" ? Object.keys(raw) : listEndpoints(join(opts.dataDir, "open5e", version));
      return json(200, Object.fromEntries(names.map((n) => [n, `${linkBase()}/${version}/${n}/`])));
    }
    if (slash !== "/") return { status: 301, body: "", headers: { Location: `${url.pathname}/${url.search}` } };
    if (key === undefined) return open5eList(version, ep, url, fault);
    const file = loadArray(join(opts.dataDir, "open5e", version, `${ep}.json`));
    if (!file) return html404();
    const rec = lookup(file, version === "v1" ? "slug" : "key", decodeURIComponent(key));
    return rec ? json(200, rec) : json(404, { detail: "Not found." });
  }

  function dnd5e(url: URL, fault: Fault | undefined): Reply {
    const path = url.pathname.replace(/\/+$/, "");
    const lv = /^\/api\/(\d{4})\/classes\/([^/]+)\/levels$/.exec(path);
    if (lv) {
      // A plain array of the class's level records, sorted by level (subclass levels left out).
      const file = loadArray(join(opts.dataDir, "dnd5eapi", lv[1]!, "levels.json"));
      const cls = decodeURIComponent(lv[2]!);
      const recs = (file?.records ?? []).filter((r) => (r.class as Rec | undefined)?.index === cls && !r.subclass);
      if (recs.length === 0) return json(404, { error: "Not found" });
      return json(
        200,
        [...recs].sort((a, b) => Number(a.level) - Number(b.level)),
      );
    }
    const m = /^\/api\/(\d{4})(?:\/([^/]+)(?:\/([^/]+))?)?$/.exec(path);
    if (!m) {
      const legacy = /^\/api\/([a-z-]+)(\/.*)?$/.exec(path);
      if (legacy)
        return {
          status: 301,
          body: "",
          headers: { Location: `/api/2014/${legacy[1]}${legacy[2] ?? ""}${url.search}` },
        };
      return text(404, "Not Found");
    }
    const [, year, ep, index] = m as unknown as [string, string, string | undefined, string | undefined];
    const yearDir = join(opts.dataDir, "dnd5eapi", year);
    if (ep === undefined) {
      const raw = loadJson(join(opts.dataDir, "dnd5eapi", "raw", `root-${year}.json`));
      if (raw !== undefined) return json(200, raw);
      const names = listEndpoints(yearDir);
      if (names.length === 0) return text(404, "Not Found");
      return json(200, Object.fromEntries(names.map((n) => [n, `/api/${year}/${n}`])));
    }
    const file = ep === "levels" ? null : loadArray(join(yearDir, `${ep}.json`));
    if (!file) return text(404, "Not Found");
    if (index !== undefined) {
      const rec = lookup(file, "index", decodeURIComponent(index));
      return rec ? json(200, rec) : text(404, "Not Found");
    }
    const name = url.searchParams.get("name")?.toLowerCase();
    const results: unknown[] = file.records
      .filter(
        (r) =>
          name === undefined ||
          String(r.name ?? "")
            .toLowerCase()
            .includes(name),
      )
      .map((r) => {
        const item: Rec = { index: r.index, name: r.name, url: r.url ?? `/api/${year}/${ep}/${String(r.index)}` };
        if (ep === "spells" && typeof r.level === "number") item.level = r.level;
        return item;
      })
      .sort((a, b) => (String((a as Rec).index) < String((b as Rec).index) ? -1 : 1));
    if (fault?.injectRecord !== undefined) results.push(fault.injectRecord);
    return json(200, { count: results.length, results });
  }

  const server = Bun.serve({
    hostname: opts.hostname ?? "127.0.0.1",
    port: opts.port ?? 0,
    idleTimeout: 0,
    async fetch(req) {
      const url = new URL(req.url);
      const startedAt = performance.now();
      inFlight++;
      const entry: RequestLog = {
        method: req.method,
        path: url.pathname,
        search: url.search,
        status: 0,
        startedAt,
        endedAt: startedAt,
        inFlight,
        userAgent: req.headers.get("user-agent"),
      };
      requests.push(entry);
      try {
        const reply = await handle(url);
        entry.status = reply.status;
        return new Response(reply.status === 301 ? null : reply.body, { status: reply.status, headers: reply.headers });
      } finally {
        inFlight--;
        entry.endedAt = performance.now();
      }
    },
  });
  selfUrl = `http://${server.hostname}:${server.port}`;

  async function handle(url: URL): Promise<Reply> {
    const rule = faults.find((f) => matches(f.pattern, url.pathname, url.search));
    let fault: Fault | undefined;
    let hit = 0;
    if (rule) {
      hit = rule.hits++;
      if (rule.fault.times === undefined || hit < rule.fault.times) fault = rule.fault;
    }
    if (fault?.die) {
      void server.stop(true);
      return await new Promise<Reply>(() => {});
    }
    if (fault?.delayMs) await Bun.sleep(fault.delayMs);
    const injected = fault?.statuses?.[hit];
    if (fault && injected !== undefined && injected !== 0) {
      const headers: Record<string, string> = { "Content-Type": "application/json" };
      if (fault.retryAfter !== undefined) headers["Retry-After"] = fault.retryAfter;
      return { status: injected, body: fault.body ?? JSON.stringify({ detail: "Injected fault." }), headers };
    }
    const reply = url.pathname.startsWith("/api") ? dnd5e(url, fault) : open5e(url, fault);
    if (fault?.malformed && reply.status === 200) {
      reply.body =
        fault.malformed === "garbage"
          ? "<html>this is not json"
          : reply.body.slice(0, Math.floor(reply.body.length / 2));
    }
    return reply;
  }

  return {
    url: selfUrl,
    port: server.port ?? 0,
    requests,
    setFault(pattern, fault) {
      faults = faults.filter((f) => String(f.pattern) !== String(pattern));
      faults.push({ pattern, fault, hits: 0 });
    },
    clearFaults() {
      faults = [];
    },
    async stop() {
      await server.stop(true);
    },
  };
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const arg = (name: string) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const dataDir = arg("--data");
  if (!dataDir || !existsSync(dataDir)) {
    process.stderr.write(
      "usage: bun test/support/fake-upstream.ts --data <dir laid out like ../shared/data> [--port N] [--host H]\n",
    );
    process.exit(2);
  }
  const fake = await startFakeUpstream({ dataDir, port: Number(arg("--port") ?? 0), hostname: arg("--host") });
  console.log(fake.url);
  const shutdown = () => void fake.stop().then(() => process.exit(0));
  process.on("SIGINT", shutdown);
  process.on("SIGTERM", shutdown);
}
