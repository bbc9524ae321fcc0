/**
 * Result rows: compact (identity, the kind's scan fields from compact-fields.ts, a one-line summary) or full (every
 * field). Both name the other documents' versions of a collapsed entry. Pure.
 */
import type { Entity, JsonObject, JsonValue } from "../../entities/types.ts";
import type { OtherVersion, PreferredVersion, SearchHit } from "../../search/types.ts";
import { COMPACT_FIELDS, cutAtWord } from "./compact-fields.ts";
import { entityUri } from "../../entities/uri.ts";
import { type FlatResult, flattenEntity, roundScore } from "./response.ts";

export type Detail = "summary" | "full";

/** Longest one-line summary, in characters. */
export const SUMMARY_CHARS = 48;

/** Markdown and whitespace out: one plain line. */
function plain(s: string): string {
  return s
    .replace(/\|[-:| ]+\|/g, " ")
    .replace(/[*_#>`|]+/g, "")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\s+/g, " ")
    .trim();
}

/** The first sentence of `s`, at most `max` characters (cut at a word, with "…"). */
export function firstSentence(s: string, max = SUMMARY_CHARS): string {
  const p = plain(s);
  const m = /^(.+?[.!?])(\s|$)/.exec(p);
  return cutAtWord(m ? m[1]! : p, max);
}

function summaryOf(e: Entity): string | undefined {
  const d = e.data as JsonObject;
  if (typeof d.desc === "string" && plain(d.desc).length > 0) return firstSentence(d.desc);
  const fb = COMPACT_FIELDS[e.kind]?.fallback?.(d);
  return fb ? firstSentence(fb) : undefined;
}

/** The other documents' versions by document key → `value` of the first (preferred) one each holds. */
function versions<T>(
  others: readonly OtherVersion[] | undefined,
  own: string,
  value: (o: OtherVersion) => T,
): Record<string, T> | undefined {
  const out: Record<string, T> = {};
  for (const o of others ?? []) if (o.document_key !== own && !(o.document_key in out)) out[o.document_key] = value(o);
  return Object.keys(out).length ? out : undefined;
}

/** A compact row's body: the kind's scan fields (null, empty and false left out), then the summary. */
function compactFields(e: Entity): FlatResult {
  const out: FlatResult = {};
  const d = e.data as JsonObject;
  for (const spec of COMPACT_FIELDS[e.kind]?.fields ?? []) {
    const [field, from] = typeof spec === "string" ? [spec, spec] : spec;
    const v: JsonValue | undefined = typeof from === "string" ? d[from] : from(d);
    if (v === undefined || v === null || v === false || v === "" || (Array.isArray(v) && v.length === 0)) continue;
    out[field] = v;
  }
  // A core entry's profile says what it is better than its first 48 characters do; in a structured
  // list, where the profile is left out (rowsOf), its scan fields and name identify a core entry.
  const summary = out.profile === undefined ? summaryOf(e) : undefined;
  if (summary) out.summary = summary;
  return out;
}

/** Identity, score, the body (compactFields, or its JSON remembered), the other documents. */
function compactRowOf(e: Entity, body: FlatResult, similarity?: number, others?: readonly OtherVersion[]): FlatResult {
  // No `key`: the uri ends with it (lorekeeper://<kind>/<key>); full rows carry it.
  const out: FlatResult = {
    name: e.name,
    kind: e.kind,
    document_key: e.document_key,
    uri: entityUri(e.kind, e.key, e.document_source),
  };
  if (similarity !== undefined) out.similarity_score = roundScore(similarity);
  Object.assign(out, body);
  // The documents only: a compact row shows no uris of other versions (a full row does), so none is made.
  const v = versions(others, e.document_key, () => true);
  if (v) out.other_documents = Object.keys(v);
  return out;
}

/** A full row: every field (flattenEntity), then the other versions. */
function fullRow(e: Entity, similarity?: number, others?: readonly OtherVersion[]): FlatResult {
  const out = flattenEntity(e, similarity);
  const v = versions(others, e.document_key, (o) => entityUri(o.kind, o.key, o.document_source));
  if (v) out.other_versions = v;
  return out;
}

/** Why a row is not from the preferred document: that one's version has another name or does not match the filters. */
function editionNote(e: Entity, preferred: PreferredVersion): string {
  const uri = entityUri(preferred.kind, preferred.key, preferred.document_source);
  const doc = preferred.document_key;
  if (preferred.because === "name") {
    return `${e.document_key} version; the preferred ${doc} one is named "${preferred.name}" (${uri}).`;
  }
  return `${e.document_key} version: the preferred ${doc} ${e.name} does not match the filters (${uri}).`;
}

/** Rows of an answer to a search or a name that show a core entry's `profile` (the first ones). */
export const PROFILE_ROWS = 3;

/**
 * The answer's rows. `profile: false` (a structured list, scanned by its fields, where 20 profiles would take a
 * quarter of the answer) leaves the compact rows' `profile` out. `remember` keeps each compact body made here.
 */
export function rowsOf(
  hits: readonly SearchHit[],
  detail: Detail,
  opts: { profile?: boolean; remember?: (id: number, body: string) => void } = {},
): FlatResult[] {
  const shown = new Set<JsonValue>();
  return hits.map((h, i) => {
    if (h.compact !== undefined && detail === "full")
      throw new Error("a full row was asked of a hit that carries its compact row only");
    let row: FlatResult;
    // A remembered body (tools/answer/compact-bodies.ts): the same fields in the same order as compactFields.
    if (h.compact !== undefined) row = compactRowOf(h.entity, JSON.parse(h.compact), h.similarity_score, h.others);
    else if (detail === "full") row = fullRow(h.entity, h.similarity_score, h.others);
    else {
      const body = compactFields(h.entity);
      opts.remember?.(h.entity.id, JSON.stringify(body));
      row = compactRowOf(h.entity, body, h.similarity_score, h.others);
    }
    // The reader weighs the first few rows; past them the other editions are one `uri` away, and a profile
    // already shown (an item family's variants share one) says nothing new.
    if (detail !== "full" && i >= PROFILE_ROWS) delete row.other_documents;
    if (detail !== "full" && row.profile !== undefined) {
      if (opts.profile === false || i >= PROFILE_ROWS || shown.has(row.profile)) delete row.profile;
      else shown.add(row.profile);
    }
    if (h.preferred_version) row.edition_note = editionNote(h.entity, h.preferred_version);
    return row;
  });
}
