/**
 * 5etools `item` / `baseitem` / `magicvariant` records → canonical weapon, armor, item or magic
 * item (pure). Prices are in copper in 5etools; weights in pounds.
 */
import type { ArmorData, ItemData, MagicItemData, WeaponData, WeaponProperty } from "../../../entities/kinds.ts";
import type { EntityKind, JsonObject, JsonValue } from "../../../entities/types.ts";
import { slugify } from "../../../entities/types.ts";
import { attunementDetail, rarityText } from "../../../entities/normalize/vocab.ts";
import { type FileContext, joinTexts, line, text } from "./common.ts";
import { copperText } from "./spell.ts";
import { arr, num, own, rec } from "../../../entities/normalize/read.ts";

const DAMAGE_LETTERS: Readonly<Record<string, string>> = {
  A: "acid",
  B: "bludgeoning",
  C: "cold",
  F: "fire",
  O: "force",
  L: "lightning",
  N: "necrotic",
  P: "piercing",
  I: "poison",
  Y: "psychic",
  R: "radiant",
  S: "slashing",
  T: "thunder",
};

const PROPERTY_NAMES: Readonly<Record<string, string>> = {
  A: "Ammunition",
  AF: "Ammunition (futuristic)",
  BF: "Burst Fire",
  F: "Finesse",
  H: "Heavy",
  L: "Light",
  LD: "Loading",
  R: "Reach",
  RLD: "Reload",
  S: "Special",
  T: "Thrown",
  "2H": "Two-Handed",
  V: "Versatile",
};

/** Type letters → category key (the magic item type or the item category). */
const TYPES: Readonly<Record<string, { category: string; magicType: string }>> = {
  M: { category: "weapon", magicType: "weapon" },
  R: { category: "weapon", magicType: "weapon" },
  A: { category: "ammunition", magicType: "ammunition" },
  AF: { category: "ammunition", magicType: "ammunition" },
  LA: { category: "light", magicType: "armor" },
  MA: { category: "medium", magicType: "armor" },
  HA: { category: "heavy", magicType: "armor" },
  S: { category: "shield", magicType: "shield" },
  G: { category: "adventuring-gear", magicType: "wondrous-item" },
  AT: { category: "artisans-tools", magicType: "wondrous-item" },
  T: { category: "tools", magicType: "wondrous-item" },
  GS: { category: "gaming-set", magicType: "wondrous-item" },
  INS: { category: "musical-instrument", magicType: "wondrous-item" },
  P: { category: "potion", magicType: "potion" },
  RG: { category: "ring", magicType: "ring" },
  RD: { category: "rod", magicType: "rod" },
  SC: { category: "scroll", magicType: "scroll" },
  ST: { category: "staff", magicType: "staff" },
  WD: { category: "wand", magicType: "wand" },
  SCF: { category: "spellcasting-focus", magicType: "wondrous-item" },
  TAH: { category: "tack-and-harness", magicType: "wondrous-item" },
  TG: { category: "trade-good", magicType: "wondrous-item" },
  MNT: { category: "mount", magicType: "wondrous-item" },
  VEH: { category: "vehicle", magicType: "wondrous-item" },
  SHP: { category: "vehicle", magicType: "wondrous-item" },
  AIR: { category: "vehicle", magicType: "wondrous-item" },
  FD: { category: "food", magicType: "wondrous-item" },
  EXP: { category: "explosive", magicType: "wondrous-item" },
  OTH: { category: "other", magicType: "wondrous-item" },
  $: { category: "treasure", magicType: "wondrous-item" },
  $A: { category: "treasure", magicType: "wondrous-item" },
  $C: { category: "treasure", magicType: "wondrous-item" },
  $G: { category: "treasure", magicType: "wondrous-item" },
};

function damageType(d: JsonObject): string | null {
  return typeof d.dmgType === "string" ? (own(DAMAGE_LETTERS, d.dmgType) ?? d.dmgType.toLowerCase()) : null;
}

/** "M|XPHB" → "M". */
function letter(v: JsonValue | undefined): string | null {
  return typeof v === "string" ? v.split("|")[0]!.trim() : null;
}

function typeInfo(
  d: JsonObject,
  ctx: FileContext,
): { letter: string | null; category: string | null; magicType: string | null; typeDesc: string | null } {
  const l = letter(d.type);
  const known = l ? own(TYPES, l) : undefined;
  if (known)
    return { letter: l, ...known, magicType: d.wondrous === true ? "wondrous-item" : known.magicType, typeDesc: null };
  const defined = l ? ctx.itemTypes.get(l) : undefined;
  if (defined)
    return {
      letter: l,
      category: slugify(defined.name),
      magicType: slugify(defined.name),
      typeDesc: defined.desc || null,
    };
  if (d.wondrous === true) return { letter: l, category: "wondrous-item", magicType: "wondrous-item", typeDesc: null };
  const category = typeof d.weaponCategory === "string" ? "weapon" : l ? l.toLowerCase() : null;
  return { letter: l, category, magicType: category, typeDesc: null };
}

