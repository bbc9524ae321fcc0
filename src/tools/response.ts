/**
 * The shape of every search tool's answer (the response budget that keeps it under client limits
 * is in budget.ts). Pure functions: entities in, a CallToolResult out.
 *
 * The answer is sent twice, as `structuredContent` and as a JSON text block carrying the same
 * complete object (clients that ignore structured content still get everything). The budget is
 * measured on that text.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import * as z from "zod";
import type { Entity, JsonObject, JsonValue } from "../entities/types.ts";
import type { SearchHit, SearchMode } from "../search/types.ts";

export type FlatResult = { [k: string]: JsonValue };

export function entityUri(kind: string, key: string): string {
  return `lorekeeper://${kind}/${encodeURIComponent(key)}`;
}

/** One entity as users see it: identity and attribution first, then the entity's own fields. */
export function flattenEntity(e: Entity, similarity?: number): FlatResult {
  const out: FlatResult = {
    key: e.key,
    name: e.name,
    kind: e.kind,
    document_key: e.document_key,
    document_name: e.document_name,
    document_source: e.document_source,
    source_url: e.source_url,
    uri: entityUri(e.kind, e.key),
  };
  for (const [k, v] of Object.entries(e.data as JsonObject)) if (!RESERVED.includes(k)) out[k] = v;
  if (similarity !== undefined) out.similarity_score = Math.round(Math.min(1, Math.max(0, similarity)) * 10000) / 10000;
  return out;
}

export interface ResponseMetadata {
  generated_at: string;
  data_synced_at: string | null;
  sources: string[];
}

export interface SearchAnswer {
  results: FlatResult[];
  count: number;
  search_mode: SearchMode;
  message?: string;
  truncated?: boolean;
  metadata: ResponseMetadata;
}

const metadataSchema = z.object({
  generated_at: z.string().describe("When this answer was produced (ISO 8601)"),
  data_synced_at: z.string().nullable().describe("When the local data was last synced from upstream (ISO 8601), null if never"),
  sources: z.array(z.string()).describe("Upstream sources of the results (open5e_v2, open5e_v1, dnd5e_api, orcbrew)"),
});

export const resultSchema = z.looseObject({
  key: z.string(),
  name: z.string(),
  kind: z.string(),
  document_key: z.string(),
  document_name: z.string(),
  document_source: z.string(),
  source_url: z.string(),
  uri: z.string().describe("Resource URI of the full entry"),
  similarity_score: z.number().min(0).max(1).optional().describe("0..1, present when ranked by a natural-language query"),
});

/**
 * Fields every result carries, set by LoreKeeper (the keys of resultSchema, so written once): entity
 * data never overrides them, and the budget (budget.ts) never shortens them.
 */
export const RESERVED: readonly string[] = Object.keys(resultSchema.shape);

export const searchOutputSchema = z.object({
  results: z.array(resultSchema),
  count: z.number().int().describe("Number of results returned"),
  search_mode: z.enum(["structured", "lexical", "hybrid"]).describe("structured = filters only; lexical = keyword ranking; hybrid = keyword + semantic ranking"),
  message: z.string().optional().describe("Something to read: no data yet, unknown document keys, shortened fields..."),
  truncated: z.boolean().optional().describe("True when long fields were shortened or results dropped to fit the response budget"),
  metadata: metadataSchema,
});

export function buildMetadata(results: FlatResult[], now: Date, syncedAtMs: number | null): ResponseMetadata {
  const sources = [...new Set(results.map((r) => String(r.document_source)))].sort();
  return {
    generated_at: now.toISOString(),
    data_synced_at: syncedAtMs === null ? null : new Date(syncedAtMs).toISOString(),
    sources,
  };
}

/** The text twin of a structured answer. Compact: every character counts against the budget. */
export function answerText(answer: object): string {
  return JSON.stringify(answer);
}

/** A tool result carrying `answer` twice: as JSON text (`text` when already serialized) and as structured content. */
export function toolAnswer(answer: object, text: string = answerText(answer)): CallToolResult {
  return {
    content: [{ type: "text", text }],
    structuredContent: answer as { [k: string]: unknown },
  };
}

export function toolError(message: string): CallToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}

/** A SearchHit list → flat results. */
export function flattenHits(hits: SearchHit[]): FlatResult[] {
  return hits.map((h) => flattenEntity(h.entity, h.similarity_score));
}
