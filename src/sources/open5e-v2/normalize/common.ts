/** Open5e v2 record basics: identity schema, key (2026 `key` or 2025 `url`), document reference, detail URL. */
import * as v from "valibot";
import { open5eUrl } from "../../open5e/urls.ts";
import type { Entity } from "../../../entities/types.ts";
import { type Base, type DocRef, NonEmpty, runRecords } from "../../../entities/normalize/build.ts";
import { lastSegment, refKey, refName, str } from "../../../entities/normalize/read.ts";
import type { NormalizeContext, NormalizeResult } from "../../../entities/normalize/types.ts";

/** A v2 record with `entries`: its `key` (2026) or `url` (2025) is required; other fields are read leniently. */
function keyed<T extends v.ObjectEntries>(entries: T) {
  const identity = { key: v.optional(NonEmpty), url: v.optional(v.string()), document: v.optional(v.unknown()) };
  return v.pipe(
    v.looseObject({ ...identity, ...entries }),
    v.check((r) => !!r.key || !!str(r.url), "record has neither key nor url"),
  );
}

export const V2Record = keyed({ name: NonEmpty });
/** Alignments have no `name`. */
export const V2Unnamed = keyed({ name: v.optional(v.string()) });
/** Spells additionally need an integer level 0..9. */
export const V2Spell = keyed({ name: NonEmpty, level: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(9)) });

export function v2Key(r: { key?: string; url?: string }): string {
  return r.key ?? lastSegment(r.url ?? "");
}

/**
 * Document of a v2 record: an object {key, name}, a bare key, or (2025) a URL to the document.
 * Names of bare keys come from ctx.documents (falls back to the key).
 */
function v2Doc(document: unknown, ctx: NormalizeContext): DocRef {
  const key = refKey(document)?.toLowerCase();
  if (!key) throw new Error("record has no document");
  const name = refName(document) ?? ctx.documents.get(key)?.name ?? key;
  return { key, name };
}

export function v2Url(ctx: NormalizeContext, endpoint: string, key: string): string {
  return open5eUrl(ctx.baseUrl, "v2", endpoint, key);
}

type V2Ref = { key?: string; url?: string; name?: string; document?: unknown };

export function v2Base(ctx: NormalizeContext, endpoint: string, r: V2Ref, name?: string): Base {
  const key = v2Key(r);
  return { key, name: name ?? r.name ?? key, doc: v2Doc(r.document, ctx), url: v2Url(ctx, endpoint, key) };
}

/** The normalizer of one endpoint: `make` turns each valid record and its base into entities. */
export function v2Normalizer(
  endpoint: string,
  make: (r: v.InferOutput<typeof V2Record>, b: Base, ctx: NormalizeContext) => Entity | Entity[] | null,
) {
  return (records: unknown[], ctx: NormalizeContext): NormalizeResult =>
    runRecords(records, V2Record, (r) => make(r, v2Base(ctx, endpoint, r), ctx));
}
