/**
 * Dice expressions and their exact distributions: `NdM` terms with keep/drop (`4d6kh3`, `2d20kl1`,
 * `4d6dl1`), constants, sums and differences; each die may be rerolled once at or below a value
 * (Great Weapon Fighting) or count as at least a value (Reliable Talent). Weights are bigints over
 * one common denominator, so every figure derived from them is exact. Pure.
 */
import { randomInt } from "node:crypto";
import { type Fraction, frac } from "./fraction.ts";

export interface DiceTerm {
  count: number;
  sides: number;
  /** Keep the `keep` highest (or lowest) dice; absent: keep all. */
  keep?: { n: number; highest: boolean };
  sign: 1 | -1;
}

export interface DiceExpr {
  terms: DiceTerm[];
  constant: number;
  /** The expression as normalised ("4d6kh3+2"). */
  text: string;
}

export interface DieOptions {
  /** Reroll a die showing this or less, once, keeping the new roll. */
  rerollAtMost?: number;
  /** A die showing less counts as this. */
  minimum?: number;
}

/**
 * An exact distribution: `w[i]` is the weight of the value `min + i`; the weights sum to `den`. The first and last
 * weights are never 0 (every die face has a weight, and sums of such keep their ends).
 */
export interface Dist {
  min: number;
  w: bigint[];
  den: bigint;
}

export const LIMITS = { dice: 40, sides: 100, keepDice: 20, terms: 10, constant: 1000 } as const;

const TERM = /([+-])?(?:(\d*)d(\d+)(?:(kh|kl|dh|dl|k)(\d+))?|(\d+))/gy;

/** Parses an expression, or says in one sentence what is wrong with it. */
export function parseDice(input: string): DiceExpr | string {
  const s = input.toLowerCase().replace(/\s+/g, "");
  const example = "Write dice as e.g. 2d6+3, 4d6kh3, 1d20+5 or 8d6-1d4";
  if (!s) return `The dice expression is empty. ${example}.`;
  const terms: DiceTerm[] = [];
  let constant = 0;
  let dice = 0;
  let at = 0;
  TERM.lastIndex = 0;
  for (let m = TERM.exec(s); m && m.index === at; m = TERM.exec(s)) {
    if (m[0] === "" || (at > 0 && !m[1])) break;
    at = TERM.lastIndex;
    const sign = m[1] === "-" ? -1 : 1;
    if (m[6] !== undefined) {
      constant += sign * Number(m[6]);
      continue;
    }
    const count = m[2] ? Number(m[2]) : 1;
    const sides = Number(m[3]);
    if (count < 1 || sides < 2) return `"${m[0].replace(/^[+-]/, "")}" has no dice to roll. ${example}.`;
    if (sides > LIMITS.sides) return `Dice have at most ${LIMITS.sides} sides here (got d${sides}).`;
    dice += count;
    const term: DiceTerm = { count, sides, sign };
    if (m[4]) {
      const n = Number(m[5]);
      const drop = m[4].startsWith("d");
      const kept = drop ? count - n : n;
      if (kept < 1 || kept > count)
        return `"${m[0].replace(/^[+-]/, "")}" keeps ${kept} of ${count} dice: keep between 1 and ${count}.`;
      if (count > LIMITS.keepDice) return `Keep or drop works on at most ${LIMITS.keepDice} dice at once.`;
      const highest = m[4] === "kh" || m[4] === "k" || m[4] === "dl";
      if (kept < count) term.keep = { n: kept, highest };
    }
    terms.push(term);
    if (terms.length > LIMITS.terms) return `At most ${LIMITS.terms} dice terms in one expression.`;
  }
  if (at !== s.length)
    return (
      `Could not read "${input.trim()}": "${s.slice(at, at + 12)}" is not dice (NdM), keep/drop (kh3) or a ` +
      `number. ${example}.`
    );
  if (terms.length === 0) return `"${input.trim()}" has no dice. ${example}.`;
  if (dice > LIMITS.dice) return `At most ${LIMITS.dice} dice in one expression (got ${dice}).`;
  if (Math.abs(constant) > LIMITS.constant) return `The constant is at most ${LIMITS.constant}.`;
  return { terms, constant, text: exprText(terms, constant) };
}

