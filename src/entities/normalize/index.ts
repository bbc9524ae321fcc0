/**
 * The normalizer kit every source's normalizers share: contracts (types.ts), canonical builders
 * (canonical/, build.ts), readers (read.ts), text and vocabulary helpers, document identity. The
 * per-source normalizers live in their source's folder (src/sources/<id>/normalize/).
 */

export type { ContentType, Dnd5eYear, NormalizeContext, NormalizeResult, SkippedRecord } from "./types.ts";
export {
  DOCUMENT_ALIASES,
  V1_TO_V2_DOCUMENT,
  dnd5eApiDocuments,
  dnd5eDocumentKey,
  documentMap,
  normalizeOpen5eDocuments,
  normalizeOpen5eV1Documents,
  officialDocumentName,
  resolveDocumentKey,
} from "./documents.ts";
export { normalizeCastingTime, costToGp, weightToLb, rarityFilter } from "./vocab.ts";
export { RARITIES } from "../catalog.ts";
export { stripMarkdown, MAX_TEXT_CHARS } from "./text.ts";
