/**
 * buildServer: one McpServer with the tools, resources, prompts and completions over shared deps. Building it
 * is cheap and touches neither the model nor the network, so `initialize` and `tools/list` are
 * answered at once; HTTP builds one per request.
 *
 * tools/call goes through our own handler (replacing McpServer's) so that argument errors come
 * back as readable tool errors naming the parameter and the valid values, and unexpected failures
 * as a short message (details on stderr), never a stack trace. tools/list still comes from
 * McpServer, from the same zod schemas; converting them to JSON Schema takes 8–12 ms, so the
 * first server's answer is kept and every later server (one per HTTP request) reuses it.
 */
import { explained } from "../errors.ts";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import {
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  type ServerNotification,
  type ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import { APP_NAME, APP_VERSION } from "../config.ts";
import { log } from "../log.ts";
import { storeFailure } from "../store/db.ts";
import { DataGate } from "../tools/data-gate.ts";
import type { ToolContext, ToolDef } from "../tools/define.ts";
import type { DataProgress, ToolDeps } from "../tools/deps.ts";
import { TOOLS } from "../tools/index.ts";
import { toolError } from "../tools/response.ts";
import { toolListAnswer } from "../tools/tool-list.ts";
import { CallEnvelopeSchema } from "./call-envelope.ts";
import { registerClassLevelsResource } from "./class-levels.ts";
import { registerCompletions } from "./completions.ts";
import { registerPrompts } from "./prompts.ts";
import { installProtocolChecks } from "./protocol-checks.ts";
import { registerResources } from "./resources.ts";

export const SERVER_INSTRUCTIONS = [
  "LoreKeeper answers questions about D&D 5e content (SRD 5.1/5.2, Open5e third-party books, the D&D 5e API, imported OrcBrew homebrew) from a local index.",
  "Pick the specific tool when you know the kind: search_spell, search_creature, search_character_option (classes, species, backgrounds, feats), search_equipment (weapons, armor, gear, magic items), search_rule (rules, conditions, skills...). Use search_all when you do not.",
  "Use `name` for an exact entry (case-insensitive, wildcards * and %), `search` for a description in plain words (ranked, with similarity_score), filters to narrow, and `documents` (keys from list_documents) to restrict to books.",
  "Lists come as compact rows (key facts + one-line summary) with `total` and `has_more`; page with `offset`. For a whole entry read the row's `uri` resource or call again with `detail: \"full\"`. Same-name entries from several books are one row (official SRD first; `other_documents` names the rest); `all_versions: true` or `documents` shows each.",
  "Every result names its source (document_key). An empty answer's `message` says why (closest names, valid filter values).",
  "build_encounter does encounter XP math (2024 or 2014 rules): rate a group or propose groups. class_progression gives a class's level table.",
].join("\n");

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

const gates = new WeakMap<ToolDeps, DataGate>();

function gateFor(deps: ToolDeps): DataGate {
  let g = gates.get(deps);
  if (!g) {
    g = new DataGate(deps);
    gates.set(deps, g);
  }
  return g;
}

/** Progress notifications for this request, when the client sent a progress token. */
function progressSender(extra: Extra): (p: DataProgress) => void {
  const token = extra._meta?.progressToken;
  if (token === undefined) return () => {};
  let last = 0;
  return (p) => {
    const progress = Math.max(p.progress, last + 1e-6);
    last = progress;
    extra
      .sendNotification({
        method: "notifications/progress",
        params: { progressToken: token, progress, ...(p.total !== undefined ? { total: p.total } : {}), ...(p.message ? { message: p.message } : {}) },
      })
      .catch((err: unknown) => log.debug("progress notification failed", err));
  };
}

function internalError(tool: string, err: unknown, deps: ToolDeps): CallToolResult {
  const explanation = explained(storeFailure(err, deps.db.filename) ?? err);
  log.error(`${tool} failed`, err);
  if (explanation) return toolError(`${tool} could not run: ${explanation}`);
  return toolError(`${tool} failed because of an internal error (details are in the LoreKeeper server log on stderr). Please retry; if it keeps failing, report it with that log.`);
}

export async function callTool(def: ToolDef, raw: unknown, deps: ToolDeps, extra: Extra): Promise<CallToolResult> {
  const ctx: ToolContext = { deps, gate: gateFor(deps), progress: progressSender(extra) };
  const started = performance.now();
  try {
    const res = await def.call(raw, ctx);
    log.debug(`${def.name} answered in ${(performance.now() - started).toFixed(1)} ms${res.isError ? " (tool error)" : ""}`);
    return res;
  } catch (err) {
    return internalError(def.name, err, deps);
  }
}

export { toolListComputations } from "../tools/tool-list.ts";

export function buildServer(deps: ToolDeps): McpServer {
  const server = new McpServer(
    { name: APP_NAME, title: "LoreKeeper", version: APP_VERSION },
    // No `tools` capability here: McpServer installs its tools handlers (and declares
    // `tools: { listChanged: true }`) at the first registerTool.
    { instructions: SERVER_INSTRUCTIONS, capabilities: { resources: {}, logging: {} } },
  );
  const byName = new Map<string, ToolDef>();
  for (const def of TOOLS) {
    byName.set(def.name, def);
    server.registerTool(
      def.name,
      { title: def.title, description: def.description, inputSchema: def.input, outputSchema: def.output, annotations: def.annotations },
      (args: unknown, extra: Extra) => callTool(def, args, deps, extra),
    );
  }
  // The same list McpServer computes, computed once per process (tools/tool-list.ts says why).
  server.server.setRequestHandler(ListToolsRequestSchema, () => toolListAnswer());
  registerResources(server, deps);
  registerClassLevelsResource(server, deps);
  registerPrompts(server);
  registerCompletions(server, deps);
  installProtocolChecks(server, deps);
  // CallEnvelopeSchema answers a malformed envelope (arguments not an object...) with -32602.
  server.server.setRequestHandler(CallEnvelopeSchema, async (request, extra) => {
    const def = byName.get(request.params.name);
    if (!def) {
      // A plain Error with a code: McpError would prefix the message with "MCP error -32602:".
      throw Object.assign(new Error(`Unknown tool ${JSON.stringify(request.params.name.slice(0, 100))}. Available tools: ${TOOLS.map((t) => t.name).join(", ")}.`), {
        code: ErrorCode.InvalidParams,
      });
    }
    return callTool(def, request.params.arguments ?? {}, deps, extra);
  });
  return server;
}
