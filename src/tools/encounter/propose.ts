/**
 * Proposing groups of creatures that land in a difficulty's XP window, pure: candidates in
 * (already filtered and, with a theme, ranked best first), a few varied groups out.
 */
import { type Monster, multiplier2014, partyTotals, rateGroup, type Rating, targetWindow } from "./math.ts";
import type { Difficulty, Edition } from "./tables.ts";

export interface Candidate {
  key: string;
  name: string;
  cr: number;
  xp: number;
  document_key: string;
  uri: string;
}

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
/** Candidates considered as leaders / followers of mixed groups (the best ranked ones). */
const MIXED_POOL = 40;

/**
 * Up to `max` groups, each within the difficulty's window, varied in shape and creatures:
 * closest to the target first, better-ranked candidates (lower index) preferred.
 */
export function proposeGroups(edition: Edition, levels: readonly number[], difficulty: Difficulty, candidates: readonly Candidate[], max: number): Proposal[] {
  const totals = partyTotals(edition, levels);
  const win = targetWindow(edition, difficulty, totals);
  const value = (xp: number, count: number) => (edition === "2014" ? xp * multiplier2014(count, levels.length).multiplier : xp);
  const options: Option[] = [];
  const consider = (shape: Shape, parts: Option["parts"]) => {
    const xp = parts.reduce((s, p) => s + p.c.xp * p.n, 0);
    const count = parts.reduce((s, p) => s + p.n, 0);
    const v = value(xp, count);
    if (v < win.min || v > win.max) return v > win.max;
    const rank = Math.min(...parts.map((p) => p.rank));
    options.push({ shape, parts, score: Math.abs(win.target - v) / win.target + 0.01 * rank + 0.01 * count });
    return false;
  };
  candidates.forEach((c, rank) => {
    if (c.xp <= 0) return;
    consider("solo", [{ c, n: 1, rank }]);
    for (let n = 2; n <= MAX_MONSTERS; n++) if (consider("band", [{ c, n, rank }])) break;
  });
  const pool = candidates.slice(0, MIXED_POOL);
  pool.forEach((lead, li) => {
    pool.forEach((f, fi) => {
      if (f.key === lead.key || f.xp <= 0 || f.xp * 2 > lead.xp) return;
      for (let n = 2; n <= MAX_MONSTERS - 1; n++) if (consider("leader and followers", [{ c: lead, n: 1, rank: li }, { c: f, n, rank: fi }])) break;
    });
  });
  options.sort((a, b) => a.score - b.score || a.parts[0]!.c.name.localeCompare(b.parts[0]!.c.name));

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
    const monsters: Monster[] = o.parts.map((p) => ({ name: p.c.name, count: p.n, cr: p.c.cr, xp: p.c.xp, key: p.c.key, document_key: p.c.document_key, uri: p.c.uri }));
    return { shape: o.shape, monsters, rating: rateGroup(edition, levels, monsters) };
  });
}
