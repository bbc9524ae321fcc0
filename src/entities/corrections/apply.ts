/**
 * Corrections by agreement, applied at ingest: for SRD 5.1 fields where two upstreams agree against
 * the third (found by the audit, scripts/eval-agreement.ts, and kept as data in srd-2014.json with
 * every source's value as evidence), the entity from the third source answers the majority's value
 * and says so in `upstream_notes`. Where the sources agree nothing changes; a record whose value is
 * already the majority's (upstream fixed it) is left alone.
 */
import table from "./srd-2014.json" with { type: "json" };
import textFixes from "./text-fixes.json" with { type: "json" };
import type { Entity, EntityFilters, JsonObject, JsonValue } from "../types.ts";
import { dataAt, normalizeValue } from "../agreement.ts";
import { isRec } from "../normalize/read.ts";

export const CORRECTIONS_PATH = new URL("./srd-2014.json", import.meta.url).pathname;

export interface Correction {
  /** the source whose record differs */
  source: string;
  kind: string;
  key: string;
  name: string;
  /** data path, e.g. "cr", "skills.arcana", "components.material" */
  field: string;
  /** the majority's value (as one of the agreeing sources writes it) */
  value: JsonValue;
  /** every source's value, compared form */
  evidence: Record<string, JsonValue>;
}

/** A majority verdict a review found wrong: `source` is right and keeps its value. */
export interface KeptValue {
  source: string;
  kind: string;
  name: string;
  field: string;
  why: string;
}

export const KEPT: readonly KeptValue[] = (table as { kept?: KeptValue[] }).kept ?? [];

const SOURCE_LABEL: Record<string, string> = {
  open5e_v2: "Open5e v2",
  open5e_v1: "Open5e v1",
  dnd5e_api: "the D&D 5e API",
};

/** The identity corrections and text fixes are filed under. */
const entityId = (source: string, kind: string, key: string) => `${source}\u0000${kind}\u0000${key}`;

const BY_ENTITY = Map.groupBy((table as { corrections: Correction[] }).corrections, (c) =>
  entityId(c.source, c.kind, c.key),
);

/** Filter columns that mirror a data field (kept in step when the field is corrected). */
const FILTER_OF: Record<string, (v: JsonValue) => Partial<EntityFilters>> = {
  level: (v) => ({ level: typeof v === "number" ? v : null }),
  school: (v) => ({ school: typeof v === "string" ? v.toLowerCase() : null }),
  concentration: (v) => ({ concentration: v === true }),
  ritual: (v) => ({ ritual: v === true }),
  casting_time: (v) => ({ casting_time: typeof v === "string" ? v.toLowerCase() : null }),
  cr: (v) => ({ cr: typeof v === "number" ? v : null }),
  type: (v) => ({ creature_type: typeof v === "string" ? v.toLowerCase() : null }),
  size: (v) => ({ size: typeof v === "string" ? v.toLowerCase() : null }),
  armor_class: (v) => ({ armor_class: typeof v === "number" ? v : null }),
  hit_points: (v) => ({ hit_points: typeof v === "number" ? v : null }),
  rarity: (v) => ({ rarity: typeof v === "string" ? v.toLowerCase() : null }),
  requires_attunement: (v) => ({ requires_attunement: v === true }),
  damage_dice: (v) => ({ damage_dice: typeof v === "string" ? v : null }),
  damage_type: (v) => ({ damage_types: typeof v === "string" ? [v.toLowerCase()] : [] }),
  cost_gp: (v) => ({ cost_gp: typeof v === "number" ? v : null }),
  weight_lb: (v) => ({ weight_lb: typeof v === "number" ? v : null }),
};

/** `data` with `path` set to `value` ("none": removed), objects on the way copied, never shared. */
export function setPath(data: JsonObject, path: string, value: JsonValue): JsonObject {
  const [head, ...rest] = path.split(".");
  const out: JsonObject = { ...data };
  if (rest.length === 0) {
    if (value === "none") delete out[head!];
    else out[head!] = value;
    return out;
  }
  const inner = out[head!];
  out[head!] = setPath(isRec(inner) ? (inner as JsonObject) : {}, rest.join("."), value);
  return out;
}

function show(v: JsonValue | undefined): string {
  if (v === undefined || v === null || v === "none") return "nothing";
  return typeof v === "string" ? `"${v}"` : JSON.stringify(v);
}

/** The corrections that concern `e` (none for most entities). */
export function correctionsFor(e: Pick<Entity, "document_source" | "kind" | "key">): readonly Correction[] {
  return BY_ENTITY.get(entityId(e.document_source, e.kind, e.key)) ?? [];
}

/** A slip in an upstream text (text-fixes.json): in `field` of the record, each [from, to] pair. */
export interface TextFix extends Omit<Correction, "value" | "evidence"> {
  why: string;
  /** [from, to] pairs */
  replace: string[][];
}

export const TEXT_FIXES: readonly TextFix[] = (textFixes as { fixes: TextFix[] }).fixes;

const FIXES_BY_ENTITY = Map.groupBy(TEXT_FIXES, (f) => entityId(f.source, f.kind, f.key));

/**
 * `e` with its text slips fixed in the field and in the search text (which holds the field's
 * words), so the keyword leg, the embedding and a quoted passage read "bludgeoning damage", not
 * "bludgeoningdamage". No note: the words are the source's own.
 */
function fixText<E extends Entity>(e: E): E {
  const fixes = FIXES_BY_ENTITY.get(entityId(e.document_source, e.kind, e.key));
  if (!fixes) return e;
  let data = e.data;
  let text = e.text;
  for (const f of fixes) {
    const v = dataAt(data, f.field);
    if (typeof v !== "string") continue;
    let fixed = v;
    for (const [from, to] of f.replace) {
      if (!from || to === undefined) continue;
      fixed = fixed.split(from).join(to);
      text = text.split(from).join(to);
    }
    if (fixed !== v) data = setPath(data, f.field, fixed);
  }
  return data === e.data && text === e.text ? e : { ...e, data, text };
}

/** `e` with its corrections applied and each stated in `upstream_notes`; `e` itself when none applies. */
export function applyCorrections<E extends Entity>(entity: E): E {
  const e = fixText(entity);
  const list = correctionsFor(e);
  if (list.length === 0) return e;
  let data = e.data;
  let filters: EntityFilters = e.filters;
  const notes: string[] = [];
  for (const c of list) {
    const current = dataAt(data, c.field);
    if (
      JSON.stringify(normalizeValue(c.field, current) ?? "none") ===
      JSON.stringify(normalizeValue(c.field, c.value) ?? "none")
    )
      continue;
    data = setPath(data, c.field, c.value);
    const f = FILTER_OF[c.field];
    if (f) filters = { ...filters, ...f(c.value) };
    const others = Object.keys(c.evidence)
      .filter((s) => s !== c.source)
      .map((s) => SOURCE_LABEL[s] ?? s);
    notes.push(
      `${SOURCE_LABEL[c.source] ?? c.source} gives ${c.field} ${show(current)}; ${others.join(" and ")} give ` +
        `${show(c.value)}. Corrected to the majority.`,
    );
  }
  if (notes.length === 0) return e;
  const prior = Array.isArray(data.upstream_notes) ? (data.upstream_notes as JsonValue[]) : [];
  return { ...e, data: { ...data, upstream_notes: [...prior, ...notes] }, filters };
}
