/** The common path of every entity tool: data there (first use), one search, the answer shaped and fitted. */
import { hintOf, isLoreKeeperError } from "../../errors.ts";
import { counterpart, renameNote } from "../../entities/renames.ts";
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { EntityKind } from "../../entities/types.ts";
import { log } from "../../log.ts";
import { profileOfTool } from "../../search/rank/fusion.ts";
import type { SearchHit, SearchQuery } from "../../search/types.ts";
import { HOMEBREW_FILES, UPSTREAM_ENV_VARS } from "../../sources/index.ts";
import type { Database } from "bun:sqlite";
import { answeringPassage } from "../answer/rule-passage.ts";
import { lastSyncedAt } from "../../store/sync-state.ts";
import { CACHES } from "../../store/caches.ts";
import { versionMemo } from "../../store/version-cache.ts";
import type { ToolContext } from "./define.ts";
import { fitAnswer } from "../answer/budget.ts";
import { compactBodies } from "../answer/compact-bodies.ts";
import type { ViewArgs } from "./params.ts";
import { buildMetadata, type FlatResult, paging, toolAnswer, toolError } from "../answer/response.ts";
import { type Detail, rowsOf } from "../answer/rows.ts";

function kindList(kinds: readonly EntityKind[]): string {
  return kinds.map((k) => k.replace(/_/g, " ")).join(", ");
}

function upstreamFailure(kinds: readonly EntityKind[], err: unknown): string {
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
    `- point ${UPSTREAM_ENV_VARS.join(" / ")} at a reachable mirror, or`,
    `- load local content with \`lorekeeper import ${HOMEBREW_FILES}\`.`,
    hint ? `Hint: ${hint}` : "",
  ]
    .filter((l) => l.length > 0)
    .join("\n");
}

/**
 * A first-use load of `kinds` for a tool that is not a search: null when the tool can answer (loaded,
 * or the load failed but the store holds some of `needed`), else the tool error to return.
 */
export async function loadFirst(
  ctx: ToolContext,
  tool: string,
  kinds: readonly EntityKind[],
  needed: readonly EntityKind[] = kinds,
): Promise<CallToolResult | null> {
  try {
    await ctx.gate.ensure(kinds, ctx.progress);
  } catch (err) {
    log.warn(`${tool}: first-use data load failed`, err);
    if (ctx.gate.emptyKinds(needed).length > 0) return toolError(upstreamFailure(kinds, err));
  }
  return null;
}

/** Why some requested kinds are missing from an answer (their first-use load failed; details are logged). */
function partialDataNote(missing: readonly EntityKind[]): string {
  return (
    `No ${kindList(missing)} data is in the local store yet and the upstream API could not be reached to download ` +
    "it, so these results come from the other types only. Run `lorekeeper sync` once the network is back " +
    `(or point ${UPSTREAM_ENV_VARS.join(" / ")} at a reachable mirror).`
  );
}

/** A tool's validated arguments: how it wants its answer shown (paging, detail, versions); reused in hints. */
export type AnswerView = ViewArgs & Record<string, unknown>;

/** Detail when the caller did not choose: a small answer (name lookup or limit ≤ 3) comes whole. */
function autoDetail(q: SearchQuery, view: AnswerView, returned: number): Detail {
  if (view.detail) return view.detail;
  if (q.limit <= 3) return "full";
  const lookup = q.name !== undefined && q.name !== "" && !/[*%]/.test(q.name) && !q.search;
  return lookup && returned <= 3 ? "full" : "summary";
}

/** A call of the same tool that returns this row's full entry (same filters, its name and document), or its uri. */
function fullEntryHint(tool: string, view: AnswerView, hasName: boolean): (row: FlatResult) => string {
  return (row) => {
    const uri = `read its \`uri\` resource (e.g. ${String(row.uri)})`;
    if (!hasName) return `For a full entry, ${uri}.`;
    const call: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(view))
      if (!["search", "name", "offset", "limit", "detail", "all_versions", "documents"].includes(k) && v !== undefined)
        call[k] = v;
    Object.assign(call, { name: row.name, documents: [row.document_key], detail: "full" });
    return `For a full entry, ${uri} or call ${tool} ${JSON.stringify(call)}.`;
  };
}

