/**
 * What the raw Open5e v2 records say, read as directly as possible (the fidelity check compares
 * the canonical entities with this; see eval-fidelity.ts). Only upstream fields are used here, never
 * the normalizers (the spell material text is read with the same rule, src/entities/material.ts).
 */
import { PRICED_MATERIAL, saysConsumed } from "../src/entities/material.ts";

export type Raw = Record<string, unknown>;

export interface FieldCheck {
  field: string;
  ours: unknown;
  upstream: unknown;
}

function rec(v: unknown): Raw | null {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Raw) : null;
}
function recs(v: unknown): Raw[] {
  return Array.isArray(v) ? v.map(rec).filter((x): x is Raw => x !== null) : [];
}
function key(v: unknown): string | null {
  const r = rec(v);
  return typeof r?.key === "string" ? r.key.toLowerCase() : typeof v === "string" ? v.toLowerCase() : null;
}
function num(v: unknown): number | null {
  if (typeof v === "number" && Number.isFinite(v)) return v;
  if (typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v))) return Number(v);
  return null;
}
function pos(v: unknown): number | null {
  const n = num(v);
  return n !== null && n > 0 ? n : null;
}

/** Non-mastery property names of a raw weapon, lower-case. */
function weaponProps(w: Raw): string[] {
  return recs(w.properties)
    .filter((p) => String(rec(p.property)?.type ?? "").toLowerCase() !== "mastery")
    .map((p) =>
      String(rec(p.property)?.name ?? "")
        .toLowerCase()
        .replace(/\s*\(.*$/, ""),
    )
    .filter((n) => n.length > 0);
}

function rangeFromDetail(w: Raw): [number, number] | null {
  for (const p of recs(w.properties)) {
    const m = typeof p.detail === "string" ? /range\s*(\d+)\s*\/\s*(\d+)/i.exec(p.detail) : null;
    if (m) return [Number(m[1]), Number(m[2])];
  }
  return null;
}

const SENSES = ["blindsight", "darkvision", "tremorsense", "truesight"];
const MODES = ["fly", "swim", "climb", "burrow"];

function speeds(c: Raw): Record<string, number> {
  const out: Record<string, number> = {};
  const s = rec(c.speed);
  if (s) for (const [k, v] of Object.entries(s)) if (k !== "unit" && k !== "hover" && pos(v) !== null) out[k] = pos(v)!;
  return out;
}

function keysOf(ri: Raw | null, field: string): string[] {
  return ri
    ? recs(ri[field])
        .map((x) => key(x))
        .filter((k): k is string => k !== null)
    : [];
}

/** The fields compared for one raw record and our canonical data of it. */
export function fieldChecks(kind: string, r: Raw, d: Record<string, unknown>): FieldCheck[] {
  const ours = (k: string) => d[k];
  if (kind === "weapon") {
    const props = weaponProps(r);
    const fromDetail = rangeFromDetail(r);
    const ranged = props.includes("ammunition") || /^(dart|net)$/i.test(String(r.name));
    return [
      { field: "category", ours: ours("category"), upstream: r.is_simple === true ? "simple" : "martial" },
      { field: "range_type", ours: ours("range_type"), upstream: ranged ? "ranged" : "melee" },
      { field: "range", ours: ours("range"), upstream: pos(r.range) ?? fromDetail?.[0] ?? null },
      { field: "long_range", ours: ours("long_range"), upstream: pos(r.long_range) ?? fromDetail?.[1] ?? null },
      { field: "damage_dice", ours: ours("damage_dice"), upstream: r.damage_dice ?? null },
      { field: "damage_type", ours: ours("damage_type"), upstream: key(r.damage_type) },
      {
        field: "properties",
        ours: (Array.isArray(d.properties) ? d.properties : []).map((p) =>
          String(rec(p)?.name ?? "")
            .toLowerCase()
            .replace(/\s*\(.*$/, ""),
        ),
        upstream: props,
      },
    ];
  }
  if (kind === "armor") {
    const a = rec(r.armor) ?? r;
    const shield = /\bshield\b/i.test(String(r.name));
    if (shield && a === r && r.ac_base === undefined)
      return [{ field: "category", ours: ours("category"), upstream: "shield" }];
    return [
      { field: "category", ours: ours("category"), upstream: shield ? "shield" : (a.category ?? null) },
      { field: "ac_base", ours: ours("ac_base"), upstream: num(a.ac_base) },
      { field: "ac_add_dex", ours: ours("ac_add_dex"), upstream: a.ac_add_dexmod === true },
      {
        field: "ac_max_dex",
        ours: ours("ac_max_dex"),
        upstream: a.ac_add_dexmod === true ? num(a.ac_cap_dexmod) : null,
      },
      { field: "strength_required", ours: ours("strength_required"), upstream: num(a.strength_score_required) },
      {
        field: "stealth_disadvantage",
        ours: ours("stealth_disadvantage"),
        upstream: a.grants_stealth_disadvantage === true,
      },
    ];
  }
  if (kind === "spell") {
    const c = rec(d.components) ?? {};
    return [
      { field: "level", ours: ours("level"), upstream: num(r.level) },
      { field: "school", ours: ours("school"), upstream: key(r.school) },
      { field: "components.verbal", ours: c.verbal, upstream: r.verbal === true },
      { field: "components.somatic", ours: c.somatic, upstream: r.somatic === true },
      { field: "components.material", ours: c.material, upstream: r.material === true },
      {
        field: "components.costly",
        ours: typeof c.material_cost === "string" && c.material_cost !== "",
        upstream:
          r.material === true &&
          typeof r.material_cost === "string" &&
          r.material_cost.trim() !== "" &&
          num(r.material_cost) !== 0,
      },
      {
        field: "components.consumed",
        ours: c.material_consumed === true,
        upstream: r.material === true && r.material_consumed === true,
      },
      { field: "concentration", ours: ours("concentration"), upstream: r.concentration === true },
      { field: "ritual", ours: ours("ritual"), upstream: r.ritual === true },
    ];
  }
  // creature
  const ri = rec(r.resistances_and_immunities);
  const sensesOurs = String(d.senses ?? "").toLowerCase();
  return [
    { field: "cr", ours: ours("cr"), upstream: num(r.challenge_rating) ?? num(r.challenge_rating_decimal) },
    { field: "type", ours: ours("type"), upstream: rec(r.type)?.name ?? null },
    { field: "size", ours: ours("size"), upstream: rec(r.size)?.name ?? null },
    { field: "armor_class", ours: ours("armor_class"), upstream: num(r.armor_class) },
    { field: "hit_points", ours: ours("hit_points"), upstream: num(r.hit_points) },
    { field: "speed", ours: ours("speed"), upstream: speeds(r) },
    {
      field: "senses",
      ours: SENSES.filter((s) => new RegExp(`\\b${s} \\d+`).test(sensesOurs)),
      upstream: SENSES.filter((s) => pos(r[`${s}_range`]) !== null),
    },
    {
      field: "damage_immunities",
      ours: ours("damage_immunities"),
      upstream: ri ? ri.damage_immunities_display || keysOf(ri, "damage_immunities").join(", ") || null : null,
    },
    {
      field: "damage_resistances",
      ours: ours("damage_resistances"),
      upstream: ri ? ri.damage_resistances_display || keysOf(ri, "damage_resistances").join(", ") || null : null,
    },
    {
      field: "condition_immunities",
      ours: ours("condition_immunities"),
      upstream: ri ? ri.condition_immunities_display || keysOf(ri, "condition_immunities").join(", ") || null : null,
    },
  ];
}

function structuredCost(r: Raw): boolean {
  return typeof r.material_cost === "string" && r.material_cost.trim() !== "" && num(r.material_cost) !== 0;
}

/**
 * Why a spell's costly / consumed field differs from upstream's structured one, when the material
 * text explains it (the text decides: src/entities/material.ts); undefined otherwise.
 */
export function materialTextWhy(field: string, r: Raw, ours: unknown): string | undefined {
  const t = typeof r.material_specified === "string" ? r.material_specified : "";
  if (r.material !== true || !t.trim()) return undefined;
  if (field === "components.consumed" && ours === saysConsumed(t))
    return (
      `upstream material_consumed disagrees with the material ` +
      `text ("${t}"); the text decides, stated in upstream_notes`
    );
  if (field === "components.costly" && ours === true && !structuredCost(r) && PRICED_MATERIAL.test(t))
    return `upstream material_cost is empty; the material text ("${t}") states the price`;
  return undefined;
}

/** Spells whose material text states a price / consumption that the structured fields leave out (upstream gaps). */
export function textOnlyComponents(r: Raw): string[] {
  const t = typeof r.material_specified === "string" ? r.material_specified : "";
  if (r.material !== true) return [];
  const out: string[] = [];
  if (!structuredCost(r) && PRICED_MATERIAL.test(t)) out.push("costly material");
  if (r.material_consumed !== true && saysConsumed(t)) out.push("consumed material");
  return out;
}

/**
 * The derived filters an upstream field says directly (rawFilterValues reads them); the others are read from text only.
 */
export const RAW_FILTERS: ReadonlySet<string> = new Set([
  "speed",
  "sense",
  "damage_immunity",
  "damage_resistance",
  "condition_immunity",
  "legendary",
  "property",
  "alignment",
  "component",
]);

/** The values a raw record has for one derived filter (same vocabulary as the filter table's). */
export function rawFilterValues(param: string, r: Raw): string[] {
  const ri = rec(r.resistances_and_immunities);
  switch (param) {
    case "speed": {
      const s = speeds(r);
      const out = MODES.filter((m) => s[m] !== undefined);
      if (rec(r.speed)?.hover === true) out.push("hover");
      return out;
    }
    case "sense":
      return SENSES.filter((s) => pos(r[`${s}_range`]) !== null);
    case "damage_immunity":
      return keysOf(ri, "damage_immunities");
    case "damage_resistance":
      return keysOf(ri, "damage_resistances");
    case "condition_immunity":
      return keysOf(ri, "condition_immunities");
    case "legendary":
      return [
        recs(r.actions).some((a) => String(a.action_type).toUpperCase() === "LEGENDARY_ACTION") ? "true" : "false",
      ];
    case "property":
      return weaponProps(r);
    case "alignment": {
      // Read again from the raw text, by the filter's rule (docs/tools.md): the words stated; "any X
      // alignment" also every word of the other axis; "any non-X" every word but X; "any alignment" → any.
      const t = String(r.alignment ?? "").toLowerCase();
      if (t.includes("unaligned")) return ["unaligned"];
      const law = ["lawful", "neutral", "chaotic"];
      const moral = ["good", "neutral", "evil"];
      const not = new Set([...t.matchAll(/non-?\s*(\w+)/g)].map((m) => m[1]!));
      const said = new Set(
        t
          .replace(/non-?\s*\w+/g, " ")
          .split(/[^a-z]+/)
          .filter((w) => law.includes(w) || moral.includes(w)),
      );
      if (!/\bany\b/.test(t)) return ["lawful", "neutral", "chaotic", "good", "evil"].filter((w) => said.has(w));
      if (said.size === 0 && not.size === 0) return ["any"];
      const axis = (words: string[], own: string[]) =>
        own.some((w) => said.has(w)) ? own.filter((w) => said.has(w)) : words.filter((w) => !not.has(w));
      const all = new Set([...axis(law, ["lawful", "chaotic"]), ...axis(moral, ["good", "evil"])]);
      return ["lawful", "neutral", "chaotic", "good", "evil"].filter((w) => all.has(w));
    }
    case "component": {
      // Costly: the structured cost or a price in the material text; consumed: the material text says so
      // (it decides over the flag, src/entities/material.ts), or the flag when there is no text.
      const out: string[] = [];
      if (r.verbal === true) out.push("verbal");
      if (r.somatic === true) out.push("somatic");
      if (r.material === true) out.push("material");
      const t = typeof r.material_specified === "string" ? r.material_specified : "";
      if (r.material === true && (structuredCost(r) || PRICED_MATERIAL.test(t))) out.push("costly material");
      if (r.material === true && (t.trim() ? saysConsumed(t) : r.material_consumed === true))
        out.push("consumed material");
      return out;
    }
    default:
      return [];
  }
}
