/** Open5e v1 /weapons/, /armor/, /magicitems/, /conditions/, /sections/ (rules). */
import type { WeaponProperty } from "../../../entities/kinds.ts";
import { slugify } from "../../../entities/types.ts";
import {
  armorEntity,
  magicItemEntity,
  NO_ITEM_STATS,
  weaponEntity,
} from "../../../entities/normalize/canonical/equipment.ts";
import { conditionEntity, ruleEntity } from "../../../entities/normalize/canonical/reference.ts";
import { arr, bool, int, str } from "../../../entities/normalize/read.ts";
import { titleCase } from "../../../entities/normalize/text.ts";
import { attunementDetail, costAndWeight, itemCategory, rarityText } from "../../../entities/normalize/vocab.ts";
import { v1Normalizer } from "./common.ts";

/** "two-handed" → "Two-Handed" (titleCase would drop the hyphen: "Two Handed"), as the other sources write it. */
function propertyName(s: string): string {
  return s.toLowerCase().split("-").map(titleCase).join("-");
}

/** "versatile (1d10)" → {name: "Versatile", detail: "1d10"} */
function property(raw: string): WeaponProperty {
  const m = /^([^(]+?)\s*\((.+)\)\s*$/.exec(raw.trim());
  return m ? { name: propertyName(m[1]!), detail: m[2]! } : { name: propertyName(raw.trim()), detail: null };
}

export const normalizeV1Weapons = v1Normalizer("weapons", (r, b) => {
  const cat = (str(r.category) ?? "").toLowerCase();
  const props = arr(r.properties)
    .flatMap((x) => str(x) || [])
    .map(property);
  const range = props.map((p) => (p.detail ? /range\s*(\d+)\s*\/\s*(\d+)/i.exec(p.detail) : null)).find(Boolean);
  return weaponEntity("open5e_v1", b, {
    category: cat.includes("simple") ? "simple" : cat.includes("martial") ? "martial" : null,
    range_type: cat.includes("ranged") ? "ranged" : cat.includes("melee") ? "melee" : null,
    damage_dice: str(r.damage_dice),
    damage_type: str(r.damage_type)?.toLowerCase() ?? null,
    versatile_dice: props.find((p) => p.name === "Versatile")?.detail ?? null,
    properties: props,
    range: range ? Number(range[1]) : null,
    long_range: range ? Number(range[2]) : null,
    is_improvised: false,
    mastery: null,
    ...costAndWeight(r),
    desc: null,
    item_key: null,
  });
});

export const normalizeV1Armor = v1Normalizer("armor", (r, b) => {
  const cat = (str(r.category) ?? "").toLowerCase();
  const category = cat.includes("shield") ? "shield" : (/(light|medium|heavy)/.exec(cat)?.[1] ?? null);
  const base = int(r.base_ac) ?? 0;
  const flat = int(r.plus_flat_mod) ?? 0;
  const addDex = bool(r.plus_dex_mod) ?? false;
  const max = int(r.plus_max);
  const acBase = base + flat;
  return armorEntity("open5e_v1", b, {
    category,
    ac_base: acBase,
    ac_add_dex: addDex,
    ac_max_dex: addDex && max !== null && max > 0 ? max : null,
    ac_display: category === "shield" ? `+${acBase}` : (str(r.ac_string) ?? String(acBase)),
    strength_required: int(r.strength_requirement) || null,
    stealth_disadvantage: bool(r.stealth_disadvantage) ?? false,
    ...costAndWeight(r),
    desc: null,
    item_key: null,
  });
});

export const normalizeV1MagicItems = v1Normalizer("magicitems", (r, b) => {
  const type = str(r.type);
  const att = str(r.requires_attunement);
  const requires = !!att && /attunement/i.test(att);
  const base = type ? (/\(([^)]+)\)/.exec(type)?.[1] ?? null) : null;
  return magicItemEntity("open5e_v1", b, {
    type: itemCategory(type),
    rarity: rarityText(r.rarity),
    requires_attunement: requires,
    attunement_detail: requires ? attunementDetail(att) : null,
    desc: str(r.desc) ?? "",
    base_item: base,
    ...NO_ITEM_STATS,
  });
});

export const normalizeV1Conditions = v1Normalizer("conditions", (r, b) =>
  conditionEntity("open5e_v1", b, str(r.desc) ?? ""),
);

/** /sections/ are rule pages; `parent` ("Combat", "Gameplay Mechanics") is the section. */
export const normalizeV1Sections = v1Normalizer("sections", (r, b) => {
  const parent = str(r.parent);
  return ruleEntity("open5e_v1", b, {
    desc: str(r.desc) ?? "",
    section: parent,
    section_key: parent ? slugify(parent) : null,
    order: null,
  });
});
