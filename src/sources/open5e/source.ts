/**
 * What the open5e-v2 and open5e-v1 sources share: the Source itself for one API version, and reading
 * a whole list for a sync (one walk over its pages, and a second from the network when the data
 * moved under the first).
 */
import { rec } from "../../entities/normalize/read.ts";
import type { DocumentInfo, DocumentSource } from "../../entities/types.ts";
import { log } from "../../log.ts";
import { UpstreamError } from "../http.ts";
import type { FetchedRecords, FetchProgress, Source, SourceRun } from "../source.ts";
import { Open5eClient } from "./client.ts";
import { open5eUrl, type Open5eVersion } from "./urls.ts";

/** All records of a small metadata list (documents, licences, publishers). */
type ListOf = (endpoint: string) => Promise<unknown[]>;

export function open5eSource(
  version: Open5eVersion,
  s: Pick<Source, "label" | "short" | "contentTypes" | "byDefault"> & { id: DocumentSource },
  documents: (list: ListOf, run: SourceRun) => Promise<DocumentInfo[]>,
): Source {
  return {
    ...s,
    upstream: {
      baseUrlSetting: "open5eBaseUrl",
      envVar: "LOREKEEPER_OPEN5E_BASE_URL",
      probeUrl: (base) => open5eUrl(base, version),
    },
    open(run) {
      const client = new Open5eClient(run.http, { baseUrl: run.config.open5eBaseUrl });
      const opts = { pageSize: run.config.open5ePageSize, force: run.force };
      const list: ListOf = async (endpoint) => (await client.fetchAll(version, endpoint, opts)).records;
      return {
        baseUrl: run.config.open5eBaseUrl,
        documents: () => documents(list, run),
        fetch: (_t, endpoint, onProgress) => fetchList({ client, version, run }, endpoint, onProgress),
      };
    },
  };
}

type Lister = { client: Open5eClient; version: Open5eVersion; run: SourceRun };

/**
 * One walk over an Open5e list. `changed` says how the data moved under the walk, in order: the
 * envelope count changed between pages, a record came twice (pages shifted: a record may also have
 * been missed, and replacing the stored set with the list would drop good records), a page failed
 * after such a change. `whole` is false when the count moved or a page failed: the list is not all of
 * it, whatever a second read shows.
 */
async function walk({ client, version, run }: Lister, endpoint: string, force: boolean, onProgress: FetchProgress) {
  const records: unknown[] = [];
  const warnings: string[] = [];
  const ids = new Set<string>();
  const moves: string[] = [];
  let countMoved = false;
  let twice = false;
  let cut = false;
  try {
    const opts = { force, pageSize: run.config.open5ePageSize };
    for await (const page of client.pages(version, endpoint, opts)) {
      if (!countMoved && page.count !== null && page.totalCount !== null && page.count !== page.totalCount) {
        countMoved = true;
        moves.push(`its record count changed from ${page.totalCount} to ${page.count} between pages`);
      }
      for (const r of page.results) {
        const id = rec(r)?.[version === "v1" ? "slug" : "key"];
        if (typeof id === "string") {
          if (!twice && ids.has(id)) {
            twice = true;
            moves.push(`record ${id} came twice (pages shifted)`);
          }
          ids.add(id);
        }
        records.push(r);
      }
      warnings.push(...page.warnings);
      onProgress(page.recordsSoFar, page.totalCount, page.page);
    }
  } catch (err) {
    // After a change, a failing page (e.g. "Invalid page." past the new end) is part of that change.
    if (moves.length === 0 || !(err instanceof UpstreamError)) throw err;
    moves.push(err.message.split(". ")[0]!);
    cut = true;
  }
  const fetched: FetchedRecords = { records, warnings, skipped: 0 };
  return { fetched, changed: moves.length ? moves.join(", then ") : undefined, whole: !countMoved && !cut };
}

/** Every record of one Open5e list, read again from the network when it changed while being read. */
async function fetchList(l: Lister, endpoint: string, onProgress: FetchProgress): Promise<FetchedRecords> {
  const first = await walk(l, endpoint, l.run.force, onProgress);
  if (!first.changed) return first.fetched;
  const { client, version } = l;
  log.info(`${version}/${endpoint} changed upstream while it was being listed (${first.changed}); listing it again`);
  const second = await walk(l, endpoint, true, onProgress);
  // A record seen twice again is tolerated (a list may hold one twice); a count that moves again, or
  // a list cut short by a failing page, is not a whole list.
  if (!second.whole) {
    throw new UpstreamError(
      "pagination",
      client.listUrl(version, endpoint),
      `Open5e ${version}/${endpoint} kept changing while it was being listed (${second.changed}), so the list cannot ` +
        `be trusted to be complete; ` +
        "the previous data is kept. Run `lorekeeper sync` again in a while.",
    );
  }
  return second.fetched;
}
