/**
 * The last step of a search: what each hit answers with.
 *   - One entity per thing per document: a hit whose document also has copies from less preferred
 *     sources (store/duplicates.ts) gets their extra fields, and `merged_from` says which came from
 *     where.
 *   - Edition-correct wording (entities/editions.ts): records carrying several documents' text
 *     answer in the one asked for (else the document preference) and name it.
 */
import type { Database } from "bun:sqlite";
import { isMagicItem } from "../../entities/derived.ts";
import { documentPreference, withWording } from "../../entities/editions.ts";
import { normalizePreference, OFFICIAL_SRDS } from "../../entities/preference.ts";
import type { Entity, JsonObject } from "../../entities/types.ts";
import { entityUri } from "../../entities/uri.ts";
import { duplicatesOf, mergeDuplicates } from "../../store/duplicates.ts";
import { getEntitiesByIds } from "../../store/entities.ts";
import type { SearchHit } from "../types.ts";

export interface PresentOptions {
  /** document keys the caller asked for (resolved), or null */
  documents: readonly string[] | null;
  /** the server's document preference (preference.ts); the official SRDs, newest first, follow it */
  prefer?: readonly string[];
  /** tool answers: one wording only (the others are named in `other_wordings`) */
  compact: boolean;
}

export function presentHits(db: Database, hits: SearchHit[], opts: PresentOptions): SearchHit[] {
  // A hit with its compact row made already was presented when that row was made (tools/answer/compact-bodies.ts).
  if (hits.every((h) => h.compact !== undefined)) return hits;
  // Copies not read with their entry (page.ts reads them together): read here.
  const dups = duplicatesOf(
    db,
    hits.flatMap((h) => (h.compact === undefined && h.duplicates === undefined ? [h.entity.id] : [])),
  );
  const dupEntities = dups.size
    ? getEntitiesByIds(db, [...dups.values()].flat(), false)
    : new Map<number, Entity & { id: number }>();
  const server = normalizePreference(opts.prefer);
  const prefs = documentPreference(opts.documents, [...server, ...OFFICIAL_SRDS.filter((k) => !server.includes(k))]);
  return hits.map((read) => {
    if (read.compact !== undefined) return read;
    // The copies are merged here and go no further.
    const { duplicates, ...h } = read;
    let data: JsonObject = h.entity.data;
    const copies = duplicates ?? (dups.get(h.entity.id) ?? []).flatMap((id) => dupEntities.get(id) ?? []);
    if (copies.length) {
      const m = mergeDuplicates(h.entity, copies);
      data = {
        ...m.data,
        merged_from: m.merged_from.map((x) => ({
          uri: entityUri(x.kind, x.key, x.source),
          source: x.source,
          fields: x.fields,
        })),
      };
    }
    data = withWording(data, prefs, opts.compact);
    if (h.entity.kind === "item" && isMagicItem("item", h.entity.name, data)) {
      const cat = typeof data.category === "string" ? ` (${data.category})` : "";
      data = { ...data, classified_as: `${h.entity.document_key} files it as an item${cat}, not a magic item` };
    }
    return data === h.entity.data ? h : { ...h, entity: { ...h.entity, data } };
  });
}
