/** Exact probabilities: a fraction of two bigints, always reduced, denominator positive. Pure. */
export interface Fraction {
  num: bigint;
  den: bigint;
}

function gcd(a: bigint, b: bigint): bigint {
  let x = a < 0n ? -a : a;
  let y = b < 0n ? -b : b;
  while (y) [x, y] = [y, x % y];
  return x;
}

export function frac(num: bigint, den = 1n): Fraction {
  if (den === 0n) throw new RangeError("zero denominator");
  const sign = den < 0n ? -1n : 1n;
  const g = gcd(num, den) || 1n;
  return { num: (sign * num) / g, den: (sign * den) / g };
}

export const ZERO = frac(0n);
export const ONE = frac(1n);

export const add = (a: Fraction, b: Fraction): Fraction => frac(a.num * b.den + b.num * a.den, a.den * b.den);
export const sub = (a: Fraction, b: Fraction): Fraction => frac(a.num * b.den - b.num * a.den, a.den * b.den);
export const mul = (a: Fraction, b: Fraction): Fraction => frac(a.num * b.num, a.den * b.den);
export const scale = (a: Fraction, n: number): Fraction => frac(a.num * BigInt(n), a.den);

/** "15869/1296", "3/4", "7" */
export function fractionText(f: Fraction): string {
  return f.den === 1n ? String(f.num) : `${f.num}/${f.den}`;
}

/** The value as a float, exact enough for rounding (bigints of any size). */
export function toNumber(f: Fraction): number {
  const whole = f.num / f.den;
  const rest = f.num - whole * f.den;
  // The remainder scaled to 15 digits keeps full double precision without overflowing Number.
  return Number(whole) + Number((rest * 10n ** 15n) / f.den) / 1e15;
}

export function round(x: number, digits: number): number {
  const p = 10 ** digits;
  return Math.round(x * p) / p;
}

/** A chance in percent, rounded to one decimal (two when it would show 0 or 100 but is not). */
export function percent(f: Fraction): number {
  const x = toNumber(f) * 100;
  const r = round(x, 1);
  if ((r === 0 && x > 0) || (r === 100 && x < 100)) return round(x, 2);
  return r;
}