/** The SRD a query leans to: the one its documents name, else the first SRD of the preference (SRD 5.2 by default). */
function preferredEdition(q: SearchQuery): string {
  const docs = (q.documents ?? []).map((d) => d.toLowerCase());
  if (docs.includes("srd-2024") !== docs.includes("srd-2014"))
    return docs.includes("srd-2024") ? "srd-2024" : "srd-2014";
  return (q.prefer ?? []).find((d) => d === "srd-2014" || d === "srd-2024") ?? "srd-2024";
}

/** Kinds whose rows found by meaning quote the passage that answers instead of their opening words. */
const PASSAGE_KINDS: ReadonlySet<string> = new Set(["rule", "rule_section"]);

/**
 * Rule rows of a ranked answer that quote their passage: the first few, where the answer is (20 passages of up to
 * 300 characters would make a rule answer 8,400 characters instead of 4,900).
 */
const PASSAGE_ROWS = 5;

/**
 * A rule or rule section found by meaning shows the sentence or two of its text that answers the question
 * (`passage`, rule-passage.ts) instead of its opening words. Reads the texts of those rows only.
 */
function withPassages(db: Database, hits: readonly SearchHit[], rows: FlatResult[], search: string): void {
  const ids = hits
    .filter((h) => PASSAGE_KINDS.has(h.entity.kind))
    .slice(0, PASSAGE_ROWS)
    .map((h) => h.entity.id);
  if (ids.length === 0) return;
  const texts = new Map(
    db
      .query<{ id: number; desc: string | null }, number[]>(
        `SELECT id, json_extract(data, '$.desc') AS desc FROM entities WHERE id IN (${ids.map(() => "?").join(",")})`,
      )
      .all(...ids)
      .map((r) => [r.id, r.desc]),
  );
  hits.forEach((h, i) => {
    const text = texts.get(h.entity.id);
    const passage = text ? answeringPassage(text, search) : undefined;
    const row = rows[i];
    if (!passage || !row) return;
    delete row.summary;
    row.passage = passage;
  });
}

const EDITION_NAMES: Readonly<Record<string, string>> = { "srd-2014": "SRD 5.1 (2014)", "srd-2024": "SRD 5.2 (2024)" };

/**
 * A rule found by meaning from the other edition's SRD, when the preferred edition holds no rule of that name,
 * says so (`edition_note`): "how many reactions per round" is answered by SRD 5.1's "Reactions"; SRD 5.2 has none.
 */
function otherEditionNotes(hits: readonly SearchHit[], rows: FlatResult[], preferred: string): void {
  let ruleRows = 0;
  hits.forEach((h, i) => {
    const doc = h.entity.document_key.toLowerCase();
    const row = rows[i];
    // The rows that quote their passage (the first few rule rows) are the ones read as the answer.
    if (!PASSAGE_KINDS.has(h.entity.kind) || ++ruleRows > PASSAGE_ROWS) return;
    if (!row || row.edition_note || !(doc in EDITION_NAMES) || !(preferred in EDITION_NAMES)) return;
    if (doc === preferred) return;
    if ((h.others ?? []).some((o) => o.document_key.toLowerCase() === preferred)) return;
    const kind = h.entity.kind === "rule" ? "rule" : "rules section";
    const other = EDITION_NAMES[preferred];
    row.edition_note = `${EDITION_NAMES[doc]} ${kind}; ${other}, the preferred edition, has none of this name.`;
  });
}

