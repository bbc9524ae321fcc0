/** list_documents: the books and packs in the local store, with counts per content type. */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import * as z from "zod";
import { type DocumentSummary, listDocuments } from "../store/documents.ts";
import { lastSyncedAt } from "../store/sync-state.ts";
import { CACHES } from "../store/caches.ts";
import type { ToolDef } from "./define.ts";
import { defineTool } from "./define.ts";
import { vocab, vocabWithDefault } from "./params.ts";
import { buildMetadata } from "./response.ts";
import { documentRows } from "../store/documents.ts";
import { FORMATS, SOURCES } from "./vocab.ts";
import { safeLine, safeText } from "../text/sanitize.ts";

const input = z
  .object({
    source: vocab(SOURCES, "Only documents from this source: open5e_v2, open5e_v1, dnd5e_api, orcbrew", {
      open5e: "open5e_v2",
      dnd5eapi: "dnd5e_api",
      "dnd5e-api": "dnd5e_api",
    }).optional(),
    format: vocabWithDefault(FORMATS, "json", "json (default): structured; text: aligned columns for reading"),
  })
  .strict();

const documentSchema = z.object({
  key: z.string().describe("Document key, usable in every tool's `documents` parameter"),
  name: z.string(),
  source: z.string().describe("open5e_v2, open5e_v1, dnd5e_api or orcbrew"),
  publisher: z.string().nullable(),
  license: z.string().nullable(),
  entity_count: z.number().int(),
  counts: z.record(z.string(), z.number().int()).describe("Entities per content type"),
});

export const listDocumentsOutput = z.object({
  documents: z.array(documentSchema),
  count: z.number().int(),
  message: z.string().optional(),
  metadata: z.object({ generated_at: z.string(), data_synced_at: z.string().nullable(), sources: z.array(z.string()) }),
});

export type DocumentRow = z.output<typeof documentSchema>;

const EMPTY_MESSAGE =
  "No documents found in cache. The local store is empty: run `lorekeeper sync` to download the Open5e and D&D 5e API content, or `lorekeeper import <file.orcbrew>` to add homebrew. Search tools also download what they need on first use.";

/** Aligned columns: key, name, source, entity count, then counts per type. */
export function documentsTable(rows: DocumentRow[]): string {
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
    "List the source documents (rulebooks, SRDs, homebrew packs) held in the local cache, with publisher, license and how many entries of each type they contain, largest first. Use the keys in the other tools' `documents` parameter. Shows cached documents only; it never calls upstream.",
    'Example: {"source": "open5e_v2"} or {"format": "text"}.',
  ].join("\n"),
  input,
  output: listDocumentsOutput,
  openWorld: false,
  async run(a, ctx): Promise<CallToolResult> {
    // Grouping the whole entities table takes ~25 ms: done once per store version (and source).
    const rows = CACHES.documentRows.get(ctx.deps.db, a.source ?? "", () => documentRows(listDocuments(ctx.deps.db, a.source)));
    const now = ctx.deps.now?.() ?? new Date();
    const meta = buildMetadata([], now, lastSyncedAt(ctx.deps.db));
    meta.sources = [...new Set(rows.map((r) => r.source))].sort();
    const message = rows.length === 0 ? (a.source ? `No documents found in cache for source ${a.source}.` : EMPTY_MESSAGE) : undefined;
    const answer = { documents: rows, count: rows.length, ...(message ? { message } : {}), metadata: meta };
    const text = a.format === "text" ? (rows.length === 0 ? (message ?? "") : safeText(documentsTable(rows))) : JSON.stringify(answer);
    return { content: [{ type: "text", text }], structuredContent: answer };
  },
});
