/** `lorekeeper sync`: fetch every record from the sources into the local store. */
import { safeText } from "../../text/sanitize.ts";
import { checkpoint, openStore } from "../../store/db.ts";
import { DEFAULT_SOURCES, runSync, SYNC_SOURCES, type SyncSource, type TypeResult } from "../../ingest/sync.ts";
import { embedAfterIngest } from "../../ingest/after-ingest.ts";
import { list, parse } from "../args.ts";
import { type Command, EXIT_FAILED, EXIT_OK, EXIT_PARTIAL, UsageError } from "../command.ts";
import { Progress, printJson, table } from "../progress.ts";
import { runPack } from "./sync-pack.ts";
import { sourceById, UPSTREAM_ENV_VARS, upstreamsOf } from "../../sources/index.ts";

const SYNCED = SYNC_SOURCES.map((id) => sourceById(id)); // the sources with an upstream API
const OPT_IN = SYNC_SOURCES.filter((id) => !DEFAULT_SOURCES.includes(id));

const HELP = `Usage: lorekeeper sync [--source S ...] [--types T,...] [--force] [--no-embed] [--json] [--db-path PATH]
       lorekeeper sync --pack FILE|URL [--sha256 HEX] [--no-vectors] [--no-embed] [--json] [--db-path PATH]

Fetch every record of each content type from the upstream APIs into the local store, replacing
each type atomically (a failed or interrupted sync keeps the previous data). Types synced within
the cache TTL (LOREKEEPER_CACHE_TTL_DAYS, default 7) are skipped without a request unless --force.
New or changed entities are then embedded for semantic search (when a model is available).

With --pack, load a content pack instead of contacting the APIs: lorekeeper-content.db.gz, a
release asset (or written by \`bun run build -- --content DB\`), holding every entity and its vectors.
Its checksum is checked against --sha256 or the .sha256 file beside it, and its vectors must come
from the model this installation uses (refused otherwise; --no-vectors loads the content alone and
embeds it here). Each content type in the pack replaces the same type in the store; homebrew and
types the pack lacks stay.

Options:
  --pack P       load the content pack at path or http(s) URL P (offline for a path)
  --sha256 HEX   the pack's expected SHA-256 (default: the .sha256 file beside it, if any)
  --no-vectors   with --pack: load the content without the pack's vectors
  --source S     ${SYNC_SOURCES.join(" | ")} (repeatable or comma-separated;
                 default: ${DEFAULT_SOURCES.join(",")}${OPT_IN.length ? `; ${OPT_IN.join(", ")} opt-in` : ""})
  --types T      content types / endpoints / kinds, e.g. spells,creatures,rules,spell
  --force        refetch even when fresh (ignores the HTTP cache for reads)
  --no-embed     skip computing embeddings
  --json         print the summary as JSON on stdout
  --db-path P    the store (default $XDG_DATA_HOME/lorekeeper/lorekeeper.db)

Environment: ${UPSTREAM_ENV_VARS.join(", ")} (mirrors),
LOREKEEPER_CACHE_TTL_DAYS, LOREKEEPER_ERROR_CACHE_TTL_SECONDS.

Exit codes: 0 ok, 1 failed, 2 partial (some types failed or records were skipped).`;

function statusWord(r: TypeResult): string {
  return r.status === "fresh" ? "fresh (skipped)" : r.status;
}

