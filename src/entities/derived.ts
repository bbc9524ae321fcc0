/**
 * Filters derived from an entity's canonical data, whatever its source: one declarative table
 * (`DERIVED_FILTERS`) of what each new filter is, which kinds it applies to, its vocabulary, its
 * description and how its value is read from `Entity.data`. The store fills the columns from it
 * (src/store/entities.ts), the search layer turns it into SQL (src/search/filter/filters.ts), and the tools
 * and `lorekeeper search` build their parameters from it. Its vocabularies live in the kind
 * catalog (catalog.ts). Pure.
 */
import { CONDITIONS, DAMAGE_TYPES, MOVEMENT_MODES, SENSES, SPELL_COMPONENTS, WEAPON_PROPERTIES } from "./catalog.ts";
import type { Entity, EntityKind, JsonObject, JsonValue } from "./types.ts";
import { slugify } from "./types.ts";

/** Store columns added by migration 4 for these filters (list columns hold "|a|b|"). */
export type DerivedColumn = "speeds" | "senses" | "damage_immunities" | "damage_resistances" | "condition_immunities" | "legendary" | "properties" | "components" | "magic";

interface DerivedBase {
  /** the tool / CLI parameter */
  param: string;
  column: DerivedColumn;
  kinds: readonly EntityKind[];
  description: string;
}

/** A list filter: the parameter takes one value or several (all must hold). */
export interface DerivedListFilter extends DerivedBase {
  type: "list";
  values: readonly string[];
  /** spellings people use for a value ("v" → "verbal", "2h" → "two-handed") */
  aliases?: Readonly<Record<string, string>>;
  derive: (data: JsonObject) => string[];
}

export interface DerivedBoolFilter extends DerivedBase {
  type: "bool";
  derive: (data: JsonObject) => boolean | null;
}

export type DerivedFilter = DerivedListFilter | DerivedBoolFilter;

function text(v: JsonValue | undefined): string {
  return typeof v === "string" ? v : "";
}

function obj(v: JsonValue | undefined): JsonObject | null {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? v : null;
}

/** Words of stat blocks that stand for a vocabulary value (A5E "fatigue"), and phrases that do not ("cold iron"). */
const SYNONYMS: Readonly<Record<string, string>> = { fatigue: "exhaustion", fatigued: "exhaustion", exhausted: "exhaustion" };

/** The vocabulary words a free text mentions ("bludgeoning, piercing, and slashing from nonmagical attacks"). */
function mentioned(s: string, vocab: readonly string[]): string[] {
  let lower = s.toLowerCase().replace(/\bcold[- ]iron\b/g, "");
  for (const [w, v] of Object.entries(SYNONYMS)) lower = lower.replace(new RegExp(`\\b${w}\\b`, "g"), v);
  return vocab.filter((w) => new RegExp(`\\b${w}\\b`).test(lower));
}

function speeds(d: JsonObject): string[] {
  const sp = obj(d.speed);
  if (!sp) return [];
  return MOVEMENT_MODES.filter((m) => (m === "hover" ? sp.hover === true : typeof sp[m] === "number" && (sp[m] as number) > 0));
}

