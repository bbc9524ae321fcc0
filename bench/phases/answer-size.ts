/**
 * Answer sizes: characters an assistant's context pays for. Over the same stdio
 * connection as the latency phase: tools/list, the default answer of ordinary DM questions (each
 * with its total and whether paging reaches the end), and the largest default answer of every
 * call in the mix.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { StdioConnection } from "../lib/proc.ts";
import type { CallSpec } from "../queries.ts";

/** Ordinary DM questions, as a model would first ask them (default limit 20 unless set). */
export const DM_QUESTIONS: ReadonlyArray<[string, Record<string, unknown>]> = [
  ["search_creature", {}],
  ["search_creature", { type: "dragon", cr_min: 10 }],
  ["search_creature", { type: "undead", cr_max: 5 }],
  ["search_creature", { search: "undead that drain life" }],
  ["search_spell", {}],
  ["search_spell", { concentration: true, ritual: true }],
  ["search_spell", { class_key: "wizard", level: 3 }],
  ["search_spell", { search: "heal wounds" }],
  ["search_equipment", { type: "magic-item", rarity: "rare" }],
  ["search_equipment", { type: "weapon" }],
  ["search_character_option", { type: "feat" }],
  ["search_rule", { rule_type: "condition" }],
  ["search_all", { query: "fire breathing beast" }],
];

export interface AnswerSizeRow {
  call: string;
  chars: number;
  count: number;
  total: number;
  /** Paging with next_offset reached the end (every page ≤ the budget, no error). */
  pagedToEnd: boolean;
  pages: number;
  /** The whole tools/call result as sent (text block + structuredContent + any other block). */
  wireChars: number;
  /** What one resource_link block per row would add (the answers carry none; docs/benchmark.md). */
  linkChars: number;
}

/** The seven lookup tools, sized one by one (the tools past lookup are measured in the total). */
const LOOKUP_TOOLS = [
  "search_spell",
  "search_creature",
  "search_character_option",
  "search_equipment",
  "search_rule",
  "search_all",
  "list_documents",
];

export interface AnswerSizeResult {
  toolsListChars: number;
  /** `{tools}` of the seven lookup tools only. */
  lookupToolsChars: number;
  /** `{tools}` of the nine the target counts: the seven and build_encounter, class_progression. */
  nineToolsChars: number;
  /** What the MCP Apps card links (`_meta`) add; hosts read them, the model does not: outside the targets. */
  cardLinkChars: number;
  rows: AnswerSizeRow[];
  /** Largest default answer of the call mix, and which call. */
  maxMix: { id: string; chars: number };
}

function textOf(res: CallToolResult): string {
  const first = res.content[0];
  return first && first.type === "text" ? first.text : "";
}

/** Characters of one resource_link block per result row, as the answers carried them before (comma included). */
function linkChars(res: CallToolResult): number {
  const rows = ((res.structuredContent ?? {}) as { results?: Array<{ uri?: unknown; name?: unknown }> }).results ?? [];
  const already = res.content.filter((c) => c.type === "resource_link").length;
  if (already) return JSON.stringify(res.content.filter((c) => c.type === "resource_link")).length - 1;
  return rows.reduce(
    (n, r) =>
      n +
      JSON.stringify({ type: "resource_link", uri: String(r.uri), name: String(r.name), mimeType: "application/json" })
        .length +
      1,
    0,
  );
}

interface Paged {
  count?: number;
  total?: number;
  has_more?: boolean;
  next_offset?: number;
}

export async function measureAnswerSizes(
  conn: StdioConnection,
  specs: readonly CallSpec[],
  responseChars: Map<string, number>,
): Promise<AnswerSizeResult> {
  const list = await conn.client.listTools();
  const toolsListChars = JSON.stringify(list).length;
  const modelSees = list.tools.map(({ _meta, ...t }) => t);
  const cardLinkChars = JSON.stringify(list.tools).length - JSON.stringify(modelSees).length;
  const lookupToolsChars = JSON.stringify({ tools: modelSees.filter((t) => LOOKUP_TOOLS.includes(t.name)) }).length;
  const nineToolsChars = JSON.stringify({
    tools: modelSees.filter((t) => [...LOOKUP_TOOLS, "build_encounter", "class_progression"].includes(t.name)),
  }).length;
  const rows: AnswerSizeRow[] = [];
  for (const [tool, args] of DM_QUESTIONS) {
    const res = (await conn.client.callTool({ name: tool, arguments: args })) as CallToolResult;
    const a = (res.structuredContent ?? {}) as Paged;
    let pages = 1;
    let next = a.has_more ? a.next_offset : undefined;
    let ok = !res.isError;
    // Page to the end with limit 100 (bounded: the biggest lists have a few thousand entries).
    while (ok && next !== undefined && pages < 60) {
      const p = (await conn.client.callTool({
        name: tool,
        arguments: { ...args, limit: 100, offset: next },
      })) as CallToolResult;
      const pa = (p.structuredContent ?? {}) as Paged;
      ok = !p.isError && (pa.count ?? 0) > 0;
      next = pa.has_more ? pa.next_offset : undefined;
      pages++;
    }
    rows.push({
      call: `${tool} ${JSON.stringify(args)}`,
      chars: textOf(res).length,
      count: a.count ?? 0,
      total: a.total ?? 0,
      pagedToEnd: ok && next === undefined,
      pages,
      wireChars: JSON.stringify(res).length,
      linkChars: linkChars(res),
    });
  }
  let maxMix = { id: "", chars: 0 };
  for (const s of specs) {
    const c = responseChars.get(s.id) ?? 0;
    if (c > maxMix.chars) maxMix = { id: s.id, chars: c };
  }
  return { toolsListChars, lookupToolsChars, nineToolsChars, cardLinkChars, rows, maxMix };
}

