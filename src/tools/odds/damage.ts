/**
 * Expected damage: an attack (hit, critical hit with the damage dice rolled twice) or an effect
 * that allows a save (full damage on a failure, half rounded down or none on a success), and a
 * stat block's attacks read from its action text ("+14 to hit … Hit: 19 (2d10 + 8) piercing damage
 * plus 7 (2d6) fire damage", 2014 and 2024 wording) with the Multiattack that combines them. Pure.
 */
import type { CreatureAction } from "../../entities/kinds.ts";
import type { D20Odds } from "./d20.ts";
import { type DiceExpr, type DieOptions, distribution, doubledDice, mapValues, meanOf, parseDice } from "./dice.ts";
import { type Fraction, add, mul, sub, ONE, ZERO } from "./fraction.ts";

/** Damage never goes below 0. */
function expected(e: DiceExpr, o: DieOptions): Fraction {
  return meanOf(mapValues(distribution(e, o), (v) => Math.max(0, v)));
}

export function attackDamage(
  odds: D20Odds,
  damage: DiceExpr,
  o: DieOptions = {},
): { hit: Fraction; crit: Fraction; expected: Fraction } {
  const hit = expected(damage, o);
  const crit = expected(doubledDice(damage), o);
  return { hit, crit, expected: add(mul(odds.plainHit, hit), mul(odds.crit, crit)) };
}

/** `saved` is the target's chance to succeed on the save. */
export function saveDamage(
  saved: Fraction,
  damage: DiceExpr,
  half: boolean,
  o: DieOptions = {},
): { full: Fraction; half: Fraction; expected: Fraction } {
  const dist = mapValues(distribution(damage, o), (v) => Math.max(0, v));
  const full = meanOf(dist);
  const halved = meanOf(mapValues(dist, (v) => Math.floor(v / 2)));
  const onSave = half ? halved : ZERO;
  return { full, half: halved, expected: add(mul(sub(ONE, saved), full), mul(saved, onSave)) };
}

export interface ParsedAttack {
  name: string;
  /** "melee", "ranged" or "melee or ranged", as the stat block says before the bonus. */
  reach: string;
  bonus: number;
  /** The damage of a hit as dice ("2d10+8+2d6"), and the parts as the stat block lists them. */
  damage: DiceExpr;
  parts: string[];
}

const TO_HIT = /attack(?: roll)?:\s*([+-]\d+)/i;
// "19 (2d10 + 8) piercing damage", "7 (2d6) Fire damage"; a flat "1 piercing damage" has no dice.
const PART = /(\d+)\s*(?:\(([\dd\s+−-]+)\))?\s+([a-z]+)\s+damage/gi;

/** An action that is an attack roll with damage on a hit, or null. */
export function parseAttack(a: CreatureAction): ParsedAttack | null {
  const bonus = TO_HIT.exec(a.desc);
  if (!bonus) return null;
  // "Hit: …" (SRD 5.1 wording, D&D 5e API) or, in Open5e's SRD 5.2 text, the sentence after the reach.
  const hit = a.desc.search(/\bHit:/);
  const afterReach = a.desc.indexOf(". ", bonus.index);
  const hitAt = hit >= 0 ? hit + 4 : afterReach >= 0 ? afterReach + 2 : -1;
  if (hitAt < 0) return null;
  const reach = (/\b(melee or ranged|melee|ranged)\b/i.exec(a.desc.slice(0, bonus.index))?.[1] ?? "").toLowerCase();
  // The hit's own sentence: later sentences add riders (grapples, saves) that are not its damage.
  const sentence = a.desc.slice(hitAt).split(/\.\s/)[0] ?? "";
  const parts: string[] = [];
  const exprs: string[] = [];
  let last = 0;
  for (const m of sentence.matchAll(PART)) {
    // "…, or 10 (1d10 + 5) slashing damage if used with two hands" is another way to hit, not more damage.
    if (parts.length > 0 && /\bor\b/.test(sentence.slice(last, m.index))) break;
    last = (m.index ?? 0) + m[0].length;
    exprs.push((m[2] ?? m[1]!).replace(/−/g, "-").replace(/\s+/g, ""));
    parts.push(`${m[2] ? `${m[2].trim()} ` : `${m[1]} `}${m[3]!.toLowerCase()}`);
  }
  if (exprs.length === 0) return null;
  let damage = parseDice(exprs.join("+").replace(/\+-/g, "-"));
  if (typeof damage === "string") {
    // Flat damage only ("Hit: 1 piercing damage"): a constant, kept as a zero-sided sum.
    const flat = exprs.every((x) => /^\d+$/.test(x)) ? exprs.reduce((s, x) => s + Number(x), 0) : NaN;
    if (Number.isNaN(flat)) return null;
    damage = { terms: [], constant: flat, text: String(flat) };
  }
  return { name: a.name, reach, bonus: Number(bonus[1]), damage, parts };
}

