/**
 * Store side of class progressions: a class (and subclass) by key or name, the document it comes
 * from chosen by the caller or by preference (the one with a level table, newest SRD first).
 */
import type { Database } from "bun:sqlite";
import type { ClassData } from "../../entities/kinds.ts";
import { resolveDocumentKey } from "../../entities/normalize/documents.ts";
import { type Entity, slugify } from "../../entities/types.ts";
import { type EntityRow, rowToEntity } from "../../store/entities.ts";
import { entityUri } from "../response.ts";
import { parseUriKey } from "../../entities/uri.ts";
import { buildProgression, type LevelRow } from "./table.ts";

export interface ClassLevels {
  class: { key: string; name: string; document_key: string; uri: string };
  subclass?: { key: string; name: string; document_key: string; uri: string };
  columns: string[];
  levels: LevelRow[];
  /** Other documents that have this class (pass one as `documents` to read theirs). */
  other_documents: string[];
  note?: string;
}

const ORDER = "ORDER BY (json_extract(data, '$.table') IS NOT NULL) DESC, (document_key = 'srd-2024') DESC, (document_key = 'srd-2014') DESC, document_source, document_key, key";

function lookup(db: Database, kind: "class" | "subclass", ref: string, requested?: readonly string[]): Entity[] {
  // Aliases ("srd-5e", "wotc-srd") resolve as in the search tools.
  const documents = requested?.flatMap((d) => [d, resolveDocumentKey(d.trim().toLowerCase())]);
  const docs = documents?.length ? ` AND document_key IN (${documents.map(() => "?").join(",")})` : "";
  // A key as it appears in a uri: "orcbrew:<key>" / "open5e_v1:<key>" names its source.
  const where = parseUriKey(ref);
  if (where.sources.length === 1) {
    const rows = db
      .query<EntityRow, string[]>(`SELECT * FROM entities WHERE kind = ? AND document_source = ? AND key = ?${docs} ${ORDER} LIMIT 50`)
      .all(kind, where.sources[0]!, where.key, ...(documents ?? []));
    if (rows.length) return rows.map(rowToEntity);
  }
  const rows = db
    .query<EntityRow, string[]>(`SELECT * FROM entities WHERE kind = ? AND (key = ? OR name = ? OR slug = ?)${docs} ${ORDER} LIMIT 50`)
    .all(kind, ref, ref, slugify(ref), ...(documents ?? []));
  return rows.map(rowToEntity);
}

/** What the answer says about a class or subclass; its uri is the one its resource answers at. */
const ident = (e: Entity) => ({ key: e.key, name: e.name, document_key: e.document_key, uri: entityUri(e.kind, e.key, e.document_source) });

/** The level table, or a sentence saying what was not found. */
export function classLevels(db: Database, opts: { class: string; subclass?: string; documents?: readonly string[] }): ClassLevels | string {
  const classes = lookup(db, "class", opts.class.trim(), opts.documents);
  const cls = classes[0];
  if (!cls) {
    const known = db.query<{ name: string }, []>("SELECT DISTINCT name FROM entities WHERE kind = 'class' ORDER BY name LIMIT 40").all().map((r) => r.name);
    const where = opts.documents?.length ? ` in ${opts.documents.join(", ")}` : "";
    return `No class "${opts.class}"${where} in the local store.${known.length ? ` Classes: ${known.join(", ")}.` : " Run `lorekeeper sync` to download the class data."}`;
  }
  let sub: Entity | undefined;
  if (opts.subclass) {
    const subs = lookup(db, "subclass", opts.subclass.trim()).filter((s) => {
      const parent = (s.data as unknown as ClassData).subclass_of;
      return !parent || parent.name.toLowerCase() === cls.name.toLowerCase() || parent.key === cls.key;
    });
    sub = subs.find((s) => s.document_key === cls.document_key) ?? subs[0];
    if (!sub) {
      const ofClass = db
        .query<{ name: string }, [string]>("SELECT DISTINCT name FROM entities WHERE kind = 'subclass' AND lower(json_extract(data, '$.subclass_of.name')) = lower(?) ORDER BY name LIMIT 40")
        .all(cls.name)
        .map((r) => r.name);
      return `No ${cls.name} subclass "${opts.subclass}" in the local store.${ofClass.length ? ` ${cls.name} subclasses: ${ofClass.join(", ")}.` : ""}`;
    }
  }
  const p = buildProgression({ name: cls.name, data: cls.data as unknown as ClassData }, sub ? { name: sub.name, data: sub.data as unknown as ClassData } : undefined);
  const others = [...new Set(lookup(db, "class", cls.name).map((e) => e.document_key))].filter((d) => d !== cls.document_key);
  return {
    class: ident(cls),
    ...(sub ? { subclass: ident(sub) } : {}),
    columns: p.columns,
    levels: p.rows,
    other_documents: others,
    ...(p.note ? { note: p.note } : {}),
  };
}
