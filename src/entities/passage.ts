/**
 * What is embedded for an entity (its passage), per kind. The search text (`Entity.text`) serves
 * keyword search and answers; the passage is what the embedding model reads. A small model such as
 * all-MiniLM-L6-v2 reads the first few hundred tokens and averages them, so a kind may embed a
 * cleaner text than the one it shows (creature profiles, for example).
 *
 * A kind's passage changes → its entities' content hash changes (store/entities.ts) → they are
 * embedded again on the next sync; kinds whose passage is their text keep their hash and vectors.
 *
 * Tried and not kept (`bun run eval`, docs/eval.md "what each candidate gave"): spells without their
 * casting-time and class lines, classes and subclasses as feature summaries, gear without price and
 * weight. The vector leg improved (spells MRR 0.792 → 0.856 held-out) but the hybrid ranking did not
 * (held-out MRR 0.834 both), so every kind embeds its text. Pure.
 */
import type { EntityKind } from "./types.ts";

export interface PassageSource {
  kind: EntityKind | string;
  name: string;
  text: string;
}

/** A kind's passage from its search text (name first, as in the text). */
export type PassageBuilder = (e: PassageSource) => string;

/** Kinds whose passage is not simply their text (kept only when the held-out half improves). */
export const PASSAGES: Readonly<Partial<Record<EntityKind, PassageBuilder>>> = {};

/** The text to embed for `e`: its kind's passage, or its search text; never empty. */
export function passageText(
  e: PassageSource,
  builders: Readonly<Partial<Record<string, PassageBuilder>>> = PASSAGES,
): string {
  const build = builders[e.kind];
  if (!build) return e.text;
  const out = build(e).trim();
  return out.length > 0 ? out : e.text;
}
