/** Resource `lorekeeper://class/{key}/levels`: a class's level table (the class_progression answer, all 20 levels). */
import { type ReadResourceResult, type ResourceTemplateType, UriTemplate } from "@modelcontextprotocol/server";
import type { ToolDeps } from "../../tools/kit/deps.ts";
import { classLevels } from "../../tools/progression/lookup.ts";
import { CLASS_LEVELS_TEMPLATE } from "./completions.ts";
import { decode, notFound } from "./resource-uri.ts";

const TEMPLATE = new UriTemplate(CLASS_LEVELS_TEMPLATE);

/**
 * The level table at `href` when it is a class-levels URI (undefined otherwise); "resource not found" when there is no
 * such class.
 */
export function readClassLevelsResource(deps: ToolDeps, href: string): ReadResourceResult | undefined {
  const vars = TEMPLATE.match(href);
  if (!vars) return undefined;
  const r = classLevels(deps.db, { class: decode(vars.key), prefer: deps.preferDocuments });
  // MCP's "resource not found"; the message says which classes exist.
  if (typeof r === "string") throw notFound(r, href);
  return { contents: [{ uri: href, mimeType: "application/json", text: JSON.stringify(r) }] };
}

/** Its entry in resources/templates/list. */
export const CLASS_LEVELS_TEMPLATE_ENTRY: ResourceTemplateType = {
  uriTemplate: CLASS_LEVELS_TEMPLATE,
  name: "class-levels",
  title: "Class level table",
  description:
    "A class's level-by-level table (proficiency bonus, features, spells known, spell slots), by class key " +
    "or name (e.g. lorekeeper://class/srd_wizard/levels).",
  mimeType: "application/json",
};
