/** Equipment from canonical data: weapon, armor, item, magic_item. */
import type { ArmorData, ItemData, MagicItemData } from "../../kinds.ts";
import type { DocumentSource, Entity } from "../../types.ts";
import { type Base, builder, entity } from "../build.ts";
import { capitalize, titleCase } from "../text.ts";
import { rarityFilter } from "../vocab.ts";
import { itemProfile, profileLead } from "../../profiles.ts";

function costWeight(d: { cost: string | null; weight_lb: number | null }): string | null {
  const parts = [d.cost ? `Cost ${d.cost}` : null, d.weight_lb !== null ? `Weight ${d.weight_lb} lb.` : null].filter(
    Boolean,
  );
  return parts.length ? parts.join(". ") : null;
}

/** The damage dice as matched: "1d8 + 1" → "1d8+1". */
function diceFilter(dice: string | null): string | null {
  return dice ? dice.toLowerCase().replace(/\s+/g, "") : null;
}

export const weaponEntity = builder("weapon", (d) => {
  const props = d.properties.map((p) => (p.detail ? `${p.name} (${p.detail})` : p.name)).join(", ");
  return {
    // "Martial melee weapon"
    header: capitalize([d.category, d.range_type, "weapon"].filter(Boolean).join(" ")),
    body: [
      d.damage_dice
        ? `Damage ${d.damage_dice}${d.damage_type ? ` ${d.damage_type}` : ""}` +
          `${d.versatile_dice ? ` (versatile ${d.versatile_dice})` : ""}`
        : null,
      props ? `Properties: ${props}` : null,
      d.range !== null ? `Range ${d.range}${d.long_range !== null ? `/${d.long_range}` : ""} ft.` : null,
      d.mastery ? `Mastery: ${d.mastery}` : null,
      costWeight(d),
      d.desc,
    ],
    filters: {
      category: [d.category, d.range_type].filter(Boolean).join(" ") || null,
      is_simple: d.category === null ? null : d.category === "simple",
      damage_dice: diceFilter(d.damage_dice),
      damage_types: d.damage_type ? [d.damage_type.toLowerCase()] : [],
      cost_gp: d.cost_gp,
      weight_lb: d.weight_lb,
    },
  };
});

/** "Heavy armor" / "Shield" */
function armorHeader(d: ArmorData): string {
  if (d.category === "shield") return "Shield";
  return d.category ? `${capitalize(d.category)} armor` : "Armor";
}

export const armorEntity = builder("armor", (d) => ({
  header: armorHeader(d),
  body: [
    d.ac_display ? `Armor Class ${d.ac_display}` : null,
    d.strength_required ? `Strength ${d.strength_required} required` : null,
    d.stealth_disadvantage ? "Disadvantage on Stealth checks" : null,
    costWeight(d),
    d.desc,
  ],
  filters: { category: d.category, armor_class: d.ac_base, cost_gp: d.cost_gp, weight_lb: d.weight_lb },
}));

/** `extra`: more search text (e.g. "Can be used as a weapon: Quarterstaff."). */
export function itemEntity(source: DocumentSource, b: Base, raw: ItemData, extra: string[] = []): Entity {
  // Magic gear a document files as an item (SRD 5.2 potions) has its magic item profile.
  const p = itemProfile(b.name, b.doc.key);
  const d: ItemData = p ? { ...raw, profile: p.profile, common_names: [...p.names] } : raw;
  return entity(source, {
    kind: "item",
    ...b,
    header: d.category ? titleCase(d.category) : "Item",
    body: [profileLead(p), costWeight(d), d.desc, ...extra],
    filters: { category: d.category, cost_gp: d.cost_gp, weight_lb: d.weight_lb },
    data: d,
  });
}

/** "Weapon (longsword), rare (requires attunement)" */
function magicItemHeader(d: MagicItemData): string {
  const type = d.type ? titleCase(d.type) : "Magic item";
  const base = d.base_item && d.base_item.toLowerCase() !== (d.type ?? "") ? ` (${d.base_item.toLowerCase()})` : "";
  const att = d.requires_attunement
    ? ` (requires attunement${d.attunement_detail ? ` ${d.attunement_detail}` : ""})`
    : "";
  return `${type}${base}${d.rarity ? `, ${d.rarity}` : ""}${att}`.replace(/\s+\)/g, ")");
}

/** The magic item fields of an API whose magic item records carry no damage, cost or weight. */
export const NO_ITEM_STATS = { damage_dice: null, damage_type: null, cost: null, cost_gp: null, weight_lb: null };

/**
 * A magic item entity. A core item's text leads with its plain-words profile and the names people
 * use for it (src/entities/profiles.ts; one entry serves a family such as "Flame Tongue (X)");
 * its `data` carries them (`profile`, `common_names`).
 */
export function magicItemEntity(source: DocumentSource, b: Base, raw: MagicItemData): Entity {
  const p = itemProfile(b.name, b.doc.key);
  const d: MagicItemData = p ? { ...raw, profile: p.profile, common_names: [...p.names] } : raw;
  return entity(source, {
    kind: "magic_item",
    ...b,
    header: magicItemHeader(d),
    body: [
      profileLead(p),
      d.desc,
      d.damage_dice ? `Damage ${d.damage_dice}${d.damage_type ? ` ${d.damage_type}` : ""}` : null,
      costWeight(d),
    ],
    filters: {
      category: d.type,
      rarity: rarityFilter(d.rarity),
      requires_attunement: d.requires_attunement,
      damage_dice: diceFilter(d.damage_dice),
      damage_types: d.damage_type ? [d.damage_type.toLowerCase()] : [],
      cost_gp: d.cost_gp,
      weight_lb: d.weight_lb,
    },
    data: d,
  });
}
