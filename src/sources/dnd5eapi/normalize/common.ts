/**
 * D&D 5e API record basics. Records are detail bodies `{index, name, url, ...}`; keys are prefixed
 * with the year ("2014-fireball") so both years coexist; documents are srd-2014 / srd-2024.
 */
import * as v from "valibot";
import { dnd5eApiUrl } from "../urls.ts";
import type { Entity } from "../../../entities/types.ts";
import { type Base, NonEmpty, runRecords } from "../../../entities/normalize/build.ts";
import { dnd5eDocumentKey, srdName } from "../../../entities/normalize/documents.ts";
import { isRec, recs, refKey, refName, str, textOf, type Rec } from "../../../entities/normalize/read.ts";
import type { Dnd5eYear, NormalizeContext, NormalizeResult } from "../../../entities/normalize/types.ts";

export const DndRecord = v.looseObject({ index: NonEmpty, name: NonEmpty });

type DndRow = Rec & { index: string; name: string };

/** The normalizer of one endpoint, per year: `make` turns each valid record and its base into entities. */
export function dndNormalizer(
  endpoint: string,
  make: (r: DndRow, b: Base, year: Dnd5eYear, ctx: NormalizeContext) => Entity | Entity[] | null,
) {
  return (year: Dnd5eYear) =>
    (records: unknown[], ctx: NormalizeContext): NormalizeResult =>
      runRecords(records, DndRecord, (r) => make(r, dndBase(ctx, year, endpoint, r), year, ctx));
}

/** "2014-fireball" */
export function dndKey(year: Dnd5eYear, index: string): string {
  return `${year}-${index}`;
}

export function dndBase(ctx: NormalizeContext, year: Dnd5eYear, endpoint: string, r: DndRow): Base {
  const doc = dnd5eDocumentKey(year);
  const path = str(r.url);
  return {
    key: dndKey(year, r.index),
    name: r.name,
    doc: { key: doc, name: ctx.documents.get(doc)?.name ?? srdName(year) },
    url: path?.startsWith("/api/") ? `${ctx.baseUrl}${path}` : dnd5eApiUrl(ctx.baseUrl, year, endpoint, r.index),
  };
}

/** `desc` (2014: string[] or string) or `description` (2024). */
export function dndDesc(r: Rec): string | null {
  return textOf(r.desc) ?? textOf(r.description);
}

/** A reference `{index, name}` as a Ref with a year-prefixed key. */
export function dndRef(year: Dnd5eYear, x: unknown): { key: string; name: string } | null {
  const k = refKey(x);
  const n = refName(x);
  return k && n ? { key: dndKey(year, k), name: n } : null;
}

export function dndRefs(year: Dnd5eYear, x: unknown): { key: string; name: string }[] {
  return recs(x).flatMap((r) => dndRef(year, r) ?? []);
}

const indexes = new WeakMap<readonly unknown[], Map<string, Rec>>();

/** Records by their `index`, built once per list (a species normalizer asks for its traits' at every record). */
export function byIndex(records: readonly unknown[]): Map<string, Rec> {
  return indexes.getOrInsertComputed(records, () => {
    const m = new Map<string, Rec>();
    for (const r of records) if (isRec(r) && str(r.index)) m.set(str(r.index)!, r);
    return m;
  });
}
