/**
 * Reading a whole Open5e list (v1 or v2) for a sync: one walk over its pages, and a second from the
 * network when the data moved under the first. Shared by the open5e-v2 and open5e-v1 sources.
 */
import { log } from "../../log.ts";
import { UpstreamError } from "../http.ts";
import type { FetchedRecords, FetchProgress, SourceRun } from "../source.ts";
import type { Open5eClient } from "./client.ts";
import type { Open5eVersion } from "./urls.ts";

/**
 * One walk over an Open5e list. `changed` is set when the data moved under the walk: the envelope
 * count changed between pages, or a record came twice (pages shifted) — then a record may also
 * have been missed, and replacing the stored set with it would drop good records.
 */
async function walkOpen5e(
  client: Open5eClient,
  version: Open5eVersion,
  endpoint: string,
  run: SourceRun,
  force: boolean,
  onProgress: FetchProgress,
): Promise<FetchedRecords & { changed?: string }> {
  const records: unknown[] = [];
  const warnings: string[] = [];
  const ids = new Set<string>();
  let changed: string | undefined;
  try {
    for await (const page of client.pages(version, endpoint, {
      force,
      signal: run.signal,
      pageSize: run.config.open5ePageSize,
    })) {
      if (page.count !== null && page.totalCount !== null && page.count !== page.totalCount)
        changed ??= `its record count changed from ${page.totalCount} to ${page.count} between pages`;
      for (const r of page.results) {
        const id =
          r && typeof r === "object" ? (r as Record<string, unknown>)[version === "v1" ? "slug" : "key"] : undefined;
        if (typeof id === "string") {
          if (ids.has(id)) changed ??= `record ${id} came twice (pages shifted)`;
          ids.add(id);
        }
        records.push(r);
      }
      warnings.push(...page.warnings);
      onProgress(page.recordsSoFar, page.totalCount, page.page);
    }
  } catch (err) {
    // After a change, a failing page (e.g. "Invalid page." past the new end) is part of that change.
    if (!changed || !(err instanceof UpstreamError)) throw err;
    changed += `, then ${err.message.split(". ")[0]}`;
  }
  return { records, warnings, skipped: 0, ...(changed ? { changed } : {}) };
}

/** Every record of one Open5e list, read again from the network when it changed while being read. */
export async function fetchOpen5eList(
  client: Open5eClient,
  version: Open5eVersion,
  endpoint: string,
  run: SourceRun,
  onProgress: FetchProgress,
): Promise<FetchedRecords> {
  const first = await walkOpen5e(client, version, endpoint, run, run.force, onProgress);
  if (!first.changed) return first;
  // The list changed while it was read: read it again from the network (cached pages are stale).
  log.info(`${version}/${endpoint} changed upstream while it was being listed (${first.changed}); listing it again`);
  const second = await walkOpen5e(client, version, endpoint, run, true, onProgress);
  if (second.changed && /count changed/.test(second.changed)) {
    throw new UpstreamError(
      "pagination",
      client.listUrl(version, endpoint),
      `Open5e ${version}/${endpoint} kept changing while it was being listed (${second.changed}), so the list cannot ` +
        `be trusted to be complete; ` +
        "the previous data is kept. Run `lorekeeper sync` again in a while.",
    );
  }
  const { changed: _changed, ...rest } = second;
  return rest;
}

/** All records of a small metadata list (documents, licences, publishers). */
export async function fetchOpen5eAll(
  client: Open5eClient,
  version: Open5eVersion,
  endpoint: string,
  run: SourceRun,
): Promise<unknown[]> {
  return (
    await client.fetchAll(version, endpoint, {
      force: run.force,
      signal: run.signal,
      pageSize: run.config.open5ePageSize,
    })
  ).records;
}
