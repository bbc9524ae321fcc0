/**
 * Resources: `lorekeeper://{kind}/{key}` (one full entity, never shortened),
 * `lorekeeper://class/{key}/levels` (class-levels.ts) and `lorekeeper://documents` (the document
 * list): what resources/list and resources/templates/list show, and resources/read.
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
import type { ToolDeps } from "../../tools/kit/deps.ts";
import { flattenEntity } from "../../tools/answer/response.ts";
import { readCardResource } from "./cards/index.ts";
import { CLASS_LEVELS_TEMPLATE_ENTRY, readClassLevelsResource } from "./class-levels.ts";
import { decode, notFound } from "./resource-uri.ts";

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

function readDocumentsResource(deps: ToolDeps, uri: string): ReadResourceResult {
  const text = JSON.stringify({ documents: mergedDocumentRows(deps.db) }, null, 2);
  return { contents: [{ uri, mimeType: "application/json", text }] };
}

const DOCUMENTS_URI = "lorekeeper://documents";
const ENTITY_TEMPLATE = new UriTemplate("lorekeeper://{kind}/{key}");

/** resources/read of a parsed URI, dispatched as McpServer does (exact resource first, then the template). */
export function readResourceUri(deps: ToolDeps, uri: URL): ReadResourceResult {
  const href = uri.toString();
  if (href === DOCUMENTS_URI) return readDocumentsResource(deps, href);
  const vars = ENTITY_TEMPLATE.match(href);
  if (vars) return readEntityResource(deps, href, decode(vars.kind), decode(vars.key));
  const levels = readClassLevelsResource(deps, href);
  if (levels) return levels;
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

/** resources/templates/list. */
export const RESOURCE_TEMPLATE_LIST: ListResourceTemplatesResult = {
  resourceTemplates: [
    {
      uriTemplate: "lorekeeper://{kind}/{key}",
      name: "entity",
      title: "D&D entity",
      description:
        "One full entry (spell, creature, item, rule...) by kind and key, never shortened. Search results " +
        "carry this URI in their `uri` field.",
      mimeType: "application/json",
    },
    CLASS_LEVELS_TEMPLATE_ENTRY,
  ],
};