export const syncCommand: Command = {
  name: "sync",
  summary: `fetch content from the upstream APIs (${SYNCED.map((s) => s.label).join(", ")}) into the local store`,
  help: HELP,
  async run(argv, ctx) {
    const { values } = parse(argv, {
      source: { type: "string", multiple: true },
      types: { type: "string", multiple: true },
      force: { type: "boolean" },
      "no-embed": { type: "boolean" },
      json: { type: "boolean" },
      pack: { type: "string" },
      sha256: { type: "string" },
      "no-vectors": { type: "boolean" },
    });
    if (values.pack !== undefined) {
      if (values.source || values.types || values.force)
        throw new UsageError("--pack loads a content pack instead of syncing: leave out --source, --types and --force");
      return runPack(
        values.pack,
        {
          dbPath: values["db-path"],
          sha256: values.sha256,
          withVectors: !values["no-vectors"],
          embed: !values["no-embed"],
          json: values.json,
        },
        ctx,
      );
    }
    if (values.sha256 || values["no-vectors"]) throw new UsageError("--sha256 and --no-vectors go with --pack");
    const sources = list(values.source) as SyncSource[] | undefined;
    for (const s of sources ?? []) {
      if (!SYNC_SOURCES.includes(s)) throw new UsageError(`unknown --source "${s}". Valid: ${SYNC_SOURCES.join(", ")}`);
    }
    const cfg = ctx.config;
    const store = openStore({ path: values["db-path"] });
    const progress = new Progress(cfg.ci);
    const starts = new Map<string, number>();
    try {
      const synced = (sources ?? DEFAULT_SOURCES).map((id) => sourceById(id));
      const bases = [...new Set(upstreamsOf(cfg, synced).map((u) => u.baseUrl))];
      progress.line(`Syncing into ${store.path} from ${bases.join(" and ")}`);
      const report = await runSync(store, {
        sources,
        types: list(values.types),
        force: values.force,
        config: cfg,
        onEvent: (e) => {
          if (e.type === "type-start") starts.set(`${e.source} ${e.contentType}`, Date.now());
          else if (e.type === "progress") {
            const label = `${e.source} ${e.contentType}`;
            const line = { label, done: e.records, total: e.totalRecords, startedAt: starts.get(label) ?? Date.now() };
            progress.update(line, ` (${e.pages} page${e.pages === 1 ? "" : "s"})`);
          } else {
            const r = e.result;
            progress.line(
              `${r.source} ${r.contentType}: ${statusWord(r)}, ${r.records} records` +
                `${r.skipped ? `, ${r.skipped} skipped` : ""}, ${r.requests} requests, ${r.durationMs} ms` +
                `${r.error ? ` — ${r.error}` : ""}`,
            );
          }
        },
      });
      const embed = values["no-embed"]
        ? undefined
        : await embedAfterIngest(store, { embedder: ctx.embedder(), config: cfg }, (m) => progress.line(m), "sync");
      const fetched = report.results.filter((r) => r.status !== "fresh").reduce((a, r) => a + r.records, 0);
      const rate = report.durationMs > 0 ? Math.round((fetched / report.durationMs) * 1000) : 0;
      if (values.json) {
        printJson({ ...report, records_per_second: rate, embeddings: embed ?? null });
      } else {
        const headers = [
          "source",
          "type",
          "status",
          "records",
          "skipped",
          "new",
          "changed",
          "deleted",
          "requests",
          "ms",
        ];
        const rows = report.results.map((r) => {
          const counts = [r.records, r.skipped, r.inserted, r.updated, r.deleted, r.requests, r.durationMs];
          return [r.source, r.contentType, statusWord(r), ...counts];
        });
        process.stdout.write(`${table(headers, rows, new Set([3, 4, 5, 6, 7, 8, 9]))}\n`);
        process.stdout.write(
          `\n${report.status.toUpperCase()}: ${fetched} records fetched in ` +
            `${(report.durationMs / 1000).toFixed(1)} s (${rate} records/s), ${report.requests} requests; ` +
            `${report.records} records stored for these types.${embed ? ` ${embed.summary}` : ""}\n`,
        );
        for (const r of report.results.filter((x) => x.status === "failed"))
          process.stdout.write(safeText(`  ${r.source} ${r.contentType}: ${r.error}\n`));
      }
      return report.status === "ok" ? EXIT_OK : report.status === "partial" ? EXIT_PARTIAL : EXIT_FAILED;
    } finally {
      checkpoint(store);
      store.close();
    }
  },
};
