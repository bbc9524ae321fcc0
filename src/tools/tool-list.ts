/**
 * The tools/list answer, computed once per process from TOOLS (static schemas). Each schema is
 * turned into JSON Schema 2020-12 (the dialect of MCP 2026-07-28, also valid for 2025 clients:
 * LoreKeeper's schemas use no keyword whose meaning differs between the drafts) through the
 * Standard Schema JSON interface, the one the SDK's McpServer uses. Why a cache at all: the
 * conversion costs milliseconds (docs/benchmark.md, "Figures behind the code"), and the HTTP front
 * builds one server per request.
 */
import type { ListToolsResult, Tool } from "@modelcontextprotocol/server";
import { CARD_URIS } from "./answer/card-uris.ts";
import type { ToolDef } from "./kit/define.ts";
import { TOOLS } from "./index.ts";
import { leanTools } from "./kit/lean-schema.ts";

function toolEntry(def: ToolDef): Tool {
  const card = CARD_URIS[def.name];
  return {
    name: def.name,
    title: def.title,
    description: def.description,
    inputSchema: def.input["~standard"].jsonSchema.input({ target: "draft-2020-12" }) as Tool["inputSchema"],
    annotations: def.annotations,
    outputSchema: def.output["~standard"].jsonSchema.output({ target: "draft-2020-12" }) as Tool["outputSchema"],
    // MCP Apps: the card a host may render from the structured answer (card-uris.ts). Only the
    // current key: the deprecated flat "ui/resourceUri" would cost tools/list ~150 characters.
    ...(card ? { _meta: { ui: { resourceUri: card } } } : {}),
  };
}

let cached: ListToolsResult | undefined;
let computed = 0;

/** The tools/list answer (computed at the first call, then shared by every server of the process). */
export function toolListAnswer(): ListToolsResult {
  if (!cached) {
    computed++;
    // Lean: the schema noise a model pays for in every context is dropped (lean-schema.ts).
    cached = { tools: leanTools(TOOLS.map(toolEntry)) };
  }
  return cached;
}

/** How many times this process computed the answer (tests: once). */
export function toolListComputations(): number {
  return computed;
}
