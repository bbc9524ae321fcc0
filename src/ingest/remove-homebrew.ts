/**
 * Removing an imported homebrew document (an OrcBrew pack, a 5etools source): its entities (their
 * vectors cascade, their FTS rows go by trigger, the trait rows and duplicate marks of what remains
 * are derived again) and its documents row, in ONE transaction. Only homebrew can be removed: a
 * synced document (Open5e, the D&D 5e API, a content pack) is refused with the reason, since the
 * next sync would bring it back anyway. See docs/homebrew.md, "Removing a homebrew document".
 */
import type { Database } from "bun:sqlite";
import { HOMEBREW_SOURCES, HOMEBREW_SQL, isHomebrewSource } from "../entities/types.ts";
import { LoreKeeperError } from "../errors.ts";
import { SOURCES, sourceRank } from "../sources/index.ts";
import { storeFailure } from "../store/db.ts";
import { deleteOrigin } from "../store/entities.ts";

export interface RemovedDocument {
  key: string;
  name: string;
  /** "orcbrew" or "5etools" */
  source: string;
  entities: number;
  /** Stored embeddings that went with the entities. */
  vectors: number;
  /** Entities per kind. */
  counts: Record<string, number>;
}

function labelOf(source: string): string {
  return SOURCES.find((s) => s.id === source)?.label ?? source;
}

/** What removing `key` would take away, per homebrew source holding it (case does not matter). */
function holding(db: Database, key: string): RemovedDocument[] {
  const rows = db
    .query<{ source: string; key: string; name: string; kind: string; n: number; v: number }, [string]>(
      `SELECT e.document_source AS source, e.document_key AS key, MAX(e.document_name) AS name, e.kind AS kind,
              COUNT(*) AS n, COUNT(v.entity_id) AS v
       FROM entities e LEFT JOIN vectors v ON v.entity_id = e.id
       WHERE lower(e.document_key) = lower(?) AND e.document_source IN ${HOMEBREW_SQL}
       GROUP BY e.document_source, e.document_key, e.kind`,
    )
    .all(key);
  const out = new Map<string, RemovedDocument>();
  const doc = (m: { source: string; key: string; name: string }) => {
    let d = out.get(m.source);
    if (!d)
      out.set(m.source, (d = { key: m.key, name: m.name, source: m.source, entities: 0, vectors: 0, counts: {} }));
    return d;
  };
  for (const r of rows) {
    const d = doc(r);
    d.counts[r.kind] = r.n;
    d.entities += r.n;
    d.vectors += r.v;
  }
  // A document an import wrote with nothing in it (every record skipped) still has its row.
  const rowsOf = db.query<{ source: string; key: string; name: string }, [string]>(
    `SELECT source, key, name FROM documents WHERE lower(key) = lower(?) AND source IN ${HOMEBREW_SQL}`,
  );
  for (const m of rowsOf.all(key)) doc(m).name = m.name;
  return [...out.values()];
}

/** Homebrew document keys near `key` ("ember-forge" → "5etools-ember-forge"), and keys whose name is `key`. */
function nearKeys(db: Database, key: string): string[] {
  const k = key.toLowerCase().trim();
  const docs = db
    .query<{ key: string; name: string }, []>(
      `SELECT DISTINCT document_key AS key, document_name AS name FROM entities WHERE document_source IN ${HOMEBREW_SQL}
       UNION SELECT key, name FROM documents WHERE source IN ${HOMEBREW_SQL}`,
    )
    .all();
  const near = (d: { key: string; name: string }) => {
    const dk = d.key.toLowerCase();
    return d.name.toLowerCase() === k || dk.endsWith(`-${k}`) || (k.length >= 3 && dk.includes(k));
  };
  const hits = docs.filter(near);
  return [...new Set(hits.map((d) => d.key))].sort().slice(0, 5);
}

/**
 * Remove the homebrew document `key` (both formats; `source` narrows to one when a key is held by
 * both). `dryRun` reports what would go without writing. Throws a LoreKeeperError ("usage") for a
 * key that is not homebrew or not in the store, ("store") when the store cannot be written.
 */
