/** `lorekeeper search <query>`: the same ranked search the MCP tools run, from the terminal. */
import { safeText } from "../../text/sanitize.ts";
import { CATALOG_KINDS, GROUPS, KINDS, kindsOfGroup, type ToolGroup } from "../../entities/catalog.ts";
import { ENTITY_KINDS, formatCr, type EntityKind } from "../../entities/types.ts";
import { runSearch } from "../../search/hybrid.ts";
import type { SearchHit, SearchResponse } from "../../search/types.ts";
import { closeVectorIndex } from "../../search/index/vector-index.ts";
import { openStore } from "../../store/db.ts";
import { list, parse } from "../args.ts";
import { type Command, EXIT_OK, UsageError } from "../command.ts";
import { printJson, table } from "../progress.ts";
import { HOMEBREW_FILES } from "../../sources/index.ts";
import { FILTER_HELP, FILTER_OPTIONS, filtersFromOptions } from "./search-filters.ts";

/** --type words that stand for several kinds (catalog groups) or name one by another name (kind aliases). */
const TYPE_GROUPS: Readonly<Record<string, readonly EntityKind[]>> = {
  all: ENTITY_KINDS,
  ...Object.fromEntries(
    (Object.keys(GROUPS) as ToolGroup[]).flatMap((g) => {
      const word = GROUPS[g].cliWord;
      return word ? [[word, kindsOfGroup(g)]] : [];
    }),
  ),
  ...Object.fromEntries(CATALOG_KINDS.flatMap((k) => KINDS[k].aliases.map((a) => [a.toLowerCase(), [k]]))),
};

/** "spells,magic-item,equipment" → kinds (unique, in order). Throws UsageError on an unknown word. */
export function parseTypes(words: readonly string[] | undefined): EntityKind[] {
  if (!words || words.length === 0) return [...ENTITY_KINDS];
  const out = new Set<EntityKind>();
  for (const raw of words) {
    const w = raw.trim().toLowerCase().replace(/_/g, "-");
    const asKind = w.replace(/-/g, "_");
    const singular = asKind.replace(/(es|s)$/, "");
    const group = TYPE_GROUPS[w] ?? TYPE_GROUPS[w.replace(/s$/, "")];
    const kind = [asKind, singular, asKind.replace(/s$/, "")].find((k): k is EntityKind =>
      (ENTITY_KINDS as readonly string[]).includes(k),
    );
    if (group) for (const k of group) out.add(k);
    else if (kind) out.add(kind);
    else {
      const groups = Object.keys(TYPE_GROUPS).filter((g) => g !== "all");
      throw new UsageError(
        `unknown --type "${raw}". Valid: all, ${groups.join(", ")}, or a kind: ${ENTITY_KINDS.join(", ")}`,
      );
    }
  }
  return [...out];
}

/** A short line about a hit: level and school, CR and type, rarity, ... else the start of its text. */
export function summary(h: SearchHit, width = 60): string {
  const e = h.entity;
  const f = e.filters;
  const parts: string[] = [];
  if (e.kind === "spell" && f.level !== undefined && f.level !== null)
    parts.push(f.level === 0 ? `${f.school ?? ""} cantrip`.trim() : `level ${f.level} ${f.school ?? ""}`.trim());
  if (e.kind === "creature") {
    const cr = f.cr !== undefined && f.cr !== null ? `CR ${formatCr(f.cr)}` : "";
    parts.push([cr, f.size ?? "", f.creature_type ?? ""].filter(Boolean).join(" "));
  }
  if (f.rarity) parts.push(f.rarity);
  if (f.category && e.kind !== "creature") parts.push(f.category);
  if (f.damage_dice) parts.push(f.damage_dice);
  if (e.kind === "trait" && typeof e.data.creature_count === "number")
    parts.push(`${e.data.creature_count} creatures: ${typeof e.data.desc === "string" ? e.data.desc : ""}`);
  let s = parts.filter(Boolean).join(", ");
  if (!s) s = e.text.startsWith(`${e.name}.`) ? e.text.slice(e.name.length + 1).trim() : e.text;
  s = s.replace(/\s+/g, " ");
  return s.length > width ? `${s.slice(0, width - 1)}…` : s;
}

function jsonOf(r: SearchResponse, query: string): unknown {
  return {
    query,
    mode: r.mode,
    ...(r.message ? { message: r.message } : {}),
    count: r.hits.length,
    results: r.hits.map((h) => {
      const { text: _text, ...entity } = h.entity;
      return h.similarity_score === undefined ? entity : { ...entity, similarity_score: h.similarity_score };
    }),
  };
}

/** The document column of a collapsed row: its document, then the other versions' documents, each once. Pure. */
export function documentCell(key: string, others: ReadonlyArray<{ document_key: string }>): string {
  const more = [...new Set(others.map((o) => o.document_key))].filter((k) => k.toLowerCase() !== key.toLowerCase());
  return more.length ? `${key} (+${more.join(", ")})` : key;
}

