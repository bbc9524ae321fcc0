/**
 * Entity rows: atomic replace of one origin (a content type of a source, or an OrcBrew pack),
 * and reading rows back as canonical entities.
 */
import type { Database } from "bun:sqlite";
import type { DocumentInfo, DocumentSource, Entity, EntityFilters, EntityKind, JsonObject } from "../entities/types.ts";
import { slugify } from "../entities/types.ts";
import { straightApostrophes } from "../entities/derived.ts";
import {
  DERIVED_COLUMNS,
  derivedValues,
  FILTER_PARAMS,
  SOURCE_COLUMNS,
  type DerivedColumn,
} from "../entities/filters.ts";
import { upsertDocuments } from "./documents.ts";
import { CACHES } from "./caches.ts";
import { refreshDuplicates } from "./duplicates.ts";
import { refreshGroupRanks, storedRank } from "./canonical.ts";
import { ID_IN, idList } from "./id-list.ts";
import type { VersionMemo } from "./version-cache.ts";
import { TRAITS_ORIGIN, traitEntities, type TraitSourceRow } from "../entities/traits.ts";

export interface ReplaceResult {
  inserted: number;
  updated: number;
  unchanged: number;
  deleted: number;
}

/** The filter columns the normalizers fill (the filter table's, src/entities/filters.ts) and `also_documents`. */
const FILTER_COLUMNS: readonly (keyof EntityFilters)[] = [...SOURCE_COLUMNS, "also_documents"];
/** Filter columns stored as "|a|b|" lists, and as 0/1 booleans (read back as arrays and booleans). */
const LIST_COLUMNS = new Set<string>([
  ...FILTER_PARAMS.filter((p) => p.match === "has" || p.match === "has_all").map((p) => p.column.column),
  "also_documents",
]);
const BOOL_COLUMNS = new Set<string>(FILTER_PARAMS.filter((p) => p.input.type === "bool").map((p) => p.column.column));

type SqlValue = string | number | null;

/** The columns of an entity's own fields (besides its text and data). */
export const ENTITY_COLUMNS = [
  "origin",
  "kind",
  "key",
  "name",
  "document_key",
  "document_name",
  "document_source",
  "source_url",
] as const;
/** The columns a write sets, and those an update may change (a row's source, kind and key stay). */
const WRITTEN: string[] = [
  ...ENTITY_COLUMNS,
  "slug",
  ...FILTER_COLUMNS,
  ...DERIVED_COLUMNS,
  "text",
  "data",
  "content_hash",
  "updated_at",
];
const UPDATED = WRITTEN.filter((c) => !["kind", "key", "document_source"].includes(c));

/** The derived column values of `e`, as stored. */
export function derivedColumnValues(
  e: Pick<Entity, "kind" | "name" | "data"> & { filters?: Entity["filters"] },
): Record<DerivedColumn, SqlValue> {
  const d = derivedValues(e);
  const out = {} as Record<DerivedColumn, SqlValue>;
  for (const c of DERIVED_COLUMNS) {
    const v = d[c];
    out[c] = v === null ? null : typeof v === "boolean" ? (v ? 1 : 0) : encodeList(v);
  }
  return out;
}

/** "|a|b|" so that `LIKE '%|a|%'` matches one element exactly. */
function encodeList(xs: string[] | undefined): string | null {
  if (!xs || xs.length === 0) return null;
  const clean = [...new Set(xs.map((x) => x.trim().toLowerCase()).filter((x) => x.length > 0))];
  return clean.length ? `|${clean.join("|")}|` : null;
}

function decodeList(s: string | null): string[] {
  return s ? s.split("|").filter((x) => x.length > 0) : [];
}

function filterValue(col: keyof EntityFilters, f: EntityFilters): SqlValue {
  const v = f[col];
  if (v === undefined || v === null) return null;
  if (Array.isArray(v)) return encodeList(v);
  if (typeof v === "boolean") return v ? 1 : 0;
  if (typeof v === "number") return Number.isFinite(v) ? v : null;
  return v;
}

export function contentHash(e: Entity): string {
  const { kind, key, name, document_key, document_name, source_url, text, filters, data } = e;
  const fields = [kind, key, name, document_key, document_name, source_url, text, filters, data];
  return new Bun.CryptoHasher("sha1").update(JSON.stringify(fields)).digest("hex");
}

/**
 * Replace every entity of `origin` with `entities` in one IMMEDIATE transaction: readers see either
 * the old set or the new one. Unchanged rows keep their id (and their vector); changed rows lose
 * their vector (re-embedded later); rows no longer present are deleted (vectors cascade), unless
 * `keepMissing`: the set is known to be incomplete (an upstream failed to return some records), so
 * absence proves nothing and the stored rows stay.
 */
