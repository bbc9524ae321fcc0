/**
 * Normalizers: pure functions from upstream records to canonical entities, grouped as content types
 * the sync layer iterates (fetch `endpoint` + `related`, call `normalize`, replace the origin).
 */
import type { ContentType } from "./types.ts";

export type { ContentType, Dnd5eYear, NormalizeContext, NormalizeResult, SkippedRecord } from "./types.ts";
export { OPEN5E_V2_TYPES } from "./open5e-v2/index.ts";
export { OPEN5E_V1_TYPES } from "./open5e-v1/index.ts";
export { DND5EAPI_TYPES, DND5EAPI_2014_TYPES, DND5EAPI_2024_TYPES } from "./dnd5eapi/index.ts";
export {
  DOCUMENT_ALIASES,
  V1_TO_V2_DOCUMENT,
  dnd5eApiDocuments,
  dnd5eDocumentKey,
  documentMap,
  normalizeOpen5eDocuments,
  normalizeOpen5eV1Documents,
  resolveDocumentKey,
} from "./documents.ts";
export { normalizeCastingTime, costToGp, weightToLb, rarityFilter, RARITIES } from "./vocab.ts";
export { stripMarkdown, MAX_TEXT_CHARS } from "./text.ts";

/** URL path (no base) of a content type's list endpoint, or of one of its related endpoints. */
export function contentTypePath(t: ContentType, endpoint: string = t.endpoint): string {
  if (t.source === "dnd5e_api") return `/api/${t.year ?? "2014"}/${endpoint}`;
  return `/${t.source === "open5e_v1" ? "v1" : "v2"}/${endpoint}/`;
}
