/** list_documents: the books and packs in the local store, with counts per content type. */
import type { CallToolResult } from "@modelcontextprotocol/server";
import * as z from "zod";
import { type DocumentRow, mergedDocumentRows } from "../store/documents.ts";
import { lastSyncedAt } from "../store/sync-state.ts";
import { CACHES } from "../store/caches.ts";
import type { ToolDef } from "./kit/define.ts";
import { defineTool } from "./kit/define.ts";
import { numeric, offset, vocab, vocabWithDefault } from "./kit/params.ts";
import { buildMetadata, paging } from "./answer/response.ts";
import { DOCUMENT_SOURCES } from "../entities/types.ts";
import { FORMATS } from "./kit/vocab.ts";
import { safeLine, safeText } from "../text/sanitize.ts";

const input = z
  .object({
    source: vocab(DOCUMENT_SOURCES, "", {
      open5e: "open5e_v2",
      dnd5eapi: "dnd5e_api",
      "dnd5e-api": "dnd5e_api",
    }).optional(),
    format: vocabWithDefault(FORMATS, "json", "text: aligned columns"),
    limit: z.preprocess(numeric, z.number().int().min(1).max(500).default(100)).describe(""),
    offset: offset(),
  })
  .strict();

const documentSchema = z.object({
  key: z.string(),
  name: z.string(),
  /** the sources holding it, joined by "+" (the one whose copies answer first) */
  source: z.string(),
  publisher: z.string().nullable(),
  license: z.string().nullable(),
  entity_count: z.number().int(),
  counts: z.record(z.string(), z.number().int()),
});

const listDocumentsOutput = z.looseObject({
  documents: z.array(documentSchema),
  count: z.number().int(),
  total: z.number().int(),
  offset: z.number().int(),
  has_more: z.boolean(),
  next_offset: z.number().int().optional(),
  message: z.string().optional(),
  metadata: z.looseObject({}),
});

const EMPTY_MESSAGE =
  "No documents found in cache. The local store is empty: run `lorekeeper sync` to download the Open5e and " +
  "D&D 5e API content, or `lorekeeper import <file.orcbrew | file.json>` to add homebrew. Search tools also " +
  "download what they need on first use.";

/** Aligned columns: key, name, source, entity count, then counts per type. */
function documentsTable(rows: DocumentRow[]): string {
  const head = ["KEY", "NAME", "SOURCE", "ENTITIES", "BY TYPE"];
  const body = rows.map((r) => [
    safeLine(r.key),
    safeLine(r.name.length > 48 ? `${r.name.slice(0, 47)}…` : r.name),
    r.source,
    String(r.entity_count),
    Object.entries(r.counts)
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .map(([k, n]) => `${k} ${n}`)
      .join(", "),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : i === 3 ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  return [line(head), ...body.map(line)].join("\n");
}

export const listDocumentsTool: ToolDef = defineTool({
  name: "list_documents",
  title: "List documents",
  description: [
    "Books and homebrew held locally (SRDs, Open5e, OrcBrew, 5etools), with license and entry counts; their " +
      "keys go in other tools' `documents`.",
    'E.g. {"format": "text"}.',
  ].join("\n"),
  input,
  output: listDocumentsOutput,
  openWorld: false,
  async run(a, ctx): Promise<CallToolResult> {
    // Grouping the whole entities table reads every row: done once per store version (and source).
    // One row per document, as `lorekeeper documents` shows it (SRD 5.1 from three sources is one row).
    const all = CACHES.documentRows.get(ctx.deps.db, a.source ?? "", () => mergedDocumentRows(ctx.deps.db, a.source));
    const offset = a.offset ?? 0;
    const rows = all.slice(offset, offset + a.limit);
    const now = ctx.deps.now?.() ?? new Date();
    const sources = rows.map((r) => r.source);
    const meta = buildMetadata(sources, now, lastSyncedAt(ctx.deps.db));
    const message =
      all.length === 0
        ? a.source
          ? `No documents found in cache for source ${a.source}.`
          : EMPTY_MESSAGE
        : rows.length === 0
          ? `offset ${offset} is past the end: there are ${all.length} documents.`
          : undefined;
    const answer = {
      documents: rows,
      ...paging(offset, rows.length, all.length),
      ...(message ? { message } : {}),
      metadata: meta,
    };
    const text =
      a.format === "text"
        ? rows.length === 0
          ? (message ?? "")
          : safeText(documentsTable(rows))
        : JSON.stringify(answer);
    return { content: [{ type: "text", text }], structuredContent: answer };
  },
});
