/**
 * Small vocabularies shared by every source: casting times, costs, weights, rarities, item
 * categories, ability names, damage types, spell schools, class keys, CR → XP.
 */
import { isRec, num, type Rec, str } from "./read.ts";
import { capitalize } from "./text.ts";
import { ITEM_RARITIES } from "../catalog.ts";
import { slugify } from "../types.ts";

const TIME_UNITS = ["action", "bonus action", "reaction", "round", "turn", "minute", "hour", "day", "week"];

/**
 * Casting time → "<n> <unit>" with unit in action | bonus action | reaction | round | turn | minute |
 * hour | day | week (plural when n ≠ 1): "1 action", "1 bonus action", "1 reaction", "1 minute",
 * "10 minutes", "1 hour", "8 hours", "24 hours". Reaction triggers and alternatives are dropped
 * ("1 reaction, which you take when ..." → "1 reaction"). Unrecognized text is returned lower-cased.
 */
export function normalizeCastingTime(raw: unknown): string | null {
  const s0 = str(raw);
  if (!s0) return null;
  const s = s0
    .toLowerCase()
    .split(/,|;| or | plus | \(/)[0]!
    .replace(/-/g, " ")
    .replace(/(\d)([a-z])/g, "$1 $2")
    .replace(/\s+/g, " ")
    .trim();
  const m = /^(\d+)?\s*([a-z ]+?)s?$/.exec(s);
  if (m && TIME_UNITS.includes(m[2]!)) {
    const n = m[1] ? Number(m[1]) : 1;
    return `${n} ${m[2]}${n === 1 ? "" : "s"}`;
  }
  return s.length ? s : null;
}

const COIN_TO_GP: Record<string, number> = { cp: 0.01, sp: 0.1, ep: 0.5, gp: 1, pp: 10 };

function roundGp(n: number): number {
  return Math.round(n * 10000) / 10000;
}

/** Cost in gold pieces from "5 sp", "1,500 gp", {quantity, unit}, or a bare number taken as gp. */
export function costToGp(raw: unknown): number | null {
  if (isRec(raw)) {
    const q = num(raw.quantity);
    const unit = (str(raw.unit) ?? "gp").toLowerCase();
    const rate = COIN_TO_GP[unit];
    return q === null || rate === undefined ? null : roundGp(q * rate);
  }
  const n = num(raw);
  if (n !== null) return roundGp(n);
  const s = str(raw);
  if (!s) return null;
  const m = /([\d,]+(?:\.\d+)?)\s*(cp|sp|ep|gp|pp)\b/i.exec(s);
  if (!m) return null;
  return roundGp(Number(m[1]!.replace(/,/g, "")) * COIN_TO_GP[m[2]!.toLowerCase()]!);
}

/** Display cost: "15 gp", "5 sp", "0.5 gp" → as written when the source writes it, else "<n> gp". */
export function costDisplay(raw: unknown): string | null {
  if (isRec(raw)) {
    const q = num(raw.quantity);
    return q === null ? null : `${q} ${(str(raw.unit) ?? "gp").toLowerCase()}`;
  }
  const s = str(raw);
  if (s && /[a-z]/i.test(s)) return s;
  const gp = costToGp(raw);
  return gp === null ? null : `${gp} gp`;
}

/** Weight in pounds from 3, "3.000", "2 lb.", "1/2 lb."; null when unknown or empty. */
export function weightToLb(raw: unknown): number | null {
  const n = num(raw);
  if (n !== null) return n;
  const s = str(raw);
  if (!s) return null;
  const frac = /^(\d+)\s*\/\s*(\d+)/.exec(s);
  if (frac) return Number(frac[1]) / Number(frac[2]);
  const m = /^([\d,]+(?:\.\d+)?)/.exec(s);
  return m ? Number(m[1]!.replace(/,/g, "")) : null;
}

/** An item record's cost, as written and in gp, and its weight in pounds. */
export function costAndWeight(r: Rec) {
  return { cost: costDisplay(r.cost), cost_gp: costToGp(r.cost), weight_lb: weightToLb(r.weight) };
}

/**
 * Rarity filter value: one of ITEM_RARITIES when the source gives exactly one, "varies" otherwise
 * ("uncommon (+1), rare (+2)", "rarity varies"); null when absent.
 */
export function rarityFilter(raw: unknown): string | null {
  const s = rarityText(raw);
  if (!s) return null;
  return (ITEM_RARITIES as readonly string[]).includes(s) ? s : "varies";
}

/** Rarity as written, lower-case, hyphens as spaces ("Very Rare" / "very-rare" → "very rare"). */
export function rarityText(raw: unknown): string | null {
  const s = str(isRec(raw) ? (raw.name ?? raw.key) : raw);
  return s ? s.toLowerCase().replace(/-/g, " ").replace(/\s+/g, " ").trim() : null;
}

const CATEGORY_ALIASES: Record<string, string> = {
  "wondrous-items": "wondrous-item",
  weapons: "weapon",
  rings: "ring",
  potions: "potion",
  scrolls: "scroll",
  staffs: "staff",
  staves: "staff",
  wands: "wand",
  rods: "rod",
  shields: "shield",
  "armor-shield": "shield",
};

/** Item category / magic item type key: "Wondrous item" → "wondrous-item", "Weapon (any sword)" → "weapon". */
export function itemCategory(raw: unknown): string | null {
  const s = str(raw);
  if (!s) return null;
  const lower = s.toLowerCase();
  if (/^armor\s*\(shield\)/.test(lower)) return "shield";
  const slug = slugify(lower.replace(/\(.*$/, ""));
  if (!slug) return null;
  return CATEGORY_ALIASES[slug] ?? slug;
}

/** Ability by its abbreviation: "dex" → "dexterity". */
export const ABILITIES: Readonly<Record<string, string>> = {
  str: "strength",
  dex: "dexterity",
  con: "constitution",
  int: "intelligence",
  wis: "wisdom",
  cha: "charisma",
};

/** The six abilities, lower-case, in the usual order ("strength" … "charisma"). */
export const ABILITY_NAMES: readonly string[] = Object.values(ABILITIES);

/** "DEX" / "dex" / "Dexterity" → "dexterity"; null when not an ability. */
export function abilityName(raw: unknown): string | null {
  const s = str(raw)?.toLowerCase();
  if (!s) return null;
  const short = s.slice(0, 3);
  const full = ABILITIES[short];
  return full && (s === short || s === full) ? full : null;
}

/** The same, capitalized for display: "dex" → "Dexterity". */
export function abilityTitle(raw: unknown): string | null {
  const full = abilityName(raw);
  return full ? capitalize(full) : null;
}

/** Class key without its document prefix: "srd_wizard", "srd-2024_wizard", "2014-wizard" → "wizard". */
export function classKey(raw: unknown): string | null {
  const s = str(raw);
  if (!s) return null;
  const i = s.indexOf("_");
  return (i >= 0 ? s.slice(i + 1) : s).replace(/^(2014|2024)-/, "").toLowerCase();
}

/**
 * XP by challenge rating (SRD 5.1, "Experience Points by Challenge Rating"), in the table's order:
 * CR 0, 1/8, 1/4, 1/2, then 1 to 30. CR 0 is "0 or 10": 10 when the creature has an effective
 * attack (the default here).
 */
const XP_IN_CR_ORDER = [
  10, 25, 50, 100, 200, 450, 700, 1100, 1800, 2300, 2900, 3900, 5000, 5900, 7200, 8400, 10000, 11500, 13000, 15000,
  18000, 20000, 22000, 25000, 33000, 41000, 50000, 62000, 75000, 90000, 105000, 120000, 135000, 155000,
];
export const XP_BY_CR: ReadonlyMap<number, number> = new Map(
  [0, 0.125, 0.25, 0.5, ...Array.from({ length: 30 }, (_, i) => i + 1)].map((cr, i) => [cr, XP_IN_CR_ORDER[i]!]),
);

/** Standard XP for a challenge rating (used when the source does not state XP). */
export function xpForCr(cr: number | null): number | null {
  return cr === null ? null : (XP_BY_CR.get(cr) ?? null);
}

/** Feet from "60 ft.", "30 feet", 60; null otherwise. */
export function feet(raw: unknown): number | null {
  const n = num(raw);
  if (n !== null) return n;
  const s = str(raw);
  const m = s ? /(\d+)\s*(ft|feet|foot)/i.exec(s) : null;
  return m ? Number(m[1]) : null;
}

/** Attunement detail without the "requires attunement" lead: "(requires attunement by a dwarf)" → "by a dwarf". */
export function attunementDetail(raw: unknown): string | null {
  const s = str(raw);
  if (!s) return null;
  const d = s
    .replace(/^\(?\s*requires attunement\s*/i, "")
    .replace(/\)\s*$/, "")
    .trim();
  return d.length ? d : null;
}
