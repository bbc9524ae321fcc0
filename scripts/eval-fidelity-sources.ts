/**
 * The fidelity check for the opt-in sources (part of eval-fidelity.ts): every Open5e v1 weapon,
 * armor, spell and monster and every D&D 5e API (2014, 2024) weapon, armor, spell and monster is
 * normalized straight from <data> with its content type's own normalizer, and its key fields are
 * compared with the raw record, read directly here.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { ContentType } from "../src/entities/normalize/types.ts";
import { DND5EAPI_TYPES } from "../src/sources/dnd5eapi/content-types.ts";
import { OPEN5E_V1_TYPES } from "../src/sources/open5e-v1/content-types.ts";
import type { Entity } from "../src/entities/types.ts";
import type { FieldCheck, Raw } from "./eval-fidelity-raw.ts";

export interface SourceMismatch {
  source: string;
  kind: string;
  key: string;
  field: string;
  ours: string;
  upstream: string;
}

function num(v: unknown): number | null {
  if (typeof v === "number" && Number.isFinite(v)) return v;
  if (typeof v === "string") {
    const m = /^\s*(\d+(?:\.\d+)?)/.exec(v);
    return m ? Number(m[1]) : null;
  }
  return null;
}
function low(v: unknown): string | null {
  return typeof v === "string" && v.trim() !== "" ? v.trim().toLowerCase() : null;
}
function rec(v: unknown): Raw | null {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Raw) : null;
}
const propName = (s: string) =>
  s
    .toLowerCase()
    .replace(/\s*\(.*$/, "")
    .trim()
    .replace(/\s+/g, "-");

/** Numeric speeds by mode; "notes" (alternate forms: "40 ft. in bear form") is not a mode. */
function speeds(s: unknown): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, v] of Object.entries(rec(s) ?? {})) {
    const n = num(v);
    if (k !== "hover" && k !== "notes" && n !== null && n > 0) out[k] = n;
  }
  return out;
}

function v1Checks(kind: string, r: Raw, d: Record<string, unknown>): FieldCheck[] {
  if (kind === "weapon") {
    const props = (Array.isArray(r.properties) ? r.properties : []).map((p) => String(p));
    const range = props.map((p) => /range (\d+)\/(\d+)/i.exec(p)).find((m) => m);
    return [
      { field: "category", ours: d.category, upstream: /simple/i.test(String(r.category)) ? "simple" : "martial" },
      { field: "range_type", ours: d.range_type, upstream: /ranged/i.test(String(r.category)) ? "ranged" : "melee" },
      { field: "range", ours: d.range, upstream: range ? Number(range[1]) : null },
      { field: "long_range", ours: d.long_range, upstream: range ? Number(range[2]) : null },
      { field: "damage_dice", ours: d.damage_dice, upstream: low(r.damage_dice) },
      { field: "damage_type", ours: d.damage_type, upstream: low(r.damage_type) },
      { field: "properties", ours: names(d.properties), upstream: props.map(propName).filter((n) => n !== "") },
    ];
  }
  if (kind === "armor") {
    return [
      // a shield's canonical ac_base is its bonus: base_ac + plus_flat_mod (SRD shield: 0 + 2)
      {
        field: "ac_base",
        ours: d.ac_base,
        upstream: /shield/i.test(String(r.category))
          ? (num(r.base_ac) ?? 0) + (num(r.plus_flat_mod) ?? 0)
          : num(r.base_ac),
      },
      { field: "ac_add_dex", ours: d.ac_add_dex, upstream: r.plus_dex_mod === true },
      { field: "strength_required", ours: d.strength_required, upstream: num(r.strength_requirement) || null },
      { field: "stealth_disadvantage", ours: d.stealth_disadvantage, upstream: r.stealth_disadvantage === true },
    ];
  }
  if (kind === "spell") {
    const c = rec(d.components) ?? {};
    return [
      { field: "level", ours: d.level, upstream: num(r.level_int) ?? num(r.spell_level) },
      { field: "school", ours: d.school, upstream: low(r.school) },
      { field: "components.verbal", ours: c.verbal, upstream: r.requires_verbal_components === true },
      { field: "components.somatic", ours: c.somatic, upstream: r.requires_somatic_components === true },
      { field: "components.material", ours: c.material, upstream: r.requires_material_components === true },
      { field: "concentration", ours: d.concentration, upstream: r.requires_concentration === true },
      { field: "ritual", ours: d.ritual, upstream: r.can_be_cast_as_ritual === true },
    ];
  }
  return [
    { field: "cr", ours: d.cr, upstream: num(r.cr) },
    { field: "type", ours: low(d.type), upstream: low(r.type) },
    { field: "size", ours: low(d.size), upstream: low(r.size) },
    { field: "armor_class", ours: d.armor_class, upstream: num(r.armor_class) },
    { field: "hit_points", ours: d.hit_points, upstream: num(r.hit_points) },
    { field: "speed", ours: speeds(d.speed), upstream: speeds(r.speed) },
  ];
}

