/**
 * A parsed 5etools file → one document per source of `_meta.sources`, each with its canonical
 * entities (pure). Records are checked with valibot one by one: a bad record is skipped with its
 * reason, never the file. Records that are part of another (class and subclass features, item
 * types, legendary groups, fluff, Roll20 data) are folded into the entities they belong to and
 * counted as such. See docs/homebrew.md.
 */
import * as v from "valibot";
import type { ClassFeature, Ref, SpellData } from "../../../entities/kinds.ts";
import { type Entity, type EntityKind, type JsonObject, type JsonValue, slugify } from "../../../entities/types.ts";
import { type Base, issueText } from "../../../entities/normalize/build.ts";
import {
  backgroundEntity,
  classEntity,
  featEntity,
  speciesEntity,
} from "../../../entities/normalize/canonical/character.ts";
import { creatureEntity } from "../../../entities/normalize/canonical/creature.ts";
import {
  armorEntity,
  itemEntity,
  magicItemEntity,
  weaponEntity,
} from "../../../entities/normalize/canonical/equipment.ts";
import {
  conditionEntity,
  languageEntity,
  weaponPropertyEntity,
} from "../../../entities/normalize/canonical/reference.ts";
import { spellEntity } from "../../../entities/normalize/canonical/spell.ts";
import { stripInvisible } from "../../../text/confusables.ts";
import { resolveCopies } from "../copy.ts";
import { newRenderStats } from "../entries.ts";
import { renderTags, type TagStats } from "../tags.ts";
import type { ParsedFile, SourceMeta } from "../file.ts";
import { buildBackground, buildClass, buildFeat, buildSpecies, buildSubclass, featureOf } from "./character.ts";
import { arr, type FileContext, line, obj, text } from "./common.ts";
import { buildCreature, type LegendaryGroup } from "./creature.ts";
import { buildArmor, buildItem, buildMagicItem, buildWeapon, itemKind, variantAsItem } from "./item.ts";
import { buildSpell } from "./spell.ts";
import { idSlug } from "./words.ts";

export const FIVETOOLS_SOURCE = "5etools" as const;

/** Record types that become entities (the item types decide their kind per record). */
const ENTITY_TYPES: Readonly<Record<string, EntityKind | "equipment">> = {
  spell: "spell",
  monster: "creature",
  item: "equipment",
  baseitem: "equipment",
  magicvariant: "magic_item",
  race: "species",
  subrace: "subspecies",
  feat: "feat",
  optionalfeature: "feat",
  background: "background",
  class: "class",
  subclass: "subclass",
  condition: "condition",
  disease: "condition",
  status: "condition",
  language: "language",
  itemProperty: "weapon_property",
};

/** Record types stored as part of other entities: what they are folded into. */
const FOLDED: Readonly<Record<string, string>> = {
  classFeature: "their class",
  subclassFeature: "their subclass",
  itemType: "the items of that type",
  itemTypeAdditionalEntries: "the items of that type",
  legendaryGroup: "the creatures that name it (lair actions, regional effects)",
  roll20Spell: "the spell of the same name (damage, save)",
  monsterFluff: "the creature of the same name",
  raceFluff: "the species of the same name",
  spellFluff: "the spell of the same name",
  itemFluff: "the item of the same name",
  backgroundFluff: "the background of the same name",
  featFluff: "the feat of the same name",
  conditionFluff: "the condition of the same name",
  languageFluff: "the language of the same name",
  classFluff: "the class of the same name",
  subclassFluff: "the subclass of the same name",
};

