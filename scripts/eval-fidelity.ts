/**
 * Corpus-wide fidelity check (part of `bun run eval`; also `bun scripts/eval-fidelity.ts`):
 *
 *   1. For every Open5e v2 weapon, armor, spell and creature in the store, the key fields of the
 *      canonical entity (range type and ranges, damage, properties, AC, level, school, components,
 *      CR, type, size, speeds, senses, immunities) are compared with the raw upstream record in
 *      <data>/open5e/v2/, read directly here (not through the normalizers).
 *   2. Every new filter (creature speed / sense / immunities / resistances / legendary, weapon
 *      property, spell component, subclass class) is counted twice: with the store's SQL filter and
 *      from the raw records.
 *
 * Mismatches are printed by kind. A mismatch is "explained" when EXCEPTIONS lists it: the upstream
 * record itself is wrong (the answer carries `upstream_notes` saying so). The bar is zero
 * unexplained mismatches.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Database } from "bun:sqlite";
import { FILTER_PARAMS } from "../src/entities/filters.ts";
import { buildFilterWhere } from "../src/search/filter/filters.ts";
import type { StructuredFilters } from "../src/search/types.ts";
import type { EntityKind } from "../src/entities/types.ts";
import { countCorrection, FIDELITY_EXCEPTIONS } from "./eval-fidelity-exceptions.ts";
import {
  fieldChecks,
  materialTextWhy,
  RAW_FILTERS,
  rawFilterValues,
  textOnlyComponents,
  type Raw,
} from "./eval-fidelity-raw.ts";
import { runSourceFidelity, type SourceMismatch } from "./eval-fidelity-sources.ts";

export interface Mismatch {
  kind: string;
  key: string;
  field: string;
  ours: string;
  upstream: string;
  explained?: string;
}

export interface FidelityReport {
  checked: Record<string, number>;
  mismatches: Mismatch[];
  counts: Array<{ filter: string; value: string; sql: number; raw: number; explained?: string }>;
  /** upstream gaps worth knowing that are not mismatches */
  notes: string[];
  /** the opt-in sources (Open5e v1, D&D 5e API), normalized straight from the data directory */
  sources: { checked: Record<string, number>; mismatches: Array<SourceMismatch & { explained?: string }> };
}

const ENDPOINT: Record<string, string> = { weapon: "weapons", armor: "armor", spell: "spells", creature: "creatures" };

function loadRaw(dataDir: string, endpoint: string): Map<string, Raw> {
  const arr = JSON.parse(readFileSync(join(dataDir, "open5e", "v2", `${endpoint}.json`), "utf8")) as Raw[];
  return new Map(arr.map((r) => [String(r.key), r]));
}

function show(v: unknown): string {
  return typeof v === "string" ? v : JSON.stringify(v ?? null);
}

