/**
 * Agreement between upstreams. SRD 5.1 content reaches LoreKeeper from up to three sources (Open5e
 * v2 `srd-2014`, Open5e v1 `wotc-srd`, the D&D 5e API 2014), each a separate transcription of the
 * same document. Field by field, where two agree against the third, the third is most likely a
 * transcription error; where all differ (or only two disagree), nobody can tell from the data.
 *
 * Pure: canonical entity data in, per-field verdicts out. The audit (`scripts/eval-agreement.ts`)
 * runs it over a full sync and writes the corrections file (corrections/srd-2014.json) that ingest
 * applies (corrections/apply.ts).
 */
import { isRec, rec } from "./normalize/read.ts";
import type { JsonObject, JsonValue } from "./types.ts";

export type AuditKind = "spell" | "creature" | "weapon" | "armor" | "magic_item";
export const AUDIT_KINDS: readonly AuditKind[] = ["spell", "creature", "weapon", "armor", "magic_item"];

/** A field compared as a value (scalars; object fields are compared key by key: "skills.arcana"). */
const SCALARS: Record<AuditKind, readonly string[]> = {
  spell: [
    "level",
    "school",
    "casting_time",
    "range",
    "duration",
    "concentration",
    "ritual",
    "components.verbal",
    "components.somatic",
    "components.material",
  ],
  creature: ["size", "type", "alignment", "armor_class", "hit_points", "hit_dice", "cr", "xp", "passive_perception"],
  weapon: [
    "category",
    "range_type",
    "damage_dice",
    "damage_type",
    "versatile_dice",
    "range",
    "long_range",
    "cost_gp",
    "weight_lb",
    "properties",
  ],
  armor: [
    "category",
    "ac_base",
    "ac_add_dex",
    "ac_max_dex",
    "strength_required",
    "stealth_disadvantage",
    "cost_gp",
    "weight_lb",
  ],
  magic_item: ["type", "rarity", "requires_attunement"],
};
/** Object fields compared key by key. */
const OBJECTS: Partial<Record<AuditKind, readonly string[]>> = {
  creature: ["speed", "ability_scores", "saving_throws", "skills"],
};
/** Long text compared by word overlap (never corrected automatically: listed for review). */
const TEXTS: Partial<Record<AuditKind, readonly string[]>> = {
  spell: ["desc", "higher_level", "components.material_text"],
  magic_item: ["desc"],
};

/** Texts whose word sets overlap at least this much (Jaccard) count as the same text. */
const TEXT_AGREEMENT = 0.8;

export interface Member {
  source: string;
  key: string;
  data: JsonObject;
}

export interface FieldVerdict {
  field: string;
  /** Each voting source's value, normalized for comparison (sources with no value do not vote). */
  values: Record<string, JsonValue>;
  verdict: "agree" | "majority" | "split";
  /** With "majority": the value two sources share, and the source that differs. */
  majority?: JsonValue;
  minority?: string;
  /** Text fields: the lowest pairwise word overlap. */
  similarity?: number;
}

/** The value at a dotted path of canonical data ("skills.arcana"), or undefined. */
export function dataAt(data: JsonObject, path: string): JsonValue | undefined {
  let v: JsonValue | undefined = data;
  for (const p of path.split(".")) {
    if (!isRec(v)) return undefined;
    v = v[p] as JsonValue | undefined;
  }
  return v;
}

