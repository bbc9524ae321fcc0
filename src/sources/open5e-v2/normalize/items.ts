/**
 * Open5e v2 equipment: `/items/` with `/weapons/` and `/armor/` joined in (related), `/magicitems/`.
 *
 * One entity per thing. An item whose nested `weapon` / `armor` points at a weapon/armor record is
 * ONE weapon/armor entity under the weapon/armor endpoint's key (`srd_hide`, not `srd_hide-armor`)
 * with `data.item_key` = the item's key and cost/weight/description from the item. When several
 * items point at the same record (srd_quarterstaff ← srd_quarterstaff, srd_staff "arcane focus",
 * srd_wooden-staff "druidic focus"), the item with the same key (else of category weapon/armor,
 * else the first) is the weapon; the others stay `item`s under their own key, their text naming
 * the weapon they can be used as. An item of category armor/shield without an armor record
 * (srd_shield: no nested armor, no /armor/ record) is armor under its own item key, stats from its
 * text (a shield: "+2", or the bonus its text states). Weapon/armor records no item points at are
 * added from the record alone (`item_key` null). 2025-shape magic records inside /items/ become
 * magic_item.
 */
import type { ArmorData, MagicItemData, WeaponData, WeaponProperty } from "../../../entities/kinds.ts";
import type { Entity } from "../../../entities/types.ts";
import type { Base } from "../../../entities/normalize/build.ts";
import {
  armorEntity,
  itemEntity,
  magicItemEntity,
  weaponEntity,
} from "../../../entities/normalize/canonical/equipment.ts";
import { bool, int, isRec, num, rec, recs, refKey, refName, str, type Rec } from "../../../entities/normalize/read.ts";
import type { NormalizeContext, NormalizeResult } from "../../../entities/normalize/types.ts";
import {
  attunementDetail,
  costDisplay,
  costToGp,
  itemCategory,
  rarityText,
  weightToLb,
} from "../../../entities/normalize/vocab.ts";
import { v2Normalizer, v2Url } from "./common.ts";
import { applyWeaponErrata } from "./errata.ts";

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
function v2WeaponData(w: Rec, joined: Rec | null, item: Rec | null, name: string): WeaponData {
  const parsed = properties(w);
  const { mastery } = parsed;
  const { props, notes } = applyWeaponErrata(str(w.key) ?? str(joined?.key), parsed.props);
  const r0 = num(joined?.range) ?? num(w.range);
  const r1 = num(joined?.long_range) ?? num(w.long_range);
  const fromProps = rangeFromProps(props);
  const range = r0 && r0 > 0 ? r0 : (fromProps?.[0] ?? null);
  const longRange = r1 && r1 > 0 ? r1 : (fromProps?.[1] ?? null);
  const ranged = props.some((p) => /^ammunition$/i.test(p.name)) || RANGED_NAMES.test(name);
  // A melee weapon with a range is thrown (upstream omits the property on e.g. srd_handaxe).
  if (!ranged && range !== null && !props.some((p) => /^thrown$/i.test(p.name))) {
    props.push({ name: "Thrown", detail: `range ${range}/${longRange ?? range}` });
    notes.push(
      `Open5e v2 gives a range (${range}/${longRange ?? range}) but no Thrown property; the SRD lists this weapon as ` +
        `Thrown. Added.`,
    );
  }
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
    item_key: item ? itemKey(item) : null,
    ...(notes.length ? { upstream_notes: notes } : {}),
  };
}

/**
 * A shield's AC bonus as its text states it ("increases your Armor Class by 2", "+2 bonus to AC"), else the rule's 2.
 */
function shieldBonus(desc: string | null): number {
  const m = /Armor Class by \+?(\d+)|\+(\d+)(?: bonus)? to (?:AC|Armor Class)/i.exec(desc ?? "");
  return Number(m?.[1] ?? m?.[2] ?? 2);
}

