/**
 * Pure evaluation logic for `bun run eval` (scripts/eval.ts): where the targets of a query rank,
 * hit@k and MRR per ranking mode, and whether a ranking expectation holds. No I/O.
 */
import type { Entity, EntityKind } from "../src/entities/types.ts";

/** Which ranking a column of the table comes from (SearchQuery.ranking). */
export const MODES = ["lexical", "vector", "hybrid"] as const;
export type Mode = (typeof MODES)[number];

/** The part of a hit the evaluation reads. */
export type RankedEntity = Pick<Entity, "name" | "kind" | "text" | "filters" | "document_key">;

/**
 * A result a query should find: a name ("Fire Shield", any document), "kind:Name"
 * ("armor:Shield") when the name alone is ambiguous across kinds, and a trailing "*" for every
 * name starting so ("Flame Tongue*": "Flame Tongue (Longsword)", "Flame Tongue Dagger").
 */
export type TargetRef = string;

export function parseTarget(t: TargetRef): { kind?: EntityKind; name: string } {
  const i = t.indexOf(":");
  if (i > 0 && /^[a-z_]+$/.test(t.slice(0, i))) return { kind: t.slice(0, i) as EntityKind, name: t.slice(i + 1) };
  return { name: t };
}

export function matchesTarget(e: RankedEntity, t: TargetRef): boolean {
  const p = parseTarget(t);
  if (p.kind !== undefined && p.kind !== e.kind) return false;
  const name = e.name.toLowerCase();
  const want = p.name.toLowerCase();
  return want.endsWith("*") ? name.startsWith(want.slice(0, -1)) : name === want;
}

/** 1-based rank of the first hit matching `t`, or null when it is not in the list. */
export function rankOf(hits: readonly RankedEntity[], t: TargetRef): number | null {
  const i = hits.findIndex((e) => matchesTarget(e, t));
  return i < 0 ? null : i + 1;
}

/** 1-based rank of the best-placed target, or null when none is in the list. */
export function firstRelevantRank(hits: readonly RankedEntity[], targets: readonly TargetRef[]): number | null {
  let best: number | null = null;
  for (const t of targets) {
    const r = rankOf(hits, t);
    if (r !== null && (best === null || r < best)) best = r;
  }
  return best;
}

export interface Summary {
  queries: number;
  hit1: number;
  hit5: number;
  hit10: number;
  mrr: number;
}

/** hit@k = share of queries whose best target is within the top k; MRR = mean of 1/rank (0 when missing). */
export function summarize(ranks: ReadonlyArray<number | null>): Summary {
  const n = ranks.length;
  const share = (k: number) => (n === 0 ? 0 : ranks.filter((r) => r !== null && r <= k).length / n);
  const mrr = n === 0 ? 0 : ranks.reduce<number>((s, r) => s + (r === null ? 0 : 1 / r), 0) / n;
  return { queries: n, hit1: share(1), hit5: share(5), hit10: share(10), mrr };
}

/** A named test over a hit; the label names the hits that pass it, in the plural ("healing spells"). */
export interface HitPredicate {
  label: string;
  test: (e: RankedEntity) => boolean;
}

/**
 * What the spec (or we) say must hold of a ranking:
 *   above  every name of `higher` ranks above every name of `lower` (a missing `lower` counts as
 *          below everything; a missing `higher` fails)
 *   top    `names` are within the top `k` (all of them, or at least one with `any`)
 *   share  at least `min` of the top `k` hits satisfy `pred`
 *   before the first hit satisfying `a` ranks above the first hit satisfying `b`
 *   more   more of the top `k` satisfy `a` than `b`
 */
export type Expectation =
  | { type: "above"; higher: TargetRef[]; lower: TargetRef[] }
  | { type: "top"; names: TargetRef[]; k: number; any?: boolean }
  | { type: "share"; pred: HitPredicate; k: number; min: number }
  | { type: "before"; a: HitPredicate; b: HitPredicate }
  | { type: "more"; a: HitPredicate; b: HitPredicate; k: number }
  /** No two of the top k are one thing under two name forms ("Horse, Draft" and "Draft Horse"). */
  | { type: "distinct"; k: number };

