/** `lorekeeper documents`: what the store holds, per document. */
import { DOCUMENT_SOURCES, type DocumentSource, HOMEBREW_SOURCES } from "../../entities/types.ts";
import { type RemovedDocument, removeHomebrewDocument } from "../../ingest/remove-homebrew.ts";
import { HOMEBREW_FILES, SOURCES, sourceById } from "../../sources/index.ts";
import { existsSync } from "node:fs";
import { dbPath } from "../../config.ts";
import { checkpoint, openStore } from "../../store/db.ts";
import { listDocuments, listDocumentsByKey } from "../../store/documents.ts";
import { listSyncState } from "../../store/sync-state.ts";
import { parse } from "../args.ts";
import { type Command, EXIT_OK, UsageError } from "../command.ts";
import { printJson, table } from "../progress.ts";
import { safeText } from "../../text/sanitize.ts";

const HELP = `Usage: lorekeeper documents [--source S] [--json] [--db-path PATH]
       lorekeeper documents remove <document-key> [--source orcbrew|5etools] [--dry-run] [--json] [--db-path PATH]

List the documents (books, SRDs, homebrew: OrcBrew packs, 5etools sources) in the local store with their entity counts,
sorted by entity count: one row per document, naming the sources that hold it (an entity two
sources carry counts once). --json lists each source's copy of a document separately.

\`documents remove KEY\` removes an imported homebrew document (an OrcBrew pack or a 5etools source;
KEY is the first column of the list, e.g. orcbrew-my-pack or 5etools-my-source): its entities, their
embeddings and search rows and the document itself, in one transaction. Synced documents (Open5e, the
D&D 5e API, a content pack) cannot be removed; \`lorekeeper sync\` keeps them in step with their source.

Options:
  --source S   ${DOCUMENT_SOURCES.join(" | ")} (with remove: ${HOMEBREW_SOURCES.join(" | ")}, when both hold KEY)
  --dry-run    remove: say what would be removed; change nothing
  --json       JSON on stdout
  --db-path P  the store (default $XDG_DATA_HOME/lorekeeper/lorekeeper.db)`;

/** Entity counts by kind, largest first: "spell 12", "creature 3". */
const byCount = (counts: Record<string, number>) =>
  Object.entries(counts)
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${k} ${n}`);

function removedText(d: RemovedDocument, dry: boolean): string {
  const kinds = byCount(d.counts).join(", ");
  const entities = `${d.entities} entit${d.entities === 1 ? "y" : "ies"}${kinds ? ` (${kinds})` : ""}`;
  const what = `${entities} and ${d.vectors} embedding${d.vectors === 1 ? "" : "s"}`;
  return `${dry ? "Would remove" : "Removed"} the ${d.source} document ${d.key} ("${d.name}"): ${what}.`;
}

/** \`documents remove KEY\`: one imported homebrew document out of the store. */
function runRemove(argv: string[]): number {
  const options = { source: { type: "string" }, "dry-run": { type: "boolean" }, json: { type: "boolean" } } as const;
  const { values, positionals } = parse(argv, options, true);
  if (positionals.length !== 1) {
    throw new UsageError(
      positionals.length === 0
        ? "give the key of the homebrew document to remove"
        : `remove one document at a time (got ${positionals.length} keys)`,
      "The key is the first column of `lorekeeper documents --source orcbrew` or `--source 5etools`.",
    );
  }
  const dry = values["dry-run"] ?? false;
  const path = dbPath(values["db-path"]);
  // Removing from a store that is not there would create an empty one (a mistyped --db-path).
  if (!existsSync(path)) {
    throw new UsageError(
      `there is no LoreKeeper store at ${path}`,
      "Give the store with --db-path, or import something first.",
    );
  }
  const store = openStore({ path, readonly: dry });
  try {
    const removed = removeHomebrewDocument(store.db, positionals[0]!, { source: values.source, dryRun: dry });
    if (values.json) printJson({ dry_run: dry, removed });
    else process.stdout.write(`${safeText(removed.map((d) => removedText(d, dry)).join("\n"))}\n`);
    if (!dry) checkpoint(store);
    return EXIT_OK;
  } finally {
    store.close();
  }
}

/** A source's short name for the table (its last lines say what each stands for); an unknown id as it is. */
const short = (id: string): string =>
  (DOCUMENT_SOURCES as readonly string[]).includes(id) ? sourceById(id as DocumentSource).short : id;

/** The sources `lorekeeper sync` fills the store from. */
const SYNC_LABELS = SOURCES.filter((s) => s.open)
  .map((s) => s.label)
  .join(", ");

/** What each short name stands for: the homebrew formats' legends, the APIs' labels. */
const LEGEND = SOURCES.map((s) => `${s.short} = ${s.homebrew?.legend ?? s.label}`).join(", ");

interface DocRow {
  key: string;
  name: string;
  source: string;
  entities: number;
  counts: Record<string, number>;
}

function clip(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, Math.max(1, max - 1))}…`;
}

