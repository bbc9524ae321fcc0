/**
 * A parsed 5etools file → one document per source of `_meta.sources`, each with its canonical
 * entities (pure). Records are checked with valibot one by one: a bad record is skipped with its
 * reason, never the file. Records that are part of another (class and subclass features, item
 * types, legendary groups, fluff, Roll20 data) are folded into the entities they belong to and
 * counted as such. See docs/homebrew.md.
 */
import * as v from "valibot";
import type { Ref, SpellData } from "../../../entities/kinds.ts";
import { type Entity, type EntityKind, type JsonObject, type JsonValue, slugify } from "../../../entities/types.ts";
import { issueText } from "../../../entities/normalize/build.ts";
import { stripInvisible } from "../../../text/confusables.ts";
import type { OrcbrewSkipped, TypeCount } from "../../orcbrew/normalize/pack.ts";
import { resolveCopies } from "../copy.ts";
import { newRenderStats, type RenderStats } from "../entries.ts";
import type { ParsedFile, SourceMeta } from "../file.ts";
import { renderTags, type TagStats } from "../tags.ts";
import { buildOne, FIVETOOLS_SOURCE, type Lookups } from "./build-one.ts";
import { type FileContext, line, lower, text } from "./common.ts";
import type { LegendaryGroup } from "./creature.ts";
import { ENTITY_TYPES, FOLDED, LEFT_OUT } from "./record-types.ts";
import { arr, own, rec, recs } from "../../../entities/normalize/read.ts";
import { shortHash } from "../../../entities/normalize/text.ts";

export interface FivetoolsTypeCount extends TypeCount {
  /** Records stored inside other entities (features in their class, item types in their items, …). */
  folded: number;
  /** The kinds the records became (one `item` list gives magic items, weapons, …); `kind` is the most frequent. */
  kinds: Partial<Record<EntityKind, number>>;
}

export interface NormalizedSource {
  doc: ReturnType<typeof documentOf>;
  entities: Entity[];
  /** `from[i]` is the record type `entities[i]` came from. */
  from: string[];
  skipped: OrcbrewSkipped[];
  warnings: string[];
  types: FivetoolsTypeCount[];
}

export interface NormalizedFile {
  sources: NormalizedSource[];
  warnings: string[];
}

/** `"CarreausWeaponCantrips"` → `"5etools-carreaus-weapon-cantrips"` (camel case split, then slug). */
export function fivetoolsDocumentKey(sourceId: string): string {
  const words = stripInvisible(sourceId)
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2");
  const slug = slugify(words).slice(0, 64).replace(/-+$/, "");
  return `5etools-${slug.length > 0 ? slug : `source-${shortHash(sourceId)}`}`;
}

export function fivetoolsOrigin(documentKey: string): string {
  return `${FIVETOOLS_SOURCE}:${documentKey}`;
}

const clean = (s: string | undefined | null): string | null => {
  const x = s ? stripInvisible(s.replace(/\s+/g, " ")).trim() : "";
  return x.length ? x : null;
};

/** A document of the file; `id` is the source's `json` id ("GiddySpell"), its identity in re-imports. */
function documentOf(s: SourceMeta) {
  return {
    id: s.json,
    key: fivetoolsDocumentKey(s.json),
    name: clean(s.full) ?? clean(s.json) ?? s.json,
    abbreviation: clean(s.abbreviation),
    authors: (s.authors ?? []).flatMap((a) => (typeof a === "string" ? (clean(a) ?? []) : [])),
    url: clean(s.url),
    version: s.version === undefined ? null : String(s.version),
  };
}

/** The minimum a record needs: a name (valibot at the boundary; the rest is read leniently). */
const Named = v.looseObject({
  name: v.pipe(
    v.string(),
    v.transform((s) => stripInvisible(s.replace(/\s+/g, " ")).trim()),
    v.nonEmpty("the record has an empty name"),
  ),
});
const SpellRecord = v.looseObject({
  ...Named.entries,
  level: v.pipe(v.number("the spell has no numeric level"), v.integer(), v.minValue(0, "a spell level is 0 or more")),
});
const ItemPropertyRecord = v.looseObject({ abbreviation: v.pipe(v.string(), v.nonEmpty()) });

