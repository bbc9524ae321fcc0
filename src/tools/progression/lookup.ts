/**
 * Store side of class progressions: a class (and subclass) by key, address key
 * (`open5e_v1:wizard`) or name, the document it comes from chosen by the caller or by the server's
 * document preference (preference.ts; then the version with a level table). An answer from another
 * document than the preferred one says so in `note`.
 */
import type { Database } from "bun:sqlite";
import type { ClassData } from "../../entities/kinds.ts";
import { resolveDocumentKey } from "../../entities/normalize/documents.ts";
import { type Entity, slugify } from "../../entities/types.ts";
import { type EntityRow, rowToEntity } from "../../store/entities.ts";
import { entityUri, parseUriKey } from "../../entities/uri.ts";
import { documentRank } from "../../entities/preference.ts";
import { srd51Columns } from "./srd-columns.ts";
import { buildProgression, type LevelRow, parseMarkdownTable } from "./table.ts";

export interface ClassLevels {
  class: Ident;
  subclass?: Ident;
  columns: string[];
  levels: LevelRow[];
  /** Other documents that have this class (pass one as `documents` to read theirs). */
  other_documents: string[];
  note?: string;
}

type Ident = { key: string; name: string; document_key: string; uri: string };

function lookup(
  db: Database,
  kind: "class" | "subclass",
  ref: string,
  requested?: readonly string[],
  prefer?: readonly string[],
): Entity[] {
  // Aliases ("srd-5e", "wotc-srd") resolve as in the search tools.
  const documents = requested?.flatMap((d) => [d, resolveDocumentKey(d.trim().toLowerCase())]);
  const docs = documents?.length ? ` AND e.document_key IN (${documents.map(() => "?").join(",")})` : "";
  // A qualified address key ("open5e_v1:wizard") names its source.
  const at = parseUriKey(ref);
  const src = at.sources.length === 1 ? " AND e.document_source = ?" : "";
  const order =
    `ORDER BY ${documentRank(prefer).sql}, (json_extract(e.data, '$.table') IS NOT NULL) DESC, ` +
    `e.document_source, e.document_key, e.key`;
  const rows = db
    .query<EntityRow, string[]>(
      `SELECT e.* FROM entities e WHERE e.kind = ? AND (e.key = ? OR e.name = ? OR e.slug = ` +
        `?)${src}${docs} ${order} LIMIT 50`,
    )
    .all(kind, at.key, ref, slugify(ref), ...(at.sources.length === 1 ? [at.sources[0]!] : []), ...(documents ?? []));
  return rows.map(rowToEntity);
}

/** The number of columns of a class's level table (0 without one). */
function tableWidth(e: Entity): number {
  const t = (e.data as unknown as ClassData).table;
  return t ? (parseMarkdownTable(t)?.head.length ?? 0) : 0;
}

/**
 * The version of `first` with the widest level table among its document's copies (several sources
 * sync the same SRD class, under other keys): Open5e v2's SRD 5.1 Rogue has no Sneak Attack
 * column, the D&D 5e API's has. Asked by either key, the class answers with the whole table.
 */
function mostComplete(db: Database, first: Entity | undefined): Entity | undefined {
  if (!first) return undefined;
  const copies = db
    .query<EntityRow, [string, string]>(
      "SELECT * FROM entities WHERE kind = 'class' AND name = ? COLLATE NOCASE AND document_key = ? COLLATE NOCASE " +
        "ORDER BY document_source, key",
    )
    .all(first.name, first.document_key)
    .map(rowToEntity);
  let best = first;
  for (const e of copies) if (tableWidth(e) > tableWidth(best)) best = e;
  return best;
}

