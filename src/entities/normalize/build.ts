/**
 * Entity construction and the per-record loop shared by every normalizer: valibot check at the
 * boundary, per-record error isolation, duplicate keys and data not of its kind's shape
 * (kinds.ts) skipped with a reason.
 */
import * as v from "valibot";
import { type KindData, kindDataProblem } from "../kinds.ts";
import type { DocumentSource, Entity, EntityFilters, EntityKind, JsonObject } from "../types.ts";
import { isRec, lastSegment, str } from "./read.ts";
import { buildText } from "./text.ts";
import type { NormalizeResult, SkippedRecord } from "./types.ts";

export interface DocRef {
  key: string;
  name: string;
}

/** Identity of an entity before its kind-specific detail: key, name, document, detail URL. */
export interface Base {
  key: string;
  name: string;
  doc: DocRef;
  url: string;
}

interface EntityDraft<K extends EntityKind> extends Base {
  kind: K;
  /** "Level 3 evocation spell", "Large undead, CR 5", ... */
  header: string;
  /** descriptive text parts (markdown allowed; stripped) */
  body: (string | null | undefined)[];
  filters: EntityFilters;
  data: KindData[K];
}

export function entity<K extends EntityKind>(source: DocumentSource, d: EntityDraft<K>): Entity {
  return {
    kind: d.kind,
    key: d.key,
    name: d.name,
    document_key: d.doc.key,
    document_name: d.doc.name,
    document_source: source,
    source_url: d.url,
    text: buildText(d.name, d.header, d.body),
    filters: d.filters,
    data: d.data as JsonObject,
  };
}

/** What a kind's builder makes of its data: the header line, the search text parts and the filters. */
type View = Pick<EntityDraft<EntityKind>, "header" | "body"> & { filters?: EntityFilters };

/** The builder of a kind whose entity follows from its data alone: `view` says how it reads. */
export function builder<K extends EntityKind>(kind: K, view: (d: KindData[K], b: Base) => View) {
  return (source: DocumentSource, b: Base, d: KindData[K]): Entity =>
    entity(source, { kind, ...b, filters: {}, ...view(d, b), data: d });
}

/** Non-empty trimmed string. */
export const NonEmpty = v.pipe(v.string(), v.trim(), v.nonEmpty());

/** The first `max` problems valibot found, each with its path: "level: Invalid type …; name: …". */
export function issueText(issues: readonly v.BaseIssue<unknown>[], max = 3): string {
  return issues
    .slice(0, max)
    .map((i) => {
      const path = i.path?.map((p) => String(p.key)).join(".");
      return path ? `${path}: ${i.message}` : i.message;
    })
    .join("; ");
}

/** Best-effort key of a raw record, for skip reasons. */
function rawKey(raw: unknown): string | undefined {
  if (!isRec(raw)) return undefined;
  const k = str(raw.key) ?? str(raw.slug) ?? str(raw.index);
  if (k) return k;
  const u = str(raw.url);
  return u ? lastSegment(u) : (str(raw.name) ?? undefined);
}

/**
 * Validate each record with `schema`, convert it with `fn`, and collect entities and skips.
 * `fn` may return null (with no reason: the record is not content of this kind) or throw (skipped
 * with the error message). Later duplicates of (kind, key) are skipped.
 */
export function runRecords<S extends v.GenericSchema>(
  records: unknown[],
  schema: S,
  fn: (r: v.InferOutput<S>, raw: unknown) => Entity | Entity[] | null,
): NormalizeResult {
  const entities: Entity[] = [];
  const skipped: SkippedRecord[] = [];
  const seen = new Set<string>();
  const add = (e: Entity) => {
    const id = `${e.kind}\u0000${e.key}`;
    // The check a content pack's rows get too: a shape the readers cannot read is never stored.
    const shape = seen.has(id) ? undefined : kindDataProblem(e.kind, e.data);
    if (seen.has(id)) skipped.push({ key: e.key, reason: `duplicate ${e.kind} key` });
    else if (shape) skipped.push({ key: e.key, reason: `its data is not a ${e.kind}'s: ${shape}` });
    else {
      seen.add(id);
      entities.push(e);
    }
  };
  const skip = (raw: unknown, reason: string) => {
    const key = rawKey(raw);
    skipped.push({ ...(key ? { key } : {}), reason });
  };
  for (const raw of records) {
    const parsed = v.safeParse(schema, raw);
    if (!parsed.success) {
      skip(raw, `invalid record: ${issueText(parsed.issues)}`);
      continue;
    }
    try {
      const out = fn(parsed.output, raw);
      if (out === null) continue;
      for (const e of Array.isArray(out) ? out : [out]) add(e);
    } catch (err) {
      skip(raw, `normalize error: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return { entities, skipped };
}