/**
 * A document name in `max` characters that still tells editions apart: "System Reference
 * Document" is "SRD", and a name cut short keeps its last word ("SRD 5.1" and "SRD 5.2", "Tome of
 * Be… 2023"). Pure.
 */
export function shortName(name: string, max: number): string {
  const s = name.replace(/\bSystem Reference Document\b/gi, "SRD");
  if (s.length <= max) return s;
  const last = / (\S{1,8})$/.exec(s)?.[1];
  if (!last || max < last.length + 4) return clip(s, max);
  return `${s.slice(0, max - last.length - 2).trimEnd()}… ${last}`;
}

/**
 * Table rows that fit `width` columns (the terminal's, else 100): the name is shortened first,
 * then the per-type list keeps its largest types and says how many more. Pure.
 */
export function fitRows(docs: readonly DocRow[], width: number): Array<Array<string | number>> {
  const w = (head: string, cell: (d: DocRow) => string) => Math.max(head.length, ...docs.map((d) => cell(d).length));
  const fixed = w("key", (d) => d.key) + w("source", (d) => d.source) + w("entities", (d) => String(d.entities));
  const room = Math.max(20, width - fixed - 4 * 2); // four gaps of two spaces
  const nameW = Math.min(
    w("name", (d) => shortName(d.name, 200)),
    Math.max(12, Math.floor(room * 0.4)),
  );
  const typesW = Math.max(12, room - nameW);
  return docs.map((d) => {
    const parts = byCount(d.counts);
    let types = "";
    for (let i = 0; i < parts.length; i++) {
      const rest = parts.length - i - 1;
      const next = types ? `${types}, ${parts[i]}` : parts[i]!;
      const tail = rest ? `, +${rest} more` : "";
      if ((next + tail).length > typesW) {
        types = `${types}${types ? ", " : ""}+${parts.length - i} more`;
        break;
      }
      types = next;
    }
    return [d.key, shortName(d.name, nameW), d.source, d.entities, clip(types, typesW)];
  });
}

export const documentsCommand: Command = {
  name: "documents",
  summary: "list the documents in the local store; remove an imported homebrew one",
  help: HELP,
  async run(argv) {
    if (argv[0] === "remove") return runRemove(argv.slice(1));
    const { values } = parse(argv, { source: { type: "string" }, json: { type: "boolean" } });
    const source = values.source as DocumentSource | undefined;
    if (source && !DOCUMENT_SOURCES.includes(source))
      throw new UsageError(`unknown --source "${source}". Valid: ${DOCUMENT_SOURCES.join(", ")}`);
    const store = openStore({ path: values["db-path"], fallbackReadonly: true });
    try {
      const docs = listDocuments(store.db, source);
      if (values.json) {
        printJson({ documents: docs, sync_state: listSyncState(store.db) });
        return EXIT_OK;
      }
      if (docs.length === 0) {
        process.stdout.write(
          `No documents found in ${store.path}.\n` +
            `Fill it with \`lorekeeper sync\` (${SYNC_LABELS}) or \`lorekeeper import ${HOMEBREW_FILES}\`.\n`,
        );
        return EXIT_OK;
      }
      const byKey = listDocumentsByKey(store.db, source, docs);
      const rows = fitRows(
        byKey.map((d) => ({
          key: d.key,
          name: d.name,
          source: d.sources.map(short).join("+"),
          entities: d.entity_count,
          counts: d.counts,
        })),
        process.stdout.isTTY && process.stdout.columns ? process.stdout.columns : 100,
      );
      process.stdout.write(`${table(["key", "name", "sources", "entities", "per type"], rows, new Set([3]))}\n`);
      process.stdout.write(`sources: ${LEGEND}\n`);
      const entries = byKey.reduce((a, d) => a + d.entity_count, 0);
      const counted = "entries (each counted once, whatever sources hold it)";
      process.stdout.write(safeText(`\n${byKey.length} documents, ${entries} ${counted} in ${store.path}\n`));
      return EXIT_OK;
    } finally {
      store.close();
    }
  },
};
