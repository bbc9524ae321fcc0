/**
 * Structured filters → one SQL WHERE fragment over `entities e` with bound values, each parameter
 * as the filter table (src/entities/filters.ts) says. Pure. Strings compare case-insensitively and
 * tolerate "-"/"_"/" " ("very rare" = "very-rare"); ranges are inclusive; list columns ("|a|b|")
 * match one element. Impossible or malformed values give a message instead of a query.
 */
import { FILTER_PARAMS, type TableParam } from "../../entities/filters.ts";
import { straightApostrophes } from "../../entities/derived.ts";
import { normalizeCastingTime } from "../../entities/normalize/vocab.ts";
import { parseCr, type EntityKind } from "../../entities/types.ts";
import type { StructuredFilters } from "../types.ts";

export type SqlValue = string | number;

/** A WHERE fragment ("1" when it filters nothing) and its bound values, in order. */
export interface WhereClause {
  sql: string;
  params: SqlValue[];
  /**
   * The clause keeps a few known ids (names.ts): read by id, as SQLite without statistics would walk
   * the whole kind in a covering index (docs/benchmark.md, "Figures behind the code").
   */
  byIds?: true;
  /** The clause is exactly "the answering entities of these kinds", which the name index holds. Lost by andWhere. */
  onlyKinds?: readonly string[];
}

export type FilterResult = { ok: true; where: WhereClause } | { ok: false; message: string };

export const TRUE_CLAUSE: WhereClause = { sql: "1", params: [] };

/** AND of clauses, skipping "1" (read by id when any of them is). */
export function andWhere(...clauses: WhereClause[]): WhereClause {
  const parts = clauses.filter((c) => c.sql !== "1");
  if (parts.length === 0) return TRUE_CLAUSE;
  const out: WhereClause = {
    sql: parts.map((c) => `(${c.sql})`).join(" AND "),
    params: parts.flatMap((c) => c.params),
  };
  if (parts.some((c) => c.byIds)) out.byIds = true;
  return out;
}

/** `entities e` as the FROM of a query over `where`: by rowid when the clause keeps a few known ids. */
export function entitiesOf(where: WhereClause): string {
  return where.byIds ? "entities e NOT INDEXED" : "entities e";
}

/** SQLite's NOCASE and LIKE folding: ASCII letters only. */
export function nocase(s: string): string {
  return s.replace(/[A-Z]+/g, (m) => m.toLowerCase());
}

/** Escape LIKE metacharacters for `LIKE ? ESCAPE '\'`. */
export function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (m) => `\\${m}`);
}

function inList(col: string, values: readonly SqlValue[]): WhereClause {
  const uniq = [...new Set(values)];
  return uniq.length === 1
    ? { sql: `${col} = ?`, params: uniq }
    : { sql: `${col} IN (${uniq.map(() => "?").join(",")})`, params: uniq };
}

/** "Very Rare" → ["very rare", "very-rare", "very_rare"]: the spellings a vocabulary value may be stored in. */
export function vocabularyVariants(raw: string): string[] {
  const base = raw.trim().toLowerCase().replace(/\s+/g, " ");
  const spaced = base.replace(/[-_]+/g, " ").replace(/\s+/g, " ");
  return [...new Set([base, spaced, spaced.replace(/ /g, "-"), spaced.replace(/ /g, "_")])];
}

/**
 * Casting time as people write it ("action", "Bonus Action", "1minute") → the stored spellings it
 * may match: the normalizer's own first ("1 bonus action"), then raw upstream spellings in case a
 * source stored them unnormalized.
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
  // Stored names have straight apostrophes (entities/derived.ts): "Devil’s Sight" finds "devil's sight".
  // A store written before migration 12 and opened read-only still holds the book's ’.
  const v = straightApostrophes(raw.trim().toLowerCase());
  const bare = v.includes("_") ? v.slice(v.indexOf("_") + 1) : v;
  const values = [...new Set([v, bare, v.replace(/'/g, "’"), bare.replace(/'/g, "’")])];
  return {
    sql: values.map(() => `${col} LIKE ? ESCAPE '\\' OR ${col} LIKE ? ESCAPE '\\'`).join(" OR "),
    params: values.flatMap((x) => [`%|${escapeLike(x)}|%`, `%\\_${escapeLike(x)}|%`]),
  };
}

/** A parameter's value as its input type reads it, or a message. */
function paramValue(
  p: TableParam,
  raw: unknown,
): { ok: true; v: unknown } | { ok: false; message: string } | undefined {
  switch (p.input.type) {
    case "int":
    case "number":
      if (typeof raw !== "number" || !Number.isFinite(raw))
        return { ok: false, message: `${p.name} must be a number (got ${JSON.stringify(raw)}).` };
      return { ok: true, v: raw };
    case "cr": {
      if (typeof raw === "string" && raw.trim() === "") return undefined;
      const n = parseCr(raw);
      if (n === undefined)
        return {
          ok: false,
          message:
            `${p.name} ${JSON.stringify(raw)} is not a challenge rating; use a number like 5 or a fraction ` +
            `like "1/4".`,
        };
      return { ok: true, v: n };
    }
    case "bool":
      if (typeof raw !== "boolean")
        return { ok: false, message: `${p.name} must be true or false (got ${JSON.stringify(raw)}).` };
      return { ok: true, v: raw ? 1 : 0 };
    case "values":
      return { ok: true, v: raw };
    default:
      return typeof raw !== "string" || raw.trim() === "" ? undefined : { ok: true, v: raw };
  }
}

