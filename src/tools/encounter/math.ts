/**
 * Encounter arithmetic for both editions, pure: party → thresholds or budgets, a group of monsters
 * → XP, adjusted XP (2014) and difficulty, each step written out as the books do it.
 */
import { formatCr } from "../../entities/types.ts";
import {
  BUDGET_2024,
  DIFFICULTIES_2014,
  DIFFICULTIES_2024,
  type Difficulty,
  type Edition,
  MULTIPLIER_BANDS,
  MULTIPLIER_STEPS,
  THRESHOLDS_2014,
} from "./tables.ts";

export interface Monster {
  name: string;
  count: number;
  cr: number | null;
  xp: number;
  key?: string;
  document_key?: string;
  uri?: string;
}

/** One difficulty's party total: 2014 thresholds (minimums), 2024 budgets (maximums). */
export type PartyTotals = Record<string, number>;

const fmt = (n: number) => n.toLocaleString("en-US");
const title = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

export function difficultiesOf(edition: Edition): readonly Difficulty[] {
  return edition === "2014" ? DIFFICULTIES_2014 : DIFFICULTIES_2024;
}

/** [level, number of characters of that level], levels ascending. */
function byLevel(levels: readonly number[]): [number, number][] {
  const counts = new Map<number, number>();
  for (const l of levels) counts.set(l, (counts.get(l) ?? 0) + 1);
  return [...counts.entries()].sort((a, b) => a[0] - b[0]);
}

/** One character's threshold (2014) or budget (2024) at `level` for the `i`th difficulty. */
const perCharacter = (edition: Edition, level: number, i: number) =>
  edition === "2014" ? THRESHOLDS_2014[level - 1]![i]! : BUDGET_2024[level - 1]![i]!;

/** "4 × level 5" / "2 × level 3, 1 × level 4" (levels ascending). */
export function describeParty(levels: readonly number[]): string {
  return byLevel(levels)
    .map(([l, n]) => `${n} × level ${l}`)
    .join(", ");
}

/** Per difficulty, the sum over characters of that level's table value. */
export function partyTotals(edition: Edition, levels: readonly number[]): PartyTotals {
  const out: PartyTotals = {};
  difficultiesOf(edition).forEach((d, i) => {
    out[d] = levels.reduce((sum, l) => sum + perCharacter(edition, l, i), 0);
  });
  return out;
}

/** "Low 4 × 500 = 2,000" per difficulty (mixed levels: "Easy 2 × 75 + 1 × 125 = 275"). */
export function partyStep(edition: Edition, levels: readonly number[]): string {
  const totals = partyTotals(edition, levels);
  const parts = difficultiesOf(edition).map((d, i) => {
    const terms = byLevel(levels).map(([l, n]) => `${n} × ${fmt(perCharacter(edition, l, i))}`);
    return `${title(d)} ${terms.join(" + ")} = ${fmt(totals[d]!)}`;
  });
  const what = edition === "2014" ? "XP thresholds" : "XP budgets";
  return `Party ${describeParty(levels)} (${levels.length} characters). ${what}: ${parts.join("; ")}.`;
}

export interface Multiplier {
  multiplier: number;
  step: string;
}

/** 2014 encounter multiplier for `monsters` creatures against a party of `partySize`. */
export function multiplier2014(monsters: number, partySize: number): Multiplier {
  let band = 0;
  for (let i = 0; i < MULTIPLIER_BANDS.length; i++) if (monsters >= MULTIPLIER_BANDS[i]![0]) band = i;
  const baseIdx = MULTIPLIER_BANDS[band]![1];
  const lo = MULTIPLIER_BANDS[band]![0];
  const hi = MULTIPLIER_BANDS[band + 1] ? MULTIPLIER_BANDS[band + 1]![0] - 1 : null;
  const range =
    hi === null ? `${lo}+ monsters` : lo === hi ? `${lo} monster${lo > 1 ? "s" : ""}` : `${lo}–${hi} monsters`;
  const base = MULTIPLIER_STEPS[baseIdx]!;
  let idx = baseIdx;
  let adj = `party of ${partySize} (3–5 characters): no adjustment`;
  if (partySize < 3) {
    idx = Math.min(MULTIPLIER_STEPS.length - 1, baseIdx + 1);
    adj = `party of ${partySize} (fewer than 3 characters): next higher multiplier ×${MULTIPLIER_STEPS[idx]}`;
  } else if (partySize >= 6) {
    idx = Math.max(0, baseIdx - 1);
    adj = `party of ${partySize} (6 or more characters): next lower multiplier ×${MULTIPLIER_STEPS[idx]}`;
  }
  return {
    multiplier: MULTIPLIER_STEPS[idx]!,
    step: `${monsters} monster${monsters === 1 ? "" : "s"} → ×${base} (${range}); ${adj}.`,
  };
}