function textOf(r: SearchResponse, collapsed: boolean): string {
  if (r.hits.length === 0) return "No results.\n";
  const scored = r.hits.some((h) => h.similarity_score !== undefined);
  const headers = ["name", "kind", "document", ...(scored ? ["score"] : []), "summary"];
  const rows = r.hits.map((h) => [
    h.entity.name.length > 40 ? `${h.entity.name.slice(0, 39)}…` : h.entity.name,
    h.entity.kind,
    // Collapsed like the tools' answers: the preferred document's row names the other documents
    // (a copy of the same document from another source, e.g. Open5e v1 beside v2, adds nothing).
    documentCell(h.entity.document_key, h.others ?? []),
    ...(scored ? [h.similarity_score === undefined ? "" : h.similarity_score.toFixed(3)] : []),
    summary(h),
  ]);
  let ranking = collapsed ? "preferred documents first, then by name" : "ordered by name";
  if (r.mode === "hybrid") ranking = "ranked by keywords and meaning";
  if (r.mode === "lexical") ranking = "ranked by keywords";
  return (
    `${table(headers, rows, scored ? new Set([3]) : new Set())}\n\n${r.hits.length} result` +
    `${r.hits.length === 1 ? "" : "s"}, ${ranking}.\n`
  );
}

const HELP = `Usage: lorekeeper search <query> [--type T] [--documents a,b] [--limit N] [--json] [--db-path PATH]

Search the local store the way the MCP tools do: keyword (typo-tolerant) and semantic ranking
combined, best first, with a similarity score from 0 to 1. Without a query, list: one row per thing,
the preferred documents' (the core SRDs) first, then by name; with --all-versions or --documents,
every version by name.

Options:
  --type T        what to search (default all): a kind (spell, creature, class, subclass, species,
                  background, feat, weapon, armor, item, magic-item, condition, rule, ...), or
                  equipment | character-option | rules | all; comma-separated or repeated
  --documents K   only these document keys (e.g. srd-2014,tob; see \`lorekeeper documents\`)
  --limit N       how many results (default 10)
  --all-versions  every document's version its own row (default: one row per thing, the
                  preferred document's, as the MCP tools answer; LOREKEEPER_PREFER_DOCUMENTS)
Filters (SQL, like the tools' parameters; a list value means all of them):
${FILTER_HELP}
  --json          JSON on stdout (full entities)
  --db-path P     the store (default $XDG_DATA_HOME/lorekeeper/lorekeeper.db)

Examples:
  lorekeeper search "fire breathing beast" --type creature
  lorekeeper search "magik missle" --type spell --documents srd-2014
  lorekeeper search healing --type equipment,spell --limit 5 --json
  lorekeeper search --type creature --speed fly --damage-immunity fire --legendary true
  lorekeeper search --type weapon --property finesse
  lorekeeper search --type subclass --class-key wizard`;

export const searchCommand: Command = {
  name: "search",
  summary: "search the local store (hybrid keyword + semantic ranking)",
  help: HELP,
  async run(argv, ctx) {
    const { values, positionals } = parse(
      argv,
      {
        type: { type: "string", multiple: true },
        documents: { type: "string", multiple: true },
        limit: { type: "string" },
        json: { type: "boolean" },
        "all-versions": { type: "boolean" },
        ...FILTER_OPTIONS,
      },
      true,
    );
    const query = positionals.join(" ").trim();
    const types = list(values.type);
    const kinds = parseTypes(types);
    const filters = filtersFromOptions(values as Record<string, unknown>);
    // "magic-item" means what a DM means in every edition (SRD 5.2 files potions as items).
    if (types?.length === 1 && /^magic[-_ ]?items?$/i.test(types[0]!)) {
      kinds.push("item");
      filters.magic = true;
    }
    const limit = values.limit === undefined ? 10 : Number(values.limit);
    if (!Number.isInteger(limit) || limit < 1)
      throw new UsageError(`--limit must be a whole number of at least 1 (got "${values.limit}")`);
    const store = openStore({ path: values["db-path"], fallbackReadonly: true });
    const collapse = !values["all-versions"] && !list(values.documents)?.length;
    try {
      const provider = ctx.embedder();
      const r = await runSearch(
        { store, embedder: provider, embeddingTimeoutMs: ctx.config.embeddingTimeoutMs },
        {
          kinds,
          search: query,
          documents: list(values.documents) ?? null,
          limit,
          filters,
          // One row per thing, as the tools answer: the server's document preference picks the version.
          collapse,
          prefer: ctx.config.preferDocuments,
        },
      );
      if (values.json) {
        printJson(jsonOf(r, query));
      } else {
        process.stdout.write(safeText(textOf(r, collapse)));
        if (r.message) process.stderr.write(safeText(`note: ${r.message}\n`));
        if (r.hits.length === 0 && store.db.query("SELECT 1 FROM entities LIMIT 1").get() === null) {
          const fill = `fill it with \`lorekeeper sync\` or \`lorekeeper import ${HOMEBREW_FILES}\``;
          process.stderr.write(`The store at ${store.path} is empty: ${fill}.\n`);
        }
      }
      return EXIT_OK;
    } finally {
      closeVectorIndex(store);
      store.close();
    }
  },
};
