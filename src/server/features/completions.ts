/**
 * completion/complete for the resource templates (kinds, then keys of that kind by name prefix; class keys) and the
 * prompt arguments (entry names, document keys, fixed vocabularies). At most 100 values, with `total` and `hasMore`;
 * names come from the store by indexed prefix queries (kind, name).
 */
import type { Database } from "bun:sqlite";
import type { CompleteRequestParams, CompleteResult } from "@modelcontextprotocol/server";
import { DOCUMENT_SOURCES, ENTITY_KINDS, type EntityKind } from "../../entities/types.ts";
import { uriKey } from "../../entities/uri.ts";
import { COMPARED_KINDS, KIND_WORDS } from "../../tools/compare-editions.ts";
import { DIFFICULTIES_2014, DIFFICULTIES_2024 } from "../../tools/encounter/tables.ts";
import { filterParam, type TableParam } from "../../entities/filters.ts";
import { escapeLike } from "../../search/filter/filters.ts";
import { storedFilterValues } from "../../search/rank/explain.ts";
import { invalidParams } from "../protocol/protocol-checks.ts";
import { type CompletionSource, promptNamed } from "./prompts.ts";
import { specCheck } from "../protocol/protocol-checks.ts";

const MAX_COMPLETIONS = 100;
export const ENTITY_TEMPLATE = "lorekeeper://{kind}/{key}";
export const CLASS_LEVELS_TEMPLATE = "lorekeeper://class/{key}/levels";

type Completion = CompleteResult["completion"];

/** LIKE pattern for "starts with `prefix`" (wildcards in the prefix match themselves). */
const startsWith = (prefix: string) => `${escapeLike(prefix)}%`;

function fixed(values: readonly string[], prefix: string): Completion {
  const p = prefix.toLowerCase();
  const hits = values.filter((v) => v.toLowerCase().startsWith(p));
  return page(hits, hits.length);
}

function page(values: string[], total: number): Completion {
  return { values: values.slice(0, MAX_COMPLETIONS), total, hasMore: total > MAX_COMPLETIONS };
}

/** Distinct entry names of `kinds` starting with `prefix` (case-insensitive), alphabetical. */
function completeNames(db: Database, kinds: readonly EntityKind[], prefix: string): Completion {
  const where = `kind IN (${kinds.map(() => "?").join(",")}) AND name LIKE ? ESCAPE '\\'`;
  const params = [...kinds, startsWith(prefix)];
  const values = db
    .query<{ name: string }, string[]>(
      `SELECT DISTINCT name FROM entities WHERE ${where} ORDER BY name LIMIT ${MAX_COMPLETIONS}`,
    )
    .all(...params)
    .map((r) => r.name);
  const total =
    values.length < MAX_COMPLETIONS
      ? values.length
      : (db
          .query<{ n: number }, string[]>(`SELECT COUNT(DISTINCT name) AS n FROM entities WHERE ${where}`)
          .get(...params)?.n ?? 0);
  return page(values, total);
}

/**
 * Address keys (`srd_owlbear`, `open5e_v1:owlbear`: src/entities/uri.ts) of `kind` whose name starts with `prefix`,
 * then those whose key does; a prefix naming a source ("open5e_v1:ow") completes that source's keys. Both walk the
 * (kind, name, document_key, key) index; the total is one covering count over it.
 */
function completeKeys(db: Database, kind: EntityKind, prefix: string): Completion {
  const q = /^([a-z0-9_]+):(.*)$/.exec(prefix);
  const source = q && (DOCUMENT_SOURCES as readonly string[]).includes(q[1]!) ? q[1]! : null;
  const rest = source ? q![2]! : prefix;
  const pattern = startsWith(rest);
  const src = source ? " AND document_source = ?" : "";
  const srcArgs = source ? [source] : [];
  type Row = { key: string; document_source: string };
  const addr = (r: Row) => uriKey(r.document_source, r.key);
  const byName = db
    .query<Row, string[]>(
      `SELECT key, document_source FROM entities WHERE kind = ? AND name LIKE ? ESCAPE '\\'${src} ORDER BY ` +
        `name, key LIMIT ${MAX_COMPLETIONS}`,
    )
    .all(kind, pattern, ...srcArgs)
    .map(addr);
  const values = [...byName];
  if (values.length < MAX_COMPLETIONS) {
    const byKey = db
      .query<Row, string[]>(
        `SELECT key, document_source FROM entities WHERE kind = ? AND key LIKE ? ESCAPE '\\' AND NOT name ` +
          `LIKE ? ESCAPE '\\'${src} ORDER BY key LIMIT ${MAX_COMPLETIONS}`,
      )
      .all(kind, pattern, pattern, ...srcArgs)
      .map(addr);
    values.push(...byKey.slice(0, MAX_COMPLETIONS - values.length));
    if (byKey.length + byName.length <= MAX_COMPLETIONS) return page(values, values.length);
  }
  const total =
    db
      .query<{ n: number }, string[]>(
        `SELECT COUNT(*) AS n FROM entities WHERE kind = ? AND (name LIKE ? ESCAPE '\\' OR key LIKE ? ESCAPE ` +
          `'\\')${src}`,
      )
      .get(kind, pattern, pattern, ...srcArgs)?.n ?? 0;
  return page(values, total);
}

function completeDocuments(db: Database, prefix: string): Completion {
  const values = db
    .query<{ key: string }, [string]>("SELECT DISTINCT key FROM documents WHERE key LIKE ? ESCAPE '\\' ORDER BY key")
    .all(startsWith(prefix))
    .map((r) => r.key);
  return page(values, values.length);
}

