/**
 * Canonical-ness as a stored fact (docs/architecture.md). `entities.group_rank`: each entity's place
 * among those of its kind with the same name form (entities/name-form.ts) in the document
 * preference: 0 = the canonical version (NULL for `dup_of` copies, which never answer), so a
 * collapsed answer's groups are an indexed query with no GROUP BY (search/rank/page.ts).
 * `entities.doc_rank`: the place of the entity's document itself, by which collapsed lists are
 * ordered. Both follow the preference recorded in `meta` (`group_rank_preference`: the preferred
 * document keys, comma-separated; "" = the default order), recomputed for the kinds a write changed
 * and, for the whole store, when the server starts with another `--prefer-documents` — never per
 * call. A query with another preference is answered the slower way (GROUP BY), correctly.
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
  const answering = wanted.filter((w) => w.r.dup_of === null);
  const order = comparePreferred(rank);
  for (const g of Map.groupBy(answering, (w) => `${w.r.kind}\u0000${w.form}`).values()) {
    if (g.length > 1) g.sort((a, b) => order(a.r, b.r));
    for (const [i, w] of g.entries()) w.group = i;
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