export function removeHomebrewDocument(
  db: Database,
  key: string,
  opts: { source?: string; dryRun?: boolean } = {},
): RemovedDocument[] {
  if (opts.source !== undefined && !isHomebrewSource(opts.source)) {
    throw new LoreKeeperError(
      "usage",
      `only imported homebrew can be removed, and --source ${opts.source} is not a homebrew source`,
      `Homebrew sources: ${HOMEBREW_SOURCES.join(", ")}.`,
    );
  }
  const found = holding(db, key).filter((d) => opts.source === undefined || d.source === opts.source);
  if (found.length === 0) {
    const official = db
      .query<{ source: string; key: string }, [string, string]>(
        `SELECT DISTINCT document_source AS source, document_key AS key FROM entities
         WHERE lower(document_key) = lower(?) AND document_source NOT IN ${HOMEBREW_SQL}
         UNION SELECT source, key FROM documents WHERE lower(key) = lower(?) AND source NOT IN ${HOMEBREW_SQL}`,
      )
      .all(key, key);
    if (official.length > 0) {
      // Most preferred source first, as every list of sources is written.
      official.sort((a, b) => sourceRank(a.source) - sourceRank(b.source));
      const from = [...new Set(official.map((o) => labelOf(o.source)))].join(", ");
      throw new LoreKeeperError(
        "usage",
        `"${official[0]!.key}" is not homebrew: it comes from ${from} (synced content), and only imported ` +
          "homebrew documents (OrcBrew packs, 5etools sources) can be removed",
        "Synced documents stay in step with their source through `lorekeeper sync`; to leave one out of " +
          "answers, filter with documents=[…] or prefer others with --prefer-documents. " +
          "`lorekeeper documents --source orcbrew` or `--source 5etools` lists what can be removed.",
      );
    }
    const near = nearKeys(db, key);
    throw new LoreKeeperError(
      "usage",
      `no imported homebrew document has the key "${key}"${opts.source ? ` in ${opts.source}` : ""}`,
      near.length
        ? `Did you mean ${near.map((n) => `"${n}"`).join(" or ")}? Keys are the first column of ` +
            "`lorekeeper documents`."
        : "List the imported ones with `lorekeeper documents --source orcbrew` or `--source 5etools`; " +
            "the key is the first column.",
    );
  }
  if (found.length > 1) {
    const holders = found.map((d) => `${d.source} ("${d.name}", ${d.entities} entities)`).join(" and ");
    throw new LoreKeeperError(
      "usage",
      `the key "${key}" is held by ${holders}`,
      `Say which to remove with --source ${found.map((d) => d.source).join(" or --source ")}.`,
    );
  }
  if (opts.dryRun) return found;
  const doc = found[0]!;
  try {
    db.transaction(() => {
      const origins = db
        .query<{ origin: string }, [string, string]>(
          "SELECT DISTINCT origin FROM entities WHERE document_source = ? AND lower(document_key) = lower(?)",
        )
        .all(doc.source, doc.key)
        .map((r) => r.origin);
      // An import writes one origin per document; deleteOrigin also re-derives what depends on its
      // rows (duplicate marks, group ranks, trait rows). An origin shared with another document
      // would take that one along, so it is refused rather than half removed.
      const shared = db.query<{ n: number }, [string, string]>(
        "SELECT COUNT(*) AS n FROM entities WHERE origin = ? AND lower(document_key) <> lower(?)",
      );
      for (const o of origins) {
        if ((shared.get(o, doc.key)?.n ?? 0) === 0) continue;
        throw new LoreKeeperError(
          "store",
          `the import ${o} holds other documents besides ${doc.key}; nothing was removed`,
          "Import the file again and remove the document then, or run `lorekeeper doctor`.",
        );
      }
      for (const o of origins) deleteOrigin(db, o);
      db.query("DELETE FROM documents WHERE source = ? AND lower(key) = lower(?)").run(doc.source, doc.key);
    }).immediate();
  } catch (err) {
    // A LoreKeeperError of ours is no SQLite failure: storeFailure leaves it as it is.
    throw storeFailure(err, db.filename) ?? err;
  }
  return found;
}
