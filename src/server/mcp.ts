/**
 * buildServer: one LoreKeeper MCP server (tools, resources, prompts, completions) over shared deps,
 * the one factory behind every transport (stdio: one per connection; HTTP: one per request) and both
 * protocol eras (2026-07-28 and 2025-era `initialize`). Building it is cheap and loads nothing.
 *
 * Every method is answered by our own handler (SDK `setRequestHandler` with a schema that lets any
 * params through), which checks its params itself: argument errors are readable tool errors naming
 * the parameter and its valid values, malformed requests one-sentence -32602s, unexpected failures
 * a short message (details on stderr). Only the 2025 era declares `logging` (deprecated in 2026).
 */
import type {
  CallToolResult,
  Result,
  ServerCapabilities,
  ServerContext,
  ServerOptions,
  Transport,
} from "@modelcontextprotocol/server";
import { Server } from "@modelcontextprotocol/server";
import * as z from "zod";
import { explained } from "../errors.ts";
import { APP_NAME, APP_VERSION } from "../config.ts";
import { log } from "../log.ts";
import { storeFailure } from "../store/db.ts";
import { DataGate } from "../tools/kit/data-gate.ts";
import type { ToolContext, ToolDef } from "../tools/kit/define.ts";
import type { DataProgress, ToolDeps } from "../tools/kit/deps.ts";
import { TOOL_BY_NAME, TOOLS } from "../tools/index.ts";
import { toolError } from "../tools/answer/response.ts";
import { toolListAnswer } from "../tools/tool-list.ts";
import { answerChars, answerCollector } from "./collect.ts";
import { screenCall } from "./protocol/call-envelope.ts";
import { answerCompletion } from "./features/completions.ts";
import { getPrompt, PROMPT_LIST } from "./features/prompts.ts";
import { capErrorText, invalidParams, resourceUriOf, setLevel } from "./protocol/protocol-checks.ts";
import { readResourceUri, RESOURCE_LIST, RESOURCE_TEMPLATE_LIST } from "./features/resources.ts";
import { safeJson } from "../text/sanitize.ts";

export const SERVER_INSTRUCTIONS = [
  "LoreKeeper answers questions about D&D 5e content (SRD 5.1/5.2, Open5e third-party books, the D&D 5e API, " +
    "imported OrcBrew and 5etools homebrew) from a local index.",
  "Pick the specific tool when you know the kind: search_spell, search_creature, search_character_option " +
    "(classes, species, backgrounds, feats), search_equipment (weapons, armor, gear, magic items), search_rule " +
    "(rules, conditions, skills...). Use search_all when you do not.",
  "Monster traits several stat blocks share (Pack Tactics, Flyby) are search_rule entries too: the trait's " +
    "text and the creatures that have it.",
  "Use `name` for an exact entry (case-insensitive, wildcards * and %), `search` for a description (ranked, " +
    "with similarity_score), filters to narrow, and `documents` to restrict to books: srd-2014 is SRD 5.1 (2014 " +
    "rules), srd-2024 is SRD 5.2 (2024 rules); list_documents names the others.",
  'Phrasing `search`: when you know what the user means, search its name ("a one-eyed giant" → "cyclops"); ' +
    'otherwise describe what it does in the game\'s rules words ("resistance to fire damage", "knocked prone", ' +
    '"regain hit points") rather than story words, and put kinds and numbers in filters (type, level, cr) ' +
    "instead of the text.",
  "Lists come as compact rows (key facts + one-line summary) with `total` and `has_more`; page with " +
    '`offset`. For a whole entry read the row\'s `uri` resource or call again with `detail: "full"`. Same-name ' +
    "entries from several books are one row (official SRD first; `other_documents` names the rest); " +
    "`all_versions: true` or `documents` shows each. Lists without `search` put the preferred SRD's entries " +
    "first, then go by name (with `all_versions` or `documents`: by name).",
  "Every result names its source (document_key). An empty answer's `message` says why (closest names, valid " +
    "filter values).",
  "build_encounter does encounter XP math (2024 or 2014 rules): rate a group or propose groups. " +
    "class_progression gives a class's level table.",
  "compare_editions shows how an entry changed from 2014 to 2024. roll_odds gives exact dice odds (hit " +
    "chance, damage per round).",
].join("\n");

/** The protocol era a server instance serves: "modern" = 2026-07-28, "legacy" = 2025-11-25 and before. */
export type Era = "legacy" | "modern";

const HOUR_MS = 3_600_000;

/**
 * Cache hints for 2026-07-28 results. The lists are fixed for a binary: an hour, shareable. A resource changes
 * with a sync or import: a minute, private (a token-protected server may hold homebrew a shared cache must not pass).
 */
const CACHE_HINTS: NonNullable<ServerOptions["cacheHints"]> = {
  "server/discover": { ttlMs: HOUR_MS, cacheScope: "public" },
  "tools/list": { ttlMs: HOUR_MS, cacheScope: "public" },
  "prompts/list": { ttlMs: HOUR_MS, cacheScope: "public" },
  "resources/list": { ttlMs: HOUR_MS, cacheScope: "public" },
  "resources/templates/list": { ttlMs: HOUR_MS, cacheScope: "public" },
  "resources/read": { ttlMs: 60_000, cacheScope: "private" },
};