function metaMap(v: JsonValue | undefined, pick: (o: JsonObject, k: string) => string | null): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(rec(v) ?? {})) {
    const o = rec(x);
    const val = o ? pick(o, k) : null;
    if (val) out[k] = val;
  }
  return out;
}

interface Pending {
  type: string;
  record: JsonObject;
  notes: string[];
  /** The `_copy` of a record whose base is not in the file. */
  missingBase: JsonObject | null;
  /** That base found outside the file (a spell in the store). */
  outside?: OutsideSpell;
}

/** A spell a `_copy` names that is not in the file but in the store (the SRD's Fireball). */
export interface OutsideSpell {
  name: string;
  document_key: string;
  data: SpellData;
}

/** Where the bases of `_copy` records that are not in the file are looked up (the store; none by default). */
export interface OutsideBases {
  spell?: (name: string) => OutsideSpell | null;
}

/** The file's documents (warnings on its top level), which one a record belongs to, the counts and skips. */
function tallyOf(parsed: ParsedFile, fileName: string, warnings: string[]) {
  const sources = parsed.sources.length
    ? parsed.sources
    : [{ json: fileName.replace(/\.json$/i, "") || "homebrew", full: fileName.replace(/\.json$/i, "") } as SourceMeta];
  if (!parsed.sources.length)
    warnings.push(
      `the file declares no _meta.sources; its records form one document named after the file ("${sources[0]!.full}")`,
    );
  for (const k of parsed.ignored)
    if (k !== "$schema") warnings.push(`top-level "${k}" is not a list of records; ignored`);
  // Documents: one per source id; two ids giving the same key are one document.
  const docs = new Map<string, NormalizedSource>();
  const bySourceId = new Map<string, NormalizedSource>();
  for (const s of sources) {
    const doc = documentOf(s);
    let ns = docs.get(doc.key);
    if (!ns) docs.set(doc.key, (ns = { doc, entities: [], from: [], skipped: [], warnings: [], types: [] }));
    else
      warnings.push(
        `sources "${ns.doc.id}" and "${s.json}" share the document key ${doc.key}; imported together as ` +
          `"${ns.doc.name}"`,
      );
    bySourceId.set(s.json.toLowerCase(), ns);
  }
  const first = [...docs.values()][0]!;
  const docOf = (r: JsonObject | null): { ns: NormalizedSource; note: string | null } => {
    const src = r ? lower(r.source) || lower(rec(r.inherits)?.source) : "";
    const ns = bySourceId.get(src);
    if (ns) return { ns, note: null };
    return {
      ns: first,
      note: src
        ? `its source "${String(r!.source ?? rec(r!.inherits)?.source)}" is not one of the file's _meta.sources; ` +
          `filed under "${first.doc.name}"`
        : null,
    };
  };
  const counts = new Map<NormalizedSource, Map<string, FivetoolsTypeCount>>();
  const count = (ns: NormalizedSource, type: string, kind: EntityKind | null) => {
    let m = counts.get(ns);
    if (!m) counts.set(ns, (m = new Map()));
    let c = m.get(type);
    if (!c) m.set(type, (c = { type, kind, found: 0, imported: 0, skipped: 0, folded: 0, kinds: {} }));
    return c;
  };
  const skip = (ns: NormalizedSource, type: string, r: JsonValue, reason: string, byDesign = false) => {
    const o = rec(r);
    const name = clean(
      typeof o?.name === "string" ? o.name : typeof o?.abbreviation === "string" ? o.abbreviation : null,
    );
    count(ns, type, null).skipped++;
    const skipped = { type, key: name, name, reason, line: 0, column: 0 };
    ns.skipped.push(byDesign ? { ...skipped, by_design: true as const } : skipped);
  };
  /** The documents with their counts, sorted by type. */
  const done = (): NormalizedSource[] => {
    for (const [ns, m] of counts) ns.types = [...m.values()];
    for (const ns of docs.values()) ns.types.sort((a, b) => a.type.localeCompare(b.type));
    return [...docs.values()];
  };
  return { first, docOf, count, skip, done };
}