export interface Rating {
  total_xp: number;
  monster_count: number;
  /** 2014 only */
  multiplier?: number;
  /** 2014 only: total × multiplier, compared with the thresholds */
  adjusted_xp?: number;
  difficulty: string;
  steps: string[];
}

function monsterLine(m: Monster): string {
  const cr = m.cr === null ? "CR ?" : `CR ${formatCr(m.cr)}`;
  return `${m.count} × ${m.name} (${cr}, ${fmt(m.xp)} XP) = ${fmt(m.count * m.xp)}`;
}

/** 2014: the highest threshold reached; 2024: the smallest budget that holds the XP. */
export function classify(edition: Edition, xp: number, totals: PartyTotals): { difficulty: string; step: string } {
  if (edition === "2014") {
    const reached = DIFFICULTIES_2014.filter((d) => xp >= totals[d]!);
    const last = reached[reached.length - 1];
    if (!last)
      return {
        difficulty: "trivial",
        step: `${fmt(xp)} is below the Easy threshold ${fmt(totals.easy!)} → trivial (below Easy).`,
      };
    const next = DIFFICULTIES_2014[DIFFICULTIES_2014.indexOf(last) + 1];
    const upper = next ? ` and below ${title(next)} ${fmt(totals[next]!)}` : "";
    return {
      difficulty: last,
      step: `${fmt(xp)} reaches the ${title(last)} threshold ${fmt(totals[last]!)}${upper} → ${title(last)}.`,
    };
  }
  const fits = DIFFICULTIES_2024.find((d) => xp <= totals[d]!);
  if (!fits) {
    return {
      difficulty: "beyond high",
      step:
        `${fmt(xp)} exceeds the High budget ${fmt(totals.high!)} (${pct(xp, totals.high!)} of it) → beyond ` +
        `High: the rules advise against it.`,
    };
  }
  const prev = DIFFICULTIES_2024[DIFFICULTIES_2024.indexOf(fits) - 1];
  const lower = prev ? `, above the ${title(prev)} budget ${fmt(totals[prev]!)}` : "";
  return {
    difficulty: fits,
    step:
      `${fmt(xp)} fits the ${title(fits)} budget ${fmt(totals[fits]!)} (${pct(xp, totals[fits]!)} of ` +
      `it${lower}) → ${title(fits)}.`,
  };
}

function pct(a: number, b: number): string {
  return `${Math.round((a / b) * 100)}%`;
}

/** Rate a group of monsters against a party, with the book's steps. */
export function rateGroup(edition: Edition, levels: readonly number[], monsters: readonly Monster[]): Rating {
  const totals = partyTotals(edition, levels);
  const total = monsters.reduce((s, m) => s + m.count * m.xp, 0);
  const count = monsters.reduce((s, m) => s + m.count, 0);
  const steps = [
    partyStep(edition, levels),
    `Monsters: ${monsters.map(monsterLine).join("; ")}. Total ${fmt(total)} XP.`,
  ];
  if (edition === "2024") {
    const c = classify(edition, total, totals);
    steps.push(`2024 rules: no multiplier; compare the total XP with the budgets. ${c.step}`);
    return { total_xp: total, monster_count: count, difficulty: c.difficulty, steps };
  }
  const m = multiplier2014(count, levels.length);
  const adjusted = Math.round(total * m.multiplier);
  steps.push(
    `Multiplier: ${m.step} Adjusted XP ${fmt(total)} × ${m.multiplier} = ${fmt(adjusted)} (the award ` +
      `stays ${fmt(total)} XP).`,
  );
  const c = classify(edition, adjusted, totals);
  steps.push(c.step);
  return {
    total_xp: total,
    monster_count: count,
    multiplier: m.multiplier,
    adjusted_xp: adjusted,
    difficulty: c.difficulty,
    steps,
  };
}

/**
 * The XP window a proposed group must land in for `difficulty`: 2024 (previous budget, budget];
 * 2014 adjusted XP in [threshold, next threshold) (Deadly: up to 125% of its threshold).
 * Low (2024) starts at half its budget so that proposals are not trivial.
 */
export function targetWindow(
  edition: Edition,
  difficulty: Difficulty,
  totals: PartyTotals,
): { min: number; max: number; target: number } {
  const diffs = difficultiesOf(edition) as readonly string[];
  const i = diffs.indexOf(difficulty);
  if (edition === "2024") {
    const max = totals[difficulty]!;
    const min = i > 0 ? totals[diffs[i - 1]!]! + 1 : Math.ceil(max / 2);
    return { min, max, target: max };
  }
  const min = totals[difficulty]!;
  const next = diffs[i + 1];
  const max = next ? totals[next]! - 1 : Math.floor(min * 1.25);
  return { min, max, target: Math.round((min + max) / 2) };
}