/** Top-level arrays 5etools defines that LoreKeeper has no kind for: left out with a note. */
const LEFT_OUT: Readonly<Record<string, string>> = {
  adventure: "LoreKeeper has no kind for adventures",
  adventureData: "LoreKeeper has no kind for adventure text",
  book: "LoreKeeper has no kind for books",
  bookData: "LoreKeeper has no kind for book text",
  deity: "LoreKeeper has no kind for deities",
  vehicle: "LoreKeeper has no kind for vehicles",
  vehicleUpgrade: "LoreKeeper has no kind for vehicle upgrades",
  object: "LoreKeeper has no kind for objects",
  trap: "LoreKeeper has no kind for traps",
  hazard: "LoreKeeper has no kind for hazards",
  reward: "LoreKeeper has no kind for supernatural gifts",
  psionic: "LoreKeeper has no kind for psionics",
  cult: "LoreKeeper has no kind for cults",
  boon: "LoreKeeper has no kind for boons",
  table: "LoreKeeper has no kind for roll tables",
  variantrule: "LoreKeeper has no kind for variant rules yet",
  action: "LoreKeeper has no kind for actions",
  recipe: "LoreKeeper has no kind for recipes",
  charoption: "LoreKeeper has no kind for character-creation options",
  card: "LoreKeeper has no kind for cards",
  deck: "LoreKeeper has no kind for decks",
  skill: "the skills are LoreKeeper's own",
  sense: "the senses are LoreKeeper's own",
  encounter: "LoreKeeper has no kind for encounter tables",
  name: "LoreKeeper has no kind for name tables",
  makebrewCreatureTrait: "editor data",
  foundrySpell: "Foundry VTT automation data",
  foundryItem: "Foundry VTT automation data",
  foundryMonster: "Foundry VTT automation data",
  foundryClass: "Foundry VTT automation data",
  foundrySubclass: "Foundry VTT automation data",
  foundryClassFeature: "Foundry VTT automation data",
  foundrySubclassFeature: "Foundry VTT automation data",
  foundryRace: "Foundry VTT automation data",
  foundryFeat: "Foundry VTT automation data",
  foundryOptionalfeature: "Foundry VTT automation data",
  foundryBackground: "Foundry VTT automation data",
  roll20Item: "Roll20 automation data",
  citation: "LoreKeeper has no kind for citations",
  itemGroup: "LoreKeeper has no kind for item groups",
  itemMastery: "LoreKeeper has no kind for weapon masteries yet",
  facility: "LoreKeeper has no kind for bastion facilities",
  legendaryGroupFluff: "legendary group pictures",
  itemEntry: "item text templates",
  spellList: "LoreKeeper has no kind for spell lists",
  trapFluff: "trap pictures",
  objectFluff: "object pictures",
  vehicleFluff: "vehicle pictures",
  deityFluff: "deity pictures",
  rewardFluff: "gift pictures",
  optionalfeatureFluff: "option pictures",
  recipeFluff: "recipe pictures",
  charoptionFluff: "option pictures",
  cultFluff: "cult pictures",
  boonFluff: "boon pictures",
  bookFluff: "book pictures",
  adventureFluff: "adventure pictures",
};

export interface FivetoolsTypeCount {
  type: string;
  kind: EntityKind | null;
  found: number;
  imported: number;
  skipped: number;
  /** Records stored inside other entities (features in their class, item types in their items, …). */
  folded: number;
  /**
   * The kinds the imported records became, with how many of each: one `item` list can give magic
   * items, weapons, armor and plain items. `kind` is the most frequent of them.
   */
  kinds: Partial<Record<EntityKind, number>>;
}

export interface FivetoolsSkipped {
  type: string;
  key: string | null;
  name: string | null;
  reason: string;
  line: number;
  column: number;
  by_design?: true;
}

export interface FivetoolsDocument {
  /** The source's `json` id ("GiddySpell"): its identity in the file and in re-imports. */
  id: string;
  key: string;
  name: string;
  abbreviation: string | null;
  authors: string[];
  url: string | null;
  version: string | null;
}

export interface NormalizedSource {
  doc: FivetoolsDocument;
  entities: Entity[];
  /** `from[i]` is where `entities[i]` came from. */
  from: Array<{ type: string; key: string; line: number; column: number }>;
  skipped: FivetoolsSkipped[];
  warnings: string[];
  types: FivetoolsTypeCount[];
}

