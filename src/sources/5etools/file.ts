/**
 * A 5etools homebrew file's text → its validated top level (pure): the nesting is checked BEFORE
 * parsing (a hostile `[[[[…` must not exhaust the parser's stack), then JSON.parse, then the shape
 * (`_meta.sources`, arrays of records) with valibot, then the record count. Every refusal is a
 * FivetoolsError with a sentence the user can act on; nothing is imported from a refused file.
 */
import * as v from "valibot";
import type { JsonObject, JsonValue } from "../../entities/types.ts";

export const FIVETOOLS_LIMITS = {
  /** Deepest nesting of arrays and objects (real homebrew stays under 20). */
  depth: 64,
  /** Records in one file, all types together (the largest real collections hold a few thousand). */
  records: 20_000,
} as const;

export class FivetoolsError extends Error {
  constructor(
    message: string,
    readonly line?: number,
    readonly column?: number,
  ) {
    super(message);
  }
}

/** Refuse nesting deeper than `max`, with the place where it goes too deep (strings are skipped). */
function checkNesting(text: string, max: number = FIVETOOLS_LIMITS.depth): void {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
      continue;
    }
    if (c === 34) inString = true;
    else if (c === 91 || c === 123) {
      if (++depth > max) {
        const before = text.slice(0, i); // line and column (1-based) of the place
        const why = `nested deeper than ${max} levels; real 5etools homebrew stays far below that`;
        throw new FivetoolsError(why, before.split("\n").length, i - before.lastIndexOf("\n"));
      }
    } else if (c === 93 || c === 125) depth--;
  }
}

const SourceMeta = v.looseObject({
  json: v.pipe(v.string(), v.trim(), v.nonEmpty('a source\'s "json" id is empty')),
  full: v.optional(v.string()),
  abbreviation: v.optional(v.string()),
  authors: v.optional(v.array(v.unknown())),
  convertedBy: v.optional(v.array(v.unknown())),
  url: v.optional(v.string()),
  version: v.optional(v.union([v.string(), v.number()])),
});
export type SourceMeta = v.InferOutput<typeof SourceMeta>;

const Meta = v.looseObject({
  sources: v.optional(v.array(SourceMeta)),
  spellSchools: v.optional(v.record(v.string(), v.unknown())),
  spellDistanceUnits: v.optional(v.record(v.string(), v.unknown())),
});

const TopLevel = v.looseObject({ _meta: v.optional(Meta) });

export type ParsedFile = ReturnType<typeof parseFivetools>;

/** Does this text look like 5etools homebrew JSON (an object whose keys are `_meta` or record arrays)? */
export function looksLikeFivetools(text: string): boolean {
  const head = text
    .replace(/^\ufeff/, "")
    .trimStart()
    .slice(0, 4096);
  if (!head.startsWith("{")) return false;
  return (
    new RegExp(
      '"_meta"\\s*:|"(?:spell|monster|item|race|feat|background|class|subclass|baseitem|magicvariant|' +
        'optionalfeature)"\\s*:\\s*\\[',
    ).test(head) || text.includes('"_meta"')
  );
}

/** Parse and check a 5etools file. Throws FivetoolsError (never anything else for bad input). */
export function parseFivetools(text: string) {
  const body = text.replace(/^\ufeff/, "");
  checkNesting(body);
  let raw: unknown;
  try {
    raw = JSON.parse(body);
  } catch (err) {
    const msg = (err as Error).message.replace(/^JSON Parse error:\s*/i, "");
    throw new FivetoolsError(`not valid JSON: ${msg}`);
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    throw new FivetoolsError(
      'the top level is not a JSON object; a 5etools homebrew file is { "_meta": …, "spell": [ … ], … }',
    );
  const top = v.safeParse(TopLevel, raw);
  if (!top.success) {
    const i = top.issues[0]!;
    const path = i.path?.map((p) => String(p.key)).join(".") ?? "";
    throw new FivetoolsError(`${path ? `${path}: ` : ""}${i.message}`);
  }
  const obj = raw as JsonObject;
  // Each array of the top level by its key (`spell`, `monster`, …), keys this importer does not know too;
  // the other keys (`$schema`, `_meta` aside) are named in the report.
  const arrays = new Map<string, JsonValue[]>();
  const ignored: string[] = [];
  let records = 0;
  for (const [k, x] of Object.entries(obj)) {
    if (k === "_meta") continue;
    if (Array.isArray(x)) {
      arrays.set(k, x);
      records += x.length;
    } else ignored.push(k);
  }
  if (records > FIVETOOLS_LIMITS.records)
    throw new FivetoolsError(
      `it holds ${records} records; the limit is ${FIVETOOLS_LIMITS.records} per file (split it into several files)`,
    );
  if (!obj._meta && arrays.size === 0)
    throw new FivetoolsError('it has neither "_meta" nor any array of records; is it a 5etools homebrew file?');
  return {
    sources: top.output._meta?.sources ?? [],
    meta: (obj._meta as JsonObject | undefined) ?? ({} as JsonObject),
    arrays,
    ignored,
    records,
  };
}