/** Run `q` for `tool` and answer it. Upstream failures on first use become a tool error that says how to fix them. */
export async function answerSearch(
  tool: string,
  query: SearchQuery,
  ctx: ToolContext,
  view: AnswerView = {},
  /** False when the tool has no `name` parameter (search_all): hints then point at the uri only. */
  hasName = true,
): Promise<CallToolResult> {
  const documentsGiven = query.documents !== undefined && query.documents !== null;
  const q: SearchQuery = {
    ...query,
    name: query.name?.trim() || undefined,
    search: query.search?.trim() || undefined,
    offset: view.offset ?? query.offset ?? 0,
    collapse: query.collapse ?? !(view.all_versions === true || documentsGiven),
    prefer: query.prefer ?? ctx.deps.preferDocuments,
    profile: query.profile ?? profileOfTool(tool),
  };
  const notes: string[] = [];
  // The store's version, read once for the data check, the compact bodies and the metadata (the search pins its
  // own); read again after a first-use load changed the store.
  let version = versionMemo(ctx.deps.db);
  try {
    if (await ctx.gate.ensure(q.kinds, ctx.progress, version)) version = versionMemo(ctx.deps.db);
  } catch (err) {
    log.warn(`${tool}: first-use data load failed`, err);
    version = versionMemo(ctx.deps.db);
    // Answer from the kinds the store does hold; fail only when it holds none of them.
    const missing = ctx.gate.emptyKinds(q.kinds, version);
    const storeFailed = isLoreKeeperError(err, "store");
    if (storeFailed || missing.length === q.kinds.length) return toolError(upstreamFailure(q.kinds, err));
    notes.push(partialDataNote(missing));
  }
  // After a first-use load: the bodies of the store version the search reads. Only when the rows are compact
  // whatever the search finds: autoDetail's summary at a count of 0 is a summary at any count.
  const bodies =
    ctx.deps.compactRows && !documentsGiven && autoDetail(q, view, 0) === "summary"
      ? compactBodies(ctx.deps.db, q.prefer, version)
      : undefined;
  if (bodies) q.compactBody = (id) => bodies.get(id);
  // At most searchSlots.limit searches at once (createSearchSlots); the first-use wait above takes no slot.
  const slots = ctx.deps.searchSlots;
  const run = (qq: SearchQuery) => (slots ? slots.run(() => ctx.deps.search(qq)) : ctx.deps.search(qq));
  let res = await run(q);
  // A name SRD 5.2 changed ("Thug" / "Tough"): the other edition's entry comes too, and the answer says so.
  const renamed =
    q.name && !/[*%]/.test(q.name) && !q.search && (q.offset ?? 0) === 0 ? counterpart(q.kinds, q.name) : undefined;
  if (renamed) {
    const other = await run({ ...q, name: renamed.other });
    if (other.hits.length > 0) {
      const seen = new Set(res.hits.map((h) => h.entity.id));
      const extra = other.hits.filter((h) => !seen.has(h.entity.id));
      const otherFirst = preferredEdition(q) === renamed.otherDocument;
      // Nothing under the name asked: the first answer's "no match / did you mean" no longer applies.
      const base = res.hits.length === 0 ? { ...other, hits: [] } : res;
      res = {
        ...base,
        hits: (otherFirst ? [...extra, ...base.hits] : [...base.hits, ...extra]).slice(0, q.limit),
        total: base.hits.length === 0 ? other.total : res.total + extra.length,
      };
      notes.push(
        `${renameNote(renamed)}` +
          `${res.hits.length > extra.length ? " Both are listed." : ` Answered with "${renamed.other}".`}`,
      );
    }
  }
  const detail = autoDetail(q, view, res.hits.length);
  const results = rowsOf(res.hits, detail, {
    profile: q.search !== undefined || q.name !== undefined,
    remember: bodies && ((id, body) => void bodies.set(id, body)),
  });
  if (q.search && detail === "summary") withPassages(ctx.deps.db, res.hits, results, q.search);
  if (q.search && !documentsGiven) otherEditionNotes(res.hits, results, preferredEdition(q));
  if (res.message) notes.push(res.message);
  const offset = q.offset ?? 0;
  if (results.length === 0) {
    const empty = ctx.gate.emptyKinds(q.kinds, version);
    if (empty.length === q.kinds.length) {
      notes.push(
        `The local store holds no ${kindList(q.kinds)} data yet. Run \`lorekeeper sync\` to download it ` +
          `(or \`lorekeeper import ${HOMEBREW_FILES}\` for homebrew).`,
      );
    } else if (offset > 0 && res.total > 0 && offset >= res.total) {
      notes.push(
        `offset ${offset} is past the end: there are ${res.total} results (last page: ` +
          `offset=${Math.max(0, res.total - q.limit)}).`,
      );
    }
  }
  const now = ctx.deps.now?.() ?? new Date();
  const sources = res.hits.map((h) => h.entity.document_source);
  const synced = CACHES.lastSynced.get(version, () => lastSyncedAt(ctx.deps.db));
  const answer = {
    results,
    ...paging(offset, results.length, res.total),
    detail,
    search_mode: res.mode,
    ...(notes.length ? { message: notes.join(" ") } : {}),
    metadata: buildMetadata(sources, now, synced),
  };
  const fitted = fitAnswer(answer, {
    budgetChars: ctx.deps.responseBudgetChars,
    fullEntryHint: fullEntryHint(tool, view, hasName),
  });
  // Text and structuredContent only: a resource_link per row added a fifth to the wire for what clients drop
  // (docs/benchmark.md, "What a list answer carries").
  return toolAnswer(fitted.answer, fitted.text);
}
