/**
 * Contracts between the normalizers and the sync layer: a content type is one upstream endpoint
 * (plus optional related endpoints) turned into canonical entities by a pure function.
 */
import type { DocumentInfo, DocumentSource, Entity, EntityKind } from "../types.ts";

export interface NormalizeContext {
  /**
   * Upstream base URL without trailing slash ("https://api.open5e.com",
   * "https://www.dnd5eapi.co"); used for `source_url`.
   */
  baseUrl: string;
  /** Known documents by key (names for records whose `document` is a bare key). */
  documents: Map<string, DocumentInfo>;
  /**
   * Records of the content type's `related` endpoints, by endpoint name (e.g. `{ weapons: [...] }`).
   * Missing entries are tolerated: the normalizer then fills less detail.
   */
  related?: Record<string, unknown[]>;
}

export interface SkippedRecord {
  key?: string;
  reason: string;
}

export interface NormalizeResult {
  entities: Entity[];
  skipped: SkippedRecord[];
}

/** The D&D 5e API serves two rule sets side by side, one per SRD year. */
export type Dnd5eYear = "2014" | "2024";

export interface ContentType {
  source: DocumentSource;
  /** Unique within the source: "spells" (Open5e), "2014/spells" (dnd5eapi). */
  id: string;
  /** Endpoint name as in the URL ("spells", "magicitems", "rule-sections"). */
  endpoint: string;
  /** dnd5eapi only: the API year. */
  year?: Dnd5eYear;
  /** Other endpoints (same source and year) whose records the normalizer joins in via `ctx.related`. */
  related?: string[];
  /** Kinds this content type can produce. */
  kinds: EntityKind[];
  /** Pure: never throws for a bad record (it is skipped with a reason). */
  normalize(records: unknown[], ctx: NormalizeContext): NormalizeResult;
}
