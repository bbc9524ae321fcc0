/**
 * The common path of every entity tool: make sure the data is there (first use), run one search,
 * shape the answer, fit it in the response budget.
 */
import { hintOf, isLoreKeeperError } from "../errors.ts";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { EntityKind } from "../entities/types.ts";
import { log } from "../log.ts";
import type { SearchQuery, StructuredFilters } from "../search/types.ts";
import { lastSyncedAt } from "../store/sync-state.ts";
import { CACHES } from "../store/caches.ts";
import type { ToolContext } from "./define.ts";
import { fitAnswer } from "./budget.ts";
import { buildMetadata, flattenHits, type SearchAnswer, toolAnswer, toolError } from "./response.ts";
import { toolSlots } from "./slots.ts";

/** Drop undefined and empty-string filters (an empty string means "not given"). */
export function cleanFilters(f: Record<string, unknown>): StructuredFilters {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(f)) if (v !== undefined && v !== null && v !== "") out[k] = v;
  return out as StructuredFilters;
}

function kindList(kinds: readonly EntityKind[]): string {
  return kinds.map((k) => k.replace(/_/g, " ")).join(", ");
}

export function upstreamFailure(kinds: readonly EntityKind[], err: unknown): string {
  // The loader's own error already says what failed and how to fix it.
  if (isLoreKeeperError(err, "data_unavailable") && err.message) return err.message;
  // The store itself failed (damaged, disk full, read-only): not an upstream problem.
  if (isLoreKeeperError(err, "store") && err.message) return `${err.message}\n${err.hint ?? ""}`.trim();
  const message = err instanceof Error ? err.message : undefined;
  const hint = hintOf(err);
  const why = message ? ` (${message.split("\n")[0]})` : "";
  return [
    `Could not load ${kindList(kinds)} data: this is its first use and the upstream API could not be reached${why}.`,
    "LoreKeeper keeps a local copy of the content and needs to download it once. To fix this:",
    "- check the network connection and run `lorekeeper sync` (it downloads everything and reports each source), or",
    "- point LOREKEEPER_OPEN5E_BASE_URL (and LOREKEEPER_DND5EAPI_BASE_URL) at a reachable mirror, or",
    "- load local content with `lorekeeper import <file.orcbrew>`.",
    hint ? `Hint: ${hint}` : "",
  ]
    .filter((l) => l.length > 0)
    .join("\n");
}

/** Why some requested kinds are missing from an answer (their first-use load failed; details are logged). */
export function partialDataNote(missing: readonly EntityKind[]): string {
  return `No ${kindList(missing)} data is in the local store yet and the upstream API could not be reached to download it, so these results come from the other types only. Run \`lorekeeper sync\` once the network is back (or point LOREKEEPER_OPEN5E_BASE_URL at a reachable mirror).`;
}

/** Run `q` for `tool` and answer it. Upstream failures on first use become a tool error that says how to fix them. */
export async function answerSearch(tool: string, query: SearchQuery, ctx: ToolContext, extraMessage?: string): Promise<CallToolResult> {
  const q: SearchQuery = { ...query, name: query.name?.trim() || undefined, search: query.search?.trim() || undefined };
  const notes: string[] = [];
  if (extraMessage) notes.push(extraMessage);
  try {
    await ctx.gate.ensure(q.kinds, ctx.progress);
  } catch (err) {
    log.warn(`${tool}: first-use data load failed`, err);
    // Answer from the kinds the store does hold; fail only when it holds none of them.
    const missing = ctx.gate.emptyKinds(q.kinds);
    const storeFailed = isLoreKeeperError(err, "store");
    if (storeFailed || missing.length === q.kinds.length) return toolError(upstreamFailure(q.kinds, err));
    notes.push(partialDataNote(missing));
  }
  // At most toolSlots.max searches at once (slots.ts); the first-use wait above takes no slot.
  const res = await toolSlots.run(() => ctx.deps.search(q));
  const results = flattenHits(res.hits);
  if (res.message) notes.push(res.message);
  if (results.length === 0) {
    const empty = ctx.gate.emptyKinds(q.kinds);
    if (empty.length === q.kinds.length) {
      notes.push(
        `The local store holds no ${kindList(q.kinds)} data yet. Run \`lorekeeper sync\` to download it (or \`lorekeeper import <file.orcbrew>\` for homebrew).`,
      );
    }
  }
  const now = ctx.deps.now?.() ?? new Date();
  const answer: SearchAnswer = {
    results,
    count: results.length,
    search_mode: res.mode,
    ...(notes.length ? { message: notes.join(" ") } : {}),
    metadata: buildMetadata(results, now, CACHES.lastSynced.get(ctx.deps.db, () => lastSyncedAt(ctx.deps.db))),
  };
  const fitted = fitAnswer(answer, { budgetChars: ctx.deps.responseBudgetChars, tool });
  return toolAnswer(fitted.answer, fitted.text);
}
