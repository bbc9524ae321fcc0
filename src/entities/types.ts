/**
 * Canonical entities: one normalized shape per kind, the same field names whatever the source.
 * Pure types and tiny helpers only; normalizers live in src/entities/normalize/.
 */
import type { JsonObject } from "../json.ts";
import { ENTITY_KINDS, type EntityKind } from "./kinds.ts";

/** Defined by the kinds' data schemas (kinds.ts); re-exported with the other entity types. */
export { ENTITY_KINDS, type EntityKind } from "./kinds.ts";

export function isEntityKind(s: string): s is EntityKind {
  return (ENTITY_KINDS as readonly string[]).includes(s);
}

export const DOCUMENT_SOURCES = ["open5e_v2", "open5e_v1", "dnd5e_api", "orcbrew", "5etools"] as const;
export type DocumentSource = (typeof DOCUMENT_SOURCES)[number];

/**
 * Sources read from the user's own files by `lorekeeper import` (never synced): homebrew, ranked after open content.
 */
export const HOMEBREW_SOURCES = ["orcbrew", "5etools"] as const satisfies readonly DocumentSource[];

export function isHomebrewSource(source: string): boolean {
  return (HOMEBREW_SOURCES as readonly string[]).includes(source);
}

/** `IN (…)` list of the homebrew sources for SQL (ids are fixed words, never user input). */
export const HOMEBREW_SQL = `(${HOMEBREW_SOURCES.map((s) => `'${s}'`).join(", ")})`;

/** Defined in src/sources (the lowest layer that reads JSON; it must not import entities); re-exported here. */
export type { JsonObject, JsonValue } from "../json.ts";

/**
 * The filter columns the normalizers fill (the filter table, filters.ts, says which kinds have each).
 * Vocabulary values are lower-case ("evocation", "undead", "very rare"); list columns hold
 * lower-case keys.
 */
export interface EntityFilters {
  level?: number | null;
  school?: string | null;
  /** spells: the classes that can cast it (["wizard", "sorcerer"]); subclasses: their class */
  classes?: string[];
  concentration?: boolean | null;
  ritual?: boolean | null;
  /** "1 action", "1 bonus action", "1 reaction", "1 minute" (normalizeCastingTime) */
  casting_time?: string | null;
  damage_types?: string[];
  /** 0.125, 0.25, 0.5, 1..30 */
  cr?: number | null;
  creature_type?: string | null;
  size?: string | null;
  armor_class?: number | null;
  hit_points?: number | null;
  /** weapons: "simple melee", "martial ranged"; armor: "light" … "shield"; items: category; magic items: type */
  category?: string | null;
  rarity?: string | null;
  requires_attunement?: boolean | null;
  /** as written, "1d8" */
  damage_dice?: string | null;
  is_simple?: boolean | null;
  cost_gp?: number | null;
  weight_lb?: number | null;
  section?: string | null;
  /**
   * Other documents whose text this entity also carries (an Open5e "core" condition with the SRD 5.1,
   * SRD 5.2 and A5E wordings): a `documents` filter on any of them matches it too.
   */
  also_documents?: string[];
  /** creatures: as the source lists them, when it does; otherwise read from the stat block (derived.ts) */
  damage_immunities?: string[];
  damage_resistances?: string[];
  condition_immunities?: string[];
}

/** One canonical entity, ready for the store. */
export interface Entity {
  kind: EntityKind;
  /** Unique within (document_source, kind). Open5e v2 keys as-is (e.g. "srd_fireball"). */
  key: string;
  name: string;
  document_key: string;
  document_name: string;
  document_source: DocumentSource;
  /** Where this came from (API detail URL, or orcbrew file path). */
  source_url: string;
  /** The text search reads: name, header line and all descriptive text, markdown stripped. */
  text: string;
  /** Indexed filter values. */
  filters: EntityFilters;
  /**
   * The full canonical detail for this kind (everything a player or DM needs), JSON-serializable.
   * Field names are the same whatever the source (see docs/entities.md).
   */
  data: JsonObject;
}

/** Document metadata (a book / pack). */
export interface DocumentInfo {
  key: string;
  name: string;
  source: DocumentSource;
  publisher?: string | null;
  license?: string | null;
  url?: string | null;
  description?: string | null;
}

const CR_FRACTIONS: Readonly<Record<number, string>> = { 0.125: "1/8", 0.25: "1/4", 0.5: "1/2" };

/** CR as shown to people: 0.125 → "1/8". */
export function formatCr(cr: number | null | undefined): string | null {
  if (cr === null || cr === undefined || !Number.isFinite(cr)) return null;
  return CR_FRACTIONS[cr] ?? String(cr);
}

/** CR from "1/4", "0.25", 0.25, "2" → number; undefined when unparseable. */
export function parseCr(raw: unknown): number | undefined {
  if (typeof raw === "number") return Number.isFinite(raw) ? raw : undefined;
  if (typeof raw !== "string") return undefined;
  const s = raw.trim();
  const frac = /^(\d+)\s*\/\s*(\d+)$/.exec(s);
  if (frac) {
    const d = Number(frac[2]);
    return d === 0 ? undefined : Number(frac[1]) / d;
  }
  if (s === "" || !/^\d+(\.\d+)?$/.test(s)) return undefined;
  return Number(s);
}

/** Lower-case, ASCII-fold, non-alphanumerics → "-". "Ancient Red Dragon" → "ancient-red-dragon". */
export function slugify(s: string): string {
  return s
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
}
