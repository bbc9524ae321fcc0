/**
 * A d20 test's exact odds: the natural roll under advantage, disadvantage or Elven Accuracy, with
 * Halfling luck (a natural 1 rerolled once), then the modifier, added dice (Bless, Bane) and the
 * natural 1/20 rule of attack rolls with a critical range. Pure.
 */
import { type Dist, chanceAtLeast } from "./dice.ts";
import { type Fraction, frac, add, mul, sub, ZERO } from "./fraction.ts";

export const MODES = ["normal", "advantage", "disadvantage", "elven_accuracy"] as const;
export type Mode = (typeof MODES)[number];

export interface D20Test {
  /** The roller's modifier (to-hit, save or check bonus). */
  bonus: number;
  /** The AC (attack) or DC (check, save) to reach. */
  target: number;
  attack: boolean;
  mode: Mode;
  /** Halfling Lucky / Luck: a natural 1 is rerolled once and the new roll used. */
  lucky: boolean;
  /** The lowest natural roll that is a critical hit (attack rolls; 20 unless a feature lowers it). */
  critFrom: number;
  /** A natural roll below this counts as this (Reliable Talent: 10, ability checks). */
  minimum?: number;
  /** Dice added to the roll (Bless: 1d4; Bane: -1d4). */
  added?: Dist;
}

export interface D20Odds {
  success: Fraction;
  /** Attack rolls: the chance of a critical hit (included in success). */
  crit: Fraction;
  /** The chance of the attack hitting without a critical hit. */
  plainHit: Fraction;
}

/**
 * The kept natural roll's distribution. Every roll of the k dice is listed (at most 20³); with
 * luck, one die showing 1 is rolled again (the rules allow one reroll even when two dice show 1),
 * so every outcome is weighed over 20^(k+1).
 */
export function naturalRoll(mode: Mode, lucky: boolean): Fraction[] {
  const k = mode === "normal" ? 1 : mode === "elven_accuracy" ? 3 : 2;
  const keepHigh = mode !== "disadvantage";
  const w = new Array<bigint>(21).fill(0n);
  const dice = new Array<number>(k).fill(1);
  const pick = (ds: number[]) => (keepHigh ? Math.max(...ds) : Math.min(...ds));
  for (;;) {
    const one = dice.indexOf(1);
    if (lucky && one >= 0) {
      for (let r = 1; r <= 20; r++) {
        const again = [...dice];
        again[one] = r;
        w[pick(again)]! += 1n;
      }
    } else w[pick(dice)]! += 20n;
    let i = 0;
    while (i < k && dice[i] === 20) dice[i++] = 1;
    if (i === k) break;
    dice[i]!++;
  }
  const den = 20n ** BigInt(k + 1);
  return w.slice(1).map((x) => frac(x, den));
}

export function d20Odds(t: D20Test): D20Odds {
  const natural = naturalRoll(t.mode, t.lucky);
  let success = ZERO;
  let crit = ZERO;
  for (let n = 1; n <= 20; n++) {
    const p = natural[n - 1]!;
    if (p.num === 0n) continue;
    if (t.attack && n === 1) continue;
    if (t.attack && (n === 20 || n >= t.critFrom)) {
      success = add(success, p);
      crit = add(crit, p);
      continue;
    }
    const need = t.target - Math.max(n, t.minimum ?? 1) - t.bonus;
    const reach = t.added ? chanceAtLeast(t.added, need) : need <= 0 ? frac(1n) : ZERO;
    success = add(success, mul(p, reach));
  }
  return { success, crit, plainHit: sub(success, crit) };
}
