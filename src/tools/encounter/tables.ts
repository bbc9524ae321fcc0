/**
 * The encounter-building rules as data, each table written once with where it comes from.
 *
 * - CR → XP: SRD 5.1 "Monsters › Experience Points by Challenge Rating" (the same table is in the
 *   store as Open5e rule `srd_monsters_experience-points-by-cr`); SRD 5.2 repeats it in each stat
 *   block's "XP" (e.g. "CR 2 (XP 450; PB +2)").
 * - 2014 thresholds and multipliers: Dungeon Master's Guide (2014), chapter 3 "Creating a Combat
 *   Encounter": "XP Thresholds by Character Level" and "Encounter Multipliers" (party size
 *   adjustment in the same section). Not part of SRD 5.1.
 * - 2024 budget: Dungeon Master's Guide (2024), chapter 4 "Combat Encounters": "XP Budget per
 *   Character" (Low / Moderate / High). Not part of the SRD 5.2 text in the local data.
 */

export type Edition = "2014" | "2024";

export const DIFFICULTIES_2014 = ["easy", "medium", "hard", "deadly"] as const;
export const DIFFICULTIES_2024 = ["low", "moderate", "high"] as const;
export type Difficulty = (typeof DIFFICULTIES_2014)[number] | (typeof DIFFICULTIES_2024)[number];

/** Each table as an answer cites it: "title — where". */
const DMG_2014 = "Dungeon Master's Guide (2014), ch. 3, Creating a Combat Encounter";
export const RULE_SOURCES = {
  crXp: "Experience Points by Challenge Rating — SRD 5.1, Monsters (also each SRD 5.2 stat block's XP)",
  thresholds2014: `XP Thresholds by Character Level — ${DMG_2014}`,
  multipliers2014: `Encounter Multipliers — ${DMG_2014}`,
  budget2024: "XP Budget per Character — Dungeon Master's Guide (2024), ch. 4, Combat Encounters",
} as const;

/** 2014: per-character thresholds [easy, medium, hard, deadly], index = level - 1. */
export const THRESHOLDS_2014: readonly (readonly [number, number, number, number])[] = [
  [25, 50, 75, 100],
  [50, 100, 150, 200],
  [75, 150, 225, 400],
  [125, 250, 375, 500],
  [250, 500, 750, 1100],
  [300, 600, 900, 1400],
  [350, 750, 1100, 1700],
  [450, 900, 1400, 2100],
  [550, 1100, 1600, 2400],
  [600, 1200, 1900, 2800],
  [800, 1600, 2400, 3600],
  [1000, 2000, 3000, 4500],
  [1100, 2200, 3400, 5100],
  [1250, 2500, 3800, 5700],
  [1400, 2800, 4300, 6400],
  [1600, 3200, 4800, 7200],
  [2000, 3900, 5900, 8800],
  [2100, 4200, 6300, 9500],
  [2400, 4900, 7300, 10900],
  [2800, 5700, 8500, 12700],
];

/**
 * 2014 encounter multipliers by number of monsters (1, 2, 3–6, 7–10, 11–14, 15+), plus the extra
 * steps the party-size adjustment reaches: fewer than three characters use the next higher
 * multiplier (up to ×5), six or more the next lower (down to ×0.5).
 */
export const MULTIPLIER_STEPS = [0.5, 1, 1.5, 2, 2.5, 3, 4, 5] as const;
/** [smallest monster count, step index into MULTIPLIER_STEPS] */
export const MULTIPLIER_BANDS: readonly (readonly [number, number])[] = [
  [1, 1],
  [2, 2],
  [3, 3],
  [7, 4],
  [11, 5],
  [15, 6],
];

/** 2024: per-character budget [low, moderate, high], index = level - 1. */
export const BUDGET_2024: readonly (readonly [number, number, number])[] = [
  [50, 75, 100],
  [100, 150, 200],
  [150, 225, 400],
  [250, 375, 500],
  [500, 750, 1100],
  [600, 1000, 1400],
  [750, 1300, 1700],
  [1000, 1700, 2100],
  [1300, 2000, 2600],
  [1600, 2300, 3100],
  [1900, 2900, 4100],
  [2200, 3700, 4700],
  [2600, 4200, 5400],
  [2900, 4900, 6200],
  [3300, 5400, 7800],
  [3800, 6100, 9800],
  [4500, 7200, 11700],
  [5000, 8700, 14200],
  [5500, 10700, 17200],
  [6400, 13200, 22000],
];