function armorData(a: Rec | null, item: Rec | null, name: string): ArmorData {
  const isShield = /\bshield\b/i.test(name) || refKey(item?.category) === "shield";
  const desc = item ? str(item.desc) : null;
  const base = int(a?.ac_base) ?? (isShield ? shieldBonus(desc) : null);
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
    ...(item ? cost(item) : { cost: null, cost_gp: null }),
    weight_lb: item ? weightLb(item) : null,
    desc,
    item_key: item ? itemKey(item) : null,
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

type Gear = "weapon" | "armor";
/** The weapon or armor record an item points at. */
type Link = { kind: Gear; key: string; nested: Rec };

function itemKey(r: Rec): string | null {
  return str(r.key) ?? (str(r.url) ? refKey(r.url) : null);
}

/** Item categories that are armor in game terms. */
const ARMOR_CATEGORIES = new Set(["armor", "shield"]);

function categoryOf(r: Rec): string | null {
  return itemCategory(refKey(r.category) ?? refName(r.category));
}

/** An armor/shield item without a nested armor object: linked to the /armor/ record of its own key, if any. */
function isArmorItem(r: Rec): boolean {
  return !isMagic(r) && !rec(r.weapon) && !rec(r.armor) && ARMOR_CATEGORIES.has(categoryOf(r) ?? "");
}

function linkOf(r: Rec, key: string, armor: Map<string, Rec>): Link | null {
  if (isMagic(r)) return null;
  for (const kind of ["weapon", "armor"] as const) {
    const nested = rec(r[kind]);
    if (nested) return { kind, key: refKey(nested) ?? key, nested };
  }
  const own = isArmorItem(r) ? armor.get(key) : undefined;
  return own ? { kind: "armor", key, nested: own } : null;
}

function byKey(records: unknown[]): Map<string, Rec> {
  const m = new Map<string, Rec>();
  for (const x of records) {
    const k = isRec(x) ? itemKey(x) : null;
    if (k && isRec(x) && !m.has(k)) m.set(k, x);
  }
  return m;
}

/**
 * For each weapon/armor key, the item that IS it: same key (2) > category weapon/armor/shield (1) >
 * first (0). Others pointing at the same record are plain items.
 */
function primaryItems(records: unknown[], armor: Map<string, Rec>): Map<string, string> {
  const best = new Map<string, { item: string; score: number }>();
  for (const r of records) {
    const key = isRec(r) ? itemKey(r) : null;
    const l = key && isRec(r) ? linkOf(r, key, armor) : null;
    if (!key || !l || !isRec(r)) continue;
    const cat = refKey(r.category)?.toLowerCase();
    const score = key === l.key ? 2 : cat === l.kind || (l.kind === "armor" && cat === "shield") ? 1 : 0;
    const id = `${l.kind}:${l.key}`;
    const cur = best.get(id);
    if (!cur || score > cur.score) best.set(id, { item: key, score });
  }
  return new Map([...best].map(([id, v]) => [id, v.item]));
}

/** Weapon and armor records no item points at. */
const normalizeWeapons = v2Normalizer("weapons", (w, b) =>
  weaponEntity("open5e_v2", b, v2WeaponData(w, w, null, b.name)),
);
const normalizeArmor = v2Normalizer("armor", (a, b) => armorEntity("open5e_v2", b, armorData(a, null, b.name)));

export function normalizeV2Items(records: unknown[], ctx: NormalizeContext): NormalizeResult {
  const joined: Record<Gear, Map<string, Rec>> = {
    weapon: byKey(ctx.related?.weapons ?? []),
    armor: byKey(ctx.related?.armor ?? []),
  };
  const primary = primaryItems(records, joined.armor);
  const emitted = new Set<string>();
  const result = v2Normalizer("items", (r, b): Entity => {
    if (isMagic(r)) return magicItemEntity("open5e_v2", b, magicItemData(r));
    const l = linkOf(r, b.key, joined.armor);
    if (l && primary.get(`${l.kind}:${l.key}`) === b.key) {
      emitted.add(`${l.kind}:${l.key}`);
      const gb: Base = { ...b, key: l.key, url: v2Url(ctx, l.kind === "weapon" ? "weapons" : "armor", l.key) };
      const full = joined[l.kind].get(l.key) ?? null;
      if (l.kind === "weapon") return weaponEntity("open5e_v2", gb, v2WeaponData(l.nested, full, r, b.name));
      return armorEntity("open5e_v2", gb, armorData(full ?? l.nested, r, b.name));
    }
    // armor in game terms with no armor record: armor under the item's key (nothing else claims it)
    if (!l && isArmorItem(r)) return armorEntity("open5e_v2", b, armorData(null, r, b.name));
    const usable = l ? (str(joined[l.kind].get(l.key)?.name) ?? str(l.nested.name) ?? l.key) : null;
    return itemEntity(
      "open5e_v2",
      b,
      { category: categoryOf(r), ...cost(r), weight_lb: weightLb(r), desc: str(r.desc) },
      l ? [`Can be used as ${l.kind === "weapon" ? "a weapon" : "armor"}: ${usable}.`] : [],
    );
  })(records, ctx);
  const unlinked = (kind: Gear) => [...joined[kind]].filter(([k]) => !emitted.has(`${kind}:${k}`)).map(([, x]) => x);
  const weapons = normalizeWeapons(unlinked("weapon"), ctx);
  const armor = normalizeArmor(unlinked("armor"), ctx);
  const seen = new Set(result.entities.map((e) => `${e.kind}:${e.key}`));
  const skipped = [...result.skipped, ...weapons.skipped, ...armor.skipped];
  const extra = [...weapons.entities, ...armor.entities].filter((e) => {
    const dup = seen.has(`${e.kind}:${e.key}`);
    if (dup) skipped.push({ key: e.key, reason: `duplicate ${e.kind} key` });
    return !dup;
  });
  return { entities: [...result.entities, ...extra], skipped };
}

export const normalizeV2MagicItems = v2Normalizer("magicitems", (r, b) =>
  magicItemEntity("open5e_v2", b, magicItemData(r)),
);
