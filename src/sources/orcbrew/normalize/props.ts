/**
 * OrcPub's mechanical maps rendered as prose for people and search: `:props` (feats, races,
 * subraces), `:profs` option maps, `:level-modifiers`, innate `:spells`. Pure.
 */
import type { JsonObject, JsonValue } from "../../../entities/types.ts";
import { allKeys, humanize, listText, onKeys, quantities, str } from "./common.ts";
import { abilityTitle } from "../../../entities/normalize/vocab.ts";
import { arr, int, num, own, rec } from "../../../entities/normalize/read.ts";

const FLAGS: Record<string, string> = {
  "two-weapon-ac-1": "+1 AC while wielding a separate melee weapon in each hand",
  "two-weapon-any-one-handed": "Two-weapon fighting with any one-handed melee weapons",
  "passive-investigation-5": "+5 to passive Investigation",
  "passive-perception-5": "+5 to passive Perception",
  "medium-armor-max-dex-3": "Medium armor allows a Dexterity bonus of up to 3",
  "medium-armor-stealth": "No Stealth disadvantage from medium armor",
  "flying-speed-equals-walking-speed": "Flying speed equal to walking speed",
  "saving-throw-advantage-traps": "Advantage on saving throws against traps",
  "lizardfolk-ac": "Natural armor: AC 13 + Dexterity modifier",
  "tortle-ac": "Natural armor: AC 17",
  "ritual-casting": "Ritual casting",
  "magic-novice": "Magic initiate: learn spells from a class list",
  "attack-spell": "Learn an attack-roll cantrip",
  "improvised-weapons-prof": "Proficiency with improvised weapons",
};
const VALUES: Record<string, (n: number) => string> = {
  initiative: (n) => `${n >= 0 ? "+" : ""}${n} to initiative`,
  speed: (n) => `Speed ${n >= 0 ? "+" : ""}${n} ft.`,
  "flying-speed": (n) => `Flying speed ${n} ft.`,
  "swimming-speed": (n) => `Swimming speed ${n} ft.`,
  "climbing-speed": (n) => `Climbing speed ${n} ft.`,
  "max-hp-bonus": (n) => `Hit point maximum +${n} per level`,
  "weapon-prof-choice": (n) => `Proficiency with ${n} weapons of your choice`,
  "language-choice": (n) => `${n} languages of your choice`,
  "skill-tool-choice": (n) => `Proficiency in ${n} skills or tools of your choice`,
};
const MAPS: Record<string, string> = {
  language: "Languages",
  "saving-throw-advantage": "Advantage on saving throws against",
  "skill-prof": "Skill proficiency",
  "tool-prof-or-expertise": "Tool proficiency (or expertise)",
  "skill-prof-or-expertise": "Skill proficiency (or expertise)",
  "armor-prof": "Armor proficiency",
  "weapon-prof": "Weapon proficiency",
  "damage-resistance": "Damage resistance",
  "damage-immunity": "Damage immunity",
  "damage-vulnerability": "Damage vulnerability",
  "condition-immunity": "Condition immunity",
};

function names(keys: string[]): string {
  return keys.map((k) => abilityTitle(k) ?? humanize(k)).join(", ");
}

/** One line per active entry of a `:props` map; false/0/nil toggles are left out. */
export function propsLines(v: JsonValue | undefined): string[] {
  const o = rec(v);
  if (!o) return [];
  const out: string[] = [];
  for (const [k, val] of Object.entries(o)) {
    if (val === false || val === null || val === 0) continue;
    const n = num(val);
    if (n !== null && typeof val === "number") out.push(own(VALUES, k)?.(n) ?? `${humanize(k)}: ${n}`);
    else if (val === true) out.push(own(FLAGS, k) ?? humanize(k));
    else if (rec(val) || Array.isArray(val)) {
      const keys = onKeys(val);
      if (keys.length) out.push(`${own(MAPS, k) ?? humanize(k)}: ${names(keys)}`);
    } else if (typeof val === "string" && val.trim()) out.push(`${humanize(k)}: ${val.trim()}`);
  }
  return out;
}

/** `{:choose 2 :options {:arcana true ...}}` → "choose 2 from Arcana, History"; null when empty. */
export function choiceText(v: JsonValue | undefined): string | null {
  const o = rec(v);
  if (!o) return null;
  const opts = onKeys(o.options);
  const n = int(o.choose) ?? 1;
  if (opts.length === 0) return null;
  if (opts.length === 1 && opts[0] === "any") return `any ${n}`;
  return `choose ${n} from ${names(opts)}`;
}

/** `{:musical-instrument 1 :gaming-set 2}` → "1 musical instrument, 2 gaming sets (your choice)". */
function toolOptionsText(v: JsonValue | undefined): string | null {
  const o = rec(v);
  if (!o) return null;
  const parts = Object.entries(o)
    .map(([k, q]) => [k, int(q) ?? (q === true ? 1 : 0)] as const)
    .filter(([, q]) => q > 0)
    .map(([k, q]) => `${q} ${humanize(k).toLowerCase()}${q > 1 ? "s" : ""}`);
  return parts.length ? `${parts.join(", ")} of your choice` : null;
}

