/**
 * How the two legs of a ranked search are fused, per search tool, in one place. Reciprocal rank
 * fusion: score = Σ weight / (k + rank) over the lexical and the vector list; a small k lets a
 * leg's first places count more than a middling place in both. The values are tuned by `bun run
 * eval` on its training half and kept when the held-out half improves (docs/eval.md).
 */
import { type Fusion, RANKING_PROFILES, type RankingProfile } from "../types.ts";

/**
 * RRF k 20, equal weights (measured over the whole query set before), and the core prior 0.25: the
 * best setting of the grid on the training half; on the held-out half MRR 0.834 → 0.840 at the same
 * hit@5 (docs/eval.md, "what each candidate gave on the held-out half").
 */
export const DEFAULT_FUSION: Fusion = { method: "rrf", k: 20, lexicalWeight: 1, vectorWeight: 1, coreBoost: 0.25 };

/**
 * Per tool, where tuning on the training half beat the default (k, weights and prior: none yet; the
 * per-tool settings the grid picked raised held-out MRR but lowered hit@5, docs/eval.md), and the
 * kind spread of search_all.
 */
export const FUSION_BY_PROFILE: Readonly<Partial<Record<RankingProfile, Fusion>>> = {
  /**
   * search_all: at most 2 of one kind among the first 5 entries, so one kind does not fill the
   * top of an answer over every kind ("let allies breathe underwater": five aquatic creatures
   * before the Water Breathing spell, 7th → 4th). Chosen on the training half (5/2 over 5/3);
   * held-out half and dev set unchanged (docs/eval.md, "one store, fully embedded").
   */
  all: { ...DEFAULT_FUSION, spread: { top: 5, perKind: 2 } },
  /**
   * search_rule: the edition prior, so that when both SRDs have a rule that answers ("Cover",
   * "Resting", "Vision and Light") the preferred edition's comes first, while a rule only the other
   * edition has ("Reactions") still ranks by how well it answers (the answer says which edition).
   */
  rule: { ...DEFAULT_FUSION, editionBoost: 0.1 },
  /**
   * search_creature and search_character_option: a stronger core prior. With the spell, item and
   * rule profiles in, the training half's creature questions went 0.840 → 0.962 MRR at 1 (0.865 at
   * 0.5) and the character options 0.787 → 0.861 at 0.5 or 1; the held-out half and the dev set
   * were not lower (docs/eval.md, "profiles for spells, items and rules").
   */
  creature: { ...DEFAULT_FUSION, coreBoost: 1 },
  character_option: { ...DEFAULT_FUSION, coreBoost: 0.5 },
};

/** The fusion for a profile (the default when it has none), with `override`'s fields on top (the eval's grid). */
export function fusionFor(profile: RankingProfile | undefined, override?: Partial<Fusion>): Fusion {
  return { ...DEFAULT_FUSION, ...(profile ? FUSION_BY_PROFILE[profile] : undefined), ...override };
}

/** The profile of a search tool by its name ("search_spell" → "spell"), or undefined. */
export function profileOfTool(tool: string): RankingProfile | undefined {
  const p = tool.replace(/^search_/, "");
  return (RANKING_PROFILES as readonly string[]).includes(p) ? (p as RankingProfile) : undefined;
}
