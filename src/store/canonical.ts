/**
 * Canonical-ness as a stored fact. Entities of one kind with the same name form (`entities.name_form`,
 * entities/name-form.ts: "Horse, Draft" = "Draft Horse"; case, punctuation and a plural do not count)
 * from several documents are one thing to a reader; `entities.group_rank`
 * is each entity's place among them in the document preference (entities/preference.ts): 0 = the
 * canonical version, 1 the next, … (NULL for copies from a less preferred source, `dup_of`, which
 * never answer). A collapsed answer's groups are then an indexed query with no GROUP BY: a row
 * answers for its group when it is rank 0, or when no better-ranked row of its group matches the
 * same filters (search/rank/page.ts).
 *
 * `entities.doc_rank` is the place of the entity's document itself in that preference
 * (DocumentRank: the listed documents 0…n-1, the official SRDs next, other open content, homebrew
 * last): a collapsed list is ordered by it, then by name, walking an index (search/rank/page.ts).
 *
 * The ranks follow one preference, recorded in `meta` (`group_rank_preference`: the preferred
 * document keys, canonical, comma-separated; "" = the default order). They are recomputed for the
 * kinds a sync or import changed (in its transaction) and, for the whole store, when the server
 * starts with another `--prefer-documents` (setRankPreference) — never per call. A query with a
 * preference other than the stored one is answered the slower way (GROUP BY), correctly.
 */
import type { Database } from "bun:sqlite";
import { nameForm } from "../entities/name-form.ts";
import { comparePreferred, documentRank, type DocumentRank, type Ranked } from "../entities/preference.ts";
import { CACHES } from "./caches.ts";
import { familyKinds } from "./duplicates.ts";
import { getMeta, setMeta } from "./schema.ts";

export const RANK_PREFERENCE_KEY = "group_rank_preference";

interface RankRow extends Ranked {
  kind: string;
  name: string;
  group_rank: number | null;
  doc_rank: number | null;
  dup_of: number | null;
  name_form: string | null;
}

/**
 * The preference the stored ranks follow (its id: canonical keys, comma-separated), or undefined
 * when ranks are not kept (a store older than migration 8 opened read-only has no `name_form`).
 */
export function rankPreference(db: Database): string | undefined {
  return CACHES.rankPreference.get(db, () => {
    try {
      return db
        .query<{ value: string }, [string]>(
          "SELECT value FROM meta WHERE key = ? AND EXISTS (SELECT 1 FROM pragma_table_info('entities') WHERE name = " +
            "'name_form')",
        )
        .get(RANK_PREFERENCE_KEY)?.value;
    } catch {
      return undefined;
    }
  });
}

/** The document rank the stored preference gives (the default preference when none is recorded). */
export function storedRank(db: Database): DocumentRank {
  const id = getMeta(db, RANK_PREFERENCE_KEY) ?? "";
  return documentRank(id.split(",").filter((k) => k.length > 0));
}

/**
 * Recompute `name_form`, `group_rank` and `doc_rank` for the entities of `kinds` (every kind when
 * undefined) by the stored preference. Call inside the transaction that changed them, after
 * refreshDuplicates. Returns how many rows changed.
 */
export function refreshGroupRanks(db: Database, kinds?: Iterable<string>): number {
  const ks = kinds === undefined ? undefined : familyKinds(kinds);
  if (ks !== undefined && ks.length === 0) return 0;
  const inKinds = ks ? ` AND kind IN (${ks.map(() => "?").join(",")})` : "";
  const rows = db
    .query<RankRow, string[]>(
      `SELECT id, kind, name, key, document_key, document_source, group_rank, doc_rank, dup_of, name_form FROM ` +
        `entities WHERE 1${inKinds}`,
    )
    .all(...(ks ?? []));
  const rank = storedRank(db);
  // What each row's columns should be: its document's place, its name form, and (answering rows)
  // its place among the versions of its kind and name form; copies have no group rank.
  const wanted = rows.map((r) => ({ r, doc: rank(r), form: nameForm(r.name), group: null as number | null }));
  const groups = new Map<string, typeof wanted>();
  for (const w of wanted) {
    if (w.r.dup_of !== null) continue;
    const k = `${w.r.kind}\u0000${w.form}`;
    const g = groups.get(k);
    if (g) g.push(w);
    else groups.set(k, [w]);
  }
  const order = comparePreferred(rank);
  for (const g of groups.values()) {
    if (g.length > 1) g.sort((a, b) => order(a.r, b.r));
    g.forEach((w, i) => {
      w.group = i;
    });
  }
  // One write per row that differs (a row written is rewritten whole, its text and data too).
  const set = db.query("UPDATE entities SET doc_rank = ?, name_form = ?, group_rank = ? WHERE id = ?");
  let changed = 0;
  for (const { r, doc, form, group } of wanted) {
    if (r.doc_rank === doc && r.name_form === form && r.group_rank === group) continue;
    set.run(doc, form, group, r.id);
    changed++;
  }
  return changed;
}

/**
 * Make the stored ranks follow `preferred` (document keys; canonicalized): when the store records
 * another preference, record this one and recompute every rank, in one transaction. Returns true
 * when it recomputed. Throws what SQLite throws (read-only store, busy): the caller decides.
 */
export function setRankPreference(db: Database, preferred: readonly string[] = []): boolean {
  const id = documentRank(preferred).id;
  if (rankPreference(db) === id) return false;
  db.transaction(() => {
    setMeta(db, RANK_PREFERENCE_KEY, id);
    refreshGroupRanks(db);
  }).immediate();
  return true;
}