function exprText(terms: DiceTerm[], constant: number): string {
  let out = "";
  for (const t of terms) {
    const keep = t.keep ? `${t.keep.highest ? "kh" : "kl"}${t.keep.n}` : "";
    out += `${t.sign < 0 ? "-" : out ? "+" : ""}${t.count}d${t.sides}${keep}`;
  }
  if (constant) out += `${constant < 0 ? "-" : "+"}${Math.abs(constant)}`;
  return out;
}

/** The same expression with every term's dice doubled (a critical hit rolls the damage dice twice). */
export function doubledDice(e: DiceExpr): DiceExpr {
  const terms = e.terms.map((t) => ({
    ...t,
    count: t.count * 2,
    ...(t.keep ? { keep: { ...t.keep, n: t.keep.n * 2 } } : {}),
  }));
  return { terms, constant: e.constant, text: exprText(terms, e.constant) };
}

/** One die's faces as (value, weight) pairs over `den`, after a reroll and a minimum. */
function dieFaces(sides: number, o: DieOptions = {}): { faces: Map<number, bigint>; den: bigint } {
  const r = Math.min(Math.max(o.rerollAtMost ?? 0, 0), sides - 1);
  const m = o.minimum ?? 1;
  const faces = new Map<number, bigint>();
  const n = BigInt(sides);
  for (let f = 1; f <= sides; f++) {
    // Kept as rolled when above the reroll line (n of n² ways), plus one way per rerolled face.
    const w = r > 0 ? (f > r ? n : 0n) + BigInt(r) : 1n;
    const v = Math.max(f, m);
    faces.set(v, (faces.get(v) ?? 0n) + w);
  }
  return { faces, den: r > 0 ? n * n : n };
}

function fromMap(m: Map<number, bigint>, den: bigint): Dist {
  const keys = [...m.keys()];
  const min = Math.min(...keys);
  const w = new Array<bigint>(Math.max(...keys) - min + 1).fill(0n);
  for (const [v, x] of m) w[v - min] = w[v - min]! + x;
  return { min, w, den };
}

function convolve(a: Dist, b: Dist): Dist {
  const w = new Array<bigint>(a.w.length + b.w.length - 1).fill(0n);
  for (let i = 0; i < a.w.length; i++) {
    const x = a.w[i]!;
    if (x === 0n) continue;
    for (let j = 0; j < b.w.length; j++) w[i + j]! += x * b.w[j]!;
  }
  return { min: a.min + b.min, w, den: a.den * b.den };
}

function negate(d: Dist): Dist {
  return { min: -(d.min + d.w.length - 1), w: [...d.w].reverse(), den: d.den };
}

function binomials(n: number): bigint[][] {
  const c: bigint[][] = [];
  for (let i = 0; i <= n; i++) {
    c[i] = [1n];
    for (let j = 1; j <= i; j++) c[i]![j] = (c[i - 1]![j - 1] ?? 0n) + (c[i - 1]![j] ?? 0n);
  }
  return c;
}

/**
 * The sum of the `keep` highest (or lowest) of `count` dice. Faces are visited from the best down:
 * choosing how many dice show each face (a multinomial count) keeps the state small — dice used,
 * dice kept, sum — where listing every roll would grow as sides^count.
 */