export interface NormalizedFile {
  sources: NormalizedSource[];
  warnings: string[];
  /** Inline tags and block types rendered by their text only (unknown to this importer), with counts. */
  unknownTags: Record<string, number>;
  unknownBlocks: Record<string, number>;
}

function shortHash(s: string): string {
  const h = new Bun.CryptoHasher("sha1");
  h.update(s);
  return h.digest("hex").slice(0, 10);
}

/** `"CarreausWeaponCantrips"` → `"5etools-carreaus-weapon-cantrips"`. */
export function fivetoolsDocumentKey(sourceId: string): string {
  const slug = idSlug(stripInvisible(sourceId), slugify).slice(0, 64).replace(/-+$/, "");
  return `5etools-${slug.length > 0 ? slug : `source-${shortHash(sourceId)}`}`;
}

export function fivetoolsOrigin(documentKey: string): string {
  return `${FIVETOOLS_SOURCE}:${documentKey}`;
}

const clean = (s: string | undefined | null): string | null => {
  const x = s ? stripInvisible(s.replace(/\s+/g, " ")).trim() : "";
  return x.length ? x : null;
};

function documentOf(s: SourceMeta): FivetoolsDocument {
  return {
    id: s.json,
    key: fivetoolsDocumentKey(s.json),
    name: clean(s.full) ?? clean(s.json) ?? s.json,
    abbreviation: clean(s.abbreviation),
    authors: (s.authors ?? [])
      .filter((a): a is string => typeof a === "string")
      .map((a) => clean(a))
      .filter((a): a is string => a !== null),
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

const lower = (x: JsonValue | undefined) => (typeof x === "string" ? x.toLowerCase().trim() : "");

function metaMap(v: JsonValue | undefined, pick: (o: JsonObject, k: string) => string | null): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(obj(v) ?? {})) {
    const o = obj(x);
    const val = o ? pick(o, k) : null;
    if (val) out[k] = val;
  }
  return out;
}

