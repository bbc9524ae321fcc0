/**
 * Open5e v2 equipment. `/items/` is the single source of mundane equipment: records with a nested
 * `weapon` become kind weapon, with nested `armor` (or category shield) kind armor, the rest kind
 * item; 2025-shape magic records (`rarity`/`is_magic_item`) become magic_item. `/weapons/` is joined
 * in (related) for ranges, and weapons missing from /items/ are added. `/magicitems/` → magic_item.
 */
import type { ArmorData, MagicItemData, WeaponData, WeaponProperty } from "../../kinds.ts";
import type { Entity } from "../../types.ts";
import { related, runRecords, type Base } from "../build.ts";
import { armorEntity, itemEntity, magicItemEntity, weaponEntity } from "../canonical/equipment.ts";
import { bool, int, isRec, num, rec, recs, refKey, refName, str, type Rec } from "../read.ts";
import type { NormalizeContext, NormalizeResult } from "../types.ts";
import { attunementDetail, costDisplay, costToGp, itemCategory, rarityText, weightToLb } from "../vocab.ts";
import { V2Record, v2Base } from "./common.ts";

const RANGED_NAMES = /\b(dart|net)\b/i;

function weightLb(r: Rec): number | null {
  const w = weightToLb(r.weight);
  if (w === null) return null;
  const unit = str(r.weight_unit)?.toLowerCase();
  return unit === "kg" ? Math.round(w * 2.20462 * 100) / 100 : w;
}

/** v2 cost is a decimal string in gp ("15.00"); 0 and null mean "not stated". */
function cost(r: Rec): { cost: string | null; cost_gp: number | null } {
  const gp = costToGp(r.cost);
  return gp === null || gp === 0 ? { cost: null, cost_gp: null } : { cost: costDisplay(r.cost), cost_gp: gp };
}

function properties(w: Rec): { props: WeaponProperty[]; mastery: string | null } {
  const props: WeaponProperty[] = [];
  let mastery: string | null = null;
  for (const p of recs(w.properties)) {
    const prop = rec(p.property);
    const name = str(prop?.name) ?? str(p.name);
    if (!name) continue;
    if (str(prop?.type)?.toLowerCase() === "mastery") mastery = name;
    else props.push({ name, detail: str(p.detail) });
  }
  return { props, mastery };
}

function rangeFromProps(props: WeaponProperty[]): [number, number] | null {
  for (const p of props) {
    const m = p.detail ? /range\s*(\d+)\s*\/\s*(\d+)/i.exec(p.detail) : null;
    if (m) return [Number(m[1]), Number(m[2])];
  }
  return null;
}

/** Weapon detail from a v2 weapon object (nested in an item, or a /weapons/ record). */
export function v2WeaponData(w: Rec, joined: Rec | null, item: Rec | null, name: string): WeaponData {
  const { props, mastery } = properties(w);
  const r0 = num(joined?.range) ?? num(w.range);
  const r1 = num(joined?.long_range) ?? num(w.long_range);
  const fromProps = rangeFromProps(props);
  const range = r0 && r0 > 0 ? r0 : (fromProps?.[0] ?? null);
  const longRange = r1 && r1 > 0 ? r1 : (fromProps?.[1] ?? null);
  const ranged = props.some((p) => /^ammunition$/i.test(p.name)) || RANGED_NAMES.test(name);
  // A melee weapon with a range is thrown (upstream omits the property on e.g. srd_handaxe).
  if (!ranged && range !== null && !props.some((p) => /^thrown$/i.test(p.name))) props.push({ name: "Thrown", detail: `range ${range}/${longRange ?? range}` });
  const simple = bool(w.is_simple);
  const martial = bool(w.is_martial);
  const c = item ? cost(item) : { cost: null, cost_gp: null };
  return {
    category: simple === true ? "simple" : martial === true || simple === false ? "martial" : null,
    range_type: ranged ? "ranged" : "melee",
    damage_dice: str(w.damage_dice),
    damage_type: refKey(w.damage_type)?.toLowerCase() ?? null,
    versatile_dice: props.find((p) => /^versatile$/i.test(p.name))?.detail ?? null,
    properties: props,
    range,
    long_range: longRange,
    is_improvised: bool(w.is_improvised) ?? false,
    mastery,
    ...c,
    weight_lb: item ? weightLb(item) : null,
    desc: item ? str(item.desc) : null,
  };
}

