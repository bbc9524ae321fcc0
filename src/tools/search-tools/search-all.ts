/** search_all: one natural-language query ranked across every content type. */
import * as z from "zod";
import { ENTITY_KINDS, type EntityKind } from "../../entities/types.ts";
import type { ToolDef } from "../kit/define.ts";
import { defineTool } from "../kit/define.ts";
import { bookKeys, limit, view } from "../kit/params.ts";
import { searchOutputSchema, toolError } from "../answer/response.ts";
import { traitsOnlyWhenNamed } from "../../store/entities.ts";
import { answerSearch } from "../kit/run-search.ts";
import { CONTENT_TYPE_NAMES, contentTypeKinds } from "../kit/vocab.ts";

const input = z
  .object({
    query: z.string().trim().min(1).max(500).describe("Its name if known, else what it does"),
    content_types: z
      .preprocess((v) => (typeof v === "string" ? [v] : v), z.array(z.string().max(50)).max(30))
      .describe(CONTENT_TYPE_NAMES.join(", "))
      .optional(),
    documents: bookKeys().optional(),
    limit: limit(),
    ...view(),
  })
  .strict();

export const searchAll: ToolDef = defineTool({
  name: "search_all",
  title: "Search everything",
  description: [
    "One ranked search over all content. Use it only when the kind is unknown (search_* tools filter).",
    'E.g. {"query": "fire breathing beast"}.',
  ].join("\n"),
  input,
  output: searchOutputSchema,
  openWorld: true,
  async run(a, ctx) {
    // Every kind, monster traits only when the query names one; or the content types asked for.
    let kinds: readonly EntityKind[];
    if (!a.content_types || a.content_types.length === 0)
      kinds = traitsOnlyWhenNamed(ctx.deps.db, ENTITY_KINDS, a.query);
    else {
      const unknown: string[] = [];
      const picked = new Set<EntityKind>();
      for (const ct of a.content_types) {
        const ks = contentTypeKinds(ct);
        if (!ks) unknown.push(ct);
        else for (const k of ks) picked.add(k);
      }
      if (unknown.length > 0) {
        return toolError(
          `Invalid arguments for search_all:\n- content_types: unknown content ` +
            `type${unknown.length > 1 ? "s" : ""} ${unknown.map((u) => JSON.stringify(u)).join(", ")}. Valid ` +
            `content types: ${CONTENT_TYPE_NAMES.join(", ")}.`,
        );
      }
      kinds = ENTITY_KINDS.filter((k) => picked.has(k));
    }
    const query = { kinds, search: a.query, documents: a.documents, limit: a.limit };
    return answerSearch("search_all", query, ctx, a, false);
  },
});