type Tally = ReturnType<typeof tallyOf>;

/** The file's own vocabularies: spell schools and units from `_meta`, item types and properties. */
function fileContextOf(parsed: ParsedFile, stats: RenderStats, list: (type: string) => JsonObject[]) {
  const itemTypes = new Map<string, { name: string; desc: string }>();
  const itemProperties = new Map<string, string>();
  const ctx: FileContext = {
    stats,
    schools: metaMap(parsed.meta.spellSchools, (o) => (typeof o.full === "string" ? o.full.toLowerCase() : null)),
    distanceUnits: metaMap(parsed.meta.spellDistanceUnits, (o, k) => (typeof o.singular === "string" ? o.singular : k)),
    itemTypes,
    itemProperties,
  };
  // Item types and properties first: items read their names from them.
  const extraByType = new Map<string, string[]>();
  for (const t of list("itemTypeAdditionalEntries")) {
    const k = typeof t.appliesTo === "string" ? t.appliesTo.split("|")[0]! : "";
    if (k) extraByType.set(k, [...(extraByType.get(k) ?? []), text(t.entries, ctx)]);
  }
  for (const t of list("itemType")) {
    const abbr = typeof t.abbreviation === "string" ? t.abbreviation : null;
    if (abbr)
      itemTypes.set(abbr, {
        name: line(t.name, ctx) ?? abbr,
        desc: [text(t.entries, ctx), ...(extraByType.get(abbr) ?? [])].filter(Boolean).join("\n"),
      });
  }
  for (const p of list("itemProperty")) {
    const abbr = typeof p.abbreviation === "string" ? p.abbreviation : null;
    const name = line(p.name, ctx) ?? line(rec(arr(p.entries)[0])?.name, ctx) ?? abbr;
    if (abbr && name) itemProperties.set(abbr, name);
  }
  return { ctx, extraByType };
}

/** The folded records, looked up by name (and class/subclass for features). */
function foldedOf(list: (type: string) => JsonObject[], ctx: FileContext) {
  const fluff = new Map<string, string>();
  for (const type of Object.keys(FOLDED)) {
    if (!type.endsWith("Fluff")) continue;
    for (const f of list(type)) fluff.set(`${type.replace(/Fluff$/, "")}\u0000${lower(f.name)}`, text(f.entries, ctx));
  }
  const groups = new Map<string, LegendaryGroup>();
  for (const g of list("legendaryGroup")) {
    const lair = text(g.lairActions, ctx);
    groups.set(lower(g.name), {
      lair: lair ? [{ name: "Lair Actions", desc: lair, usage: null, cost: null }] : [],
      regional: text(g.regionalEffects, ctx) || null,
    });
  }
  const roll20 = new Map<string, JsonObject>();
  for (const r of list("roll20Spell")) {
    const d = rec(r.data);
    if (d) roll20.set(lower(r.name), d);
  }
  return { fluff, groups, roll20, classFeatures: list("classFeature"), subclassFeatures: list("subclassFeature") };
}

/**
 * The records that become entities, `_copy` resolved per type; the others are counted now: folded
 * ones as folded, the types left out (or unknown) as skipped.
 */