/** What an answer lacking some of the SRD's class columns says (SRD 5.1 classes: the tables of the SRD). */
function missingColumnsNote(cls: Entity, rows: readonly LevelRow[], columns: readonly string[]): string | null {
  if (cls.document_key !== "srd-2014") return null;
  const missing = srd51Columns(cls.name).filter((c) => !hasColumn(c, rows, columns));
  if (missing.length === 0) return null;
  const noun = `column${missing.length > 1 ? "s" : ""}`;
  return (
    `This table lacks the SRD's ${missing.join(", ")} ${noun} (${cls.document_source} does not carry them): ` +
    "run `lorekeeper sync --source dnd5e_api --types 2014/classes` to add the D&D 5e API's 2014 class levels, " +
    "or `lorekeeper sync --source open5e_v1`."
  );
}

function hasColumn(c: string, rows: readonly LevelRow[], columns: readonly string[]): boolean {
  if (c === "Cantrips Known") return rows.some((r) => r.cantrips_known !== undefined);
  if (c === "Spells Known") return rows.some((r) => r.spells_known !== undefined);
  if (c === "Spell Slots") return rows.some((r) => r.spell_slots !== undefined);
  return columns.includes(c);
}

/** What an answer says about a class or subclass; its uri is the one its resource answers at. */
function ident({ key, name, document_key, kind, document_source }: Entity): Ident {
  return { key, name, document_key, uri: entityUri(kind, key, document_source) };
}

/** The level table, or a sentence saying what was not found. */
export function classLevels(
  db: Database,
  opts: { class: string; subclass?: string; documents?: readonly string[]; prefer?: readonly string[] },
): ClassLevels | string {
  const classes = lookup(db, "class", opts.class.trim(), opts.documents, opts.prefer);
  const cls = mostComplete(db, classes[0]);
  if (!cls) {
    const known = db
      .query<{ name: string }, []>("SELECT DISTINCT name FROM entities WHERE kind = 'class' ORDER BY name LIMIT 40")
      .all()
      .map((r) => r.name);
    const where = opts.documents?.length ? ` in ${opts.documents.join(", ")}` : "";
    return (
      `No class "${opts.class}"${where} in the local ` +
      `store.${known.length ? ` Classes: ${known.join(", ")}.` : " Run `lorekeeper sync` to download the class data."}`
    );
  }
  let sub: Entity | undefined;
  if (opts.subclass) {
    const subs = lookup(db, "subclass", opts.subclass.trim(), undefined, opts.prefer).filter((s) => {
      const parent = (s.data as unknown as ClassData).subclass_of;
      return !parent || parent.name.toLowerCase() === cls.name.toLowerCase() || parent.key === cls.key;
    });
    sub = subs.find((s) => s.document_key === cls.document_key) ?? subs[0];
    if (!sub) {
      const ofClass = db
        .query<{ name: string }, [string]>(
          "SELECT DISTINCT name FROM entities WHERE kind = 'subclass' AND lower(json_extract(data, " +
            "'$.subclass_of.name')) = lower(?) ORDER BY name LIMIT 40",
        )
        .all(cls.name)
        .map((r) => r.name);
      return (
        `No ${cls.name} subclass "${opts.subclass}" in the local ` +
        `store.${ofClass.length ? ` ${cls.name} subclasses: ${ofClass.join(", ")}.` : ""}`
      );
    }
  }
  const p = buildProgression(
    { data: cls.data as unknown as ClassData },
    sub ? { name: sub.name, data: sub.data as unknown as ClassData } : undefined,
  );
  const others = [...new Set(lookup(db, "class", cls.name, undefined, opts.prefer).map((e) => e.document_key))].filter(
    (d) => d !== cls.document_key,
  );
  // Not from the first preferred document (and none was asked for): say so.
  const rank = documentRank(opts.prefer);
  const first = [...rank.preferred, "srd-2024"][0]!;
  const fallback =
    !opts.documents?.length && rank(cls) > 0
      ? `From ${cls.document_key}: the preferred document ${first} has no ${cls.name}.`
      : null;
  const note = [fallback, p.note, missingColumnsNote(cls, p.rows, p.columns)].filter(Boolean).join(" ");
  return {
    class: ident(cls),
    ...(sub ? { subclass: ident(sub) } : {}),
    columns: p.columns,
    levels: p.rows,
    other_documents: others,
    ...(note ? { note } : {}),
  };
}