/**
 * The values a filter read from stat blocks holds in the store (`casts`, `trait`, `inflicts`): those starting with
 * `prefix`, then those with a later word starting with it ("tact" → "pack tactics"); most common first, then A–Z.
 */
function fromStore(db: Database, p: TableParam, prefix: string): Completion {
  const want = prefix.trim().toLowerCase();
  const all = storedFilterValues(db, p);
  const starts = all.filter((x) => x.v.startsWith(want));
  const inside = want
    ? all.filter((x) => !x.v.startsWith(want) && x.v.split(/[\s/-]+/).some((w) => w.startsWith(want)))
    : [];
  const order = (a: { v: string; n: number }, b: { v: string; n: number }) =>
    b.n - a.n || (a.v < b.v ? -1 : a.v > b.v ? 1 : 0);
  const hits = [...starts.sort(order), ...inside.sort(order)].map((x) => x.v);
  return page(hits, hits.length);
}

function kindOf(raw: string | undefined): EntityKind | undefined {
  const k = raw?.trim().toLowerCase().replace(/-/g, "_");
  return k && (ENTITY_KINDS as readonly string[]).includes(k) ? (k as EntityKind) : undefined;
}

function completeSource(
  db: Database,
  source: CompletionSource,
  value: string,
  context: Record<string, string>,
): Completion {
  switch (source) {
    case "spell":
    case "creature":
    case "class":
      return completeNames(db, [source], value);
    case "rule":
      return completeNames(db, ["rule", "rule_section", "condition"], value);
    case "any": {
      const k = kindOf(context.kind);
      return completeNames(db, k ? [k] : COMPARED_KINDS, value);
    }
    case "document":
      return completeDocuments(db, value);
    case "difficulty": {
      const ed = context.edition?.trim();
      if (ed === "2014" || ed === "2024") return fixed(ed === "2014" ? DIFFICULTIES_2014 : DIFFICULTIES_2024, value);
      return fixed([...DIFFICULTIES_2024, ...DIFFICULTIES_2014], value);
    }
    case "edition":
      return fixed(["2024", "2014"], value);
    case "kind":
      // The compare_editions prompt's kind: the words its tool (and the prompt's check) take.
      return fixed(KIND_WORDS, value);
    default: {
      // filter:<name>: the filter's vocabulary, for the last word typed ("chaotic ev" → "evil").
      const p = filterParam(source.slice("filter:".length));
      const input = p?.input;
      const typed = input?.type === "values" ? (value.split(/[\s,]+/).pop() ?? "") : value;
      if (p?.completeFromStore) return fromStore(db, p, typed);
      const words = input && (input.type === "vocab" || input.type === "values") ? input.values : [];
      return fixed(words, typed);
    }
  }
}

/** The answer to one completion/complete request (throws an InvalidParams error for an unknown reference). */
export function complete(db: Database, p: CompleteRequestParams): Completion {
  const value = p.argument.value.slice(0, 200);
  const context = p.context?.arguments ?? {};
  if (p.ref.type === "ref/resource") {
    if (p.ref.uri === ENTITY_TEMPLATE) {
      if (p.argument.name === "kind") return fixed(ENTITY_KINDS, value.replace(/-/g, "_"));
      const kind = kindOf(context.kind);
      return p.argument.name === "key" && kind ? completeKeys(db, kind, value) : page([], 0);
    }
    if (p.ref.uri === CLASS_LEVELS_TEMPLATE)
      return p.argument.name === "key" ? completeKeys(db, "class", value) : page([], 0);
    if (p.ref.uri === "lorekeeper://documents") return page([], 0);
    throw invalidParams(
      `Unknown resource template ${JSON.stringify(String(p.ref.uri).slice(0, 200))}. ` +
        `Templates: ${ENTITY_TEMPLATE}, ${CLASS_LEVELS_TEMPLATE}.`,
    );
  }
  if (p.ref.type === "ref/prompt") {
    const prompt = promptNamed(p.ref.name);
    // Own properties only: "__proto__", "toString" or "constructor" name no argument.
    const source = Object.hasOwn(prompt.complete, p.argument.name) ? prompt.complete[p.argument.name] : undefined;
    return source ? completeSource(db, source, value, context) : page([], 0);
  }
  const type = (p.ref as { type: string }).type;
  throw invalidParams(`Unknown completion reference type ${JSON.stringify(type)}; use ref/prompt or ref/resource.`);
}

/** A completion/complete `params` checked against the protocol's shape, or a readable -32602 error. */
function completeRequest(params: unknown): CompleteRequestParams {
  const check = specCheck("CompleteRequestParams", params);
  if (check.ok) return check.value as CompleteRequestParams;
  const where = check.where ? `params.${check.where}` : "params";
  throw invalidParams(
    `completion/complete: ${where} is not valid. Send {"ref": {"type": "ref/resource", "uri": ` +
      `"${ENTITY_TEMPLATE}"} or {"type": "ref/prompt", "name": <prompt>}, "argument": {"name": <argument>, ` +
      `"value": <prefix>}, "context": {"arguments": {...}}}.`,
  );
}

/** completion/complete, checked by completeRequest, answered from the store. */
export function answerCompletion(db: Database, params: unknown): CompleteResult {
  return { completion: complete(db, completeRequest(params)) };
}