/** Which kind an item record becomes: magic when it has a rarity (not "none"), is wondrous, or needs attunement. */
export function itemKind(d: JsonObject, ctx: FileContext): EntityKind {
  const rarity = typeof d.rarity === "string" ? d.rarity.toLowerCase() : null;
  const magic =
    (rarity !== null && rarity !== "none" && rarity !== "unknown") ||
    d.wondrous === true ||
    (d.reqAttune !== undefined && d.reqAttune !== false) ||
    d.bonusWeapon !== undefined ||
    d.bonusAc !== undefined;
  if (magic) return "magic_item";
  const t = typeInfo(d, ctx);
  if (typeof d.weaponCategory === "string" || t.letter === "M" || t.letter === "R") return "weapon";
  if (t.letter === "LA" || t.letter === "MA" || t.letter === "HA" || t.letter === "S") return "armor";
  return "item";
}

function properties(d: JsonObject, ctx: FileContext): WeaponProperty[] {
  return arr(d.property)
    .map((p) => {
      const o = rec(p);
      const code = letter(typeof p === "string" ? p : o?.uid);
      if (!code) return null;
      const name = own(PROPERTY_NAMES, code) ?? ctx.itemProperties.get(code) ?? code;
      const detail =
        code === "V" && typeof d.dmg2 === "string"
          ? line(d.dmg2, ctx)
          : code === "T" || code === "A"
            ? typeof d.range === "string"
              ? `range ${d.range}`
              : null
            : line(o?.note, ctx);
      return { name, detail };
    })
    .filter((p): p is WeaponProperty => p !== null);
}

function range(d: JsonObject): { range: number | null; long: number | null } {
  const m = typeof d.range === "string" ? /^(\d+)(?:\/(\d+))?/.exec(d.range) : null;
  return { range: m ? Number(m[1]) : null, long: m?.[2] ? Number(m[2]) : null };
}

const COIN_CP: Readonly<Record<string, number>> = { cp: 1, sp: 10, ep: 50, gp: 100, pp: 1000 };

/**
 * A price in copper: 5etools writes a number of copper pieces, but hand-made files also write
 * "35gp", "1,000 gp" or "2sp" (as the book shows it).
 */
function copperOf(v: JsonValue | undefined): number | null {
  const n = num(v);
  if (n !== null || typeof v !== "string") return n;
  const m = /^\s*(\d[\d,]*(?:\.\d+)?)\s*(cp|sp|ep|gp|pp)\s*\.?\s*$/i.exec(v);
  return m ? Number(m[1]!.replace(/,/g, "")) * COIN_CP[m[2]!.toLowerCase()]! : null;
}

/** Price and weight, the fields every kind of item has. */
function priced(d: JsonObject): { cost: string | null; cost_gp: number | null; weight_lb: number | null } {
  const cp = copperOf(d.value);
  const weight_lb = num(d.weight);
  if (cp === null) return { cost: null, cost_gp: null, weight_lb };
  return { cost: copperText(cp), cost_gp: Math.round(cp) / 100, weight_lb };
}

function descWith(d: JsonObject, ctx: FileContext, extra: Array<string | null>): string {
  return [text(d.entries, ctx), ...extra, text(d.additionalEntries, ctx)].filter((x) => x?.trim()).join("\n");
}

export function buildWeapon(d: JsonObject, ctx: FileContext): WeaponData {
  const r = range(d);
  const t = typeInfo(d, ctx);
  return {
    category: typeof d.weaponCategory === "string" ? d.weaponCategory.toLowerCase() : null,
    range_type: t.letter === "R" ? "ranged" : t.letter === "M" ? "melee" : null,
    // Hand-made files write dice as tags ("{@dice 2d4}"): rendered like any text.
    damage_dice: line(d.dmg1, ctx),
    damage_type: damageType(d),
    versatile_dice: typeof d.dmg2 === "string" ? line(d.dmg2, ctx) : null,
    properties: properties(d, ctx),
    range: r.range,
    long_range: r.long,
    is_improvised: false,
    mastery:
      arr(d.mastery)
        .map((x) => (typeof x === "string" ? x.split("|")[0] : null))
        .filter(Boolean)
        .join(", ") || null,
    ...priced(d),
    desc: descWith(d, ctx, [t.typeDesc]) || null,
    item_key: null,
  };
}

