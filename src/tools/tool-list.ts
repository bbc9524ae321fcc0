/**
 * The tools/list answer, computed once per process from TOOLS (static schemas) with the SDK's own
 * zod → JSON Schema conversion, so it is exactly what McpServer would list. Why a cache at all:
 * McpServer converts every schema on every tools/list (measured ≈ 26 ms per server on this
 * machine, 200 ms for the first), and the HTTP transport builds one server per session.
 * The server installs it with the SDK's public `setRequestHandler` (which replaces McpServer's
 * handler); test/server/tool-caches.test.ts checks it equals McpServer's own answer.
 */
import { normalizeObjectSchema } from "@modelcontextprotocol/sdk/server/zod-compat.js";
import { toJsonSchemaCompat } from "@modelcontextprotocol/sdk/server/zod-json-schema-compat.js";
import type { ListToolsResult, Tool } from "@modelcontextprotocol/sdk/types.js";
import type { ToolDef } from "./define.ts";
import { TOOLS } from "./index.ts";
import { leanToolList } from "./lean-schema.ts";

const EMPTY_OBJECT_JSON_SCHEMA = { type: "object" as const, properties: {} };

function toolEntry(def: ToolDef): Tool {
  const input = normalizeObjectSchema(def.input);
  const output = def.output ? normalizeObjectSchema(def.output) : undefined;
  return {
    name: def.name,
    title: def.title,
    description: def.description,
    inputSchema: (input ? toJsonSchemaCompat(input, { strictUnions: true, pipeStrategy: "input" }) : EMPTY_OBJECT_JSON_SCHEMA) as Tool["inputSchema"],
    annotations: def.annotations,
    // What McpServer.registerTool records for a tool registered without task support.
    execution: { taskSupport: "forbidden" },
    ...(output ? { outputSchema: toJsonSchemaCompat(output, { strictUnions: true, pipeStrategy: "output" }) as Tool["outputSchema"] } : {}),
  };
}

let cached: ListToolsResult | undefined;
let computed = 0;

/** The tools/list answer (computed at the first call, then shared by every server of the process). */
export function toolListAnswer(): ListToolsResult {
  if (!cached) {
    computed++;
    // Lean: the schema noise a model pays for in every context is dropped (lean-schema.ts).
    cached = leanToolList({ tools: TOOLS.map(toolEntry) });
  }
  return cached;
}

/** How many times this process computed the answer (tests: once). */
export function toolListComputations(): number {
  return computed;
}
