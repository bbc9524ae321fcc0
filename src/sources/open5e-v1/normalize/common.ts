/** Open5e v1 record basics: flat `slug` + `document__slug` records, document slugs mapped to v2 keys. */
import * as v from "valibot";
import { open5eUrl } from "../../open5e/urls.ts";
import type { Entity } from "../../../entities/types.ts";
import { type Base, type DocRef, NonEmpty, runRecords } from "../../../entities/normalize/build.ts";
import { str, type Rec } from "../../../entities/normalize/read.ts";
import { resolveDocumentKey } from "../../../entities/normalize/documents.ts";
import type { NormalizeContext, NormalizeResult } from "../../../entities/normalize/types.ts";

const V1Record = v.looseObject({ slug: NonEmpty, name: NonEmpty, document__slug: NonEmpty });

export function v1Doc(r: Rec, ctx: NormalizeContext): DocRef {
  const slug = str(r.document__slug);
  if (!slug) throw new Error("record has no document__slug");
  const key = resolveDocumentKey(slug);
  return { key, name: ctx.documents.get(key)?.name ?? str(r.document__title) ?? key };
}

type V1Row = { slug: string; name: string } & Rec;

function v1Base(ctx: NormalizeContext, endpoint: string, r: V1Row): Base {
  return { key: r.slug, name: r.name, doc: v1Doc(r, ctx), url: open5eUrl(ctx.baseUrl, "v1", endpoint, r.slug) };
}

/** The normalizer of one endpoint: `make` turns each valid record and its base into entities. */
export function v1Normalizer(
  endpoint: string,
  make: (r: V1Row, b: Base, ctx: NormalizeContext) => Entity | Entity[] | null,
) {
  return (records: unknown[], ctx: NormalizeContext): NormalizeResult =>
    runRecords(records, V1Record, (r) => make(r, v1Base(ctx, endpoint, r), ctx));
}

/**
 * "**_Keen Senses._** You have ..." paragraphs → named traits. Text before the first heading
 * (or all text, when there is none) becomes a trait named `fallback`.
 */
export function boldTraits(md: string | null, fallback: string): { name: string; desc: string }[] {
  if (!md) return [];
  const re = /\*\*_?\s*([^*_]+?)\s*\.?\s*_?\*\*\.?\s*/g;
  const out: { name: string; desc: string }[] = [];
  let last: { name: string; start: number } | null = null;
  let pre = "";
  for (let m = re.exec(md); m; m = re.exec(md)) {
    if (last) out.push({ name: last.name, desc: md.slice(last.start, m.index).trim() });
    else pre = md.slice(0, m.index).trim();
    last = { name: m[1]!.replace(/\.$/, "").trim(), start: m.index + m[0].length };
  }
  if (last) out.push({ name: last.name, desc: md.slice(last.start).trim() });
  else pre = md.trim();
  return pre ? [{ name: fallback, desc: pre }, ...out] : out;
}
