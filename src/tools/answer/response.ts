/**
 * The shape of every search tool's answer (its budget is budget.ts). Pure. The answer is sent twice, as
 * `structuredContent` and as a JSON text block of the same object (clients that ignore structured content still
 * get everything); the budget is measured on that text.
 */
import type { CallToolResult } from "@modelcontextprotocol/server";
import * as z from "zod";
import type { Entity, JsonObject, JsonValue } from "../../entities/types.ts";
import type { SearchMode } from "../../search/types.ts";
import { entityUri } from "../../entities/uri.ts";
import { safeText } from "../../text/sanitize.ts";

export type FlatResult = { [k: string]: JsonValue };

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
    uri: entityUri(e.kind, e.key, e.document_source),
  };
  for (const [k, v] of Object.entries(e.data as JsonObject)) if (!RESERVED.includes(k)) out[k] = v;
  if (similarity !== undefined) out.similarity_score = roundScore(similarity);
  return out;
}

/** A similarity as answers show it: clamped to 0–1, four decimals. */
export function roundScore(s: number): number {
  return Math.round(Math.min(1, Math.max(0, s)) * 10000) / 10000;
}

export interface SearchAnswer {
  results: FlatResult[];
  count: number;
  total: number;
  offset: number;
  has_more: boolean;
  next_offset?: number;
  detail: "summary" | "full";
  search_mode: SearchMode;
  message?: string;
  truncated?: boolean;
  metadata: ReturnType<typeof buildMetadata>;
}

/** The paging fields of an answer showing `count` entries from `offset` of `total`. */
export function paging(offset: number, count: number, total: number) {
  const more = offset + count < total;
  return { count, total, offset, has_more: more, ...(more ? { next_offset: offset + count } : {}) };
}

/** Fields of a result set by LoreKeeper: entity data never overrides them, and the budget never shortens them. */
export const RESERVED: readonly string[] = [
  "key",
  "name",
  "kind",
  "document_key",
  "document_name",
  "document_source",
  "source_url",
  "uri",
  "similarity_score",
  "other_documents",
  "other_versions",
];

/**
 * What tools/list says of a search answer: the rows, the total, whether more follow. The rest is documented in
 * docs/tools.md rather than in every listing: tools/list is paid for in every context (docs/benchmark.md).
 */
export const searchOutputSchema = z.looseObject({
  results: z.array(z.unknown()),
  total: z.number().int(),
  has_more: z.boolean(),
});

/** The answer's metadata; `sources`: the document sources its results come from (each once, sorted). */
export function buildMetadata(sources: readonly string[], now: Date, syncedAtMs: number | null) {
  return {
    generated_at: now.toISOString(),
    data_synced_at: syncedAtMs === null ? null : new Date(syncedAtMs).toISOString(),
    sources: [...new Set(sources)].sort(),
  };
}

/**
 * A tool result carrying `answer` twice: as JSON text (`text` when already serialized) and as
 * structured content. Its `message` echoes what the client sent ("No spell is named …"): control
 * and bidi characters in it are neutralised here, for every tool, and the text made again then.
 */
export function toolAnswer(answer: object, text: string = JSON.stringify(answer)): CallToolResult {
  const message = (answer as { message?: unknown }).message;
  if (typeof message === "string") {
    const safe = safeText(message);
    if (safe !== message) {
      (answer as { message: string }).message = safe;
      text = JSON.stringify(answer);
    }
  }
  return {
    content: [{ type: "text", text }],
    structuredContent: answer as { [k: string]: unknown },
  };
}

/** A tool's refusal; the text often quotes the client's own input, so controls and bidi are neutralised. */
export function toolError(message: string): CallToolResult {
  return { content: [{ type: "text", text: safeText(message) }], isError: true };
}