function weaponProperties(d: JsonObject): string[] {
  const props = Array.isArray(d.properties) ? d.properties : [];
  const out = new Set<string>();
  for (const p of props) {
    // "Special (Lance)" → special; "Two-Handed" → two-handed
    const name = slugify(text(obj(p)?.name).replace(/\s*\(.*$/, ""));
    if ((WEAPON_PROPERTIES as readonly string[]).includes(name)) out.add(name);
  }
  return [...out];
}

/** A material text stating a price ("a diamond worth 300 gp", "5 gp worth of brimstone"). */
export const PRICED_MATERIAL = /\b\d[\d,]*\s*(?:gp|sp|cp|pp|ep|gold pieces?)\b/i;
/** A material text saying the spell uses it up ("which the spell consumes", "is consumed"). */
export const CONSUMED_MATERIAL = /\bconsum(?:e|es|ed|ing)\b/i;

/**
 * Spell components. Costly / consumed: the source's structured fields, or the material text when
 * it states a price or consumption (Open5e v2 leaves `material_cost` empty on 60 spells whose
 * material names its price, e.g. Revivify "diamonds worth 300 gp, which the spell consumes").
 */
function components(d: JsonObject): string[] {
  const c = obj(d.components);
  if (!c) return [];
  const out: string[] = [];
  if (c.verbal === true) out.push("verbal");
  if (c.somatic === true) out.push("somatic");
  if (c.material !== true) return out;
  out.push("material");
  const textOf = text(c.material_text);
  if ((typeof c.material_cost === "string" && c.material_cost.trim() !== "") || PRICED_MATERIAL.test(textOf)) out.push("costly material");
  if (c.material_consumed === true || CONSUMED_MATERIAL.test(textOf)) out.push("consumed material");
  return out;
}

const MAGIC_ITEM_NAMES = /^(potions? of|spell scroll|ioun stone|elixir of|oil of|philter of)\b/i;
const MAGIC_ITEM_CATEGORIES = new Set(["potion", "scroll", "wondrous-item", "ring", "rod", "staff", "wand"]);

/**
 * Is this a magic item as a DM means it, whatever kind its document files it under? Every
 * magic_item is; an `item` is when its text says so (2024 "This potion is a magic item") or it is
 * a potion/scroll/wondrous item by name (SRD 5.2 lists Potion of Healing as gear, category Potion).
 */
export function isMagicItem(kind: EntityKind, name: string, data: JsonObject): boolean {
  if (kind === "magic_item") return true;
  if (kind !== "item") return false;
  const cat = text(data.category).toLowerCase();
  if (!MAGIC_ITEM_CATEGORIES.has(cat)) return false;
  return MAGIC_ITEM_NAMES.test(name) || /\bmagic(al)?\b/i.test(text(data.desc));
}

export const DERIVED_FILTERS: readonly DerivedFilter[] = [
  {
    type: "list",
    param: "speed",
    column: "speeds",
    kinds: ["creature"],
    values: MOVEMENT_MODES,
    aliases: { flying: "fly", swimming: "swim", climbing: "climb", burrowing: "burrow", hovering: "hover" },
    description: "A speed above 0 in this mode",
    derive: speeds,
  },
  {
    type: "list",
    param: "sense",
    column: "senses",
    kinds: ["creature"],
    values: SENSES,
    description: "",
    derive: (d) => mentioned(text(d.senses), SENSES),
  },
  {
    type: "list",
    param: "damage_immunity",
    column: "damage_immunities",
    kinds: ["creature"],
    values: DAMAGE_TYPES,
    description: "Also when only to nonmagical attacks",
    derive: (d) => mentioned(text(d.damage_immunities), DAMAGE_TYPES),
  },
  {
    type: "list",
    param: "damage_resistance",
    column: "damage_resistances",
    kinds: ["creature"],
    values: DAMAGE_TYPES,
    description: "Also when only to nonmagical attacks",
    derive: (d) => mentioned(text(d.damage_resistances), DAMAGE_TYPES),
  },
  {
    type: "list",
    param: "condition_immunity",
    column: "condition_immunities",
    kinds: ["creature"],
    values: CONDITIONS,
    description: "",
    derive: (d) => mentioned(text(d.condition_immunities), CONDITIONS),
  },
  {
    type: "bool",
    param: "legendary",
    column: "legendary",
    kinds: ["creature"],
    description: "Has legendary actions",
    derive: (d) => Array.isArray(d.legendary_actions) && d.legendary_actions.length > 0,
  },
  {
    type: "list",
    param: "property",
    column: "properties",
    kinds: ["weapon"],
    values: WEAPON_PROPERTIES,
    aliases: { "two handed": "two-handed", twohanded: "two-handed", ammo: "ammunition" },
    description: "",
    derive: weaponProperties,
  },
  {
    type: "list",
    param: "component",
    column: "components",
    kinds: ["spell"],
    values: SPELL_COMPONENTS,
    aliases: { v: "verbal", s: "somatic", m: "material", costly: "costly material", consumed: "consumed material" },
    description: "Also V, S, M; costly = a material with a price",
    derive: components,
  },
];

/** The derived filters that apply to any of `kinds`. */
export function derivedFiltersFor(kinds: readonly EntityKind[]): DerivedFilter[] {
  return DERIVED_FILTERS.filter((f) => f.kinds.some((k) => kinds.includes(k)));
}

/** The derived column values of one entity (null where the filter does not apply). */
export function derivedValues(e: Pick<Entity, "kind" | "name" | "data"> & { filters?: Entity["filters"] }): Record<DerivedColumn, string[] | boolean | null> {
  const out = {} as Record<DerivedColumn, string[] | boolean | null>;
  const given = (e.filters ?? {}) as Record<string, unknown>;
  for (const f of DERIVED_FILTERS) {
    if (!f.kinds.includes(e.kind)) out[f.column] = null;
    else out[f.column] = Array.isArray(given[f.column]) ? (given[f.column] as string[]) : f.derive(e.data);
  }
  out.magic = e.kind === "item" || e.kind === "magic_item" ? isMagicItem(e.kind, e.name, e.data) : null;
  return out;
}
