/**
 * D&D 5e API /equipment (weapon | armor | item by category), /magic-items, /poisons (2024, item).
 */
import type { ArmorData, WeaponData } from "../../../entities/kinds.ts";
import type { Entity } from "../../../entities/types.ts";
import {
  armorEntity,
  itemEntity,
  magicItemEntity,
  NO_ITEM_STATS,
  weaponEntity,
} from "../../../entities/normalize/canonical/equipment.ts";
import { bool, int, names, rec, recs, refKey, str, type Rec } from "../../../entities/normalize/read.ts";
import { capitalize } from "../../../entities/normalize/text.ts";
import { costAndWeight, itemCategory, rarityText } from "../../../entities/normalize/vocab.ts";
import { dndDesc, dndNormalizer } from "./common.ts";

/** Category indices of a record: 2014 `equipment_category` (+ gear/tool category), 2024 `equipment_categories[]`. */
function categories(r: { [k: string]: unknown }): string[] {
  const out = recs(r.equipment_categories).map((c) => refKey(c) ?? "");
  const main = refKey(r.equipment_category);
  if (main) out.unshift(main);
  return out.filter(Boolean);
}

function weaponData(r: { [k: string]: unknown }, cats: string[]): WeaponData {
  const wc = (str(r.weapon_category) ?? "").toLowerCase();
  const wr = (str(r.weapon_range) ?? "").toLowerCase();
  const simple = wc === "simple" || cats.some((c) => c.startsWith("simple"));
  const martial = wc === "martial" || cats.some((c) => c.startsWith("martial"));
  const ranged = wr === "ranged" || cats.some((c) => /ranged/.test(c));
  const damage = rec(r.damage);
  const versatile = str(rec(r.two_handed_damage)?.damage_dice);
  const thrown = rec(r.throw_range);
  const rangeObj = ranged ? rec(r.range) : thrown;
  const normal = int(rangeObj?.normal);
  const span = (o: Rec) => `range ${int(o.normal)}/${int(o.long)}`;
  const detail = (name: string) => {
    if (/^versatile$/i.test(name)) return versatile;
    if (/^thrown$/i.test(name) && thrown) return span(thrown);
    const range = rec(r.range);
    return /^ammunition$/i.test(name) && range?.long ? span(range) : null;
  };
  return {
    category: simple ? "simple" : martial ? "martial" : null,
    range_type: ranged ? "ranged" : "melee",
    damage_dice: str(damage?.damage_dice),
    damage_type: refKey(damage?.damage_type)?.toLowerCase() ?? null,
    versatile_dice: versatile,
    properties: names(r.properties).map((name) => ({ name, detail: detail(name) })),
    range: normal && (ranged || thrown) ? normal : null,
    long_range: ranged || thrown ? int(rangeObj?.long) : null,
    is_improvised: false,
    mastery: str(rec(r.mastery)?.name),
    ...costAndWeight(r),
    desc: dndDesc(r),
    item_key: null,
  };
}

function armorData(r: { [k: string]: unknown }, cats: string[]): ArmorData {
  const ac = rec(r.armor_class);
  const cat = (str(r.armor_category) ?? cats.find((c) => /armor|shield/.test(c) && c !== "armor") ?? "").toLowerCase();
  const category = /shield/.test(cat) ? "shield" : (/(light|medium|heavy)/.exec(cat)?.[1] ?? null);
  const base = int(ac?.base);
  const dex = bool(ac?.dex_bonus) ?? false;
  const max = int(ac?.max_bonus);
  const display =
    base === null
      ? null
      : category === "shield"
        ? `+${base}`
        : dex
          ? `${base} + Dex modifier${max !== null ? ` (max ${max})` : ""}`
          : String(base);
  return {
    category,
    ac_base: base,
    ac_add_dex: dex,
    ac_max_dex: dex ? max : null,
    ac_display: display,
    strength_required: int(r.str_minimum) || null,
    stealth_disadvantage: bool(r.stealth_disadvantage) ?? false,
    ...costAndWeight(r),
    desc: dndDesc(r),
    item_key: null,
  };
}

export const normalizeDndEquipment = dndNormalizer("equipment", (r, b): Entity => {
  const cats = categories(r);
  const isWeapon = (cats.includes("weapon") || cats.some((c) => /weapons$/.test(c))) && rec(r.damage) !== null;
  if (isWeapon || (str(r.weapon_category) && rec(r.damage))) return weaponEntity("dnd5e_api", b, weaponData(r, cats));
  if (rec(r.armor_class) && (cats.includes("armor") || cats.some((c) => /armor|shields/.test(c))))
    return armorEntity("dnd5e_api", b, armorData(r, cats));
  return itemEntity("dnd5e_api", b, {
    category: itemCategory(cats[0] ?? refKey(r.gear_category) ?? null),
    ...costAndWeight(r),
    desc: dndDesc(r),
  });
});

export const normalizeDndMagicItems = dndNormalizer("magic-items", (r, b) => {
  const full = dndDesc(r) ?? "";
  const firstLine = full.split("\n")[0]!.trim();
  const headerLike = /^(armor|weapon|wondrous|ring|rod|staff|wand|potion|scroll|ammunition)/i.test(firstLine);
  const att = /requires attunement(?:\s+(by [^)]+))?/i.exec(headerLike ? firstLine : "");
  const limited = str(r["limited-to"]);
  const requires = bool(r.attunement) ?? !!att;
  const base = headerLike ? (/\(([^)]+)\)/.exec(firstLine)?.[1] ?? null) : null;
  let type = itemCategory(refKey(r.equipment_category));
  if (type === "armor" && base && /shield/i.test(base)) type = "shield";
  return magicItemEntity("dnd5e_api", b, {
    type,
    rarity: rarityText(r.rarity),
    requires_attunement: requires,
    attunement_detail: requires ? (att?.[1] ?? (limited ? `by a ${limited}` : null)) : null,
    desc: headerLike ? full.slice(full.indexOf(firstLine) + firstLine.length).trim() : full,
    base_item: base,
    ...NO_ITEM_STATS,
  });
});

/** 2024 /poisons → item (category "poison"); `cost` is in gp. */
export const normalizeDndPoisons = dndNormalizer("poisons", (r, b) => {
  const type = str(r.type);
  return itemEntity("dnd5e_api", b, {
    category: "poison",
    ...costAndWeight(r),
    desc: [type ? `${capitalize(type)} poison.` : null, dndDesc(r)].filter(Boolean).join(" ") || null,
  });
});