function names(v: unknown): string[] {
  return (Array.isArray(v) ? v : []).map((p) => propName(String(rec(p)?.name ?? ""))).filter((n) => n !== "");
}

function dndChecks(kind: string, r: Raw, d: Record<string, unknown>): FieldCheck[] {
  if (kind === "weapon") {
    const dmg = rec(r.damage);
    const range = rec(r.range);
    // 2014: weapon_category / weapon_range; 2024: equipment_categories ("martial-weapons", "ranged-weapons")
    const cats = (Array.isArray(r.equipment_categories) ? r.equipment_categories : []).map((c) =>
      String(rec(c)?.index ?? ""),
    );
    const ranged = /ranged/i.test(String(r.weapon_range ?? r.category_range ?? "")) || cats.includes("ranged-weapons");
    const category =
      low(r.weapon_category) ??
      (cats.includes("martial-weapons") ? "martial" : cats.includes("simple-weapons") ? "simple" : null);
    const throwRange = rec(r.throw_range);
    const props = (Array.isArray(r.properties) ? r.properties : [])
      .map((p) => propName(String(rec(p)?.name ?? "")))
      .filter((n) => n !== "monk");
    return [
      { field: "category", ours: d.category, upstream: category },
      { field: "range_type", ours: d.range_type, upstream: ranged ? "ranged" : "melee" },
      { field: "range", ours: d.range, upstream: ranged ? num(range?.normal) : num(throwRange?.normal) },
      { field: "long_range", ours: d.long_range, upstream: ranged ? num(range?.long) : num(throwRange?.long) },
      { field: "damage_dice", ours: d.damage_dice, upstream: low(dmg?.damage_dice) },
      { field: "damage_type", ours: d.damage_type, upstream: low(rec(dmg?.damage_type)?.index) },
      { field: "properties", ours: names(d.properties).filter((n) => n !== "monk"), upstream: props },
    ];
  }
  if (kind === "armor") {
    const ac = rec(r.armor_class);
    return [
      { field: "ac_base", ours: d.ac_base, upstream: num(ac?.base) },
      { field: "ac_add_dex", ours: d.ac_add_dex, upstream: ac?.dex_bonus === true },
      { field: "ac_max_dex", ours: d.ac_max_dex, upstream: ac?.dex_bonus === true ? num(ac?.max_bonus) : null },
      { field: "strength_required", ours: d.strength_required, upstream: num(r.str_minimum) || null },
      { field: "stealth_disadvantage", ours: d.stealth_disadvantage, upstream: r.stealth_disadvantage === true },
    ];
  }
  if (kind === "spell") {
    const c = rec(d.components) ?? {};
    const comps = Array.isArray(r.components) ? r.components.map(String) : [];
    return [
      { field: "level", ours: d.level, upstream: num(r.level) },
      { field: "school", ours: d.school, upstream: low(rec(r.school)?.index) },
      { field: "components.verbal", ours: c.verbal, upstream: comps.includes("V") },
      { field: "components.somatic", ours: c.somatic, upstream: comps.includes("S") },
      { field: "components.material", ours: c.material, upstream: comps.includes("M") },
      { field: "concentration", ours: d.concentration, upstream: r.concentration === true },
      { field: "ritual", ours: d.ritual, upstream: r.ritual === true },
    ];
  }
  const ac = Array.isArray(r.armor_class) ? num(rec(r.armor_class[0])?.value) : num(r.armor_class);
  return [
    { field: "cr", ours: d.cr, upstream: num(r.challenge_rating) },
    { field: "type", ours: low(d.type), upstream: low(r.type) },
    { field: "size", ours: low(d.size), upstream: low(r.size) },
    { field: "armor_class", ours: d.armor_class, upstream: ac },
    { field: "hit_points", ours: d.hit_points, upstream: num(r.hit_points) },
    { field: "speed", ours: speeds(d.speed), upstream: speeds(r.speed) },
  ];
}