/**
 * What the `distinct` expectation calls one thing, written here on its own (not the ranking's
 * nameForm, so the check can catch the ranking): a rule and a rule section are one kind; the name
 * lower-cased, "X, Y" read as "Y X", letters and digits only, a final "s" of each word dropped.
 */
export function sameThingKey(e: Pick<RankedEntity, "kind" | "name">): string {
  const kind = e.kind === "rule_section" ? "rule" : e.kind;
  const parts = e.name.toLowerCase().split(",");
  const name = parts.length === 2 ? `${parts[1]} ${parts[0]}` : e.name.toLowerCase();
  const words =
    name
      .normalize("NFKD")
      .replace(/[\u0300-\u036f]/g, "")
      .match(/[a-z0-9]+/g) ?? [];
  const stems = words.map((w) => (w.length > 3 && w.endsWith("s") && !w.endsWith("ss") ? w.slice(0, -1) : w));
  return `${kind}:${stems.join("")}`;
}

export interface ExpectationResult {
  pass: boolean;
  /** Human-readable statement of what was checked. */
  what: string;
  /** The ranks behind the verdict. */
  detail: string;
}

const fmt = (r: number | null) => (r === null ? "–" : String(r));

export function checkExpectation(hits: readonly RankedEntity[], x: Expectation): ExpectationResult {
  switch (x.type) {
    case "above": {
      const hi = x.higher.map((t) => [t, rankOf(hits, t)] as const);
      const lo = x.lower.map((t) => [t, rankOf(hits, t)] as const);
      const pass = hi.every(([, h]) => h !== null && lo.every(([, l]) => l === null || h < l));
      return {
        pass,
        what: `${x.higher.join(" and ")} above ${x.lower.join(" and ")}`,
        detail: [...hi, ...lo].map(([t, r]) => `${t} ${fmt(r)}`).join(", "),
      };
    }
    case "top": {
      const rs = x.names.map((t) => [t, rankOf(hits, t)] as const);
      const inTop = rs.filter(([, r]) => r !== null && r <= x.k).length;
      const pass = x.any ? inTop > 0 : inTop === rs.length;
      return {
        pass,
        what: `${x.any ? "one of " : ""}${x.names.join(", ")} in the top ${x.k}`,
        detail: rs.map(([t, r]) => `${t} ${fmt(r)}`).join(", "),
      };
    }
    case "share": {
      const n = hits.slice(0, x.k).filter((e) => x.pred.test(e)).length;
      return {
        pass: n >= x.min,
        what: `at least ${x.min} of the top ${x.k} are ${x.pred.label}`,
        detail: `${n}/${Math.min(x.k, hits.length)}`,
      };
    }
    case "before": {
      const a = hits.findIndex((e) => x.a.test(e));
      const b = hits.findIndex((e) => x.b.test(e));
      const ra = a < 0 ? null : a + 1;
      const rb = b < 0 ? null : b + 1;
      return {
        pass: ra !== null && (rb === null || ra < rb),
        what: `the first of the ${x.a.label} above the first of the ${x.b.label}`,
        detail: `${fmt(ra)} vs ${fmt(rb)}`,
      };
    }
    case "distinct": {
      const seen = new Map<string, string>();
      const twice: string[] = [];
      for (const e of hits.slice(0, x.k)) {
        const g = sameThingKey(e);
        const first = seen.get(g);
        if (first !== undefined) twice.push(`${first} = ${e.name}`);
        else seen.set(g, e.name);
      }
      return {
        pass: twice.length === 0,
        what: `each thing once in the top ${x.k} (name forms, rule sections)`,
        detail: twice.length ? twice.join("; ") : "no repeats",
      };
    }
    case "more": {
      const top = hits.slice(0, x.k);
      const na = top.filter((e) => x.a.test(e)).length;
      const nb = top.filter((e) => x.b.test(e)).length;
      return { pass: na > nb, what: `more ${x.a.label} than ${x.b.label} in the top ${x.k}`, detail: `${na} vs ${nb}` };
    }
  }
}
