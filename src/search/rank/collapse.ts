/**
 * One canonical entry per thing: entities of one kind and name form ("Horse, Draft" = "Draft
 * Horse", nameForm) from several documents are one group, showing its preferred document's entity
 * (preference.ts) and naming the others. A ranked list also puts a rule and its rule section
 * together; a structured list groups by the stored name form (store/canonical.ts) within a kind.
 */
import type { Database } from "bun:sqlite";
import { ID_IN, idList } from "../../store/id-list.ts";
import { nocase, type SqlValue, type WhereClause } from "../filter/filters.ts";
import { nameForm } from "../../entities/name-form.ts";
import { comparePreferred, type DocumentRank } from "../../entities/preference.ts";

/** The identity of one stored entity, enough to group and rank it. */
export interface LightRow {
  id: number;
  kind: string;
  name: string;
  document_key: string;
  document_source: string;
  key: string;
}

/** One canonical entry: the preferred member first, then the other versions in preference order. */
export interface Group {
  members: LightRow[];
}

export const LIGHT = "e.id, e.kind, e.name, e.document_key, e.document_source, e.key";

/**
 * Kinds that hold one thing twice: the dnd5eapi rule sections are the SRD rules that Open5e files as
 * rules ("Underwater Combat" is both), so a ranked list groups them as one.
 */
const KIND_FAMILY: Readonly<Record<string, string>> = { rule_section: "rule" };

/** The kinds grouped with `kind` (itself included). */
export function familyKinds(kind: string): string[] {
  const f = KIND_FAMILY[kind] ?? kind;
  return [f, ...Object.keys(KIND_FAMILY).filter((k) => KIND_FAMILY[k] === f)];
}

/** The group of a ranked row: its kind's family and its name form (nameForm). */
export function groupKey(r: { kind: string; name: string }): string {
  return `${KIND_FAMILY[r.kind] ?? r.kind}\u0000${nameForm(r.name)}`;
}

/**
 * The group of a structured (name-ordered) row of a store without stored name forms (an old store
 * opened read-only): kind and name as SQLite's NOCASE compares them (ASCII letters folded), so
 * SQL's GROUP BY and JS group alike.
 */
export function exactNameKey(r: { kind: string; name: string }): string {
  return `${r.kind}\u0000${nocase(r.name)}`;
}

/** A row with its stored name form (entities.name_form), and whether it matches the clause asked (`ok`). */
export interface FormRow extends LightRow {
  name_form: string | null;
  ok: number | null;
}

/** The group of a structured row: kind and stored name form (the kind alone decides, no family: SQL groups it). */
export function formKey(r: { kind: string; name: string; name_form?: string | null }): string {
  return `${r.kind}\u0000${r.name_form ?? nameForm(r.name)}`;
}

/** The distinct name forms of `groups`, per kind (a page's groups, each once). */
export function formsByKind(groups: ReadonlyArray<{ kind: string; name_form: string }>): Map<string, string[]> {
  const byKind = Map.groupBy(groups, (g) => g.kind);
  return new Map([...byKind].map(([kind, gs]) => [kind, [...new Set(gs.map((g) => g.name_form))]]));
}

/**
 * Every stored row of the given kinds and name forms, each once, with whether it matches `where`:
 * one statement per kind, its name forms bound as one JSON list (a seek per form in the
 * (kind, name_form) index), not one per group.
 */
export function sameFormRows(
  db: Database,
  groups: ReadonlyArray<{ kind: string; name_form: string }>,
  where: WhereClause,
): FormRow[] {
  const q = db.query<FormRow, SqlValue[]>(
    `SELECT ${LIGHT}, e.name_form, (${where.sql}) AS ok FROM entities e INDEXED BY entities_by_form WHERE ` +
      `e.kind = ? AND e.name_form IN (SELECT value FROM json_each(?))`,
  );
  return [...formsByKind(groups)].flatMap(([kind, forms]) => q.all(...where.params, kind, JSON.stringify(forms)));
}

/**
 * Every stored row of `kinds` with the name form `form`, with its group rank and whether it
 * matches `where` (`ok`): one statement, a seek per kind in the (kind, name_form) index. For a
 * lookup by exact name (page-order.ts exactNameGroups), whose matches all have that form.
 */
export function formRowsOfName(
  db: Database,
  kinds: readonly string[],
  form: string,
  where: WhereClause,
): Array<FormRow & { group_rank: number | null }> {
  return db
    .query<FormRow & { group_rank: number | null }, SqlValue[]>(
      `SELECT ${LIGHT}, e.name_form, e.group_rank, (${where.sql}) AS ok FROM entities e INDEXED BY ` +
        `entities_by_form WHERE e.kind IN (SELECT value FROM json_each(?)) AND e.name_form = ?`,
    )
    .all(...where.params, JSON.stringify(kinds), form);
}

/** Group rows (in their given order: a group sits where its first row does). Pure. */
export function groupRows(rows: readonly LightRow[], rank: DocumentRank): Group[] {
  const order = comparePreferred(rank);
  return [...Map.groupBy(rows, groupKey).values()].map((members) => ({ members: members.sort(order) }));
}

/** The light rows of some ids (any order). */
export function lightRows(db: Database, ids: readonly number[]): LightRow[] {
  if (ids.length === 0) return [];
  return db.query<LightRow, [string]>(`SELECT ${LIGHT} FROM entities e WHERE e.id ${ID_IN}`).all(idList(ids));
}

/**
 * Every candidate with one of the given kinds and names (the versions a page's groups hold): one
 * indexed query per kind (its names bound as one JSON list, compared as `name` is: NOCASE), kept by
 * the candidate set. With `family`, each name is looked up in every kind of its kind's family too
 * (a rule and its rule section). Each row once; in no particular order (callers order members).
 */
export function sameNameRows(
  db: Database,
  isCandidate: (id: number) => boolean,
  groups: ReadonlyArray<{ kind: string; name: string }>,
  family = false,
): LightRow[] {
  const asked = groups.flatMap((g) =>
    (family ? familyKinds(g.kind) : [g.kind]).map((kind) => ({ kind, name: g.name })),
  );
  // Each kind and name once (as NOCASE compares it): a row then matches one name of one statement.
  const unique = new Map(asked.map((a) => [exactNameKey(a), a]));
  const q = db.query<LightRow, [string, string]>(
    `SELECT ${LIGHT} FROM entities e WHERE e.kind = ? AND e.name IN (SELECT value FROM json_each(?))`,
  );
  return [...Map.groupBy(unique.values(), (a) => a.kind)].flatMap(([kind, names]) =>
    q.all(kind, JSON.stringify(names.map((a) => a.name))).filter((r) => isCandidate(r.id)),
  );
}