export interface SizeCheck {
  goal: string;
  measured: string;
  pass: boolean;
}

/**
 * 20 compact rows ≤ 6,000; no default answer > 25,000; tools/list ≤ 12,000 for the seven lookup tools, ≤ 15,000
 * for all; every question pages to its end.
 */
export function answerSizeChecks(r: AnswerSizeResult): SizeCheck[] {
  const twenty = r.rows.filter((x) => x.count === 20);
  const sizes = twenty.map((x) => x.chars).sort((a, b) => a - b);
  const median = sizes[Math.floor(sizes.length / 2)] ?? 0;
  const max = Math.max(0, ...sizes);
  const biggest = Math.max(r.maxMix.chars, ...r.rows.map((x) => x.chars));
  return [
    {
      goal: "default answer of 20 compact rows ≤ 6,000 chars",
      measured: `median ${median}, max ${max} over ${twenty.length} DM questions`,
      pass: max <= 6000,
    },
    {
      goal: "no default answer of any tool > 25,000 chars",
      measured: `largest ${biggest} (${r.maxMix.chars >= biggest ? r.maxMix.id : "a DM question"})`,
      pass: biggest <= 25_000,
    },
    {
      goal: "tools/list ≤ 12,000 chars for the seven lookup tools",
      measured: `${r.lookupToolsChars}`,
      pass: r.lookupToolsChars <= 12_000,
    },
    {
      goal: "tools/list ≤ 15,000 chars for the nine (seven + build_encounter, class_progression)",
      measured: `${r.nineToolsChars} (every tool: ${r.toolsListChars}, of which card links ${r.cardLinkChars})`,
      pass: r.nineToolsChars <= 15_000,
    },
    {
      goal: "every DM question states its total and pages to the end",
      measured: `${r.rows.filter((x) => x.pagedToEnd).length} of ${r.rows.length}`,
      pass: r.rows.every((x) => x.pagedToEnd),
    },
  ];
}

/** The wire of the DM questions: text + structuredContent, and what per-row resource_links would add. */
function wireLine(r: AnswerSizeResult): string {
  const text = r.rows.reduce((n, x) => n + x.chars, 0);
  const wire = r.rows.reduce((n, x) => n + x.wireChars, 0);
  const links = r.rows.reduce((n, x) => n + x.linkChars, 0);
  const rows = r.rows.reduce((n, x) => n + x.count, 0);
  return (
    `wire (${r.rows.length} DM questions, ${rows} rows): ${wire} chars = ` +
    `${(wire / Math.max(1, text)).toFixed(2)}× the text; a resource_link per row would add ${links} ` +
    `(+${Math.round((100 * links) / Math.max(1, wire))}%, ${Math.round(links / Math.max(1, rows))} per row)`
  );
}

export function answerSizeTable(
  r: AnswerSizeResult,
  table: (head: string[], rows: Array<Array<string | number>>, right?: Set<number>) => string,
): string {
  return [
    table(
      ["DM question (default answer)", "chars", "count", "total", "pages to end", "wire", "+links"],
      r.rows.map((x) => [
        x.call.length > 70 ? `${x.call.slice(0, 69)}…` : x.call,
        x.chars,
        x.count,
        x.total,
        x.pagedToEnd ? x.pages : `NO (${x.pages})`,
        x.wireChars,
        x.linkChars,
      ]),
      new Set([1, 2, 3, 4, 5, 6]),
    ),
    wireLine(r),
    `tools/list: ${r.toolsListChars} chars (seven lookup tools ${r.lookupToolsChars}, the nine ` +
      `${r.nineToolsChars}); largest default answer in the call mix: ${r.maxMix.chars} chars (${r.maxMix.id})`,
  ].join("\n");
}
