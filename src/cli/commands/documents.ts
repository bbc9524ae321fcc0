/** `lorekeeper documents`: what the store holds, per document. */
import { DOCUMENT_SOURCES, type DocumentSource } from "../../entities/types.ts";
import { openStore } from "../../store/db.ts";
import { listDocuments } from "../../store/documents.ts";
import { listSyncState } from "../../store/sync-state.ts";
import { parse } from "../args.ts";
import { type Command, EXIT_OK, UsageError } from "../command.ts";
import { table } from "../progress.ts";

const HELP = `Usage: lorekeeper documents [--source S] [--json] [--db-path PATH]

List the documents (books, SRDs, OrcBrew packs) in the local store with their entity counts,
sorted by entity count.

Options:
  --source S   open5e_v2 | open5e_v1 | dnd5e_api | orcbrew
  --json       JSON on stdout
  --db-path P  the store (default $XDG_DATA_HOME/lorekeeper/lorekeeper.db)`;

export const documentsCommand: Command = {
  name: "documents",
  summary: "list the documents in the local store",
  help: HELP,
  async run(argv) {
    const { values } = parse(argv, { source: { type: "string" }, json: { type: "boolean" } });
    const source = values.source as DocumentSource | undefined;
    if (source && !DOCUMENT_SOURCES.includes(source)) throw new UsageError(`unknown --source "${source}". Valid: ${DOCUMENT_SOURCES.join(", ")}`);
    const store = openStore({ path: values["db-path"], fallbackReadonly: true });
    try {
      const docs = listDocuments(store.db, source);
      if (values.json) {
        process.stdout.write(`${JSON.stringify({ documents: docs, sync_state: listSyncState(store.db) }, null, 2)}\n`);
        return EXIT_OK;
      }
      if (docs.length === 0) {
        process.stdout.write(`No documents found in ${store.path}.\nFill it with \`lorekeeper sync\` (Open5e, D&D 5e API) or \`lorekeeper import <file.orcbrew>\`.\n`);
        return EXIT_OK;
      }
      const rows = docs.map((d) => [
        d.key,
        d.name.length > 48 ? `${d.name.slice(0, 47)}…` : d.name,
        d.source,
        d.entity_count,
        Object.entries(d.counts)
          .sort((a, b) => b[1] - a[1])
          .map(([k, n]) => `${k} ${n}`)
          .join(", "),
      ]);
      process.stdout.write(`${table(["key", "name", "source", "entities", "per type"], rows, new Set([3]))}\n`);
      process.stdout.write(`\n${docs.length} documents, ${docs.reduce((a, d) => a + d.entity_count, 0)} entities in ${store.path}\n`);
      return EXIT_OK;
    } finally {
      store.close();
    }
  },
};