export function replaceOrigin(
  db: Database,
  origin: string,
  entities: Entity[],
  documents: DocumentInfo[] = [],
  opts: { keepMissing?: boolean } = {},
): ReplaceResult {
  const result: ReplaceResult = { inserted: 0, updated: 0, unchanged: 0, deleted: 0 };
  const now = Date.now();
  const insert = db.query(`INSERT INTO entities (${WRITTEN.join(",")}) VALUES (${WRITTEN.map(() => "?").join(",")})`);
  const update = db.query(`UPDATE entities SET ${UPDATED.map((c) => `${c} = ?`).join(", ")} WHERE id = ?`);
  const find = db.query<{ id: number; content_hash: string; origin: string }, [string, string, string]>(
    "SELECT id, content_hash, origin FROM entities WHERE document_source = ? AND kind = ? AND key = ?",
  );
  const dropVector = db.query("DELETE FROM vectors WHERE entity_id = ?");
  const existing = db.query<{ id: number; kind: string }, [string]>("SELECT id, kind FROM entities WHERE origin = ?");
  const del = db.query("DELETE FROM entities WHERE id = ?");

  db.transaction(() => {
    upsertDocuments(db, documents);
    const seen = new Set<number>();
    for (const e of entities) {
      const hash = contentHash(e);
      const values: Record<string, SqlValue> = {
        slug: slugify(e.name),
        text: e.text,
        data: JSON.stringify(e.data),
        content_hash: hash,
        updated_at: now,
        ...derivedColumnValues(e),
      };
      for (const c of ENTITY_COLUMNS) values[c] = c === "origin" ? origin : e[c];
      for (const c of FILTER_COLUMNS) values[c] = filterValue(c, e.filters);
      const row = find.get(e.document_source, e.kind, e.key);
      if (!row) {
        seen.add(Number(insert.run(...WRITTEN.map((c) => values[c] ?? null)).lastInsertRowid));
        result.inserted++;
        continue;
      }
      // Twice in the same batch: the last one wins, counted once.
      const again = seen.has(row.id);
      seen.add(row.id);
      if (!again && row.content_hash === hash && row.origin === origin) {
        result.unchanged++;
        continue;
      }
      update.run(...UPDATED.map((c) => values[c] ?? null), row.id);
      dropVector.run(row.id);
      if (!again) result.updated++;
    }
    const kinds = new Set<string>(entities.map((e) => e.kind));
    for (const { id, kind } of existing.all(origin)) {
      kinds.add(kind);
      if (!seen.has(id) && !opts.keepMissing) {
        del.run(id);
        result.deleted++;
      }
    }
    rederive(db, [...kinds], origin);
  }).immediate();
  return result;
}

/** What depends on the rows of `kinds` after a write of `origin`: duplicate marks, ranks, trait rows. */
function rederive(db: Database, kinds: string[], origin: string): void {
  refreshDuplicates(db, kinds);
  refreshGroupRanks(db, kinds);
  if (kinds.includes("creature") && origin !== TRAITS_ORIGIN) refreshTraits(db);
}

/** `s` as the words it is matched by, padded so that `includes` matches whole words only. */
const asWords = (s: string) => ` ${s.replace(/[^a-z0-9']+/g, " ").trim()} `;

/**
 * `kinds` without monster traits unless `text` names a stored one as whole words ("what does pack
 * tactics do"): otherwise a trait sharing a thing's name ("Water Breathing") would crowd out the thing itself.
 */
export function traitsOnlyWhenNamed<K extends string>(db: Database, kinds: readonly K[], text: string): readonly K[] {
  // The names as words, made once per store version (not per call).
  const names = CACHES.traitNames.get(db, () =>
    db
      .query<{ name: string }, []>("SELECT DISTINCT lower(name) AS name FROM entities WHERE kind = 'trait'")
      .all()
      .map((r) => asWords(r.name)),
  );
  const words = asWords(straightApostrophes(text.toLowerCase()));
  return names.some((n) => words.includes(n)) ? kinds : kinds.filter((k) => k !== "trait");
}

/**
 * Rebuild the trait reference rows (entities/traits.ts) from the answering creatures, by the stored
 * document preference, as the origin TRAITS_ORIGIN. Every write of creatures calls it in its
 * transaction (so does a change of preference, server/deps.ts, and migration 9 for a store
 * written before); unchanged rows keep their id and vector.
 */
export function refreshTraits(db: Database): ReplaceResult {
  const rows = db
    .query<Omit<TraitSourceRow, "data"> & { data: string }, []>(
      "SELECT key, name, document_key, document_name, document_source, source_url, data FROM entities WHERE kind = " +
        "'creature' AND dup_of IS NULL",
    )
    .all();
  const creatures: TraitSourceRow[] = [];
  for (const r of rows) {
    try {
      creatures.push({ ...r, data: JSON.parse(r.data) as JsonObject });
    } catch {
      // a damaged row is left out (doctor reports it)
    }
  }
  return replaceOrigin(db, TRAITS_ORIGIN, traitEntities(creatures, storedRank(db)));
}