interface Pending {
  type: string;
  record: JsonObject;
  notes: string[];
  index: number;
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
  const docOf = (r: JsonObject): { ns: NormalizedSource; note: string | null } => {
    const src = lower(r.source) || lower(obj(r.inherits)?.source);
    const ns = bySourceId.get(src);
    if (ns) return { ns, note: null };
    return {
      ns: first,
      note: src
        ? `its source "${String(r.source ?? obj(r.inherits)?.source)}" is not one of the file's _meta.sources; filed ` +
          `under "${first.doc.name}"`
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
    const o = obj(r);
    const name =
      typeof o?.name === "string"
        ? (clean(o.name) ?? null)
        : typeof o?.abbreviation === "string"
          ? clean(o.abbreviation)
          : null;
    count(ns, type, null).skipped++;
    ns.skipped.push({
      type,
      key: name,
      name,
      reason,
      line: 0,
      column: 0,
      ...(byDesign ? { by_design: true as const } : {}),
    });
  };

  const ctx: FileContext = {
    stats,
    schools: metaMap(parsed.meta.spellSchools, (o) => (typeof o.full === "string" ? o.full.toLowerCase() : null)),
    distanceUnits: metaMap(parsed.meta.spellDistanceUnits, (o, k) => (typeof o.singular === "string" ? o.singular : k)),
    itemTypes: new Map(),
    itemProperties: new Map(),
  };
  const list = (type: string): JsonObject[] =>
    (parsed.arrays.get(type) ?? []).map(obj).filter((x): x is JsonObject => x !== null);

  // Item types and properties first: items read their names from them.
  const extraByType = new Map<string, string[]>();
  for (const t of list("itemTypeAdditionalEntries")) {
    const k = typeof t.appliesTo === "string" ? t.appliesTo.split("|")[0]! : "";
    if (k) extraByType.set(k, [...(extraByType.get(k) ?? []), text(t.entries, ctx)]);
  }
  for (const t of list("itemType")) {
    const abbr = typeof t.abbreviation === "string" ? t.abbreviation : null;
    if (abbr)
      (ctx.itemTypes as Map<string, { name: string; desc: string }>).set(abbr, {
        name: line(t.name, ctx) ?? abbr,
        desc: [text(t.entries, ctx), ...(extraByType.get(abbr) ?? [])].filter(Boolean).join("\n"),
      });
  }
  for (const p of list("itemProperty")) {
    const abbr = typeof p.abbreviation === "string" ? p.abbreviation : null;
    const name = line(p.name, ctx) ?? line(obj(arr(p.entries)[0])?.name, ctx) ?? abbr;
    if (abbr && name) (ctx.itemProperties as Map<string, string>).set(abbr, name);
  }

  // Folded records, looked up by name (and class/subclass for features).
  const fluff = new Map<string, string>();
  for (const [type] of Object.entries(FOLDED)) {
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
    const d = obj(r.data);
    if (d) roll20.set(lower(r.name), d);
  }
  const classFeatures = list("classFeature");
  const subclassFeatures = list("subclassFeature");

  // Resolve _copy per type, then assign every record to its document.
  const pending: Pending[] = [];
  for (const [type, raw] of parsed.arrays) {
    if (Object.hasOwn(ENTITY_TYPES, type)) {
      const recs = raw.map(obj);
      const objects = recs.filter((x): x is JsonObject => x !== null);
      const resolved = resolveCopies(objects);
      let j = 0;
      raw.forEach((r, index) => {
        if (!obj(r)) {
          const ns = first;
          count(ns, type, null).found++;
          skip(
            ns,
            type,
            r,
            `a ${type} record must be an object, not ${Array.isArray(r) ? "a list" : r === null ? "null" : typeof r}`,
          );
          return;
        }
        const out = resolved[j++]!;
        const missingBase = out.baseMissing ? obj((r as JsonObject)._copy) : null;
        pending.push({ type, record: out.record, notes: out.notes, index, missingBase });
      });
    } else if (Object.hasOwn(FOLDED, type)) {
      for (const r of raw) {
        const o = obj(r);
        const { ns } = o ? docOf(o) : { ns: first };
        const c = count(ns, type, null);
        c.found++;
        if (!o) {
          skip(ns, type, r, `a ${type} record must be an object`);
          continue;
        }
        c.folded++;
      }
    } else {
      const reason = LEFT_OUT[type];
      for (const r of raw) {
        const o = obj(r);
        const { ns } = o ? docOf(o) : { ns: first };
        count(ns, type, null).found++;
        skip(
          ns,
          type,
          r,
          reason ??
            `unknown record type "${type}" (5etools homebrew defines spell, monster, item, race, feat, background, ` +
              `class, …)`,
          reason !== undefined,
        );
      }
    }
  }

  // Keys: per document and kind, `<document key>_<slug of the name>`, made unique with -2, -3, ….
  const used = new Set<string>();
  const keyFor = (ns: NormalizedSource, kind: EntityKind, slugSource: string): string => {
    const slug = slugify(stripInvisible(slugSource).replace(/['\u2018\u2019]/g, "")) || shortHash(slugSource);
    const base = `${ns.doc.key}_${slug}`;
    let key = base;
    for (let n = 2; used.has(`${kind}\u0000${key}`); n++) key = `${base}-${n}`;
    used.add(`${kind}\u0000${key}`);
    return key;
  };

  // Races before subraces and classes before subclasses: children link to their parents' keys.
  const order = ["race", "class", "subrace", "subclass"];
  pending.sort((a, b) => (order.indexOf(a.type) + 1 || 9) - (order.indexOf(b.type) + 1 || 9));
  const raceRefs = new Map<string, Ref>();
  const classRefs = new Map<string, Ref>();
  const subraceOf = new Map<string, Ref[]>();
  const subclassOf = new Map<string, Ref[]>();
  for (const p of pending) {
    const n = typeof p.record.name === "string" ? p.record.name.trim() : "";
    if (p.type === "subrace" && typeof p.record.raceName === "string")
      subraceOf.set(lower(p.record.raceName), [
        ...(subraceOf.get(lower(p.record.raceName)) ?? []),
        { key: "", name: n },
      ]);
    if (p.type === "subclass" && typeof p.record.className === "string")
      subclassOf.set(lower(p.record.className), [
        ...(subclassOf.get(lower(p.record.className)) ?? []),
        { key: "", name: n },
      ]);
  }

  for (const p of pending) {
    const { ns, note } = docOf(p.record);
    const entityType = ENTITY_TYPES[p.type]!;
    const c = count(ns, p.type, entityType === "equipment" ? null : entityType);
    c.found++;
    if (p.type === "spell" && p.missingBase && p.record.level === undefined) {
      // A copy of a spell from a book (PHB Fireball) states no level: the store's copy of that spell
      // (the SRD's) gives what the copy does not state; without one the level is unknown.
      const baseName = typeof p.missingBase.name === "string" ? p.missingBase.name : "";
      const found = baseName ? (outside.spell?.(baseName) ?? null) : null;
      if (!found) {
        const which = `"${baseName}"${typeof p.missingBase.source === "string" ? ` (${p.missingBase.source})` : ""}`;
        const why = `its _copy base ${which} is neither in this file nor in the store, and the copy states no level`;
        skip(ns, p.type, p.record, `${why}; sync the SRD first (lorekeeper sync) or give the spell its level`);
        continue;
      }
      p.outside = found;
      p.record = { ...p.record, level: found.data.level };
      const from = `; what the copy does not state comes from ${found.name} (${found.document_key}) in the store`;
      p.notes = p.notes.map((n) => n.replace(/; imported with only the fields it states$/, from));
    }
    const schema = p.type === "spell" ? SpellRecord : p.type === "itemProperty" ? ItemPropertyRecord : Named;
    const checked = v.safeParse(schema, p.record);
    if (!checked.success) {
      skip(ns, p.type, p.record, `invalid record: ${issueText(checked.issues, 2)}`);
      continue;
    }
    const d = p.record;
    const rawName =
      p.type === "itemProperty"
        ? (line(d.name, ctx) ?? line(obj(arr(d.entries)[0])?.name, ctx) ?? String(d.abbreviation))
        : (checked.output as { name: string }).name;
    let built: Entity | { skip: string };
    try {
      const refs = { keyFor, fileUrl, raceRefs, classRefs, subraceOf, subclassOf, fluff, groups, roll20 };
      built = buildOne(p.type, d, rawName, ns, ctx, {
        ...refs,
        classFeatures,
        subclassFeatures,
        extraByType,
        outside: p.outside ?? null,
      });
    } catch (err) {
      built = { skip: `could not be read: ${(err as Error).message}` };
    }
    if ("skip" in built) {
      skip(ns, p.type, d, built.skip);
      continue;
    }
    built = withTagsRendered(built, stats);
    if (note) ns.warnings.push(`${p.type} "${rawName}": ${note}`);
    for (const x of p.notes) ns.warnings.push(`${p.type} "${rawName}": ${x}`);
    countKind(c, built.kind, 1);
    c.imported++;
    ns.entities.push(built);
    ns.from.push({ type: p.type, key: rawName, line: 0, column: 0 });
  }

  for (const [ns, m] of counts) ns.types = [...m.values()];
  for (const ns of docs.values()) ns.types.sort((a, b) => a.type.localeCompare(b.type));
  const obj2 = (m: Map<string, number>) => Object.fromEntries([...m.entries()].sort((a, b) => b[1] - a[1]));
  if (stats.unknown.size)
    warnings.push(
      `inline tags shown by their text only (not known to this importer): ` +
        `${[...stats.unknown.entries()].map(([t, n]) => `{@${t}} ×${n}`).join(", ")}`,
    );
  if (stats.unknownBlocks.size)
    warnings.push(
      `entry blocks shown by their name and text only (not known to this importer): ` +
        `${[...stats.unknownBlocks.entries()].map(([t, n]) => `${t} ×${n}`).join(", ")}`,
    );
  return {
    sources: [...docs.values()],
    warnings,
    unknownTags: obj2(stats.unknown),
    unknownBlocks: obj2(stats.unknownBlocks),
  };
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

interface Lookups {
  keyFor: (ns: NormalizedSource, kind: EntityKind, slugSource: string) => string;
  fileUrl: string;
  raceRefs: Map<string, Ref>;
  classRefs: Map<string, Ref>;
  subraceOf: Map<string, Ref[]>;
  subclassOf: Map<string, Ref[]>;
  fluff: Map<string, string>;
  groups: Map<string, LegendaryGroup>;
  roll20: Map<string, JsonObject>;
  classFeatures: JsonObject[];
  subclassFeatures: JsonObject[];
  extraByType: Map<string, string[]>;
  /** The spell a copy's missing base was found as in the store. */
  outside: OutsideSpell | null;
}

function buildOne(
  type: string,
  d: JsonObject,
  name: string,
  ns: NormalizedSource,
  ctx: FileContext,
  l: Lookups,
): Entity | { skip: string } {
  const src = FIVETOOLS_SOURCE;
  const base = (kind: EntityKind, slugSource: string = name): Base => ({
    key: l.keyFor(ns, kind, slugSource),
    name,
    doc: { key: ns.doc.key, name: ns.doc.name },
    url: `${l.fileUrl}#${encodeURIComponent(type)}/${encodeURIComponent(name)}`,
  });
  const fluffOf = (t: string) => {
    const own = obj(d.fluff) ? text(obj(d.fluff)!.entries, ctx) : "";
    return own || l.fluff.get(`${t}\u0000${name.toLowerCase()}`) || null;
  };
  switch (type) {
    case "spell": {
      const s = buildSpell(d, ctx, l.roll20.get(name.toLowerCase()) ?? null, l.outside?.data ?? null);
      if ("skip" in s) return s;
      const f = fluffOf("spell");
      if (f) s.desc = [s.desc, f].filter(Boolean).join("\n");
      return spellEntity(src, base("spell"), s);
    }
    case "monster": {
      const g = obj(d.legendaryGroup);
      const { data, keys } = buildCreature(
        d,
        ctx,
        g ? (l.groups.get(lower(g.name)) ?? null) : null,
        fluffOf("monster"),
      );
      return creatureEntity(src, base("creature"), data, keys);
    }
    case "item":
    case "baseitem": {
      const kind = itemKind(d, ctx);
      const letterType = typeof d.type === "string" ? d.type.split("|")[0]! : "";
      const extra = [...(l.extraByType.get(letterType) ?? []), fluffOf("item")].filter((x): x is string => !!x);
      if (kind === "magic_item")
        return magicItemEntity(
          src,
          base(kind),
          buildMagicItem(
            d,
            ctx,
            extra.filter((x) => !ctx.itemTypes.has(letterType)),
          ),
        );
      if (kind === "weapon") return weaponEntity(src, base(kind), buildWeapon(d, ctx));
      if (kind === "armor") return armorEntity(src, base(kind), buildArmor(d, ctx));
      return itemEntity(src, base("item"), buildItem(d, ctx));
    }
    case "magicvariant": {
      const { item, extra } = variantAsItem(d, ctx);
      return magicItemEntity(src, base("magic_item"), buildMagicItem(item, ctx, extra));
    }
    case "race": {
      const b = base("species");
      const ref = { key: b.key, name };
      l.raceRefs.set(name.toLowerCase(), ref);
      const subs = (l.subraceOf.get(name.toLowerCase()) ?? []).map((s) => ({
        key: `${b.key.split("_")[0]}_${slugify(`${name} ${s.name}`)}`,
        name: `${name} (${s.name})`,
      }));
      const data = buildSpecies(d, ctx, subs, null);
      const f = fluffOf("race");
      if (f) data.desc = [data.desc, f].filter(Boolean).join("\n");
      return speciesEntity(src, b, data);
    }
    case "subrace": {
      const raceName = typeof d.raceName === "string" ? d.raceName.trim() : "";
      const parent =
        l.raceRefs.get(raceName.toLowerCase()) ?? (raceName ? { key: slugify(raceName), name: raceName } : null);
      if (!parent) return { skip: "the subrace names no raceName" };
      const full = `${raceName} (${name})`;
      const b = { ...base("subspecies", `${raceName} ${name}`), name: full };
      return speciesEntity(src, b, buildSpecies(d, ctx, [], parent));
    }
    case "feat":
    case "optionalfeature":
      return featEntity(src, base("feat"), buildFeat(d, ctx, type === "optionalfeature"));
    case "background": {
      const data = buildBackground(d, ctx);
      const f = fluffOf("background");
      if (f) data.desc = [data.desc, f].filter(Boolean).join("\n");
      return backgroundEntity(src, base("background"), data);
    }
    case "class": {
      const b = base("class");
      l.classRefs.set(name.toLowerCase(), { key: b.key, name });
      const feats = l.classFeatures
        .filter((f) => lower(f.className) === name.toLowerCase())
        .map((f) => featureOf(f, ctx));
      const subs = (l.subclassOf.get(name.toLowerCase()) ?? []).map((s) => ({
        key: `${ns.doc.key}_${slugify(`${name} ${s.name}`)}`,
        name: s.name,
      }));
      return classEntity(src, b, buildClass(d, ctx, feats, subs));
    }
    case "subclass": {
      const className = typeof d.className === "string" ? d.className.trim() : "";
      if (!className) return { skip: "the subclass names no className" };
      const parent = l.classRefs.get(className.toLowerCase()) ?? { key: slugify(className), name: className };
      const short = lower(d.shortName) || name.toLowerCase();
      const feats: ClassFeature[] = l.subclassFeatures
        .filter(
          (f) =>
            lower(f.className) === className.toLowerCase() &&
            (lower(f.subclassShortName) === short || lower(f.subclassShortName) === name.toLowerCase()),
        )
        .map((f) => featureOf(f, ctx));
      return classEntity(src, base("subclass", `${className} ${name}`), buildSubclass(parent, feats, ctx, d));
    }
    case "condition":
    case "disease":
    case "status": {
      const desc = text(d.entries, ctx);
      const f = fluffOf("condition");
      return conditionEntity(
        src,
        base("condition"),
        [type === "disease" ? "Disease." : type === "status" ? "Status." : null, desc, f].filter(Boolean).join("\n"),
      );
    }
    case "language":
      return languageEntity(src, base("language"), {
        desc: [text(d.entries, ctx), fluffOf("language")].filter(Boolean).join("\n") || null,
        type: typeof d.type === "string" ? d.type.toLowerCase() : null,
        script: typeof d.script === "string" ? d.script : null,
        typical_speakers:
          arr(d.typicalSpeakers)
            .map((x) => line(x, ctx))
            .filter(Boolean)
            .join(", ") || null,
      });
    case "itemProperty":
      return weaponPropertyEntity(src, base("weapon_property"), {
        desc: text(d.entries ?? d.entriesTemplate, ctx),
        type: null,
      });
    default:
      return { skip: `unknown record type "${type}"` };
  }
}
