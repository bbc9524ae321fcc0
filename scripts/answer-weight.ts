#!/usr/bin/env bun
/**
 * The weight of the default answers (characters of the tool answer's text, 20 rows unless a tool
 * returns fewer) over a synced store, per tool: a structured list and a search by meaning each.
 *   bun scripts/answer-weight.ts STORE.db [MODEL_DIR]   (e.g. a cached eval store and its model)
 * The goal is ≤ 6,000 characters per default answer (docs/eval.md, "Answer weight"). Exit 1 when
 * an answer is above it. Without MODEL_DIR, searches rank by keywords only (rows look the same).
 */
import { openStore } from "../src/store/db.ts";
import { createEmbedderProvider } from "../src/search/model/embedder.ts";
import { runSearch } from "../src/search/hybrid.ts";
import type { SearchContext } from "../src/search/context.ts";
import { DataGate } from "../src/tools/kit/data-gate.ts";
import type { ToolDeps } from "../src/tools/kit/deps.ts";
import { TOOLS } from "../src/tools/index.ts";
import { setLogLevel } from "../src/log.ts";

export const ANSWER_GOAL_CHARS = 6000;

/** A structured list and a search by meaning per entity search tool: the calls a DM makes most. */
export const WEIGHT_CALLS: ReadonlyArray<{ tool: string; args: Record<string, unknown> }> = [
  { tool: "search_spell", args: { level: 3 } },
  { tool: "search_spell", args: { search: "a spell to get the party across a chasm" } },
  { tool: "search_creature", args: { cr_max: 5 } },
  { tool: "search_creature", args: { search: "one-eyed giant shepherd" } },
  { tool: "search_equipment", args: { type: "magic-item" } },
  { tool: "search_equipment", args: { search: "a sword whose blade bursts into flame" } },
  { tool: "search_character_option", args: { type: "feat" } },
  { tool: "search_character_option", args: { search: "a musician whose songs are magic" } },
  { tool: "search_rule", args: { rule_type: "rule" } },
  { tool: "search_rule", args: { search: "surprise at the start of combat" } },
  { tool: "search_all", args: { query: "ways to become invisible" } },
];

async function main(): Promise<number> {
  setLogLevel("warn");
  const [path, modelDir] = process.argv.slice(2);
  if (!path) {
    process.stderr.write("usage: bun scripts/answer-weight.ts STORE.db [MODEL_DIR]\n");
    return 2;
  }
  const store = openStore({ path, readonly: true });
  const embedder = createEmbedderProvider({ modelDir: modelDir ?? null, embeddedDir: null, allowDownload: false });
  const ctx: SearchContext = { store, embedder, embeddingTimeoutMs: 30_000 };
  const search = (q: Parameters<ToolDeps["search"]>[0]) => runSearch(ctx, { ...q, omitText: true });
  const deps: ToolDeps = { db: store.db, search, responseBudgetChars: 60_000 };
  let over = 0;
  for (const c of WEIGHT_CALLS) {
    const def = TOOLS.find((t) => t.name === c.tool)!;
    const res = await def.call(c.args, { deps, gate: new DataGate(deps), progress: () => {} });
    const text = res.content.map((b) => (b.type === "text" ? b.text : "")).join("");
    const rows = (res.structuredContent as { count?: number } | undefined)?.count ?? 0;
    if (text.length > ANSWER_GOAL_CHARS) over++;
    const verdict = text.length > ANSWER_GOAL_CHARS ? "OVER" : "ok  ";
    const size = `${String(text.length).padStart(6)} chars  ${String(rows).padStart(2)} rows`;
    console.log(`${verdict}  ${size}  ${c.tool} ${JSON.stringify(c.args)}`);
  }
  store.close();
  return over > 0 ? 1 : 0;
}

process.exitCode = await main();