const KINDS = new Set(["weapon", "armor", "spell", "creature"]);
const V1_ENDPOINTS = new Set(["weapons", "armor", "spells", "monsters"]);
const DND_ENDPOINTS = new Set(["equipment", "spells", "monsters"]);

function show(v: unknown): string {
  const n = Array.isArray(v)
    ? [...v].sort()
    : v && typeof v === "object"
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b)))
      : v === undefined
        ? null
        : v;
  return typeof n === "string" ? n.toLowerCase() : JSON.stringify(n);
}

function load(path: string): unknown[] {
  return existsSync(path) ? (JSON.parse(readFileSync(path, "utf8")) as unknown[]) : [];
}

/** Checked counts per "source kind" and the mismatches. */
export function runSourceFidelity(dataDir: string): { checked: Record<string, number>; mismatches: SourceMismatch[] } {
  const checked: Record<string, number> = {};
  const mismatches: SourceMismatch[] = [];
  const types: Array<{ t: ContentType; dir: string; id: string; checks: typeof v1Checks }> = [
    ...OPEN5E_V1_TYPES.filter((t) => V1_ENDPOINTS.has(t.endpoint)).map((t) => ({
      t,
      dir: join(dataDir, "open5e", "v1"),
      id: "slug",
      checks: v1Checks,
    })),
    ...DND5EAPI_TYPES.filter((t) => DND_ENDPOINTS.has(t.endpoint)).map((t) => ({
      t,
      dir: join(dataDir, "dnd5eapi", t.year ?? "2014"),
      id: "index",
      checks: dndChecks,
    })),
  ];
  for (const { t, dir, id, checks } of types) {
    const records = load(join(dir, `${t.endpoint}.json`));
    if (records.length === 0) continue;
    const related = Object.fromEntries((t.related ?? []).map((e) => [e, load(join(dir, `${e}.json`))]));
    const raw = new Map(records.map((r) => [String(rec(r)?.[id] ?? ""), rec(r)!]));
    const label = t.source === "dnd5e_api" ? `dnd5e_api ${t.year}` : t.source;
    const out = t.normalize(records, { baseUrl: "http://upstream", documents: new Map(), related });
    for (const e of out.entities as Entity[]) {
      if (!KINDS.has(e.kind)) continue;
      const r = raw.get(t.source === "dnd5e_api" ? e.key.replace(/^\d{4}-/, "") : e.key);
      const k = `${label} ${e.kind}`;
      if (!r) {
        mismatches.push({
          source: label,
          kind: e.kind,
          key: e.key,
          field: "(record)",
          ours: e.name,
          upstream: "no raw record",
        });
        continue;
      }
      checked[k] = (checked[k] ?? 0) + 1;
      for (const c of checks(e.kind, r, e.data as Record<string, unknown>)) {
        const a = show(c.ours);
        const b = show(c.upstream);
        if (a !== b) mismatches.push({ source: label, kind: e.kind, key: e.key, field: c.field, ours: a, upstream: b });
      }
    }
  }
  return { checked, mismatches };
}