/** How many entities an origin holds. */
export function countOrigin(db: Database, origin: string): number {
  return db.query<{ n: number }, [string]>("SELECT COUNT(*) AS n FROM entities WHERE origin = ?").get(origin)?.n ?? 0;
}

/** Remove every entity of an origin (e.g. an OrcBrew pack). Returns the number deleted. */
export function deleteOrigin(db: Database, origin: string): number {
  return db.transaction(() => {
    const kinds = db
      .query<{ kind: string }, [string]>("SELECT DISTINCT kind FROM entities WHERE origin = ?")
      .all(origin)
      .map((r) => r.kind);
    const n = db.query("DELETE FROM entities WHERE origin = ?").run(origin).changes;
    rederive(db, kinds, origin);
    return n;
  })();
}

/** A stored row as read: the entity's columns, text and data, and any other column. */
export type EntityRow = { id: number } & Record<(typeof ENTITY_COLUMNS)[number] | "text" | "data", string> &
  Record<string, SqlValue>;

/** A stored row → the canonical entity (filters decoded). */
export function rowToEntity(row: EntityRow): Entity & { id: number } {
  const filters: EntityFilters = {};
  const f = filters as Record<string, unknown>;
  for (const c of FILTER_COLUMNS) {
    const v = row[c];
    if (v === null || v === undefined) continue;
    if (LIST_COLUMNS.has(c)) f[c] = decodeList(v as string);
    else if (BOOL_COLUMNS.has(c)) f[c] = v === 1;
    else f[c] = v;
  }
  return {
    id: row.id,
    kind: row.kind as EntityKind,
    key: row.key,
    name: row.name,
    document_key: row.document_key,
    document_name: row.document_name,
    document_source: row.document_source as DocumentSource,
    source_url: row.source_url,
    text: row.text,
    filters,
    data: JSON.parse(row.data) as JsonObject,
  };
}

/** The columns of `entities e` that rowToEntity reads, but the search `text` (answers never show it). */
const WITHOUT_TEXT = ["id", ...ENTITY_COLUMNS, ...FILTER_COLUMNS, "data"]
  .map((c) => `e.${c}`)
  .concat("'' AS text")
  .join(", ");

/** Entities by id; `withText` false leaves their `text` empty (cheaper: tool answers never show it). */
export function getEntitiesByIds(db: Database, ids: number[], withText = true): Map<number, Entity & { id: number }> {
  const out = new Map<number, Entity & { id: number }>();
  if (ids.length === 0) return out;
  const rows = db
    .query<EntityRow, [string]>(`SELECT ${withText ? "e.*" : WITHOUT_TEXT} FROM entities e WHERE e.id ${ID_IN}`)
    .all(idList(ids));
  for (const r of rows) out.set(r.id, rowToEntity(r));
  return out;
}

export function getEntityByKey(db: Database, kind: EntityKind, key: string): (Entity & { id: number }) | undefined {
  const row = db
    .query<EntityRow, [string, string]>(
      "SELECT * FROM entities WHERE kind = ? AND key = ? ORDER BY document_source LIMIT 1",
    )
    .get(kind, key);
  return row ? rowToEntity(row) : undefined;
}

/** The entity of `kind` and `key` from the first of `sources` that has one (entity addresses, src/entities/uri.ts). */
export function getEntityBySourceKey(
  db: Database,
  kind: EntityKind,
  sources: readonly string[],
  key: string,
): (Entity & { id: number; dup_of: number | null }) | undefined {
  const q = db.query<EntityRow, [string, string, string]>(
    "SELECT * FROM entities WHERE kind = ? AND document_source = ? AND key = ?",
  );
  for (const s of sources) {
    const row = q.get(kind, s, key);
    if (row) return { ...rowToEntity(row), dup_of: typeof row.dup_of === "number" ? row.dup_of : null };
  }
  return undefined;
}

export function countByKind(db: Database): Record<string, number> {
  // Entries, as `documents` counts them: a copy another source's entry answers for is not one.
  const rows = db.query<{ kind: string; n: number }, []>(
    "SELECT kind, COUNT(*) AS n FROM entities WHERE dup_of IS NULL GROUP BY kind",
  );
  return Object.fromEntries(rows.all().map((r) => [r.kind, r.n]));
}

/**
 * Kinds among `kinds` the store holds no entity of. A kind found non-empty is remembered until the
 * store changes (version-cache.ts), so a warm call runs no query per kind. `version`: the store
 * version a caller has read already (one change-token read per call), else the current one.
 */
export function emptyKinds(
  db: Database,
  kinds: readonly EntityKind[],
  version: Database | VersionMemo = db,
): EntityKind[] {
  const nonEmpty = CACHES.nonEmptyKinds.get(version, () => new Set<EntityKind>());
  return kinds.filter((k) => {
    if (nonEmpty.has(k)) return false;
    if (db.query<{ x: number }, [string]>("SELECT 1 AS x FROM entities WHERE kind = ? LIMIT 1").get(k) === null)
      return true;
    nonEmpty.add(k);
    return false;
  });
}
