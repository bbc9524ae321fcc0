/**
 * What is embedded for an entity (its passage), per kind. The search text (`Entity.text`) serves
 * keyword search and answers; the passage is what the embedding model reads. A small model such as
 * all-MiniLM-L6-v2 reads the first few hundred tokens and averages them, so lines that carry only
 * numbers and bookkeeping (casting time, range, cost, weight) dilute what a thing is and does.
 *
 * A kind's passage changes → its entities' content hash changes (store/entities.ts) → they are
 * embedded again on the next sync; kinds whose passage is their text keep their vectors. Pure.
 */
import type { EntityKind } from "./types.ts";

export interface PassageSource {
  kind: EntityKind | string;
  name: string;
  text: string;
}

type Cleaner = (lines: string[]) => string[];

const drop = (...patterns: RegExp[]): Cleaner => (lines) => lines.filter((l) => !patterns.some((p) => p.test(l)));

/** "Cost 50 gp. Weight 3 lb." and the like: price and weight say nothing of what a thing is. */
const COST_WEIGHT = /^(Cost [^.]*\.\s*)?(Weight [^.]*\.?)?\s*$|^Cost [\d.,]+ [gscep]p\.?( Weight [\d./]+ lb\.?)?$/i;

/**
 * A class or subclass: its name and kind line, spellcasting and subclasses, then each feature as
 * "Name: first sentence" (hit points, proficiency lists, starting equipment and the long rules
 * text of each feature left out).
 */
const FEATURE = /^\d+(?:st|nd|rd|th) level: ([^.]{1,80})\.\s*(.*)$/;
const BOOKKEEPING = /^(Hit points|Armor:|Weapons:|Tools:|Saving Throws:|Skills:|Equipment:|\([a-c]\) )/i;
function features(lines: string[]): string[] {
  const out: string[] = lines.slice(0, 2);
  let featuresStarted = false;
  for (const l of lines.slice(2)) {
    const m = FEATURE.exec(l);
    if (m) {
      featuresStarted = true;
      out.push(`${m[1]}: ${firstSentence(m[2] ?? "")}`.replace(/:\s*$/, "."));
    } else if (/^(Spellcasting ability|Primary ability|Subclasses):/.test(l)) out.push(l);
    // The flavour before the first feature ("Your pact draws on the Lower Planes…").
    else if (!featuresStarted && !BOOKKEEPING.test(l)) out.push(l.length > 300 ? firstSentence(l) : l);
  }
  return out;
}

function firstSentence(s: string): string {
  const m = /^(.{20,240}?[.!?])(\s|$)/.exec(s);
  return (m ? m[1]! : s.slice(0, 240)).trim();
}

/** Kinds whose passage is not simply their text (kept by `bun run eval` on the held-out half; docs/eval.md). */
const CLEANERS: Partial<Record<EntityKind, Cleaner>> = {
  // "Casting time: … Range: … Components: … Duration: …" and "Classes: …": ~40 tokens of bookkeeping before the effect.
  spell: drop(/^Casting time: /, /^Classes: /),
  class: features,
  subclass: features,
  item: drop(COST_WEIGHT),
};

/** The text to embed for `e`: its search text, cleaned for its kind where that measured better. */
export function passageText(e: PassageSource): string {
  const clean = CLEANERS[e.kind as EntityKind];
  if (!clean) return e.text;
  const lines = clean(e.text.split("\n")).filter((l) => l.trim().length > 0);
  const out = lines.join("\n").trim();
  return out.length > 0 ? out : e.text;
}
