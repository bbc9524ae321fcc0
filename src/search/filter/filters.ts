/**
 * Structured filters → one SQL WHERE fragment over `entities e` with bound values. Pure.
 *
 * Strings compare case-insensitively (the columns are COLLATE NOCASE) and tolerate "-"/"_"/" "
 * spelling differences ("very rare" = "very-rare"); ranges are inclusive; list columns
 * (`classes`, `damage_types`, stored as "|a|b|") match one element exactly. Impossible or
 * malformed values (level_min > level_max, cr "abc") give a message instead of a query.
 */
import { DERIVED_FILTERS } from "../../entities/derived.ts";
import { normalizeCastingTime } from "../../entities/normalize/vocab.ts";
import { parseCr, type EntityKind } from "../../entities/types.ts";
import type { StructuredFilters } from "../types.ts";

export type SqlValue = string | number;

/** A WHERE fragment ("1" when it filters nothing) and its bound values, in order. */
export interface WhereClause {
  sql: string;
  params: SqlValue[];
}

export type FilterResult = { ok: true; where: WhereClause } | { ok: false; message: string };

export const TRUE_CLAUSE: WhereClause = { sql: "1", params: [] };

/** AND of clauses, skipping "1". */
export function andWhere(...clauses: WhereClause[]): WhereClause {
  const parts = clauses.filter((c) => c.sql !== "1");
  if (parts.length === 0) return TRUE_CLAUSE;
  return { sql: parts.map((c) => `(${c.sql})`).join(" AND "), params: parts.flatMap((c) => c.params) };
}

/** Escape LIKE metacharacters for `LIKE ? ESCAPE '\'`. */
export function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (m) => `\\${m}`);
}

function inList(col: string, values: readonly SqlValue[]): WhereClause {
  const uniq = [...new Set(values)];
  return uniq.length === 1 ? { sql: `${col} = ?`, params: uniq } : { sql: `${col} IN (${uniq.map(() => "?").join(",")})`, params: uniq };
}

/** "Very Rare" → ["very rare", "very-rare", "very_rare"]: the spellings a vocabulary value may be stored in. */
export function vocabularyVariants(raw: string): string[] {
  const base = raw.trim().toLowerCase().replace(/\s+/g, " ");
  const spaced = base.replace(/[-_]+/g, " ").replace(/\s+/g, " ");
  return [...new Set([base, spaced, spaced.replace(/ /g, "-"), spaced.replace(/ /g, "_")])];
}

/**
 * Casting time as people write it → the stored spellings it may match. The normalized vocabulary
 * is "1 action", "1 bonus action", "1 reaction", "1 minute", "10 minutes", "1 hour", ...
 * ("action", "Bonus Action", "1minute", "bonus-action", "1 reaction, which you take when..." all
 * resolve; the first variant is the normalizer's own spelling). Raw upstream spellings
 * ("action", "bonus-action", "1minute") are included in case a source stored them unnormalized.
 */
export function castingTimeVariants(raw: string): string[] {
  let s = raw.trim().toLowerCase().replace(/[-_]+/g, " ").replace(/\s+/g, " ");
  s = s.replace(/(\d)([a-z])/g, "$1 $2").replace(/^(a|an|one) /, "1 ");
  if (!/^\d/.test(s)) s = `1 ${s}`;
  const m = /^(\d+) (.*)$/.exec(s);
  if (!m) return [s];
  const n = m[1]!;
  const unit = m[2]!;
  const singular = unit.replace(/s$/, "");
  const units = new Set([unit, singular, `${singular}s`]);
  const out = new Set<string>();
  const canonical = normalizeCastingTime(raw);
  if (canonical) out.add(canonical);
  for (const u of units) {
    out.add(`${n} ${u}`);
    out.add(`${n}${u.replace(/ /g, "")}`);
    if (n === "1") {
      out.add(u);
      out.add(u.replace(/ /g, "-"));
    }
  }
  return [...out];
}

/** `col` ("|a|b|") holds `value`, or an element ending in "_value" (keys like "srd_wizard"). */
function listHas(col: string, raw: string): WhereClause {
  const v = raw.trim().toLowerCase();
  const bare = v.includes("_") ? v.slice(v.indexOf("_") + 1) : v;
  const values = [...new Set([v, bare])];
  const parts: string[] = [];
  const params: SqlValue[] = [];
  for (const x of values) {
    parts.push(`${col} LIKE ? ESCAPE '\\'`, `${col} LIKE ? ESCAPE '\\'`);
    params.push(`%|${escapeLike(x)}|%`, `%\\_${escapeLike(x)}|%`);
  }
  return { sql: parts.join(" OR "), params };
}

function blank(s: string | undefined): s is undefined {
  return s === undefined || s.trim() === "";
}

const NUMERIC_FIELDS = ["level", "level_min", "level_max", "armor_class_min", "hit_points_min", "cost_min", "cost_max", "weight_max"] as const;

/**
 * Build the WHERE fragment for `kinds`, `filters` and resolved document keys (null = any).
 * Empty `kinds` or `documentKeys` = [] give a clause that matches nothing ("0").
 */
