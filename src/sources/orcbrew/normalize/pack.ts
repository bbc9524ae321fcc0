/**
 * OrcBrew packs → canonical entities (pure). One pack is one document:
 *   document_key  `orcbrew-<slug of the pack name>`  (never clashes with API keys)
 *   entity key    `<document_key>_<slug of the item's map key>`  (unique within (orcbrew, kind))
 * Types LoreKeeper has no kind for are skipped with a reason; so are disabled items and items that
 * cannot make an entity (a spell without a level). See docs/homebrew.md.
 */
import { ORCBREW_CONTENT_TYPES, type OrcbrewItem, type OrcbrewPack } from "../packs.ts";
import type { Ref } from "../../../entities/kinds.ts";
import { type Entity, type EntityKind, type JsonObject, slugify } from "../../../entities/types.ts";
import type { Base } from "../../../entities/normalize/build.ts";
import {
  backgroundEntity,
  classEntity,
  featEntity,
  speciesEntity,
} from "../../../entities/normalize/canonical/character.ts";
import { creatureEntity } from "../../../entities/normalize/canonical/creature.ts";
import { languageEntity } from "../../../entities/normalize/canonical/reference.ts";
import { spellEntity } from "../../../entities/normalize/canonical/spell.ts";
import { own } from "../../../entities/normalize/read.ts";
import { shortHash } from "../../../entities/normalize/text.ts";
import { buildClass, type PackRefs } from "./class.ts";
import { humanize, namedTexts, oneLine } from "./common.ts";
import { buildCreature } from "./creature.ts";
import { buildBackground, buildFeat, buildLanguage, buildSpecies } from "./options.ts";
import { buildSpell } from "./spell.ts";

const SRC = "orcbrew" as const;
type Build = (d: JsonObject, b: Base, it: OrcbrewItem, refs: PackRefs) => Entity | { skip: string };

function classBuild(isSubclass: boolean): Build {
  return (d, b, it, refs) => classEntity(SRC, b, buildClass(d, b.name, it.key, refs, isSubclass));
}

function speciesBuild(isSub: boolean): Build {
  return (d, b, it, refs) => speciesEntity(SRC, b, buildSpecies(d, it.key, refs, isSub));
}

/** How an entity is built from each OrcPub content type that has a kind (ORCBREW_CONTENT_TYPES). */
const BUILDERS: Readonly<Record<string, Build>> = {
  spells: (d, b) => {
    const data = buildSpell(d);
    return "skip" in data ? data : spellEntity(SRC, b, data);
  },
  monsters: (d, b) => {
    const { data, keys } = buildCreature(d);
    return creatureEntity(SRC, b, data, keys);
  },
  classes: classBuild(false),
  subclasses: classBuild(true),
  races: speciesBuild(false),
  subraces: speciesBuild(true),
  backgrounds: (d, b) => backgroundEntity(SRC, b, buildBackground(d)),
  feats: (d, b, _it, refs) => featEntity(SRC, b, buildFeat(d, refs)),
  languages: (d, b) => languageEntity(SRC, b, buildLanguage(d)),
};

/** What an OrcPub content type becomes: a kind, `{ none: why }`, or null for a type OrcPub does not define. */
function orcbrewType(type: string): EntityKind | { none: string } | null {
  return own(ORCBREW_CONTENT_TYPES, type) ?? null;
}

/** The kind an OrcPub content type becomes, or null. */
function orcbrewKind(type: string): EntityKind | null {
  const t = orcbrewType(type);
  return typeof t === "string" ? t : null;
}

