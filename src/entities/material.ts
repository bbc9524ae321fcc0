/**
 * A spell's material component as its text states it: a price ("a diamond worth 300 gp", SRD 5.2
 * "a diamond worth 300+ GP", "5 gp worth of brimstone") and whether the spell uses it up ("which
 * the spell consumes"; "which is not consumed" is not). The text is what the book prints, so it
 * decides over upstream's structured flags: Open5e v2 marks 26 SRD 5.2 spells whose material is
 * only priced (Bless, Chromatic Orb, Identify, …) as consumed and leaves the flag off 11 SRD 5.1
 * spells whose text says "which the spell consumes" (Revivify, Stoneskin, …). Each disagreement is
 * stated in the entity's `upstream_notes`. Pure.
 */

/** A material text stating a price ("worth 300 gp", "worth 25+ GP", "5 gp worth of", "50 gold pieces"). */
export const PRICED_MATERIAL = /\b(\d[\d,]*)\+?\s*(gp|sp|cp|pp|ep|gold pieces?)\b/i;
/** A material text saying the spell uses it up ("which the spell consumes", "is consumed"). */
const CONSUMED_MATERIAL = /\bconsum(?:e|es|ed|ing)\b/i;
/** … unless it says the opposite ("which is not consumed", "the spell doesn't consume"). */
const NOT_CONSUMED = /\b(?:not|n't|never|without being)\s+(?:be\s+|being\s+)?consum/i;

/** The price the text states, as "300 gp" (null when it states none). */
export function materialPrice(text: string | null | undefined): string | null {
  const m = text ? PRICED_MATERIAL.exec(text) : null;
  if (!m) return null;
  const unit = m[2]!.toLowerCase().startsWith("gold") ? "gp" : m[2]!.toLowerCase();
  return `${m[1]!.replace(/,/g, "")} ${unit}`;
}

/** Does the text say the spell consumes its material? */
export function saysConsumed(text: string | null | undefined): boolean {
  return !!text && CONSUMED_MATERIAL.test(text) && !NOT_CONSUMED.test(text);
}

/**
 * Cost and consumption of a material component: upstream's structured `cost` when it has one, else
 * the price in the text; consumption from the text whenever there is a text (upstream's flag only
 * without one). `notes`: where upstream's flag disagrees with the text, `source` naming the upstream
 * ("Open5e v2").
 */
export function readMaterial(source: string, text: string | null, cost: string | null, consumed: boolean | null) {
  const material_cost = cost && cost.trim() !== "" ? cost : materialPrice(text);
  if (!text || text.trim() === "") return { material_cost, material_consumed: consumed, notes: [] };
  const fromText = saysConsumed(text);
  if (consumed === null || consumed === fromText) return { material_cost, material_consumed: fromText, notes: [] };
  const [flag, says, now] = fromText
    ? ["not consumed", "says", "consumed"]
    : ["consumed", "does not say", "not consumed"];
  const note = `${source} marks the material ${flag}, but its text ("${text}") ${says} the spell consumes it.`;
  return { material_cost, material_consumed: fromText, notes: [`${note} Corrected: ${now}.`] };
}
