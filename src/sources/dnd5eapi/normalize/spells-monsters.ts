/** D&D 5e API /spells → spell and /monsters → creature. */
import type { CreatureAction, CreatureData } from "../../../entities/kinds.ts";
import { materialPrice, saysConsumed } from "../../../entities/material.ts";
import { creatureEntity, crFields, legendaryCost, speedModes } from "../../../entities/normalize/canonical/creature.ts";
import { damageTypesIn, savingThrowIn, spellEntity } from "../../../entities/normalize/canonical/spell.ts";
import { arr, bool, int, names, num, rec, recs, refKey, str, textOf, uniq } from "../../../entities/normalize/read.ts";
import { ABILITY_NAMES, abilityName, feet, xpForCr } from "../../../entities/normalize/vocab.ts";
import { dndDesc, dndNormalizer } from "./common.ts";

export const normalizeDndSpells = dndNormalizer("spells", (r, b) => {
  const level = int(r.level);
  if (level === null || level < 0 || level > 9) throw new Error("spell has no level");
  const desc = dndDesc(r) ?? "";
  const comps = arr(r.components).map((c) => str(c)?.toUpperCase());
  const damage = rec(r.damage);
  const bySlot =
    rec(damage?.damage_at_slot_level) ?? rec(damage?.damage_at_character_level) ?? rec(r.heal_at_slot_level);
  const dt = refKey(damage?.damage_type)?.toLowerCase();
  const aoe = rec(r.area_of_effect);
  return spellEntity("dnd5e_api", b, {
    level,
    school: refKey(r.school)?.toLowerCase() ?? null,
    casting_time: str(r.casting_time),
    range: str(r.range),
    range_ft: feet(r.range),
    duration: str(r.duration),
    concentration: bool(r.concentration) ?? false,
    ritual: bool(r.ritual) ?? false,
    components: {
      verbal: comps.includes("V"),
      somatic: comps.includes("S"),
      material: comps.includes("M"),
      material_text: str(r.material),
      material_cost: materialPrice(str(r.material)),
      material_consumed: str(r.material) ? saysConsumed(str(r.material)) : null,
    },
    desc,
    higher_level: textOf(r.higher_level),
    classes: uniq(recs(r.classes).flatMap((c) => refKey(c)?.toLowerCase() || [])),
    damage_types: dt ? [dt] : damageTypesIn(desc),
    saving_throw: abilityName(refKey(rec(r.dc)?.dc_type)) ?? savingThrowIn(desc),
    attack_roll: str(r.attack_type) ? true : /spell attack/i.test(desc),
    damage_roll: bySlot ? str(bySlot[String(level)] ?? Object.values(bySlot)[0]) : null,
    area: aoe && str(aoe.type) ? { type: str(aoe.type)!.toLowerCase(), size_ft: int(aoe.size) } : null,
    reaction_condition: null,
  });
});

function usageText(name: string, u: unknown): string | null {
  const o = rec(u);
  if (!o) return null;
  const type = (str(o.type) ?? "").toLowerCase();
  if (type.startsWith("recharge on roll")) {
    if (/recharge/i.test(name)) return null;
    const min = int(o.min_value);
    return min === null ? "Recharge" : min >= 6 ? "Recharge 6" : `Recharge ${min}–6`;
  }
  if (type === "per day") return /\/day/i.test(name) ? null : `${int(o.times) ?? 1}/Day`;
  if (type.startsWith("recharge after rest"))
    return /recharge/i.test(name) ? null : `Recharges after a ${names(o.rest_types).join(" or ") || "rest"}`;
  return null;
}

function actions(x: unknown, legendary = false): CreatureAction[] {
  return recs(x).map((a) => {
    const name = str(a.name) ?? "Action";
    const cost = legendary ? legendaryCost(name) : null;
    return { name, desc: textOf(a.desc) ?? "", usage: usageText(name, a.usage), cost };
  });
}

function armorDetail(ac: unknown): string | null {
  const first = recs(ac)[0];
  if (!first) return null;
  const type = str(first.type)?.toLowerCase();
  if (type === "natural") return "natural armor";
  if (type === "armor") return names(first.armor).join(", ").toLowerCase() || "armor";
  if (type === "spell") return str(rec(first.spell)?.name)?.toLowerCase() ?? null;
  return str(first.desc);
}

function sensesText(x: unknown): { text: string | null; passive: number | null } {
  const o = rec(x);
  if (!o) return { text: null, passive: null };
  const parts: string[] = [];
  let passive: number | null = null;
  for (const [k, val] of Object.entries(o)) {
    if (k === "passive_perception") passive = int(val);
    else if (str(val)) parts.push(`${k.replace(/_/g, " ")} ${str(val)}`);
  }
  if (passive !== null) parts.push(`passive Perception ${passive}`);
  return { text: parts.length ? parts.join(", ") : null, passive };
}

export const normalizeDndMonsters = dndNormalizer("monsters", (r, b) => {
  const cr = num(r.challenge_rating);
  const saves: { [k: string]: number } = {};
  const skills: { [k: string]: number } = {};
  for (const p of recs(r.proficiencies)) {
    const pname = str(rec(p.proficiency)?.name) ?? "";
    const val = int(p.value);
    if (val === null) continue;
    const save = /^saving throw:\s*(\w+)/i.exec(pname);
    const skill = /^skill:\s*(.+)$/i.exec(pname);
    if (save && abilityName(save[1])) saves[abilityName(save[1])!] = val;
    else if (skill) skills[skill[1]!.trim().toLowerCase().replace(/\s+/g, "_")] = val;
  }
  const senses = sensesText(r.senses);
  const list = (x: unknown) => names(x).join(", ") || null;
  return creatureEntity("dnd5e_api", b, {
    size: str(r.size),
    type: str(r.type),
    subtype: str(r.subtype),
    group: null,
    alignment: str(r.alignment),
    armor_class: int(recs(r.armor_class)[0]?.value) ?? int(r.armor_class),
    armor_detail: armorDetail(r.armor_class),
    hit_points: int(r.hit_points),
    hit_dice: str(r.hit_points_roll) ?? str(r.hit_dice),
    speed: speedModes(r.speed, feet),
    ability_scores: Object.fromEntries(ABILITY_NAMES.map((a) => [a, int(r[a])])) as CreatureData["ability_scores"],
    saving_throws: saves,
    skills,
    damage_vulnerabilities: list(r.damage_vulnerabilities),
    damage_resistances: list(r.damage_resistances),
    damage_immunities: list(r.damage_immunities),
    condition_immunities: list(r.condition_immunities),
    senses: senses.text,
    passive_perception: senses.passive,
    languages: str(r.languages),
    ...crFields(cr),
    xp: int(r.xp) ?? xpForCr(cr),
    proficiency_bonus: int(r.proficiency_bonus),
    traits: actions(r.special_abilities),
    actions: actions(r.actions),
    bonus_actions: actions(r.bonus_actions),
    reactions: actions(r.reactions),
    legendary_desc: null,
    legendary_actions: actions(r.legendary_actions, true),
    lair_actions: actions(r.lair_actions),
    environments: [],
    desc: dndDesc(r),
  });
});
