/** The document preference (entities/preference.ts: the store keeps each entity's place by it too). */
export {
  comparePreferred,
  documentRank,
  type DocumentRank,
  normalizePreference,
  OFFICIAL_SRDS,
} from "../../entities/preference.ts";
