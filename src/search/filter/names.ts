/**
 * The `name` parameter (spec file 2): case-insensitive exact match, `*`/`%` wildcards, slug and
 * key fallback, then partial match. All in SQL, combined with the structured filters.
 *
 * Order (the first step that matches at least one row among the filtered candidates wins):
 *   with a wildcard (`*` or `%`, e.g. `fire*`, `*dragon*`, `%fire`):
 *     1. exact      name = input as typed      (so a stored "100% Fire" is found by its own name)
 *     2. wildcard   name LIKE pattern          (`*`/`%` = any run of characters, anchored at both
 *                   ends: `fire*` = starts with "fire"; `_` is literal; `\*`, `\%` = literal)
 *     3. wildcard-slug  slug LIKE pattern       (`ancient-red-*`)
 *   without:
 *     1. exact      name = input               (case-insensitive: "fireball" → "Fireball")
 *     2. key        key = input                ("srd_fireball")
 *     3. slug       slug = slugify(input)      ("ancient-red-dragon" → "Ancient Red Dragon")
 *     4. key-suffix slug = slugify(text after the first "_")  ("srd_fireball" when that key is not
 *                   stored, e.g. "tob_fireball" → every "Fireball")
 *     5. partial    name contains input, or slug contains slugify(input)  ("dragon" → every dragon)
 */
import type { Database } from "bun:sqlite";
import { slugify } from "../../entities/types.ts";
import { andWhere, entitiesOf, escapeLike, type SqlValue, type WhereClause } from "./filters.ts";
import { CACHES } from "../../store/caches.ts";
import { type NameIndex, nameIndex } from "./name-index.ts";

export type NameStrategy = "wildcard" | "wildcard-slug" | "exact" | "key" | "slug" | "key-suffix" | "partial";

export interface NameStep {
  how: NameStrategy;
  clause: WhereClause;
  /** For the name index (name-index.ts): what a `key` step compares, what a `partial` step looks for. */
  probe?: { key: string } | { text: string; slug?: string };
  /** An `exact` step's name as compared (`name = ?`): the name index and the exact-name page use it. */
  literal?: string;
}

/** One parsed character of a name pattern: a literal or a wildcard (`*`/`%`; `\*` and `\%` are literal). */
type Piece = { wild: boolean; ch: string };

function parsePattern(name: string): Piece[] {
  const out: Piece[] = [];
  const chars = [...name];
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i]!;
    if (ch === "\\" && i + 1 < chars.length) out.push({ wild: false, ch: chars[++i]! });
    else if (ch === "*" || ch === "%") out.push({ wild: true, ch });
    else out.push({ wild: false, ch });
  }
  return out;
}

export function hasWildcard(name: string): boolean {
  return parsePattern(name).some((p) => p.wild);
}

/** The name as typed with `\` escapes removed (what an exact match compares: "100% Fire"). */
function literalText(name: string): string {
  return parsePattern(name)
    .map((p) => p.ch)
    .join("");
}

/**
 * `fire*` → `fire%`; literal `_`, `%` and `\` are escaped. For `LIKE ? ESCAPE '\'`.
 * `\*` / `\%` in the input stand for a literal `*` / `%`.
 */
export function wildcardToLike(name: string): string {
  let out = "";
  let lastWild = false;
  for (const p of parsePattern(name)) {
    if (p.wild && lastWild) continue;
    out += p.wild ? "%" : escapeLike(p.ch);
    lastWild = p.wild;
  }
  return out;
}

/** The same pattern over slugs: each literal run slugified, wildcards kept. */
function slugPattern(name: string): string {
  const runs: string[] = [""];
  const pieces = parsePattern(name);
  for (const p of pieces) {
    if (p.wild) runs.push("");
    else runs[runs.length - 1] += p.ch;
  }
  const leading = pieces[0]?.wild === true;
  const trailing = pieces[pieces.length - 1]?.wild === true;
  const body = runs
    .map((r) => escapeLike(slugify(r)))
    .filter((r) => r.length > 0)
    .join("%");
  return `${leading ? "%" : ""}${body}${trailing ? "%" : ""}`;
}

const LIKE = "LIKE ? ESCAPE '\\'";

/**
 * A slug is all but unique: said to SQLite, which has no statistics and otherwise takes `kind = ?`
 * for a few rows and walks the whole kind in a covering index (two orders of magnitude slower than
 * the (kind, slug) index: docs/benchmark.md, "Figures behind the code").
 */
const SLUG_IS = "likelihood(e.slug = ?, 0.001)";