/** The comparable form of a value: case, spaces, trailing dots and list order do not count. */
export function normalizeValue(field: string, v: JsonValue | undefined): JsonValue | undefined {
  if (v === undefined || v === null || v === "") return undefined;
  if (field === "properties" && Array.isArray(v)) {
    return v
      .map((p) =>
        (isRec(p) ? String(p.name ?? "") : String(p))
          .toLowerCase()
          .replace(/\s*\(.*$/, "")
          .trim(),
      )
      .filter((n) => n && n !== "monk")
      .sort()
      .join(", ");
  }
  // "1 reaction, which you take when…" is the SRD's own wording of "1 reaction".
  if (field === "casting_time" && typeof v === "string") return v.toLowerCase().split(",")[0]!.trim();
  // "varies" / "very rare or legendary" describe a family of items: no vote on one rarity.
  if (field === "rarity" && typeof v === "string" && /\bvaries\b|\sor\s/i.test(v)) return undefined;
  // Concentration has its own field: "Concentration, up to 1 hour" and "1 hour" say the same.
  if (field === "duration" && typeof v === "string")
    return v
      .toLowerCase()
      .replace(/^concentration,?\s*/, "")
      .replace(/^up to\s+/, "")
      .replace(/\s+/g, " ")
      .trim();
  // A listed save, skill or speed of 0 means none (a proficient bonus is never 0; "speed 0 ft." lists nothing).
  if (/^(saving_throws|skills|speed)\./.test(field) && v === 0) return undefined;
  // Dice as written: "5d8 + 10" = "5d8+10".
  if (/(^|_)dice$/.test(field) && typeof v === "string") return v.toLowerCase().replace(/\s+/g, "");
  if (typeof v === "string")
    return v
      .toLowerCase()
      .replace(/\s+/g, " ")
      .replace(/[.\s]+$/, "")
      .trim();
  if (typeof v === "number") return Math.round(v * 1000) / 1000;
  return v;
}

function words(s: string): Set<string> {
  return new Set(s.toLowerCase().match(/[a-z0-9]+/g) ?? []);
}

export function textSimilarity(a: string, b: string): number {
  const A = words(a);
  const B = words(b);
  if (A.size === 0 && B.size === 0) return 1;
  let inter = 0;
  for (const w of A) if (B.has(w)) inter++;
  return inter / (A.size + B.size - inter);
}

function decide(field: string, values: Record<string, JsonValue>): FieldVerdict | undefined {
  const sources = Object.keys(values);
  if (sources.length < 2) return undefined;
  const groups = new Map<string, string[]>();
  for (const s of sources) {
    const k = JSON.stringify(values[s]);
    groups.set(k, [...(groups.get(k) ?? []), s]);
  }
  if (groups.size === 1) return { field, values, verdict: "agree" };
  if (sources.length === 3 && groups.size === 2) {
    const [big, small] = [...groups.entries()].sort((a, b) => b[1].length - a[1].length);
    return { field, values, verdict: "majority", majority: JSON.parse(big![0]) as JsonValue, minority: small![1][0] };
  }
  return { field, values, verdict: "split" };
}

/** Field-by-field verdicts for one thing as transcribed by 2–3 sources. */
export function compareMembers(kind: AuditKind, members: readonly Member[]): FieldVerdict[] {
  const out: FieldVerdict[] = [];
  const fields: string[] = [...SCALARS[kind]];
  const objects = OBJECTS[kind] ?? [];
  for (const obj of objects) {
    const keys = new Set<string>();
    for (const m of members) {
      const o = dataAt(m.data, obj);
      for (const k of Object.keys(rec(o) ?? {})) if (k !== "unit" && k !== "hover") keys.add(k);
    }
    for (const k of [...keys].sort()) fields.push(`${obj}.${k}`);
  }
  for (const field of fields) {
    const values: Record<string, JsonValue> = {};
    // A key one source lists and another does not (a skill): the silent source votes "none".
    const objectField = objects.some((o) => field.startsWith(`${o}.`));
    for (const m of members) {
      const v = normalizeValue(field, dataAt(m.data, field));
      if (v !== undefined) values[m.source] = v;
      else if (objectField && dataAt(m.data, field.split(".")[0]!) !== undefined) values[m.source] = "none";
    }
    const d = decide(field, values);
    if (d) out.push(d);
  }
  for (const field of TEXTS[kind] ?? []) {
    const texts = members
      .map((m) => ({ s: m.source, t: dataAt(m.data, field) }))
      .filter((x): x is { s: string; t: string } => typeof x.t === "string" && x.t.trim() !== "");
    if (texts.length < 2) continue;
    let min = 1;
    for (let i = 0; i < texts.length; i++)
      for (let j = i + 1; j < texts.length; j++) min = Math.min(min, textSimilarity(texts[i]!.t, texts[j]!.t));
    const values = Object.fromEntries(texts.map((x) => [x.s, `${x.t.length} chars`]));
    out.push({
      field,
      values,
      verdict: min >= TEXT_AGREEMENT ? "agree" : "split",
      similarity: Math.round(min * 1000) / 1000,
    });
  }
  return out;
}