export function runFidelity(db: Database, dataDir: string): FidelityReport {
  const report: FidelityReport = {
    checked: {},
    mismatches: [],
    counts: [],
    notes: [],
    sources: { checked: {}, mismatches: [] },
  };
  const items = loadRaw(dataDir, "items");
  for (const [kind, endpoint] of Object.entries(ENDPOINT)) {
    const raw = loadRaw(dataDir, endpoint);
    const rows = db
      .query<{ key: string; name: string; data: string }, [string]>(
        "SELECT key, name, data FROM entities WHERE document_source = 'open5e_v2' AND kind = ?",
      )
      .all(kind);
    let checked = 0;
    for (const row of rows) {
      // Armor sold as an item without an /armor/ record (srd_shield): compare with the item.
      const r = raw.get(row.key) ?? (kind === "armor" ? items.get(row.key) : undefined);
      if (!r) {
        report.mismatches.push({
          kind,
          key: row.key,
          field: "(record)",
          ours: row.name,
          upstream: `no ${endpoint} record`,
        });
        continue;
      }
      checked++;
      const ours = JSON.parse(row.data) as Record<string, unknown>;
      for (const c of fieldChecks(kind, r, ours)) {
        const a = show(normalizeForCompare(c.field, c.ours));
        const b = show(normalizeForCompare(c.field, c.upstream));
        const why = kind === "spell" ? materialTextWhy(c.field, r, c.ours) : undefined;
        if (a !== b)
          report.mismatches.push({
            kind,
            key: row.key,
            field: c.field,
            ours: a,
            upstream: b,
            ...(why ? { explained: why } : {}),
          });
      }
    }
    report.checked[kind] = checked;
  }
  for (const m of report.mismatches)
    m.explained ??= FIDELITY_EXCEPTIONS.find(
      (x) => !x.source && x.kind === m.kind && x.key === m.key && x.field === m.field,
    )?.why;
  const other = runSourceFidelity(dataDir);
  report.sources = {
    checked: other.checked,
    mismatches: other.mismatches.map((m) => ({
      ...m,
      explained: FIDELITY_EXCEPTIONS.find(
        (x) => x.source === m.source && x.kind === m.kind && x.key === m.key && x.field === m.field,
      )?.why,
    })),
  };

  // Filter counts: SQL over the store vs the raw records.
  const rawAll = Object.fromEntries(Object.entries(ENDPOINT).map(([k, e]) => [k, [...loadRaw(dataDir, e).values()]]));
  // Every derived filter a tool offers (magic comes from search_equipment's type).
  // Filters read from text alone (what a creature casts, inflicts, its traits, its environments) have no
  // upstream field to count against: they are named in the notes instead.
  const textOnly = FILTER_PARAMS.filter((p) => p.column.derive && p.name !== "magic" && !RAW_FILTERS.has(p.name)).map(
    (p) => p.name,
  );
  if (textOnly.length)
    report.notes.push(`filters read from text, with no upstream field to count against: ${textOnly.join(", ")}`);
  for (const f of FILTER_PARAMS.filter((p) => p.column.derive && p.name !== "magic" && RAW_FILTERS.has(p.name))) {
    const kind = f.column.kinds[0]!;
    const values = f.input.type === "values" ? f.input.values : ["true", "false"];
    for (const value of values) {
      const filters = { [f.name]: f.input.type === "bool" ? value === "true" : value } as StructuredFilters;
      const sql = sqlCount(db, kind, filters);
      const raw = rawAll[kind]!.filter((r) => rawFilterValues(f.name, r).includes(value)).length;
      const fix = countCorrection(kind, f.name, value, new Set(rawAll.weapon!.map((w) => String(w.key))));
      report.counts.push({
        filter: f.name,
        value,
        sql,
        raw,
        ...(fix && sql === raw + fix.delta ? { explained: fix.why } : {}),
      });
    }
  }
  const gaps = (v: string) => rawAll.spell!.filter((r) => textOnlyComponents(r).includes(v)).length;
  report.notes.push(
    `spells whose material text states a price the structured material_cost leaves ` +
      `empty: ${gaps("costly material")}; consumption the material_consumed flag leaves ` +
      `out: ${gaps("consumed material")} (counted from the text, as the filter does)`,
  );
  // Subclasses by class: the class each raw subclass names vs the class_key filter.
  const classes = JSON.parse(readFileSync(join(dataDir, "open5e", "v2", "classes.json"), "utf8")) as Raw[];
  const byClass = new Map<string, number>();
  for (const c of classes) {
    const of = c.subclass_of as { key?: string } | null;
    // class_key "wizard" means every document's wizard (srd_wizard, srd-2024_wizard): count by the bare class name.
    const bare = of?.key ? of.key.toLowerCase().replace(/^[^_]*_/, "") : null;
    if (bare) byClass.set(bare, (byClass.get(bare) ?? 0) + 1);
  }
  for (const [cls, n] of [...byClass].sort())
    report.counts.push({
      filter: "class_key (subclass)",
      value: cls,
      sql: sqlCount(db, "subclass", { class_key: cls }),
      raw: n,
    });
  return report;
}

/** How many open5e_v2 entities of `kind` a filter finds. */
function sqlCount(db: Database, kind: EntityKind, filters: StructuredFilters): number {
  const w = buildFilterWhere([kind], filters, null);
  if (!w.ok) throw new Error(w.message);
  return (
    db
      .query<{ n: number }, (string | number)[]>(
        `SELECT COUNT(*) AS n FROM entities e WHERE ${w.where.sql} AND e.document_source = 'open5e_v2'`,
      )
      .get(...w.where.params)?.n ?? 0
  );
}