function keepSum(
  count: number,
  keep: number,
  highest: boolean,
  die: { faces: Map<number, bigint>; den: bigint },
): Dist {
  const c = binomials(count);
  const faces = [...die.faces.entries()].sort((a, b) => (highest ? b[0] - a[0] : a[0] - b[0]));
  // state key: used * (keep + 1) + kept → sum → weight
  let dp = new Map<number, Map<number, bigint>>([[0, new Map([[0, 1n]])]]);
  for (const [value, weight] of faces) {
    const next = new Map<number, Map<number, bigint>>();
    for (const [state, sums] of dp) {
      const used = Math.floor(state / (keep + 1));
      const kept = state % (keep + 1);
      let power = 1n;
      for (let k = 0; k <= count - used; k++, power *= weight) {
        const take = Math.min(k, keep - kept);
        const key = (used + k) * (keep + 1) + kept + take;
        const ways = c[count - used]![k]! * power;
        let into = next.get(key);
        if (!into) next.set(key, (into = new Map()));
        for (const [sum, w] of sums) into.set(sum + take * value, (into.get(sum + take * value) ?? 0n) + w * ways);
      }
    }
    dp = next;
  }
  const done = dp.get(count * (keep + 1) + keep) ?? new Map<number, bigint>();
  return fromMap(done, die.den ** BigInt(count));
}

function termDist(t: DiceTerm, o: DieOptions): Dist {
  const die = dieFaces(t.sides, o);
  const one = fromMap(die.faces, die.den);
  let d = one;
  if (t.keep) d = keepSum(t.count, t.keep.n, t.keep.highest, die);
  else for (let i = 1; i < t.count; i++) d = convolve(d, one);
  return t.sign < 0 ? negate(d) : d;
}

export function distribution(e: DiceExpr, o: DieOptions = {}): Dist {
  let d: Dist = { min: e.constant, w: [1n], den: 1n };
  for (const t of e.terms) d = convolve(d, termDist(t, o));
  return d;
}

/** The distribution of f(value) (e.g. damage never below 0, half damage rounded down). */
export function mapValues(d: Dist, f: (v: number) => number): Dist {
  const m = new Map<number, bigint>();
  d.w.forEach((w, i) => {
    if (w !== 0n) m.set(f(d.min + i), (m.get(f(d.min + i)) ?? 0n) + w);
  });
  return fromMap(m, d.den);
}

export function meanOf(d: Dist): Fraction {
  let s = 0n;
  d.w.forEach((w, i) => {
    s += w * BigInt(d.min + i);
  });
  return frac(s, d.den);
}

/** The chance that the value is at least `t`. */
export function chanceAtLeast(d: Dist, t: number): Fraction {
  let s = 0n;
  for (let i = Math.max(0, t - d.min); i < d.w.length; i++) s += d.w[i]!;
  return frac(s, d.den);
}

/** The smallest value whose cumulative chance reaches `p` (0 < p ≤ 1). */
export function percentile(d: Dist, p: number): number {
  const scaleBy = 1_000_000n;
  const need = (d.den * BigInt(Math.round(p * 1_000_000))) / scaleBy;
  let s = 0n;
  for (let i = 0; i < d.w.length; i++) {
    s += d.w[i]!;
    if (s >= need && s > 0n) return d.min + i;
  }
  return d.min + d.w.length - 1;
}

/** A fair integer in [1, sides]: node's randomInt draws from the cryptographic generator without bias. */
const rollDie = (sides: number) => randomInt(1, sides + 1);

export interface Rolled {
  total: number;
  /** Per term: the dice as rolled (after rerolls and minimums) and which were kept. */
  terms: { dice: string; rolls: number[]; kept: number[] }[];
}

export function rollExpr(e: DiceExpr, o: DieOptions = {}): Rolled {
  let total = e.constant;
  const terms = e.terms.map((t) => {
    const rolls = Array.from({ length: t.count }, () => {
      let r = rollDie(t.sides);
      if (o.rerollAtMost && r <= o.rerollAtMost) r = rollDie(t.sides);
      return Math.max(r, o.minimum ?? 1);
    });
    const order = [...rolls].sort((a, b) => (t.keep?.highest === false ? a - b : b - a));
    const kept = t.keep ? order.slice(0, t.keep.n) : rolls;
    total += t.sign * kept.reduce((a, b) => a + b, 0);
    return { dice: exprText([t], 0), rolls, kept };
  });
  return { total, terms };
}