export function buildArmor(d: JsonObject, ctx: FileContext): ArmorData {
  const t = typeInfo(d, ctx);
  const ac = num(d.ac);
  const dex = t.letter === "LA" ? true : t.letter === "MA";
  const display =
    ac === null
      ? null
      : t.letter === "S"
        ? `+${ac}`
        : `${ac}${dex ? ` + Dex modifier${t.letter === "MA" ? " (max 2)" : ""}` : ""}`;
  return {
    category: t.category,
    ac_base: ac,
    ac_add_dex: dex,
    ac_max_dex: t.letter === "MA" ? (num(d.dexterityMax) ?? 2) : null,
    ac_display: display,
    strength_required: num(d.strength),
    stealth_disadvantage: d.stealth === true,
    ...priced(d),
    desc: descWith(d, ctx, [t.typeDesc]) || null,
    item_key: null,
  };
}

export function buildItem(d: JsonObject, ctx: FileContext): ItemData {
  const t = typeInfo(d, ctx);
  return {
    category: t.category,
    ...priced(d),
    desc: descWith(d, ctx, [t.typeDesc]) || null,
  };
}

export function buildMagicItem(d: JsonObject, ctx: FileContext, extraDesc: string[] = []): MagicItemData {
  const t = typeInfo(d, ctx);
  const att = d.reqAttune;
  const props = properties(d, ctx).map((p) => (p.detail ? `${p.name} (${p.detail})` : p.name));
  const weaponBits = joinTexts(". ", [
    typeof d.weaponCategory === "string" ? `${d.weaponCategory} weapon` : null,
    props.length ? `Properties: ${props.join(", ")}` : null,
    typeof d.bonusWeapon === "string" ? `${d.bonusWeapon} bonus to attack and damage rolls` : null,
    typeof d.bonusAc === "string" ? `${d.bonusAc} bonus to AC` : null,
    num(d.ac) !== null ? `Armor Class ${num(d.ac)}` : null,
  ]);
  const rarity = rarityText(d.rarity);
  return {
    type: t.magicType,
    rarity: rarity === "none" || rarity === "unknown (magic)" ? (rarity === "none" ? null : "unknown") : rarity,
    requires_attunement: att !== undefined && att !== false && att !== "optional",
    attunement_detail: typeof att === "string" && att !== "optional" ? attunementDetail(line(att, ctx)) : null,
    desc: [descWith(d, ctx, [t.typeDesc]), weaponBits || null, ...extraDesc].filter((x) => x?.trim()).join("\n"),
    base_item: typeof d.baseItem === "string" ? d.baseItem.split("|")[0]! : null,
    damage_dice: typeof d.dmg1 === "string" ? line(d.dmg1, ctx) : null,
    damage_type: damageType(d),
    ...priced(d),
  };
}

/** One part of a variant's `requires` entry: a name, a type's category, or a flag set to true ("weapon"). */
function requirement(k: string, x: JsonValue): string | null {
  if (k === "type") return typeof x === "string" ? (own(TYPES, letter(x) ?? "")?.category ?? x) : null;
  if (k === "name") return typeof x === "string" ? x : null;
  return x === true ? k : null;
}

/** A `magicvariant` (a generic item applied to base items: "Powerful <bow>") → a magic item of its own. */
export function variantAsItem(d: JsonObject, ctx: FileContext): { item: JsonObject; extra: string[] } {
  const inh = rec(d.inherits) ?? {};
  const requires = arr(d.requires)
    .map((r) =>
      joinTexts(
        " ",
        Object.entries(rec(r) ?? {}).map(([k, x]) => requirement(k, x)),
      ),
    )
    .filter(Boolean);
  const applies = requires.length ? `Applies to: ${requires.join(", ")}.` : null;
  const affix = joinTexts(", ", [
    typeof inh.namePrefix === "string" ? `prefix "${inh.namePrefix.trim()}"` : null,
    typeof inh.nameSuffix === "string" ? `suffix "${inh.nameSuffix.trim()}"` : null,
  ]);
  const item: JsonObject = { ...inh, ...d, type: typeof d.type === "string" ? d.type : (inh.type ?? "GV") };
  delete item.inherits;
  if (item.entries === undefined && inh.entries !== undefined) item.entries = inh.entries;
  return {
    item,
    extra: [applies, affix ? `Named with the ${affix}.` : null, line(d.note, ctx)].filter((x): x is string => !!x),
  };
}