function collect(parsed: ParsedFile, t: Tally): Pending[] {
  const pending: Pending[] = [];
  for (const [type, raw] of parsed.arrays) {
    if (Object.hasOwn(ENTITY_TYPES, type)) {
      const resolved = resolveCopies(recs(raw));
      let j = 0;
      for (const r of raw) {
        if (!rec(r)) {
          t.count(t.first, type, null).found++;
          const what = Array.isArray(r) ? "a list" : r === null ? "null" : typeof r;
          t.skip(t.first, type, r, `a ${type} record must be an object, not ${what}`);
          continue;
        }
        const out = resolved[j++]!;
        const missingBase = out.baseMissing ? rec((r as JsonObject)._copy) : null;
        pending.push({ type, record: out.record, notes: out.notes, missingBase });
      }
      continue;
    }
    const folded = Object.hasOwn(FOLDED, type);
    const reason = own(LEFT_OUT, type);
    for (const r of raw) {
      const { ns } = t.docOf(rec(r));
      const c = t.count(ns, type, null);
      c.found++;
      if (folded && rec(r)) c.folded++;
      else if (folded) t.skip(ns, type, r, `a ${type} record must be an object`);
      else {
        const unknown =
          `unknown record type "${type}" (5etools homebrew defines spell, monster, item, race, feat, background, ` +
          `class, …)`;
        t.skip(ns, type, r, reason ?? unknown, reason !== undefined);
      }
    }
  }
  // Races before subraces and classes before subclasses: children link to their parents' keys.
  const order = ["race", "class", "subrace", "subclass"];
  return pending.sort((a, b) => (order.indexOf(a.type) + 1 || 9) - (order.indexOf(b.type) + 1 || 9));
}

