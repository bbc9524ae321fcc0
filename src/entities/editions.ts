/**
 * Edition-correct wording. Some records carry several documents' wording of one thing (Open5e's
 * "core" conditions, damage types, skills, abilities, alignments: SRD 5.1, SRD 5.2 and A5E text in
 * `data.descriptions`). An answer quotes ONE of them and says which (`desc_document`): the first
 * document the caller asked for that the record has, else the first of the document preference
 * (newest SRD first), else the record's own main text. Pure.
 */
import type { DocDescription } from "./kinds.ts";
import { recs } from "./normalize/read.ts";
import type { JsonObject, JsonValue } from "./types.ts";

/** Documents to prefer, best first: the ones asked for, else the server's preference (`fallback`). */
export function documentPreference(
  requested: readonly string[] | null | undefined,
  fallback: readonly string[],
): string[] {
  return requested && requested.length > 0 ? requested.map((d) => d.toLowerCase()) : [...fallback];
}

function wordings(v: JsonValue | undefined): DocDescription[] {
  return recs(v).flatMap((x) => {
    if (typeof x.document_key !== "string" || typeof x.desc !== "string") return [];
    const name = typeof x.document_name === "string" ? x.document_name : x.document_key;
    return [{ document_key: x.document_key, document_name: name, desc: x.desc }];
  });
}

/**
 * `data` answering in one document's wording: `desc` from the preferred document, `desc_document`
 * and `desc_document_name` naming it, and (`compact`) `descriptions` replaced by `other_wordings`,
 * the keys of the other documents whose wording the full entry (its URI) holds. Data without
 * several wordings is returned as is.
 */
export function withWording(data: JsonObject, prefs: readonly string[], compact: boolean): JsonObject {
  const all = wordings(data.descriptions);
  if (all.length === 0) return data;
  const pick =
    prefs.map((p) => all.find((w) => w.document_key.toLowerCase() === p)).find((w) => w !== undefined) ??
    all.find((w) => w.desc === data.desc) ??
    all[0]!;
  const out: JsonObject = {
    ...data,
    desc: pick.desc,
    desc_document: pick.document_key,
    desc_document_name: pick.document_name,
  };
  if (compact) {
    delete out.descriptions;
    out.other_wordings = all.filter((w) => w !== pick).map((w) => w.document_key);
  }
  return out;
}
