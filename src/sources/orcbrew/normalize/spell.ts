/** OrcBrew `:orcpub.dnd.e5/spells` item → canonical spell (pure). */
import type { SpellData } from "../../../entities/kinds.ts";
import { materialPrice, saysConsumed } from "../../../entities/material.ts";
import type { JsonObject } from "../../../entities/types.ts";
import { onKeys, str } from "./common.ts";
import { DAMAGE_TYPES, SPELL_SCHOOLS } from "../../../entities/catalog.ts";
import { abilityName } from "../../../entities/normalize/vocab.ts";
import { int, rec } from "../../../entities/normalize/read.ts";

/** "60 feet" / "10 ft." → 60 / 10; "1 mile" → 5280; Self/Touch/Sight → null. */
function rangeFeet(raw: string | null): number | null {
  if (!raw || /^\s*(self|touch|sight|special|unlimited)/i.test(raw)) return null;
  const ft = /^\s*(\d[\d,]*)\s*(?:-\s*)?(?:ft\.?|feet|foot)\b/i.exec(raw);
  if (ft) return Number(ft[1]!.replace(/,/g, ""));
  const mi = /^\s*(\d+)\s*(?:-\s*)?miles?\b/i.exec(raw);
  return mi ? Number(mi[1]) * 5280 : null;
}

/** Markdown emphasis around a heading: `*`, `**`, `***`, `_` or `__`. */
const EMPHASIS = String.raw`(?:\*{1,3}|_{1,2})?`;
const HEADING = "(?:At Higher Levels|Using a Higher-Level Spell Slot)";
const HIGHER_LEVEL = new RegExp(String.raw`(?:^|\n)\s*${EMPHASIS}\s*${HEADING}\s*[.:]?\s*${EMPHASIS}[.:]?\s*`, "i");
const SHAPES = "sphere|cube|cone|line|cylinder|radius|emanation|square|wall";
const AREA = new RegExp(String.raw`\b(\d+)[- ]?(?:foot|feet|ft\.?)[- ](?:radius[- ])?(${SHAPES})\b`, "i");

/** Split "… At Higher Levels. …" off a description. */
function splitHigherLevel(desc: string): { desc: string; higher: string | null } {
  const m = HIGHER_LEVEL.exec(desc);
  if (!m || m.index === 0) return { desc, higher: null };
  const higher = desc.slice(m.index + m[0].length).trim();
  return { desc: desc.slice(0, m.index).trim(), higher: higher.length > 0 ? higher : null };
}

function damageTypesIn(text: string): string[] {
  const found = new Set<string>();
  const re = new RegExp(`\\b(${DAMAGE_TYPES.join("|")})\\s+damage\\b`, "gi");
  for (const m of text.matchAll(re)) found.add(m[1]!.toLowerCase());
  // "acid, fire, or cold damage"
  const list = new RegExp(`\\b((?:(?:${DAMAGE_TYPES.join("|")}),?\\s+(?:or\\s+|and\\s+)?)+)damage\\b`, "gi");
  for (const m of text.matchAll(list))
    for (const d of m[1]!.toLowerCase().match(new RegExp(DAMAGE_TYPES.join("|"), "g")) ?? []) found.add(d);
  return DAMAGE_TYPES.filter((d) => found.has(d));
}

function area(text: string): SpellData["area"] {
  const m = AREA.exec(text);
  if (!m) return null;
  const type = m[2]!.toLowerCase() === "radius" ? "sphere" : m[2]!.toLowerCase();
  return { type, size_ft: Number(m[1]) };
}

export function buildSpell(d: JsonObject): SpellData | { skip: string } {
  const level = int(d.level);
  if (level === null || level < 0 || level > 9) {
    return {
      skip:
        d.level === undefined || d.level === null
          ? "the spell has no :level"
          : `the spell's :level ${JSON.stringify(d.level)} is not 0–9`,
    };
  }
  const rawSchool = str(d.school)?.toLowerCase() ?? null;
  const castingTime = str(d["casting-time"]) ?? str(d.casting_time);
  const range = str(d.range);
  const duration = str(d.duration);
  const comps = rec(d.components);
  const material = comps ? comps.material === true || str(comps["material-component"]) !== null : false;
  const materialText = comps ? str(comps["material-component"]) : null;
  const full = str(d.description) ?? str(d.desc) ?? "";
  const { desc, higher } = splitHigherLevel(full);
  const save = /\b(strength|dexterity|constitution|intelligence|wisdom|charisma)\s+saving throw/i.exec(full);
  const dmgRoll = /\b(\d+d\d+(?:\s*[+-]\s*\d+)?)\s+(?:\w+\s+){0,2}(?:damage|hit points)\b/i.exec(desc);
  const attack =
    d["attack-roll?"] === true || /\b(?:melee|ranged) spell attack\b/i.test(full)
      ? true
      : d["attack-roll?"] === false
        ? false
        : null;
  const reaction =
    castingTime && /^\s*1?\s*reaction\s*,/i.test(castingTime) ? castingTime.replace(/^[^,]*,\s*/, "") : null;
  return {
    level,
    school: rawSchool ? (SPELL_SCHOOLS.find((s) => rawSchool.startsWith(s)) ?? rawSchool) : null,
    casting_time: castingTime,
    range,
    range_ft: rangeFeet(range),
    duration,
    concentration: d.concentration === true || /\bconcentration\b/i.test(duration ?? ""),
    ritual: d.ritual === true || d.ritual === "true",
    components: {
      verbal: comps?.verbal === true,
      somatic: comps?.somatic === true,
      material,
      material_text: materialText,
      material_cost: materialPrice(materialText),
      material_consumed: materialText ? saysConsumed(materialText) : null,
    },
    desc,
    higher_level: higher,
    classes: onKeys(d["spell-lists"]).map((c) => c.toLowerCase()),
    damage_types: damageTypesIn(full),
    saving_throw: save ? abilityName(save[1]!) : null,
    attack_roll: attack,
    damage_roll: dmgRoll ? dmgRoll[1]!.replace(/\s+/g, "") : null,
    area: area(full),
    reaction_condition: reaction,
  };
}