/** Keys: per document and kind, `<document key>_<slug of the name>`, made unique with -2, -3, …. */
function keyMaker(): Lookups["keyFor"] {
  const used = new Set<string>();
  return (docKey, kind, slugSource) => {
    const slug = slugify(stripInvisible(slugSource).replace(/['\u2018\u2019]/g, "")) || shortHash(slugSource);
    const base = `${docKey}_${slug}`;
    let key = base;
    for (let n = 2; used.has(`${kind}\u0000${key}`); n++) key = `${base}-${n}`;
    used.add(`${kind}\u0000${key}`);
    return key;
  };
}

/** The names of the `type` records by the lower-case name of their parent (`parentField`). */
function childNames(pending: Pending[], type: string, parentField: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const p of pending) {
    const parent = p.record[parentField];
    if (p.type !== type || typeof parent !== "string") continue;
    const name = typeof p.record.name === "string" ? p.record.name.trim() : "";
    out.set(lower(parent), [...(out.get(lower(parent)) ?? []), name]);
  }
  return out;
}

/**
 * A copy of a spell from a book (PHB Fireball) states no level: the store's copy of that spell (the
 * SRD's) gives what the copy does not state; without one the level is unknown (the skip reason).
 */
function withOutsideBase(p: Pending, outside: OutsideBases): string | null {
  const base = p.missingBase!;
  const baseName = typeof base.name === "string" ? base.name : "";
  const found = baseName ? (outside.spell?.(baseName) ?? null) : null;
  if (!found) {
    const which = `"${baseName}"${typeof base.source === "string" ? ` (${base.source})` : ""}`;
    const why = `its _copy base ${which} is neither in this file nor in the store, and the copy states no level`;
    return `${why}; sync the SRD first (lorekeeper sync) or give the spell its level`;
  }
  p.outside = found;
  p.record = { ...p.record, level: found.data.level };
  const from = `; what the copy does not state comes from ${found.name} (${found.document_key}) in the store`;
  p.notes = p.notes.map((n) => n.replace(/; imported with only the fields it states$/, from));
  return null;
}

/**
 * Normalize one parsed file. `fileUrl` is the file as a URL (`file:///…`); entities cite it with
 * `#<type>/<name>`. `fileName` names the document when the file declares no source.
 */
export function normalizeFivetoolsFile(
  parsed: ParsedFile,
  fileUrl: string,
  fileName: string,
  outside: OutsideBases = {},
): NormalizedFile {
  const stats = newRenderStats();
  const warnings: string[] = [];
  const t = tallyOf(parsed, fileName, warnings);
  const list = (type: string): JsonObject[] => recs(parsed.arrays.get(type));
  const { ctx, extraByType } = fileContextOf(parsed, stats, list);
  const folded = foldedOf(list, ctx);
  const pending = collect(parsed, t);
  const lookups: Lookups = {
    ...folded,
    keyFor: keyMaker(),
    fileUrl,
    raceRefs: new Map<string, Ref>(),
    classRefs: new Map<string, Ref>(),
    subraceOf: childNames(pending, "subrace", "raceName"),
    subclassOf: childNames(pending, "subclass", "className"),
    extraByType,
  };

  for (const p of pending) {
    const { ns, note } = t.docOf(p.record);
    const entityType = ENTITY_TYPES[p.type]!;
    const c = t.count(ns, p.type, entityType === "equipment" ? null : entityType);
    c.found++;
    const unknownLevel = p.type === "spell" && p.missingBase && p.record.level === undefined;
    const noBase = unknownLevel ? withOutsideBase(p, outside) : null;
    if (noBase) {
      t.skip(ns, p.type, p.record, noBase);
      continue;
    }
    const schema = p.type === "spell" ? SpellRecord : p.type === "itemProperty" ? ItemPropertyRecord : Named;
    const checked = v.safeParse(schema, p.record);
    if (!checked.success) {
      t.skip(ns, p.type, p.record, `invalid record: ${issueText(checked.issues, 2)}`);
      continue;
    }
    const d = p.record;
    const name =
      p.type === "itemProperty"
        ? (line(d.name, ctx) ?? line(rec(arr(d.entries)[0])?.name, ctx) ?? String(d.abbreviation))
        : (checked.output as { name: string }).name;
    let built: Entity | { skip: string };
    try {
      const doc = { key: ns.doc.key, name: ns.doc.name };
      built = buildOne(p.type, d, name, doc, ctx, lookups, p.outside?.data ?? null);
    } catch (err) {
      built = { skip: `could not be read: ${(err as Error).message}` };
    }
    if ("skip" in built) {
      t.skip(ns, p.type, d, built.skip);
      continue;
    }
    if (note) ns.warnings.push(`${p.type} "${name}": ${note}`);
    for (const x of p.notes) ns.warnings.push(`${p.type} "${name}": ${x}`);
    countKind(c, built.kind, 1);
    c.imported++;
    ns.entities.push(withTagsRendered(built, stats));
    ns.from.push(p.type);
  }
  return { sources: t.done(), warnings: [...warnings, ...unknownWarnings(stats)] };
}

/** The warnings that name what rendering did not know. */
function unknownWarnings(stats: RenderStats): string[] {
  const counts = (m: Map<string, number>, shown: (t: string) => string) =>
    `(not known to this importer): ${[...m.entries()].map(([t, n]) => `${shown(t)} ×${n}`).join(", ")}`;
  const out: string[] = [];
  if (stats.unknown.size) out.push(`inline tags shown by their text only ${counts(stats.unknown, (t) => `{@${t}}`)}`);
  if (stats.unknownBlocks.size)
    out.push(`entry blocks shown by their name and text only ${counts(stats.unknownBlocks, (t) => t)}`);
  return out;
}

/** Add `n` (1 or -1) records of `kind` to a type's count; `kind` follows the most frequent. */
export function countKind(c: FivetoolsTypeCount, kind: EntityKind, n: number): void {
  const left = (c.kinds[kind] ?? 0) + n;
  if (left > 0) c.kinds[kind] = left;
  else delete c.kinds[kind];
  const byCount = (Object.entries(c.kinds) as Array<[EntityKind, number]>).sort(
    (a, b) => b[1] - a[1] || a[0].localeCompare(b[0]),
  );
  const top = byCount[0];
  if (top) c.kind = top[0];
}

/** A string, list or object with every `{@tag …}` left in its strings rendered. */
function renderDeep<T extends JsonValue>(v: T, stats: TagStats): T {
  if (typeof v === "string") return (v.includes("{@") ? renderTags(v, stats) : v) as T;
  if (Array.isArray(v)) return v.map((x) => renderDeep(x, stats)) as T;
  if (v && typeof v === "object") {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, renderDeep(x, stats)])) as T;
  }
  return v;
}

/**
 * The last guard of the promise that no raw `{@` reaches the store: a field a builder copied
 * without rendering (hand-made files put tags where 5etools' own data never does, e.g. "dmg1":
 * "{@dice 2d4}") is rendered here, in the data, the search text and the filter values alike.
 */
function withTagsRendered(e: Entity, stats: TagStats): Entity {
  if (!JSON.stringify(e).includes("{@")) return e;
  return renderDeep(e as unknown as JsonObject, stats) as unknown as Entity;
}
