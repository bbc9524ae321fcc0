/** Small word helpers for the 5etools normalizers. Pure. */

/** 1 → "1st", 2 → "2nd", 11 → "11th". */
export function ordinalLevel(n: number): string {
  const s =
    n % 100 >= 11 && n % 100 <= 13 ? "th" : n % 10 === 1 ? "st" : n % 10 === 2 ? "nd" : n % 10 === 3 ? "rd" : "th";
  return `${n}${s}`;
}

/** "CarreausWeaponCantrips" → "carreaus-weapon-cantrips" (camel case split, then slug). */
export function idSlug(id: string, slugify: (s: string) => string): string {
  return slugify(id.replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2"));
}