const COUNT_WORDS = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"];
const COUNT = `(${COUNT_WORDS.join("|")}|\\d+)`;

function stem(s: string): string {
  return s
    .toLowerCase()
    .replace(/[^a-z ]/g, "")
    .trim()
    .replace(/(?<=[^s])s$/, "")
    .replace(/ie$/, "y");
}

export interface MultiattackPlan {
  plan: { attack: ParsedAttack; count: number }[];
  /** Set when the wording gives a number of attacks but not which: the best fitting attack is counted. */
  assumed?: string;
}

const POSSESSIVE = "(?:its|his|her|their)";

/**
 * The attacks a Multiattack makes, by name and number ("makes three attacks: one with its bite and
 * two with its claws", "makes two Rend attacks", "makes two attacks with its chains"), matched to
 * the parsed attacks. "makes two melee attacks" names no attack: the best melee attack is counted
 * and `assumed` says so. Null when no number of attacks can be read.
 */
export function readMultiattack(desc: string, attacks: ParsedAttack[]): MultiattackPlan | null {
  const first = desc
    .split(/\.\s/)
    .find((s) => /\bmakes?\b/i.test(s))
    ?.replace(/\.\s*$/, "");
  if (!first) return null;
  const count = (w: string) => COUNT_WORDS.indexOf(w.toLowerCase()) + 1 || Number(w);
  const find = (words: string): ParsedAttack | undefined => {
    const w = stem(words.replace(new RegExp(`^${POSSESSIVE}\\s+`, "i"), ""));
    return (
      attacks.find((a) => stem(a.name) === w) ??
      attacks.find((a) => stem(a.name).startsWith(w) || w.startsWith(stem(a.name)))
    );
  };
  const generic = /^(?:melee|ranged|weapon)$/i;
  const named = new RegExp(`makes? ${COUNT} ([\\w' -]+?) attacks?\\b(?!\\s*with)`, "i").exec(first);
  if (named && !generic.test(named[2]!) && !/attacks?$/i.test(named[2]!)) {
    const a = find(named[2]!);
    if (a) return { plan: [{ attack: a, count: count(named[1]!) }] };
  }
  const colon = first.split(":")[1];
  if (colon) {
    const plan: MultiattackPlan["plan"] = [];
    for (const seg of colon.split(/,\s*(?:and\s+)?|\s+and\s+/)) {
      const m = new RegExp(
        `^\\s*${COUNT}\\s+(?:(?:attacks?\\s+)?with\\s+${POSSESSIVE}\\s+([\\w' -]+)|([\\w' -]+?)\\s+attacks?)\\s*$`,
        "i",
      ).exec(seg);
      const a = m ? find((m[2] ?? m[3])!) : undefined;
      if (!m || !a) {
        plan.length = 0;
        break;
      }
      plan.push({ attack: a, count: count(m[1]!) });
    }
    if (plan.length > 0) return { plan };
  }
  const withIts = new RegExp(
    `makes? ${COUNT} (?:(?:melee|ranged|weapon) )?attacks? with ${POSSESSIVE} ([\\w' -]+)`,
    "i",
  ).exec(first);
  const a = withIts ? find(withIts[2]!) : undefined;
  if (withIts && a) return { plan: [{ attack: a, count: count(withIts[1]!) }] };
  const some = new RegExp(`makes? ${COUNT} (?:(melee|ranged) )?attacks?`, "i").exec(first);
  if (!some) return null;
  // Attacks the sentence names ("either with its claws or its glaive"), else those of the kind it says.
  const mentioned = attacks.filter((x) => new RegExp(`\\b${POSSESSIVE} ${stem(x.name)}`, "i").test(first));
  const kind = some[2]?.toLowerCase();
  const pool = mentioned.length > 0 ? mentioned : attacks.filter((x) => !kind || x.reach.includes(kind));
  if (pool.length === 0) return null;
  const mean = (x: ParsedAttack) => meanOf(distribution(x.damage));
  const best = pool.reduce((x, y) => (mean(y).num * mean(x).den > mean(x).num * mean(y).den ? y : x));
  return {
    plan: [{ attack: best, count: count(some[1]!) }],
    assumed: (
      `"${first.trim()}" names no attack: ${count(some[1]!)} × ${best.name}, the ` +
      `hardest-hitting ${kind ?? ""} attack it has`
    ).replace("  ", " "),
  };
}
