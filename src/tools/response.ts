/**
 * The shape of every search tool's answer, and the response budget that keeps it under client
 * limits. Pure functions: entities in, a CallToolResult out.
 *
 * The answer is sent twice, as `structuredContent` and as a JSON text block carrying the same
 * complete object (clients that ignore structured content still get everything). The budget is
 * measured on that text.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import * as z from "zod";
import type { Entity, JsonObject, JsonValue } from "../entities/types.ts";
import type { SearchHit, SearchMode } from "../search/types.ts";

/** Fields every result carries, set by LoreKeeper; entity data never overrides them. */
const RESERVED = ["key", "name", "kind", "document_key", "document_name", "document_source", "source_url", "uri", "similarity_score"];

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

const CAPS = [16000, 8000, 4000, 2000, 1000, 500, 250, 120];
const MARK = "… [truncated]";

function shortenString(s: string, cap: number): string {
  if (s.length <= cap) return s;
  const cut = s.slice(0, cap);
  const space = cut.lastIndexOf(" ");
  return `${space > cap * 0.7 ? cut.slice(0, space) : cut}${MARK}`;
}

function shortenValue(v: JsonValue, cap: number): JsonValue {
  if (typeof v === "string") return shortenString(v, cap);
  if (Array.isArray(v)) return v.map((x) => shortenValue(x, cap));
  if (v && typeof v === "object") {
    const o: { [k: string]: JsonValue } = {};
    for (const [k, x] of Object.entries(v)) o[k] = shortenValue(x, cap);
    return o;
  }
  return v;
}

function shortenResult(r: FlatResult, cap: number): FlatResult {
  const out: FlatResult = {};
  for (const [k, v] of Object.entries(r)) out[k] = RESERVED.includes(k) ? v : shortenValue(v, cap);
  return out;
}

/** Length of the longest string inside `v` (object keys excluded): what shortenValue may cut. */
function longestString(v: JsonValue): number {
  if (typeof v === "string") return v.length;
  let max = 0;
  if (Array.isArray(v)) for (const x of v) max = Math.max(max, longestString(x));
  else if (v && typeof v === "object") for (const k in v) max = Math.max(max, longestString(v[k]!));
  return max;
}

/** The longest string shortenResult may cut in `r`: at or under a cap, shortening leaves it as it is. */
function longestField(r: FlatResult): number {
  let max = 0;
  for (const k in r) if (!RESERVED.includes(k)) max = Math.max(max, longestString(r[k]!));
  return max;
}

function joinMessages(...parts: Array<string | undefined>): string | undefined {
  const m = parts.filter((p): p is string => !!p && p.trim().length > 0);
  return m.length ? m.join(" ") : undefined;
}

export interface BudgetOptions {
  budgetChars: number;
  /** Tool that answered, for the "how to get the full entry" hint. */
  tool: string;
}

/**
 * An answer's JSON text, assembled from its results serialized one by one: `answerText(answer)`
 * equals `{"results":[` + parts joined by "," + `]` + tail, where tail is the rest of the object
 * (results must be its first key). Lets the budget measure sizes without serializing everything
 * again for every try.
 */
const HEAD = '{"results":[';

function tailOf(answer: SearchAnswer): string | undefined {
  const env = JSON.stringify({ ...answer, results: [] });
  return env.startsWith(`${HEAD}]`) ? env.slice(HEAD.length + 1) : undefined;
}

function textLength(partLengths: number, n: number, tail: string): number {
  return HEAD.length + partLengths + Math.max(0, n - 1) + 1 + tail.length;
}

function assemble(parts: readonly string[], tail: string): string {
  return `${HEAD}${parts.join(",")}]${tail}`;
}

function sum(xs: readonly string[], n = xs.length): number {
  let t = 0;
  for (let i = 0; i < n; i++) t += xs[i]!.length;
  return t;
}

/** An answer fitted to the budget and its JSON text (what the text block carries). */
export interface FittedAnswer {
  answer: SearchAnswer;
  text: string;
}

/**
 * Fit an answer in the budget: first shorten long text fields (ever harder), then, if even the
 * shortest fields do not fit, drop results from the end. Sets `truncated` and explains how to get
 * the full entries. Every result is serialized once (again only when a cap shortens it), and the
 * text is assembled from those pieces.
 */
export function fitAnswer(given: SearchAnswer, opts: BudgetOptions): FittedAnswer {
  let tail0 = tailOf(given);
  // `results` first, as the text is assembled that way (spreading keeps that key in front).
  const answer: SearchAnswer = tail0 === undefined ? Object.assign({ results: given.results }, given) : given;
  tail0 ??= tailOf(answer)!;
  const full = answer.results;
  const fullParts = full.map((r) => JSON.stringify(r));
  if (textLength(sum(fullParts), full.length, tail0) <= opts.budgetChars) return { answer, text: assemble(fullParts, tail0) };
  const hint = (first: FlatResult | undefined) =>
    first
      ? `Long text fields were shortened to fit the response budget (${opts.budgetChars} characters). For a full entry, read its \`uri\` resource (e.g. ${String(first.uri)}) or call ${opts.tool} with name="${String(first.name)}" and limit=1.`
      : undefined;
  const longest = full.map(longestField);
  let results: FlatResult[] = full;
  let parts: string[] = fullParts;
  let candidate: SearchAnswer = answer;
  for (const cap of CAPS) {
    const prev = results;
    const prevParts = parts;
    results = full.map((r, i) => (longest[i]! > cap ? shortenResult(r, cap) : r));
    parts = results.map((r, i) => (r === prev[i] ? prevParts[i]! : JSON.stringify(r)));
    candidate = { ...answer, results, truncated: true, message: joinMessages(answer.message, hint(full[0])) };
    const tail = tailOf(candidate)!;
    if (textLength(sum(parts), parts.length, tail) <= opts.budgetChars) return { answer: candidate, text: assemble(parts, tail) };
  }
  // Still too big at the smallest cap: keep as many (shortened) results as fit (binary search).
  const shortest = results;
  const withFirst = (n: number): SearchAnswer => ({
    ...answer,
    results: shortest.slice(0, n),
    count: n,
    truncated: true,
    message: joinMessages(
      answer.message,
      `Only the first ${n} of ${full.length} results fit the response budget (${opts.budgetChars} characters); lower \`limit\` or narrow the query to see the rest.`,
      hint(full[0]),
    ),
  });
  const prefix = [0];
  for (const p of parts) prefix.push(prefix[prefix.length - 1]! + p.length);
  const fits = (n: number) => textLength(prefix[n]!, n, tailOf(withFirst(n))!) <= opts.budgetChars;
  let lo = 0;
  let hi = shortest.length - 1;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits(mid)) lo = mid;
    else hi = mid - 1;
  }
  const fitted = withFirst(lo);
  return { answer: fitted, text: assemble(parts.slice(0, lo), tailOf(fitted)!) };
}

/** fitAnswer without the text. */
export function fitToBudget(answer: SearchAnswer, opts: BudgetOptions): SearchAnswer {
  return fitAnswer(answer, opts).answer;
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