/** Non-empty pieces joined with "; ", or null. */
export function joinSemi(parts: Array<string | null | undefined>): string | null {
  const xs = parts.filter((p): p is string => typeof p === "string" && p.length > 0);
  return xs.length ? xs.join("; ") : null;
}

/** Proficiency lines of a `:profs` map. `classProfs`: OrcPub class profs where false still means proficient. */
export function profsSummary(v: JsonValue | undefined, classProfs: boolean) {
  const p = rec(v) ?? {};
  const keys = classProfs ? allKeys : onKeys;
  const expertise = choiceText(p["skill-expertise-options"]);
  // joinSemi drops the "" of names([]).
  return {
    armor: joinSemi([names(keys(p.armor)), choiceText(p["armor-proficiency-options"])]),
    weapons: joinSemi([names(keys(p.weapon)), choiceText(p["weapon-proficiency-options"])]),
    tools: joinSemi([
      names(keys(p.tool)),
      toolOptionsText(p["tool-options"]),
      choiceText(p["tool-proficiency-options"]),
    ]),
    skills: joinSemi([names(onKeys(p.skill)), choiceText(p["skill-options"]), expertise && `expertise: ${expertise}`]),
    languages: joinSemi([names(onKeys(p.language)), choiceText(p["language-options"])]),
    saves: keys(p.save).flatMap((k) => abilityTitle(k) ?? []),
  };
}

/** Racial / class `:spells` entries → "Message (Charisma)", "Darkness (from level 3, Charisma)". */
export function innateSpellLines(v: JsonValue | undefined, spellName: (key: string) => string): string[] {
  const out: string[] = [];
  for (const s of arr(v)) {
    const o = rec(s);
    const val = rec(o?.value) ?? o;
    const key = str(val?.key);
    if (!key) continue;
    const charLevel = int(o?.level);
    const ability = abilityTitle(val?.ability);
    const details = [charLevel !== null && charLevel > 1 ? `from level ${charLevel}` : null, ability]
      .filter(Boolean)
      .join(", ");
    out.push(`${spellName(key)}${details ? ` (${details})` : ""}`);
  }
  return out;
}

/** Level modifier names that are not their humanized type ("damage-immunity" → "Damage Immunity"). */
const MODIFIER_NAMES: Record<string, string> = {
  "weapon-prof": "Weapon Proficiency",
  "armor-prof": "Armor Proficiency",
  "skill-prof": "Skill Proficiency",
  "tool-prof": "Tool Proficiency",
  "num-attacks": "Extra Attack",
  "saving-throw-advantage": "Advantage on Saving Throws",
  "flying-speed-equals-walking-speed": "Flying Speed",
};

/** A level modifier (`{:type :damage-immunity :value :bludgeoning :level 2}`) → name, level, text. */
export function levelModifier(v: JsonValue, spellName: (key: string) => string) {
  const o = rec(v);
  const type = str(o?.type);
  if (!o || !type) return null;
  const desc = modifierText(type, o.value, spellName);
  return desc ? { name: own(MODIFIER_NAMES, type) ?? humanize(type), level: int(o.level) ?? 1, desc } : null;
}

function modifierText(type: string, val: JsonValue | undefined, spellName: (key: string) => string): string | null {
  if (type === "spell") {
    const sv = rec(val);
    const key = str(sv?.key);
    const ab = abilityTitle(sv?.ability);
    return key ? `${spellName(key)}${ab ? ` (${ab})` : ""}` : null;
  }
  if (type === "flying-speed-equals-walking-speed") return "Flying speed equal to your walking speed";
  if (val === undefined || val === null) return null;
  if (type === "num-attacks" && typeof val === "number")
    return `You can attack ${val} times when you take the Attack action`;
  if ((type === "flying-speed" || type === "swimming-speed") && typeof val === "number") return `${val} ft.`;
  if (typeof val === "string") return abilityTitle(val) ?? humanize(val);
  if (typeof val === "number" || typeof val === "boolean") return String(val);
  return quantities(val).join(", ") || JSON.stringify(val);
}

/** Ability score increases `{:orcpub.dnd.e5.character/str 2}` → "Strength +2, Constitution +1". */
export function abilityIncreases(v: JsonValue | undefined): string | null {
  const o: JsonObject | null = rec(v);
  if (!o) return null;
  const parts: string[] = [];
  for (const [k, val] of Object.entries(o)) {
    const n = int(val);
    const ab = abilityTitle(k);
    if (n === null || n === 0 || !ab) continue;
    parts.push(`${ab} ${n > 0 ? "+" : ""}${n}`);
  }
  return parts.length ? listText(parts) : null;
}