/** What a server of each era declares. Lists never change; 2025 clients saw `listChanged` and still do. */
function capabilitiesFor(era: Era): ServerCapabilities {
  if (era === "modern") return { tools: {}, resources: {}, prompts: {}, completions: {} };
  return {
    tools: { listChanged: true },
    resources: { listChanged: true },
    prompts: { listChanged: true },
    completions: {},
    logging: {},
  };
}

const gates = new WeakMap<ToolDeps, DataGate>();

function gateFor(deps: ToolDeps): DataGate {
  return gates.getOrInsertComputed(deps, () => new DataGate(deps));
}

/** Progress notifications for this request, when the client sent a progress token. */
function progressSender(ctx: ServerContext): (p: DataProgress) => void {
  const token = ctx.mcpReq._meta?.progressToken;
  if (token === undefined) return () => {};
  let last = 0;
  return (p) => {
    const progress = Math.max(p.progress, last + 1e-6);
    last = progress;
    ctx.mcpReq
      .notify({
        method: "notifications/progress",
        params: {
          progressToken: token,
          progress,
          ...(p.total !== undefined ? { total: p.total } : {}),
          ...(p.message ? { message: p.message } : {}),
        },
      })
      .catch((err: unknown) => log.debug("progress notification failed", err));
  };
}

function internalError(tool: string, err: unknown, deps: ToolDeps): CallToolResult {
  const explanation = explained(storeFailure(err, deps.db.filename) ?? err);
  log.error(`${tool} failed`, err);
  if (explanation) return toolError(`${tool} could not run: ${explanation}`);
  return toolError(
    `${tool} failed because of an internal error (details are in the LoreKeeper server log on stderr). ` +
      `Please retry; if it keeps failing, report it with that log.`,
  );
}

async function callTool(def: ToolDef, raw: unknown, deps: ToolDeps, server: ServerContext): Promise<CallToolResult> {
  const ctx: ToolContext = { deps, gate: gateFor(deps), progress: progressSender(server) };
  const started = performance.now();
  try {
    const res = await def.call(raw, ctx);
    answerCollector.noteAnswer(answerChars(res.content));
    log.debug(
      `${def.name} answered in ${(performance.now() - started).toFixed(1)} ms${res.isError ? " (tool error)" : ""}`,
    );
    return res;
  } catch (err) {
    return internalError(def.name, err, deps);
  }
}

/** Lets any params object through (the SDK passes a copy of the params, `{}` for none): each handler checks its own. */
const ANY_PARAMS = z.custom<Record<string, unknown>>();

type Handler = (params: Record<string, unknown>, ctx: ServerContext) => Result | Promise<Result>;

/**
 * The edge between any transport and the SDK (Transport interface only): a tools/call with a malformed envelope is
 * answered -32602 in one sentence before the SDK sees it (its own check dumps schema issues), `"arguments": null`
 * means none, and every JSON-RPC error text is capped. `onmessage` is wrapped whenever it is set, so a message
 * delivered while the SDK starts the transport is screened too.
 */
function guardEdge(server: Server): void {
  const connect = server.connect.bind(server);
  server.connect = (transport) => {
    const send = transport.send.bind(transport);
    transport.send = (message, options) => send(capErrorText(message), options);
    let deliver = transport.onmessage;
    Object.defineProperty(transport, "onmessage", {
      configurable: true,
      enumerable: true,
      get: () => deliver,
      set: (fn: Transport["onmessage"]) => {
        deliver =
          fn &&
          ((message, extra) => {
            const screened = screenCall(message);
            if (screened.ok) return fn(screened.message, extra);
            transport.send(screened.reply).catch((err: unknown) => log.debug("could not answer a bad tools/call", err));
          });
      },
    });
    return connect(transport);
  };
}

export function buildServer(deps: ToolDeps, era: Era = "legacy"): Server {
  log.debug(`server built for a ${era} request`);
  const server = new Server(
    { name: APP_NAME, title: "LoreKeeper", version: APP_VERSION },
    { instructions: SERVER_INSTRUCTIONS, capabilities: capabilitiesFor(era), cacheHints: CACHE_HINTS },
  );
  guardEdge(server);
  const handle = (method: string, fn: Handler) => server.setRequestHandler(method, { params: ANY_PARAMS }, fn);
  handle("tools/list", () => toolListAnswer());
  // The envelope (name, arguments) was checked at the edge (guardEdge), and by the SDK's schema after it.
  handle("tools/call", async (params, ctx) => {
    const { name, arguments: args } = params as { name: string; arguments?: Record<string, unknown> };
    const def = TOOL_BY_NAME.get(name);
    if (!def) {
      const shown = safeJson(JSON.stringify(name.slice(0, 100)));
      throw invalidParams(`Unknown tool ${shown}. Available tools: ${TOOLS.map((t) => t.name).join(", ")}.`);
    }
    return callTool(def, args ?? {}, deps, ctx);
  });
  handle("resources/list", () => RESOURCE_LIST);
  handle("resources/templates/list", () => RESOURCE_TEMPLATE_LIST);
  handle("resources/read", (params) => {
    const res = readResourceUri(deps, resourceUriOf(params));
    answerCollector.noteAnswer(answerChars(res.contents));
    return res;
  });
  handle("prompts/list", () => PROMPT_LIST);
  handle("prompts/get", (params) => getPrompt(params));
  handle("completion/complete", (params) => answerCompletion(deps.db, params));
  if (era === "legacy") handle("logging/setLevel", (params) => setLevel(params));
  return server;
}