/**
 * The steps to try for `name`, in order (pure), none when the name is blank; each made when it is
 * asked for: the first (exact) answers most lookups.
 */
export function* nameSteps(rawName: string): Generator<NameStep> {
  const name = rawName.trim();
  if (name.length === 0) return;
  // No `*`, `%` or `\`: no wildcard, and the name is its own literal text.
  const plain = !/[*%\\]/.test(name);
  const lit = plain ? name : literalText(name);
  yield { how: "exact", clause: { sql: "e.name = ?", params: [lit] }, literal: lit };
  if (!plain && hasWildcard(name)) {
    yield { how: "wildcard", clause: { sql: `e.name ${LIKE}`, params: [wildcardToLike(name)] } };
    const sp = slugPattern(name);
    if (sp.replace(/%/g, "").length > 0)
      yield { how: "wildcard-slug", clause: { sql: `e.slug ${LIKE}`, params: [sp] } };
    return;
  }
  yield { how: "key", clause: { sql: "e.key = ? COLLATE NOCASE", params: [name] }, probe: { key: name } };
  const slug = slugify(lit);
  if (slug.length > 0) yield { how: "slug", clause: { sql: SLUG_IS, params: [slug] } };
  const us = name.indexOf("_");
  if (us > 0 && us < name.length - 1) {
    const rest = slugify(name.slice(us + 1));
    if (rest.length > 0 && rest !== slug) yield { how: "key-suffix", clause: { sql: SLUG_IS, params: [rest] } };
  }
  const partial: WhereClause =
    slug.length > 0
      ? { sql: `e.name ${LIKE} OR e.slug ${LIKE}`, params: [`%${escapeLike(lit)}%`, `%${escapeLike(slug)}%`] }
      : { sql: `e.name ${LIKE}`, params: [`%${escapeLike(lit)}%`] };
  yield { how: "partial", clause: partial, probe: slug.length > 0 ? { text: lit, slug } : { text: lit } };
}

/**
 * The first step of `nameSteps(name)` that matches a row within `base`, or null when none does
 * (the result is then empty). Each probe is a `LIMIT 1` existence check. Given the `kinds` that
 * `base` selects, a `key` or `partial` step no entity of those kinds could match (whatever the
 * filters) is skipped without a query: those probes read every row of the kinds.
 */
export function resolveName(db: Database, base: WhereClause, name: string, kinds?: readonly string[]): NameStep | null {
  for (const raw of nameSteps(name)) {
    // With no filter, the name index (once built: a name found needs no index) knows whether an
    // entity of the kinds has the name exactly.
    if (raw.literal !== undefined && base.onlyKinds) {
      const has = CACHES.nameIndex.peek<NameIndex>(db)?.hasName(base.onlyKinds, raw.literal);
      if (has === false) continue;
      if (has === true) return raw;
    }
    const step = kinds && raw.probe ? fromIndex(db, kinds, raw, raw.probe) : raw;
    if (!step) continue;
    const w = andWhere(base, step.clause);
    const hit = db
      .query<{ x: number }, SqlValue[]>(`SELECT 1 AS x FROM ${entitiesOf(w)} WHERE ${w.sql} LIMIT 1`)
      .get(...w.params);
    if (hit) return step;
  }
  return null;
}

/** Partial matches up to this many become an id list (beyond, the LIKE clause is cheaper to carry). */
const MAX_PARTIAL_IDS = 500;

/**
 * Up to this many ids are read by id (WhereClause.byIds); more are read through the indexes, where
 * a page in preference order is a walk, not a sort of every row read by id (docs/benchmark.md,
 * "Figures behind the code"). As many as a page sorts itself (page-order.ts, ORDER_HERE).
 */
const BY_ID_MAX = 64;

/**
 * A step as the name index (name-index.ts) sees it: null when no entity of `kinds` can satisfy
 * it whatever the filters; a key or partial step as the ids of the entities it matches; else
 * unchanged.
 */
function fromIndex(
  db: Database,
  kinds: readonly string[],
  step: NameStep,
  probe: NonNullable<NameStep["probe"]>,
): NameStep | null {
  const index = nameIndex(db);
  const found = "key" in probe ? index.keyIds(kinds, probe.key) : index.partialIds(kinds, probe.text, probe.slug);
  if (found === undefined) return step;
  const ids = [...found];
  if (ids.length === 0) return null;
  if (ids.length > MAX_PARTIAL_IDS) return step;
  const clause: WhereClause = { sql: `e.id IN (${ids.sort((a, b) => a - b).join(",")})`, params: [] };
  if (ids.length <= BY_ID_MAX) clause.byIds = true;
  return { how: step.how, clause };
}