/** The clauses of one parameter (`v` as valueOf read it), or a message. */
function clausesOf(p: TableParam, v: unknown): WhereClause[] | string {
  const col = `e.${p.column.column}`;
  switch (p.match) {
    case "equal":
      return [{ sql: `${col} = ?`, params: [v as SqlValue] }];
    case "at_least":
      return [{ sql: `${col} >= ?`, params: [v as SqlValue] }];
    case "at_most":
      return [{ sql: `${col} <= ?`, params: [v as SqlValue] }];
    case "vocab":
      return [inList(col, vocabularyVariants(String(v)))];
    case "casting_time":
      return [inList(col, castingTimeVariants(String(v)))];
    case "dice":
      return [{ sql: `lower(replace(${col}, ' ', '')) = ?`, params: [String(v).replace(/\s+/g, "").toLowerCase()] }];
    case "has":
      return [listHas(col, String(v))];
    case "namesake_has_words": {
      // This row's list or a same-named row's of its kind (indexed by kind, name): SRD 5.2 stat blocks
      // list no environments, their SRD 5.1 namesakes do.
      const words = `%${escapeLike(String(v).trim().toLowerCase().replace(/\s+/g, " ").replace(/\|/g, " "))}%`;
      const other = `v.${p.column.column}`;
      return [
        {
          sql:
            `(${col} LIKE ? ESCAPE '\\' OR EXISTS (SELECT 1 FROM entities v WHERE v.kind = e.kind AND v.name = ` +
            `e.name AND ${other} LIKE ? ESCAPE '\\'))`,
          params: [words, words],
        },
      ];
    }
    case "has_all": {
      const input = p.input as { values: readonly string[]; aliases?: Readonly<Record<string, string>> };
      const out: WhereClause[] = [];
      const values = (Array.isArray(v) ? v : [v])
        .map((x) => String(x).trim().toLowerCase().replace(/_/g, " "))
        .filter((x) => x.length > 0);
      for (const x of values) {
        const canon =
          input.aliases?.[x] ?? input.values.find((y) => y === x || y.replace(/[- ]/g, "") === x.replace(/[- ]/g, ""));
        if (!canon) return `${p.name} "${x}" is not one of: ${input.values.join(", ")}.`;
        out.push({ sql: `${col} LIKE ? ESCAPE '\\'`, params: [`%|${escapeLike(canon)}|%`] });
      }
      return out;
    }
  }
}

/**
 * Build the WHERE fragment for `kinds`, `filters` and resolved document keys (null = any).
 * Empty `kinds` or `documentKeys` = [] give a clause that matches nothing ("0").
 */
export function buildFilterWhere(
  kinds: readonly EntityKind[],
  filters: StructuredFilters | undefined,
  documentKeys: readonly string[] | null,
): FilterResult {
  const f = (filters ?? {}) as Record<string, unknown>;
  const clauses: WhereClause[] = [];
  if (kinds.length === 0) return { ok: true, where: { sql: "0", params: [] } };
  clauses.push(inList("e.kind", kinds));
  // One entity per thing per document: copies from less preferred sources never answer (store/duplicates.ts).
  clauses.push({ sql: "e.dup_of IS NULL", params: [] });
  if (documentKeys !== null) {
    if (documentKeys.length === 0) return { ok: true, where: { sql: "0", params: [] } };
    const doc = inList("e.document_key", documentKeys);
    const also = documentKeys.map(() => "e.also_documents LIKE ? ESCAPE '\\'");
    clauses.push({
      sql: `(${doc.sql} OR (e.also_documents IS NOT NULL AND (${also.join(" OR ")})))`,
      params: [...doc.params, ...documentKeys.map((k) => `%|${escapeLike(String(k).toLowerCase())}|%`)],
    });
  }

  const read = new Map<TableParam, unknown>();
  for (const p of FILTER_PARAMS) {
    if (f[p.name] === undefined) continue;
    const r = paramValue(p, f[p.name]);
    if (!r) continue;
    if (!r.ok) return { ok: false, message: r.message };
    read.set(p, r.v);
  }
  for (const [p, v] of read) {
    if (p.match !== "at_least") continue;
    const max = [...read.keys()].find((q) => q.match === "at_most" && q.column === p.column);
    if (max && (v as number) > (read.get(max) as number)) {
      const message = `${p.name} (${String(v)}) is greater than ${max.name} (${String(read.get(max))}), so`;
      return { ok: false, message: `${message} nothing can match.` };
    }
  }
  for (const [p, v] of read) {
    const c = clausesOf(p, v);
    if (typeof c === "string") return { ok: false, message: c };
    clauses.push(...c);
  }
  const where = andWhere(...clauses);
  return { ok: true, where: clauses.length === 2 ? { ...where, onlyKinds: kinds } : where };
}
