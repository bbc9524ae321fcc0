/** Open5e v1 /spells/ → spell and /monsters/ → creature. */
import type { CreatureAction, CreatureData } from "../../../entities/kinds.ts";
import { parseCr } from "../../../entities/types.ts";
import { readMaterial } from "../../../entities/material.ts";
import { correctSrd51Classes } from "../../../entities/normalize/srd51-spell-lists.ts";
import {
  bonusMap,
  creatureEntity,
  crFields,
  legendaryCost,
  speedModes,
} from "../../../entities/normalize/canonical/creature.ts";
import { damageTypesIn, savingThrowIn, spellEntity } from "../../../entities/normalize/canonical/spell.ts";
import { arr, bool, int, num, recs, str, uniq, type Rec } from "../../../entities/normalize/read.ts";
import { ABILITY_NAMES, feet, xpForCr } from "../../../entities/normalize/vocab.ts";
import { slugify } from "../../../entities/types.ts";
import { v1Normalizer } from "./common.ts";

function v1Level(r: Rec): number | null {
  const n = int(r.level_int) ?? int(r.spell_level);
  if (n !== null) return n;
  const s = str(r.level)?.toLowerCase() ?? "";
  if (s.includes("cantrip")) return 0;
  const m = /(\d)/.exec(s);
  return m ? Number(m[1]) : null;
}

export const normalizeV1Spells = v1Normalizer("spells", (r, b) => {
  const level = v1Level(r);
  if (level === null || level < 0 || level > 9) throw new Error("spell has no level");
  const desc = str(r.desc) ?? "";
  const comps = (str(r.components) ?? "").toUpperCase();
  // "Ritual Caster" (a feat) is not a class.
  const listed = uniq(
    [...(str(r.dnd_class) ?? "").split(","), ...arr(r.spell_lists).map((x) => str(x) ?? "")]
      .map((c) => slugify(c))
      .filter((c) => c && c !== "ritual-caster"),
  );
  const classes =
    b.doc.key === "srd-2014" ? correctSrd51Classes("Open5e v1", b.name, listed) : { classes: listed, notes: [] };
  const material = readMaterial("Open5e v1", str(r.material), null, null);
  return spellEntity("open5e_v1", b, {
    level,
    school: str(r.school)?.toLowerCase() ?? null,
    casting_time: str(r.casting_time),
    range: str(r.range),
    range_ft: feet(r.range),
    duration: str(r.duration),
    concentration: bool(r.requires_concentration) ?? bool(r.concentration) ?? false,
    ritual: bool(r.can_be_cast_as_ritual) ?? bool(r.ritual) ?? false,
    components: {
      verbal: bool(r.requires_verbal_components) ?? /\bV\b/.test(comps),
      somatic: bool(r.requires_somatic_components) ?? /\bS\b/.test(comps),
      material: bool(r.requires_material_components) ?? /\bM\b/.test(comps),
      material_text: str(r.material),
      material_cost: material.material_cost,
      material_consumed: material.material_consumed,
    },
    desc,
    higher_level: str(r.higher_level),
    classes: classes.classes,
    damage_types: damageTypesIn(desc),
    saving_throw: savingThrowIn(desc),
    attack_roll: /spell attack/i.test(desc),
    damage_roll: null,
    area: null,
    reaction_condition: null,
    ...(classes.notes.length ? { upstream_notes: classes.notes } : {}),
  });
});

function actions(x: unknown, legendary = false): CreatureAction[] {
  return recs(x).map((a) => {
    const name = str(a.name) ?? "Action";
    const cost = legendary ? legendaryCost(name) : null;
    return { name, desc: str(a.desc) ?? "", usage: null, cost };
  });
}

export const normalizeV1Monsters = v1Normalizer("monsters", (r, b) => {
  const cr = num(r.cr) ?? parseCr(r.challenge_rating) ?? null;
  // Tome of Beasts 2023 (all 408 creatures) has `desc: "False"`: a boolean, not a description.
  const desc = str(r.desc);
  const boolText = desc !== null && /^(?:true|false)$/i.test(desc.trim());
  const note =
    `Open5e v1 gives this creature the description "${desc}" (a true/false value where its text belongs); ` +
    `left out.`;
  const saves: { [k: string]: number } = {};
  for (const a of ABILITY_NAMES) {
    const n = int(r[`${a}_save`]);
    if (n !== null) saves[a] = n;
  }
  const senses = str(r.senses);
  return creatureEntity("open5e_v1", b, {
    size: str(r.size),
    type: str(r.type),
    subtype: str(r.subtype),
    group: str(r.group),
    alignment: str(r.alignment),
    armor_class: int(r.armor_class),
    armor_detail: str(r.armor_desc),
    hit_points: int(r.hit_points),
    hit_dice: str(r.hit_dice),
    speed: speedModes(r.speed, num),
    ability_scores: Object.fromEntries(ABILITY_NAMES.map((a) => [a, int(r[a])])) as CreatureData["ability_scores"],
    saving_throws: saves,
    skills: bonusMap(r.skills),
    damage_vulnerabilities: str(r.damage_vulnerabilities),
    damage_resistances: str(r.damage_resistances),
    damage_immunities: str(r.damage_immunities),
    condition_immunities: str(r.condition_immunities),
    senses,
    passive_perception: senses ? int(/passive perception (\d+)/i.exec(senses)?.[1]) : null,
    languages: str(r.languages),
    ...crFields(cr),
    xp: xpForCr(cr),
    proficiency_bonus: null,
    traits: actions(r.special_abilities),
    actions: actions(r.actions),
    bonus_actions: actions(r.bonus_actions),
    reactions: actions(r.reactions),
    legendary_desc: str(r.legendary_desc),
    legendary_actions: actions(r.legendary_actions, true),
    lair_actions: [],
    environments: arr(r.environments).flatMap((x) => str(x) || []),
    desc: boolText ? null : desc,
    ...(boolText ? { upstream_notes: [note] } : {}),
  });
});
