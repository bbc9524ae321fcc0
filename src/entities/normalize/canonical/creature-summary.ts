/**
 * The clean summary of a stat block that leads a creature's search text: what the creature is and
 * does in words, without the numbers (a sentence-embedding model reads only the first few hundred
 * tokens, and AC, hit points, ability scores and attack bonuses say nothing about what a creature
 * is). Pure.
 */
import { DAMAGE_TYPES } from "../../catalog.ts";
import type { CreatureAction, CreatureData } from "../../kinds.ts";

const ATTACK = /^((melee|ranged|melee or ranged)\s+(weapon\s+|spell\s+)?attack(\s+roll)?\s*:|[+-]?\d+\s+to hit\b)/i;
const DAMAGE = new RegExp(`\\b(${DAMAGE_TYPES.join("|")})\\s+damage\\b`, "gi");

/** Numbers, dice, "DC", "+5 to hit", "(Recharge 5–6)" and units out; whitespace collapsed. */
function withoutNumbers(s: string): string {
  return s
    .replace(/[*_]+/g, "")
    .replace(/\([^()]*\d[^()]*\)/g, "")
    .replace(/\((recharge|costs)[^)]*\)/gi, "")
    .replace(/\bDC\s*\d+\b/g, "")
    .replace(/[+-]?\d+\s*\(\s*\d+d\d+(\s*[+-]\s*\d+)?\s*\)/g, "")
    .replace(/\d+d\d+(\s*[+-]\s*\d+)?/g, "")
    .replace(/[+-]?\d+(\.\d+)?(\s*-?\s*(ft\.?|feet|foot|miles?|hours?|minutes?|rounds?|days?))?(?=\W|$)/gi, "")
    .replace(/\(\s*\)/g, "")
    .replace(/\s+([,.;:])/g, "$1")
    .replace(/([,;:])\1+/g, "$1")
    .replace(/\s+/g, " ")
    .trim();
}

/** The first sentence, at most `max` characters (cut at a word). */
function firstSentence(s: string, max = 160): string {
  const one = s.replace(/\s+/g, " ").trim();
  const m = /^(.+?[.!?])(\s|$)/.exec(one);
  const first = (m ? m[1]! : one).trim();
  if (first.length <= max) return first;
  const cut = first.slice(0, max);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(" "), max / 2)).replace(/[,;:]$/, "")}…`;
}

/** "Bite (piercing)" for an attack, else "Name: its first sentence" with the numbers out. */
function actionWords(a: CreatureAction): string {
  const name = withoutNumbers(a.name).replace(/[.:]$/, "");
  const desc = a.desc.replace(/[*_]+/g, "").trim();
  if (ATTACK.test(desc)) {
    const types = [...new Set([...desc.matchAll(DAMAGE)].map((m) => m[1]!.toLowerCase()))];
    return types.length ? `${name} (${types.join(", ")})` : name;
  }
  const first = firstSentence(withoutNumbers(desc.split(/\n/)[0]!)).replace(/^[,.;:\s]+/, "");
  return first ? `${name}: ${first}` : name;
}

const MOVES: Record<string, string> = { fly: "flies", swim: "swims", climb: "climbs", burrow: "burrows" };

/**
 * "Chaotic evil. Flies, swims. Traits: Keen Smell: … Actions: Bite (piercing); Claws (slashing).
 * Legendary actions: …". Multiattack is left out (it names the other actions).
 */
export function creatureSummary(d: CreatureData): string {
  const parts: string[] = [];
  if (d.alignment) parts.push(`${d.alignment.trim().replace(/\.$/, "")}.`);
  const moves = Object.entries(d.speed)
    .filter(([m, v]) => typeof v === "number" && v > 0 && MOVES[m])
    .map(([m]) => MOVES[m]!);
  if (moves.length) parts.push(`${moves.join(", ").replace(/^./, (c) => c.toUpperCase())}.`);
  const group = (title: string, xs: CreatureAction[]) => {
    const words = xs
      .filter((a) => !/^multiattack$/i.test(a.name.trim()))
      .map(actionWords)
      .filter(Boolean);
    if (words.length) parts.push(`${title}: ${words.join("; ")}.`.replace(/\.\.$/, "."));
  };
  group("Traits", d.traits);
  group("Actions", d.actions);
  group("Bonus actions", d.bonus_actions);
  group("Reactions", d.reactions);
  group("Legendary actions", d.legendary_actions);
  return parts.join(" ");
}
