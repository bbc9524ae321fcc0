/**
 * Proposing groups of creatures that land in a difficulty's XP window, pure: candidates in
 * (already filtered and, with a theme, ranked best first), a few varied groups out.
 */
import { type Monster, multiplier2014, partyTotals, rateGroup, type Rating, targetWindow } from "./math.ts";
import type { Difficulty, Edition } from "./tables.ts";

/** A stored creature a group may use. `rank` (absent: 0): 0 = best theme match; unthemed ones share one after. */
export type Candidate = Required<Omit<Monster, "count" | "cr">> & { cr: number; rank?: number };

export type Shape = "solo" | "leader and followers" | "band";

export interface Proposal {
  shape: Shape;
  monsters: Monster[];
  rating: Rating;
}

interface Option {
  shape: Shape;
  parts: { c: Candidate; n: number; rank: number }[];
  score: number;
}

const MAX_MONSTERS = 12;
/** Candidates considered as leaders / followers of mixed groups. */
const MIXED_POOL = 40;

/** Up to `n` of `xs`: the best ranked first, ties spread evenly over the list (not its alphabetical head). */
function pick(xs: readonly Candidate[], n: number): Candidate[] {
  if (xs.length <= n) return [...xs];
  const sorted = [...xs].sort((a, b) => (a.rank ?? 0) - (b.rank ?? 0));
  const cut = sorted[n - 1]!.rank ?? 0;
  const out = sorted.filter((c) => (c.rank ?? 0) < cut);
  const tied = sorted.filter((c) => (c.rank ?? 0) === cut);
  const room = n - out.length;
  for (let i = 0; i < room; i++) out.push(tied[Math.floor((i * tied.length) / room)]!);
  return out;
}

/** 32-bit FNV-1a of a string. */
function fnv(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}

/**
 * Up to `max` groups, each within the difficulty's window, varied in shape and creatures:
 * closest to the target first, better-ranked candidates (lower index) preferred.
 */
export function proposeGroups(
  edition: Edition,
  levels: readonly number[],
  difficulty: Difficulty,
  candidates: readonly Candidate[],
  max: number,
): Proposal[] {
  const totals = partyTotals(edition, levels);
  const win = targetWindow(edition, difficulty, totals);
  const value = (xp: number, count: number) =>
    edition === "2014" ? xp * multiplier2014(count, levels.length).multiplier : xp;
  const options: Option[] = [];
  const consider = (shape: Shape, parts: Option["parts"]) => {
    const xp = parts.reduce((s, p) => s + p.c.xp * p.n, 0);
    const count = parts.reduce((s, p) => s + p.n, 0);
    const v = value(xp, count);
    if (v < win.min || v > win.max) return v > win.max;
    const rank = Math.min(...parts.map((p) => p.rank));
    const closeness = Math.round((Math.abs(win.target - v) / win.target) * 50) / 50;
    options.push({ shape, parts, score: closeness + 0.01 * rank + 0.01 * count });
    return false;
  };
  for (const c of candidates) {
    if (c.xp <= 0) continue;
    const rank = c.rank ?? 0;
    consider("solo", [{ c, n: 1, rank }]);
    for (let n = 2; n <= MAX_MONSTERS; n++) if (consider("band", [{ c, n, rank }])) break;
  }
  // Leaders carry a third to three quarters of the target, followers a little each.
  const leaders = pick(
    candidates.filter((c) => c.xp >= win.target * 0.3 && c.xp <= win.target * 0.75),
    MIXED_POOL,
  );
  const followers = pick(
    candidates.filter((c) => c.xp > 0 && c.xp <= win.target * 0.3),
    MIXED_POOL,
  );
  for (const lead of leaders) {
    for (const f of followers) {
      if (f.key === lead.key || f.xp * 2 > lead.xp) continue;
      const parts = (n: number) => [
        { c: lead, n: 1, rank: lead.rank ?? 0 },
        { c: f, n, rank: f.rank ?? 0 },
      ];
      for (let n = 2; n <= MAX_MONSTERS - 1; n++) if (consider("leader and followers", parts(n))) break;
    }
  }
  // Ties (common: many groups hit the target exactly) go by a hash of the creature keys, so that
  // the choice is stable but not biased towards the start of the alphabet.
  const tie = new Map(options.map((o) => [o, fnv(o.parts.map((p) => `${p.c.key}×${p.n}`).join("+"))]));
  options.sort((a, b) => a.score - b.score || tie.get(a)! - tie.get(b)!);

  const chosen: Option[] = [];
  const used = new Set<string>();
  const free = (o: Option) => o.parts.every((p) => !used.has(p.c.name.toLowerCase()));
  const take = (o: Option) => {
    chosen.push(o);
    for (const p of o.parts) used.add(p.c.name.toLowerCase());
  };
  // One of each shape first (best first), then the best of the rest; no creature twice.
  const shapes = [...new Set(options.map((o) => o.shape))];
  for (const s of shapes) {
    if (chosen.length >= max) break;
    const o = options.find((x) => x.shape === s && free(x));
    if (o) take(o);
  }
  for (const o of options) {
    if (chosen.length >= max) break;
    if (!chosen.includes(o) && free(o)) take(o);
  }
  chosen.sort((a, b) => a.score - b.score);
  return chosen.map((o) => {
    const monsters: Monster[] = o.parts.map(({ c, n }) => {
      const { name, cr, xp, key, document_key, uri } = c;
      return { name, count: n, cr, xp, key, document_key, uri };
    });
    return { shape: o.shape, monsters, rating: rateGroup(edition, levels, monsters) };
  });
}