/** OrcPub's own keys drop apostrophes ("Rocco's" → "roccos"); so do ours. */
function dropApostrophes(s: string): string {
  return s.replace(/['\u2018\u2019\u02bc`]/g, "");
}

/** `"Austin's Pack"` → `"orcbrew-austins-pack"`; names without ASCII letters get a hash. */
export function orcbrewDocumentKey(packName: string): string {
  const slug = slugify(dropApostrophes(packName)).slice(0, 64).replace(/-+$/, "");
  return `orcbrew-${slug.length > 0 ? slug : `pack-${shortHash(packName)}`}`;
}

export function orcbrewEntityKey(documentKey: string, itemKey: string): string {
  const slug = slugify(dropApostrophes(itemKey));
  return `${documentKey}_${slug.length > 0 ? slug : shortHash(itemKey)}`;
}

export function orcbrewOrigin(documentKey: string): string {
  return `orcbrew:${documentKey}`;
}

interface OrcbrewPackContext {
  documentKey: string;
  documentName: string;
  /** The file as a URL (`file:///...`); items get `#<type>/<key>`. */
  fileUrl: string;
}

export interface OrcbrewSkipped {
  type: string;
  key: string | null;
  name: string | null;
  reason: string;
  line: number;
  column: number;
  /** Left out by design (a type LoreKeeper does not model, or disabled in the file): a note, not a failure. */
  by_design?: true;
}

export interface TypeCount {
  type: string;
  kind: EntityKind | null;
  found: number;
  imported: number;
  skipped: number;
}

export interface NormalizedPack {
  entities: Entity[];
  /** `from[i]` is where `entities[i]` came from in the file. */
  from: Pick<OrcbrewItem, "type" | "key" | "line" | "column">[];
  skipped: OrcbrewSkipped[];
  warnings: string[];
  /** Per content type, in the order first seen. */
  types: TypeCount[];
}

function refsFor(pack: OrcbrewPack, keys: Map<OrcbrewItem, string>): PackRefs {
  const byType = new Map<string, Map<string, OrcbrewItem>>();
  for (const it of pack.items)
    if (!it.disabled) (byType.get(it.type) ?? byType.set(it.type, new Map()).get(it.type)!).set(it.key, it);
  const nameOf = (it: OrcbrewItem) => oneLine(it.data.name) ?? humanize(it.key);
  const asRef = (it: OrcbrewItem): Ref => ({ key: keys.get(it) ?? it.key, name: nameOf(it) });
  return {
    spellName: (k) => {
      const it = byType.get("spells")?.get(k);
      return it ? nameOf(it) : humanize(k);
    },
    ref: (type, k) => {
      const it = byType.get(type)?.get(k);
      return it && keys.has(it) ? asRef(it) : undefined;
    },
    children: (type, field, parent) =>
      [...(byType.get(type)?.values() ?? [])].filter((it) => it.data[field] === parent && keys.has(it)).map(asRef),
    selection: (k) => {
      const it = byType.get("selections")?.get(k);
      if (!it) return undefined;
      return { name: nameOf(it), options: namedTexts(it.data.options).map(({ name, desc }) => ({ name, desc })) };
    },
  };
}

type SkipAt = { key: string | null; line: number; column: number };

/** Normalize one pack. Never throws for bad items: they are skipped with a reason and a location. */
export function normalizeOrcbrewPack(pack: OrcbrewPack, ctx: OrcbrewPackContext): NormalizedPack {
  const out: NormalizedPack = { entities: [], from: [], skipped: [], warnings: [], types: [] };
  const counts = new Map<string, TypeCount>();
  const count = (type: string) => {
    let c = counts.get(type);
    if (!c) counts.set(type, (c = { type, kind: orcbrewKind(type), found: 0, imported: 0, skipped: 0 }));
    return c;
  };
  const skip = (type: string, { key, line, column }: SkipAt, name: string | null, reason: string, byDesign = false) => {
    count(type).skipped++;
    out.skipped.push({ type, key, name, reason, line, column, ...(byDesign ? { by_design: true as const } : {}) });
  };
  // Entity keys first (references between items need them), unique per kind.
  const keys = new Map<OrcbrewItem, string>();
  const used = new Set<string>();
  for (const it of pack.items) {
    const kind = orcbrewKind(it.type);
    if (!kind || it.disabled) continue;
    const base = orcbrewEntityKey(ctx.documentKey, it.key);
    let key = base;
    for (let n = 2; used.has(`${kind}\u0000${key}`); n++) key = `${base}-${n}`;
    if (key !== base)
      out.warnings.push(
        `${it.type} ${it.key} (line ${it.line}): key ${base} is taken by another item of the pack; stored as ${key}`,
      );
    used.add(`${kind}\u0000${key}`);
    keys.set(it, key);
  }
  const refs = refsFor(pack, keys);
  for (const s of pack.skipped) {
    const type = s.type ?? "(stray)";
    count(type).found++;
    skip(type, s, null, s.reason);
  }
  for (const it of pack.items) {
    const c = count(it.type);
    c.found++;
    const explicitName = oneLine(it.data.name);
    const name = explicitName ?? humanize(it.key);
    const type = orcbrewType(it.type);
    if (typeof type !== "string") {
      const why = `unknown content type :orcpub.dnd.e5/${it.type} (OrcPub defines spells, monsters, classes, ...)`;
      skip(it.type, it, name, type?.none ?? why, type !== null);
      continue;
    }
    if (it.disabled) {
      const what = pack.disabled ? "the whole pack is" : "the item is";
      skip(it.type, it, name, `${what} disabled (:disabled? true)`, true);
      continue;
    }
    const base: Base = {
      key: keys.get(it)!,
      name,
      doc: { key: ctx.documentKey, name: ctx.documentName },
      url: `${ctx.fileUrl}#${encodeURIComponent(it.type)}/${encodeURIComponent(it.key)}`,
    };
    let built: Entity | { skip: string };
    try {
      built = BUILDERS[it.type]!(it.data, base, it, refs);
    } catch (err) {
      built = { skip: `could not be read: ${(err as Error).message}` };
    }
    if ("skip" in built) {
      skip(it.type, it, name, built.skip);
      continue;
    }
    if (!explicitName)
      out.warnings.push(`${it.type} ${it.key} (line ${it.line}) has no :name; named "${name}" after its key`);
    c.imported++;
    out.entities.push(built);
    out.from.push({ type: it.type, key: it.key, line: it.line, column: it.column });
  }
  out.types = [...counts.values()];
  return out;
}