function normalizeForCompare(field: string, v: unknown): unknown {
  if (Array.isArray(v)) return [...v].map((x) => (typeof x === "string" ? x.toLowerCase() : x)).sort();
  if (typeof v === "string") return v.trim().toLowerCase();
  if (v === undefined) return null;
  if (field === "speed" && v && typeof v === "object") {
    return Object.fromEntries(
      Object.entries(v as Record<string, unknown>)
        .filter(([, n]) => typeof n === "number" && n > 0)
        .sort(([a], [b]) => a.localeCompare(b)),
    );
  }
  return v;
}

/** The report as lines: checked counts and mismatches by kind, filter counts, the verdict. */
export function fidelityLines(r: FidelityReport): { lines: string[]; unexplained: number } {
  const lines: string[] = ["", "Fidelity: canonical fields vs raw Open5e v2 records"];
  let unexplained = 0;
  for (const kind of Object.keys(ENDPOINT)) {
    const ms = r.mismatches.filter((m) => m.kind === kind);
    const un = ms.filter((m) => !m.explained);
    unexplained += un.length;
    lines.push(
      `  ${kind}: ${r.checked[kind] ?? 0} checked, ${ms.length} mismatches ` +
        `(${ms.length - un.length} explained, ${un.length} unexplained)`,
    );
    for (const m of ms)
      lines.push(
        `    ${m.explained ? "explained  " : "UNEXPLAINED"} ${m.key} ${m.field}: ours ` +
          `${m.ours} / upstream ${m.upstream}${m.explained ? ` — ${m.explained}` : ""}`,
      );
  }
  lines.push("", "Fidelity of the opt-in sources (normalized straight from the data directory) vs their raw records");
  for (const [label, n] of Object.entries(r.sources.checked)) {
    const ms = r.sources.mismatches.filter((m) => `${m.source} ${m.kind}` === label);
    const un = ms.filter((m) => !m.explained);
    unexplained += un.length;
    lines.push(
      `  ${label}: ${n} checked, ${ms.length} mismatches ` +
        `(${ms.length - un.length} explained, ${un.length} unexplained)`,
    );
    for (const m of ms)
      lines.push(
        `    ${m.explained ? "explained  " : "UNEXPLAINED"} ${m.key} ${m.field}: ours ` +
          `${m.ours} / upstream ${m.upstream}${m.explained ? ` — ${m.explained}` : ""}`,
      );
  }
  lines.push("", "Filter counts: SQL filter vs raw records (value count; = raw unless listed below it)");
  for (const filter of [...new Set(r.counts.map((c) => c.filter))]) {
    const cs = r.counts.filter((c) => c.filter === filter);
    lines.push(`  ${filter}: ${cs.map((c) => `${c.value} ${c.sql}`).join(", ")}`);
    for (const c of cs.filter((x) => x.sql !== x.raw)) {
      if (!c.explained) unexplained++;
      lines.push(
        `    ${c.explained ? "explained  " : "UNEXPLAINED"} ${c.value}: ` +
          `sql ${c.sql}, raw ${c.raw}${c.explained ? ` — ${c.explained}` : ""}`,
      );
    }
  }
  for (const n of r.notes) lines.push(`  note: ${n}`);
  lines.push(`fidelity: ${unexplained} unexplained mismatches`);
  return { lines, unexplained };
}

if (import.meta.main) {
  const { openStore } = await import("../src/store/db.ts");
  const path = process.argv[2];
  const { SHARED_DATA } = await import("./shared-dir.ts");
  const dataDir = process.argv[3] ?? process.env.LOREKEEPER_EVAL_DATA ?? SHARED_DATA;
  if (!path) {
    process.stderr.write("usage: bun scripts/eval-fidelity.ts <synced store> [data dir]\n");
    process.exit(2);
  }
  const store = openStore({ path });
  try {
    const { lines, unexplained } = fidelityLines(runFidelity(store.db, dataDir));
    console.log(lines.join("\n"));
    process.exitCode = unexplained > 0 ? 1 : 0;
  } finally {
    store.close();
  }
}
