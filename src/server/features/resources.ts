/**
 * Resources: `lorekeeper://{kind}/{key}` (one full entity, never shortened), `lorekeeper://class/{key}/levels` (the
 * class_progression answer, all 20 levels) and `lorekeeper://documents`: their lists and resources/read.
 */
import type {
  ListResourcesResult,
  ListResourceTemplatesResult,
  ReadResourceResult,
} from "@modelcontextprotocol/server";
import { UriTemplate } from "@modelcontextprotocol/server";
import { ENTITY_KINDS, HOMEBREW_SOURCES, isEntityKind } from "../../entities/types.ts";
import { entityUri, parseUriKey } from "../../entities/uri.ts";
import { presentHits } from "../../search/rank/present.ts";
import { mergedDocumentRows } from "../../store/documents.ts";
import { getEntitiesByIds, getEntityBySourceKey } from "../../store/entities.ts";
import { safeLine, safeText } from "../../text/sanitize.ts";
import type { ToolDeps } from "../../tools/kit/deps.ts";
import { classLevels } from "../../tools/progression/lookup.ts";
import { flattenEntity } from "../../tools/answer/response.ts";
import { readCardResource } from "./cards/index.ts";
import { CLASS_LEVELS_TEMPLATE, ENTITY_TEMPLATE } from "./completions.ts";

/** MCP 2025-11-25's "resource not found" code; sent as -32602 (2026-07-28's code for it) in both eras. */
const RESOURCE_NOT_FOUND = -32002;

/** This error with exactly this message (McpError would prefix it) and the URI asked for, controls neutralised. */
function notFound(message: string, uri: string): Error {
  return Object.assign(new Error(safeText(message)), { code: RESOURCE_NOT_FOUND, data: { uri: safeLine(uri) } });
}

/** A URI template variable, percent-decoded (kept as given when it is not valid percent-encoding). */
function decode(v: string | string[] | undefined): string {
  const s = Array.isArray(v) ? v.join(",") : (v ?? "");
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function readEntityResource(deps: ToolDeps, uri: string, kindRaw: string, keyRaw: string): ReadResourceResult {
  const kind = kindRaw.toLowerCase().replace(/-/g, "_");
  if (!isEntityKind(kind)) {
    throw notFound(`Unknown content kind "${kindRaw}" in ${uri}. Valid kinds: ${ENTITY_KINDS.join(", ")}.`, uri);
  }
  const where = parseUriKey(keyRaw);
  const found = getEntityBySourceKey(deps.db, kind, where.sources, where.key);
  if (!found) {
    const qualified =
      where.sources.length > 1
        ? getEntityBySourceKey(deps.db, kind, ["open5e_v1", ...HOMEBREW_SOURCES], where.key)
        : undefined;
    const hint = qualified ? ` Did you mean ${entityUri(kind, qualified.key, qualified.document_source)}?` : "";
    throw notFound(
      `No ${kind.replace(/_/g, " ")} with key "${keyRaw}" in the local store.${hint} Search for it with the ` +
        `search tools; their results carry the right uri.`,
      uri,
    );
  }
  const { dup_of, ...entity } = found;
  const [shown] = presentHits(deps.db, [{ entity }], { documents: null, compact: false });
  const flat = flattenEntity(shown!.entity);
  if (dup_of !== null) {
    const primary = getEntitiesByIds(deps.db, [dup_of], false).get(dup_of);
    if (primary) flat.duplicate_of = entityUri(primary.kind, primary.key, primary.document_source);
  }
  return { contents: [{ uri, mimeType: "application/json", text: JSON.stringify(flat, null, 2) }] };
}

const DOCUMENTS_URI = "lorekeeper://documents";
const ENTITY = new UriTemplate(ENTITY_TEMPLATE);
const CLASS_LEVELS = new UriTemplate(CLASS_LEVELS_TEMPLATE);

/** resources/read of a parsed URI, dispatched as McpServer does (exact resource first, then the templates). */
export function readResourceUri(deps: ToolDeps, uri: URL): ReadResourceResult {
  const href = uri.toString();
  if (href === DOCUMENTS_URI) {
    const text = JSON.stringify({ documents: mergedDocumentRows(deps.db) }, null, 2);
    return { contents: [{ uri: href, mimeType: "application/json", text }] };
  }
  const vars = ENTITY.match(href);
  if (vars) return readEntityResource(deps, href, decode(vars.kind), decode(vars.key));
  const levels = CLASS_LEVELS.match(href);
  if (levels) {
    const r = classLevels(deps.db, { class: decode(levels.key), prefer: deps.preferDocuments });
    // MCP's "resource not found"; the message says which classes exist.
    if (typeof r === "string") throw notFound(r, href);
    return { contents: [{ uri: href, mimeType: "application/json", text: JSON.stringify(r) }] };
  }
  const card = readCardResource(href);
  if (card) return card;
  throw notFound(
    `Resource ${href.slice(0, 200)} not found. LoreKeeper's resources are lorekeeper://{kind}/{key} (the ` +
      `\`uri\` of a search result), lorekeeper://class/{key}/levels and ${DOCUMENTS_URI}.`,
    href,
  );
}

/** resources/list: the one fixed resource (entities are reached through the template). */
export const RESOURCE_LIST: ListResourcesResult = {
  resources: [
    {
      uri: DOCUMENTS_URI,
      name: "documents",
      title: "Documents",
      description: "The source documents in the local store with entity counts per type (same data as list_documents).",
      mimeType: "application/json",
    },
  ],
};

export const RESOURCE_TEMPLATE_LIST: ListResourceTemplatesResult = {
  resourceTemplates: [
    {
      uriTemplate: ENTITY_TEMPLATE,
      name: "entity",
      title: "D&D entity",
      description:
        "One full entry (spell, creature, item, rule...) by kind and key, never shortened. Search results " +
        "carry this URI in their `uri` field.",
      mimeType: "application/json",
    },
    {
      uriTemplate: CLASS_LEVELS_TEMPLATE,
      name: "class-levels",
      title: "Class level table",
      description:
        "A class's level-by-level table (proficiency bonus, features, spells known, spell slots), by class key " +
        "or name (e.g. lorekeeper://class/srd_wizard/levels).",
      mimeType: "application/json",
    },
  ],
};
