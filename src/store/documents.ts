/** Document metadata (books / packs) and per-document counts. */
import type { Database } from "bun:sqlite";
import type { DocumentInfo, DocumentSource } from "../entities/types.ts";
import { sourceRank } from "../sources/index.ts";

export function upsertDocuments(db: Database, docs: DocumentInfo[]): void {
  if (docs.length === 0) return;
  const q = db.query(
    `INSERT INTO documents (source, key, name, publisher, license, url, description, updated_at) VALUES ` +
      `(?,?,?,?,?,?,?,?)
     ON CONFLICT(source, key) DO UPDATE SET name=excluded.name,
       publisher=COALESCE(excluded.publisher, documents.publisher), license=COALESCE(excluded.license, ` +
      `documents.license),
       url=COALESCE(excluded.url, documents.url), description=COALESCE(excluded.description, documents.description),
       updated_at=excluded.updated_at`,
  );
  const now = Date.now();
  for (const d of docs)
    q.run(d.source, d.key, d.name, d.publisher ?? null, d.license ?? null, d.url ?? null, d.description ?? null, now);
}

export interface DocumentSummary extends DocumentInfo {
  entity_count: number;
  counts: Record<string, number>;
}

/**
 * Documents that hold at least one entity (plus metadata when known), sorted by entity_count desc,
 * then key. Documents known only from metadata and holding nothing are left out.
 */
export function listDocuments(db: Database, source?: DocumentSource): DocumentSummary[] {
  const rows = db
    .query<{ document_source: string; document_key: string; document_name: string; kind: string; n: number }, string[]>(
      `SELECT document_source, document_key, MAX(document_name) AS document_name, kind, COUNT(*) AS n
       FROM entities ${source ? "WHERE document_source = ?" : ""}
       GROUP BY document_source, document_key, kind`,
    )
    .all(...(source ? [source] : []));
  const q = db.query<DocumentInfo, []>("SELECT source, key, name, publisher, license, url, description FROM documents");
  const meta = new Map(q.all().map((m) => [`${m.source}\u0000${m.key.toLowerCase()}`, m]));
  const docs = new Map<string, DocumentSummary>();
  for (const r of rows) {
    const id = `${r.document_source}\u0000${r.document_key.toLowerCase()}`;
    const d = docs.getOrInsertComputed(id, () => {
      const m = meta.get(id);
      return {
        key: r.document_key,
        name: m?.name ?? r.document_name,
        source: r.document_source as DocumentSource,
        publisher: m?.publisher ?? null,
        license: m?.license ?? null,
        url: m?.url ?? null,
        description: m?.description ?? null,
        entity_count: 0,
        counts: {},
      };
    });
    d.counts[r.kind] = r.n;
    d.entity_count += r.n;
  }
  return [...docs.values()].sort(
    (a, b) => b.entity_count - a.entity_count || a.key.localeCompare(b.key) || a.source.localeCompare(b.source),
  );
}

export interface DocumentByKey {
  key: string;
  name: string;
  /** the sources holding it, the one whose copies answer first */
  sources: DocumentSource[];
  /** entities that answer (a copy of the same entity from a less preferred source is not counted again) */
  entity_count: number;
  counts: Record<string, number>;
}

/**
 * One row per document, whatever sources hold it (SRD 5.1 from Open5e v2, v1 and the D&D 5e API is
 * one row), counting each entity once (copies marked `dup_of` left out). Sorted like listDocuments;
 * `docs` is listDocuments' answer when the caller has it already.
 */
export function listDocumentsByKey(
  db: Database,
  source?: DocumentSource,
  docs = listDocuments(db, source),
): DocumentByKey[] {
  const out = new Map<string, DocumentByKey>();
  for (const d of docs) {
    const k = d.key.toLowerCase();
    const row = out.get(k);
    if (row) row.sources.push(d.source);
    else out.set(k, { key: d.key, name: d.name, sources: [d.source], entity_count: 0, counts: {} });
  }
  const rows = db
    .query<{ k: string; kind: string; n: number }, string[]>(
      `SELECT lower(document_key) AS k, kind, COUNT(*) AS n FROM entities WHERE dup_of IS NULL ` +
        `${source ? "AND document_source = ?" : ""} GROUP BY lower(document_key), kind`,
    )
    .all(...(source ? [source] : []));
  for (const r of rows) {
    const d = out.get(r.k);
    if (!d) continue;
    d.counts[r.kind] = r.n;
    d.entity_count += r.n;
  }
  for (const d of out.values()) d.sources.sort((a, b) => sourceRank(a) - sourceRank(b));
  return [...out.values()].sort((a, b) => b.entity_count - a.entity_count || a.key.localeCompare(b.key));
}

/** Every distinct document key that holds entities (for "unknown document" messages). */
export function documentKeys(db: Database): string[] {
  const keys = new Set(
    db
      .query<{ k: string }, []>("SELECT DISTINCT document_key AS k FROM entities")
      .all()
      .map((r) => r.k),
  );
  for (const r of db
    .query<{ a: string }, []>("SELECT DISTINCT also_documents AS a FROM entities WHERE also_documents IS NOT NULL")
    .all()) {
    for (const k of r.a.split("|")) if (k) keys.add(k);
  }
  return [...keys].sort();
}

export type DocumentRow = Omit<DocumentByKey, "sources"> & {
  source: string;
  publisher: string | null;
  license: string | null;
};

/**
 * The public rows, one per document whatever sources hold it, as `lorekeeper documents` shows them:
 * `source` names every source holding it ("open5e_v2+dnd5e_api"), the answering one first, and
 * each entity counts once (listDocumentsByKey). Publisher and license from the first source that
 * knows them.
 */
export function mergedDocumentRows(db: Database, source?: DocumentSource): DocumentRow[] {
  const docs = listDocuments(db, source);
  const meta = new Map(docs.map((d) => [`${d.key.toLowerCase()}\u0000${d.source}`, d]));
  return listDocumentsByKey(db, source, docs).map((d) => {
    const known = d.sources.map((s) => meta.get(`${d.key.toLowerCase()}\u0000${s}`)).filter((m) => m !== undefined);
    return {
      key: d.key,
      name: d.name,
      source: d.sources.join("+"),
      publisher: known.find((m) => m.publisher)?.publisher ?? null,
      license: known.find((m) => m.license)?.license ?? null,
      entity_count: d.entity_count,
      counts: d.counts,
    };
  });
}