export function buildFilterWhere(kinds: readonly EntityKind[], filters: StructuredFilters | undefined, documentKeys: readonly string[] | null): FilterResult {
  const f = filters ?? {};
  const clauses: WhereClause[] = [];
  if (kinds.length === 0) return { ok: true, where: { sql: "0", params: [] } };
  clauses.push(inList("e.kind", kinds));
  // One entity per thing per document: copies from less preferred sources never answer (store/duplicates.ts).
  clauses.push({ sql: "e.dup_of IS NULL", params: [] });
  if (documentKeys !== null) {
    if (documentKeys.length === 0) return { ok: true, where: { sql: "0", params: [] } };
    const doc = inList("e.document_key", documentKeys);
    const also = documentKeys.map(() => "e.also_documents LIKE ? ESCAPE '\\'");
    clauses.push({ sql: `(${doc.sql} OR (e.also_documents IS NOT NULL AND (${also.join(" OR ")})))`, params: [...doc.params, ...documentKeys.map((k) => `%|${escapeLike(String(k).toLowerCase())}|%`)] });
  }

  for (const k of NUMERIC_FIELDS) {
    const v = f[k];
    if (v !== undefined && (typeof v !== "number" || !Number.isFinite(v))) return { ok: false, message: `${k} must be a number (got ${JSON.stringify(v)}).` };
  }
  const range = (label: string, col: string, lo: number | undefined, hi: number | undefined): string | undefined => {
    if (lo !== undefined && hi !== undefined && lo > hi) return `${label}_min (${lo}) is greater than ${label}_max (${hi}), so nothing can match.`;
    if (lo !== undefined) clauses.push({ sql: `${col} >= ?`, params: [lo] });
    if (hi !== undefined) clauses.push({ sql: `${col} <= ?`, params: [hi] });
    return undefined;
  };

  if (f.level !== undefined) clauses.push({ sql: "e.level = ?", params: [f.level] });
  const levelErr = range("level", "e.level", f.level_min, f.level_max);
  if (levelErr) return { ok: false, message: levelErr };

  const crs: Partial<Record<"cr" | "cr_min" | "cr_max", number>> = {};
  for (const k of ["cr", "cr_min", "cr_max"] as const) {
    const raw = f[k];
    if (raw === undefined || (typeof raw === "string" && raw.trim() === "")) continue;
    const n = parseCr(raw);
    if (n === undefined) return { ok: false, message: `${k} ${JSON.stringify(raw)} is not a challenge rating; use a number like 5 or a fraction like "1/4".` };
    crs[k] = n;
  }
  if (crs.cr !== undefined) clauses.push({ sql: "e.cr = ?", params: [crs.cr] });
  const crErr = range("cr", "e.cr", crs.cr_min, crs.cr_max);
  if (crErr) return { ok: false, message: crErr };

  const costErr = range("cost", "e.cost_gp", f.cost_min, f.cost_max);
  if (costErr) return { ok: false, message: costErr };
  if (f.weight_max !== undefined) clauses.push({ sql: "e.weight_lb <= ?", params: [f.weight_max] });
  if (f.armor_class_min !== undefined) clauses.push({ sql: "e.armor_class >= ?", params: [f.armor_class_min] });
  if (f.hit_points_min !== undefined) clauses.push({ sql: "e.hit_points >= ?", params: [f.hit_points_min] });

  const vocab: Array<[keyof StructuredFilters, string]> = [
    ["school", "e.school"],
    ["creature_type", "e.creature_type"],
    ["size", "e.size"],
    ["category", "e.category"],
    ["rarity", "e.rarity"],
    ["section", "e.section"],
  ];
  for (const [k, col] of vocab) {
    const v = f[k];
    if (typeof v === "string" && !blank(v)) clauses.push(inList(col, vocabularyVariants(v)));
  }
  if (!blank(f.damage_dice)) clauses.push({ sql: "lower(replace(e.damage_dice, ' ', '')) = ?", params: [f.damage_dice.replace(/\s+/g, "").toLowerCase()] });
  if (!blank(f.casting_time)) clauses.push(inList("e.casting_time", castingTimeVariants(f.casting_time)));
  if (!blank(f.class_key)) clauses.push(listHas("e.classes", f.class_key));
  if (!blank(f.damage_type)) clauses.push(listHas("e.damage_types", f.damage_type));

  for (const d of DERIVED_FILTERS) {
    const raw = (f as Record<string, unknown>)[d.param];
    if (raw === undefined) continue;
    const col = `e.${d.column}`;
    if (d.type === "bool") {
      if (typeof raw !== "boolean") return { ok: false, message: `${d.param} must be true or false (got ${JSON.stringify(raw)}).` };
      clauses.push({ sql: `${col} = ?`, params: [raw ? 1 : 0] });
      continue;
    }
    const values = (Array.isArray(raw) ? raw : [raw]).map((v) => String(v).trim().toLowerCase().replace(/_/g, " ")).filter((v) => v.length > 0);
    for (const v of values) {
      const canon = d.aliases?.[v] ?? d.values.find((x) => x === v || x.replace(/[- ]/g, "") === v.replace(/[- ]/g, ""));
      if (!canon) return { ok: false, message: `${d.param} "${v}" is not one of: ${d.values.join(", ")}.` };
      clauses.push({ sql: `${col} LIKE ? ESCAPE '\\'`, params: [`%|${escapeLike(canon)}|%`] });
    }
  }
  if (f.magic !== undefined) clauses.push({ sql: "e.magic = ?", params: [f.magic ? 1 : 0] });

  for (const k of ["concentration", "ritual", "is_simple", "requires_attunement"] as const) {
    const v = f[k];
    if (v !== undefined) clauses.push({ sql: `e.${k} = ?`, params: [v ? 1 : 0] });
  }
  return { ok: true, where: andWhere(...clauses) };
}