function armorData(a: Rec | null, item: Rec, name: string): ArmorData {
  const isShield = /\bshield\b/i.test(name) || refKey(item.category) === "shield";
  const desc = str(item.desc);
  const base = int(a?.ac_base) ?? (isShield ? Number(/Armor Class by (\d+)/i.exec(desc ?? "")?.[1] ?? 2) : null);
  const addDex = bool(a?.ac_add_dexmod) ?? false;
  const cap = int(a?.ac_cap_dexmod);
  return {
    category: isShield ? "shield" : (str(a?.category)?.toLowerCase() ?? null),
    ac_base: base,
    ac_add_dex: addDex,
    ac_max_dex: addDex ? cap : null,
    ac_display: isShield && base !== null ? `+${base}` : (str(a?.ac_display) ?? (base !== null ? String(base) : null)),
    strength_required: int(a?.strength_score_required),
    stealth_disadvantage: bool(a?.grants_stealth_disadvantage) ?? false,
    ...cost(item),
    weight_lb: weightLb(item),
    desc,
  };
}

function magicItemData(r: Rec): MagicItemData {
  const w = rec(r.weapon);
  const a = rec(r.armor);
  const type = itemCategory(refKey(r.category) ?? refName(r.category));
  return {
    type: type === "armor" && /\bshield\b/i.test(str(r.name) ?? "") ? "shield" : type,
    rarity: rarityText(r.rarity),
    requires_attunement: bool(r.requires_attunement) ?? false,
    attunement_detail: attunementDetail(r.attunement_detail),
    desc: str(r.desc) ?? "",
    base_item: str(w?.name) ?? str(a?.name),
    damage_dice: str(w?.damage_dice),
    damage_type: refKey(w?.damage_type)?.toLowerCase() ?? null,
    ...cost(r),
    weight_lb: weightLb(r) || null,
  };
}

function isMagic(r: Rec): boolean {
  return bool(r.is_magic_item) === true || isRec(r.rarity);
}

export function normalizeV2Items(records: unknown[], ctx: NormalizeContext): NormalizeResult {
  const joined = new Map<string, Rec>();
  for (const w of related(ctx, "weapons")) if (isRec(w) && str(w.key)) joined.set(str(w.key)!, w);
  const used = new Set<string>();
  const result = runRecords(records, V2Record, (r): Entity => {
    const b = v2Base(ctx, "items", r);
    if (isMagic(r)) return magicItemEntity("open5e_v2", b, magicItemData(r));
    const w = rec(r.weapon);
    if (w) {
      const wKey = refKey(w) ?? b.key;
      used.add(wKey);
      return weaponEntity("open5e_v2", b, v2WeaponData(w, joined.get(wKey) ?? null, r, b.name));
    }
    const a = rec(r.armor);
    if (a || refKey(r.category) === "shield") return armorEntity("open5e_v2", b, armorData(a, r, b.name));
    return itemEntity("open5e_v2", b, {
      category: itemCategory(refKey(r.category) ?? refName(r.category)),
      ...cost(r),
      weight_lb: weightLb(r),
      desc: str(r.desc),
    });
  });
  const extra = runRecords(
    [...joined.values()].filter((w) => !used.has(str(w.key)!)),
    V2Record,
    (w) => {
      const b: Base = v2Base(ctx, "weapons", w);
      return weaponEntity("open5e_v2", b, v2WeaponData(w, w, null, b.name));
    },
  );
  const have = new Set(result.entities.map((e) => `${e.kind}:${e.key}`));
  return {
    entities: [...result.entities, ...extra.entities.filter((e) => !have.has(`${e.kind}:${e.key}`))],
    skipped: [...result.skipped, ...extra.skipped],
  };
}

export function normalizeV2MagicItems(records: unknown[], ctx: NormalizeContext): NormalizeResult {
  return runRecords(records, V2Record, (r) => magicItemEntity("open5e_v2", v2Base(ctx, "magicitems", r), magicItemData(r)));
}
