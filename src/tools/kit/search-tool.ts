/**
 * `searchTool(group)`: one of the five entity search tools, from the kind catalog's group and the filter table:
 * its own kind selector (if any), the common parameters, then the group's filters, mapped to one search. A tool
 * file keeps only what is its own: name, title, description and the selector.
 */
import type { Database } from "bun:sqlite";
import * as z from "zod";
import { kindsOfGroup, type ToolGroup } from "../../entities/catalog.ts";
import type { EntityKind } from "../../entities/types.ts";
import type { StructuredFilters } from "../../search/types.ts";
import { defineTool, type ToolDef, type ToolSpec } from "./define.ts";
import { filterArgs, filterParams } from "./filter-params.ts";
import { common } from "./params.ts";
import { searchOutputSchema } from "../answer/response.ts";
import { answerSearch } from "./run-search.ts";

/** Parsed arguments as a selector sees them. */
export type SearchArgs = Record<string, unknown>;

/** A tool's own parameter that picks kinds (search_equipment's `type`, search_rule's `rule_type`). */
export interface KindSelector {
  param: string;
  schema: z.ZodType;
  /** The kinds to search for these arguments (the store, for a choice that depends on what it holds). */
  kinds(args: SearchArgs, db: Database): readonly EntityKind[];
  /** Filters the selection adds (magic-item: `magic`). */
  filters?(args: SearchArgs): StructuredFilters;
}

export type SearchToolSpec = Pick<ToolSpec<z.ZodObject>, "name" | "title" | "description"> & {
  group: ToolGroup;
  selector?: KindSelector;
};

/** The order of an unranked list, said in every search tool's description (search/rank/page.ts). */
const LIST_ORDER = "Lists: SRD first, then A–Z.";

export function searchTool(spec: SearchToolSpec): ToolDef {
  const input = z
    .object({
      ...(spec.selector ? { [spec.selector.param]: spec.selector.schema } : {}),
      ...common(),
      ...filterParams(spec.group),
    })
    .strict();
  const allKinds = kindsOfGroup(spec.group);
  return defineTool({
    name: spec.name,
    title: spec.title,
    description: `${spec.description}\n${LIST_ORDER}`,
    input,
    output: searchOutputSchema,
    openWorld: true,
    run: (parsed, ctx) => {
      const a = parsed as SearchArgs & z.output<z.ZodObject<ReturnType<typeof common>>>;
      return answerSearch(
        spec.name,
        {
          kinds: spec.selector ? spec.selector.kinds(a, ctx.deps.db) : allKinds,
          name: a.name,
          search: a.search,
          documents: a.documents,
          limit: a.limit,
          filters: { ...filterArgs(a, spec.group), ...spec.selector?.filters?.(a) },
        },
        ctx,
        a,
      );
    },
  });
}
