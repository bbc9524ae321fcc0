/**
 * The form of a name that tells one thing from another ("Horse, Draft" = "Draft Horse" = "draft
 * horses"): ranked answers group by it (search/rank/collapse.ts) and the store keeps it per entity
 * so that name-ordered lists group by it too (store/canonical.ts). Pure.
 */

/**
 * One word in the singular, for grouping only: "horses" →
 * "horse", "wolves" stays, "boxes" → "box", "fairies" → "fairy".
 */
function singular(w: string): string {
  if (w.length <= 3 || /\d/.test(w)) return w;
  if (w.endsWith("ies") && w.length > 4) return `${w.slice(0, -3)}y`;
  if (/(?:ss|ch|sh|x)es$/.test(w) && w.length > 4) return w.slice(0, -2);
  if (w.endsWith("s") && !/(?:ss|us|is)$/.test(w)) return w.slice(0, -1);
  return w;
}

/**
 * The form of a name that tells one thing from another: "Horse, Draft", "Draft Horse" and
 * "draft horses" are one name; so are "Giant Sea Horse" and "Seahorse, Giant". Case, accents,
 * punctuation, spacing and a plural last letter do not count; "X, Y" (one comma) reads as "Y X".
 * "Food, Drink, and Lodging" (two commas) stays as it is. Pure.
 */
export function nameForm(name: string): string {
  let s = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/&/g, " and ")
    .replace(/['’‘`]/g, "");
  const inverted = /^([^,()]+),([^,()]+)$/.exec(s);
  if (inverted) s = `${inverted[2]} ${inverted[1]}`;
  return (s.match(/[\p{L}\p{N}]+/gu) ?? []).map(singular).join("");
}
