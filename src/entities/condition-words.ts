/**
 * Plain words for the game's conditions: what being Prone or Frightened is like and the everyday
 * words people use for it ("knocked down", "scared"), so a question in a player's words finds the
 * condition whose rules text never uses them. Reviewed data in src/entities/data/condition-words.json
 * (its `provenance` says where it comes from); a condition's search text (keywords and what is
 * embedded) leads with them; its data and answers do not carry them. Pure.
 */
import data from "./data/condition-words.json" with { type: "json" };

export interface ConditionWords {
  /** The condition's name as the documents give it ("Prone"). */
  name: string;
  /** Everyday words for it. */
  names: string[];
  /** One plain sentence, no numbers. */
  profile: string;
}

export const CONDITION_WORDS: readonly ConditionWords[] = (data as { conditions: ConditionWords[] }).conditions;

const byName = new Map(CONDITION_WORDS.map((c) => [c.name.toLowerCase(), c]));

/** The plain words of a condition by its name (any document: a condition is the same game term), or null. */
export function conditionWords(name: string): ConditionWords | null {
  return byName.get(name.trim().toLowerCase()) ?? null;
}

/** "The creature is lying flat on the ground … Also called knocked down, tripped." */
export function conditionLead(name: string): string | null {
  const w = conditionWords(name);
  return w ? `${w.profile} Also called ${w.names.join(", ")}.` : null;
}
