/**
 * `.orcbrew` text → packs of items (pure): a single plugin (`{:orcpub.dnd.e5/spells {...}}`, named
 * after the file) or `{"Pack name" plugin ...}`. A file whose text or shape cannot be understood
 * FAILS (OrcbrewError, with line and column); anything unusable below that is SKIPPED with a reason
 * and a location, and the rest of the file is imported.
 */
import { LoreKeeperError } from "../../errors.ts";
import type { EntityKind } from "../../entities/types.ts";
import type { JsonObject } from "../../json.ts";
import {
  describe,
  type EdnMap,
  EdnSyntaxError,
  type EdnValue,
  isKeyword,
  isMap,
  kwText,
  readEdn,
  show,
  toPlain,
} from "./edn.ts";

/** The 13 content types OrcPub defines (`:orcpub.dnd.e5/<type>`): the kind each becomes, or why none. */
export const ORCBREW_CONTENT_TYPES: Readonly<Record<string, EntityKind | { none: string }>> = {
  spells: "spell",
  monsters: "creature",
  encounters: { none: "LoreKeeper has no kind for encounters (monster line-ups for a fight)" },
  backgrounds: "background",
  languages: "language",
  invocations: { none: "LoreKeeper has no kind for eldritch invocations" },
  boons: { none: "LoreKeeper has no kind for pact boons" },
  selections: {
    none:
      "LoreKeeper has no kind for selections (option lists; their options are shown in the classes and subclasses " +
      "that use them)",
  },
  feats: "feat",
  races: "species",
  subraces: "subspecies",
  classes: "class",
  subclasses: "subclass",
};

const CONTENT_NS = "orcpub.dnd.e5";

interface SourceLocation {
  line: number;
  column: number;
}

export interface OrcbrewItem extends SourceLocation {
  /** The content type as written (`spells`, or an unknown `magic-items`). */
  type: string;
  /** The item's map key (keyword name), its identity inside the pack. */
  key: string;
  /** The item as plain JSON (keywords → names, sets → arrays, `{nil nil}` dropped). */
  data: JsonObject;
  /** `:disabled? true` on the item, or on the whole pack. */
  disabled: boolean;
}

interface OrcbrewSkip extends SourceLocation {
  /** Content type, or null for a stray key outside any content type. */
  type: string | null;
  key: string | null;
  reason: string;
}

export interface OrcbrewPack extends SourceLocation {
  name: string;
  disabled: boolean;
  items: OrcbrewItem[];
  /** Entries that cannot become items at all (not counted under a known type). */
  skipped: OrcbrewSkip[];
}

interface OrcbrewFile {
  shape: "single" | "multi";
  packs: OrcbrewPack[];
  /** Things worth telling the user that do not skip anything. */
  warnings: string[];
}

/** A file that cannot be imported at all. `line`/`column` point at the problem when known. */
export class OrcbrewError extends LoreKeeperError {
  override name = "OrcbrewError";
  readonly line?: number;
  readonly column?: number;
  constructor(
    readonly reason: string,
    at?: SourceLocation,
  ) {
    super("orcbrew", at ? `line ${at.line}, column ${at.column}: ${reason}` : reason);
    this.line = at?.line;
    this.column = at?.column;
  }
}

/** The pack name of a single-plugin file: its base name without `.orcbrew`. */
export function packNameFromFile(fileName: string): string {
  const base = fileName.split(/[\\/]/).pop() ?? fileName;
  const name = base.replace(/\.orcbrew$/i, "").trim();
  return name.length > 0 ? name : "Unnamed pack";
}

/**
 * A single-plugin file's pack name: the `:option-pack` its items were saved into (OrcPub's per-pack
 * export writes `<pack>.orcbrew`, but files get renamed). When items disagree, the most common
 * one wins, with a note; without any, the caller keeps the file name. Pure.
 */
function singlePackName(items: readonly OrcbrewItem[]): { name?: string; note?: string } {
  const counts = new Map<string, number>();
  for (const it of items) {
    const v = it.data["option-pack"];
    if (typeof v === "string" && v.trim()) counts.set(v.trim(), (counts.get(v.trim()) ?? 0) + 1);
  }
  const ranked = [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  if (!ranked.length) return {};
  const name = ranked[0]![0];
  if (ranked.length === 1) return { name };
  return {
    name,
    note:
      `items name ${ranked.length} option packs ` +
      `(${ranked.map(([n, c]) => `"${n}" ×${c}`).join(", ")}); the pack is named "${name}"`,
  };
}

function readOrcbrewEdn(text: string) {
  try {
    return readEdn(text);
  } catch (err) {
    if (!(err instanceof EdnSyntaxError)) throw err;
    const json = /^\uFEFF?\s*[[{]\s*"[^"\n]*"\s*:/.test(text) ? " (this looks like JSON; .orcbrew files are EDN)" : "";
    throw new OrcbrewError(`not valid EDN: ${err.reason}${json}`, err);
  }
}

/** Parse `.orcbrew` text; `fileName` names a single-plugin pack whose items carry no `:option-pack`. */
export function parseOrcbrew(text: string, fileName: string): OrcbrewFile {
  const { value, lines, trailingOffset } = readOrcbrewEdn(text);
  const at = (offset: number) => lines.locate(offset);
  const warnings: string[] = [];
  if (trailingOffset !== null) {
    const { line, column } = at(trailingOffset);
    warnings.push(`text after the first EDN form (from line ${line}, column ${column}) was ignored, as OrcPub does`);
  }
  if (!isMap(value)) {
    const loc =
      typeof value === "object" && value !== null && "offset" in value ? at(value.offset) : { line: 1, column: 1 };
    throw new OrcbrewError(`the file must hold a map ({...}), but it starts with ${describe(value)}`, loc);
  }
  const ctx: Ctx = { at, warnings };
  const stringKeys = value.entries.filter((e) => typeof e.key === "string");
  if (stringKeys.length === 0) {
    const fromFile = packNameFromFile(fileName);
    if (value.entries.length === 0) warnings.push("the file is an empty map: nothing to import");
    const pack = readPack(ctx, fromFile, value);
    const named = singlePackName(pack.items);
    if (named.name) pack.name = named.name;
    if (named.note) warnings.push(named.note);
    return { shape: "single", packs: [pack], warnings };
  }
  const odd = value.entries.find((e) => typeof e.key !== "string");
  if (odd) {
    throw new OrcbrewError(
      `the top-level map mixes pack names (strings such as ${show(stringKeys[0]!.key)}) with ${show(odd.key)}; ` +
        `it must be either {"Pack name" {...}} or {:orcpub.dnd.e5/<type> {...}}`,
      at(odd.offset),
    );
  }
  const packs: OrcbrewPack[] = [];
  for (const e of value.entries) {
    const loc = at(e.offset);
    const { line, column } = loc;
    let name = (e.key as string).trim();
    if (name.length === 0) {
      name = "Unnamed pack";
      warnings.push(`a pack with an empty name (line ${line}, column ${column}) is imported as "${name}"`);
    }
    if (e.value === null) {
      warnings.push(`pack "${name}" (line ${line}) is nil: nothing to import`);
      packs.push({ name, disabled: false, items: [], skipped: [], ...loc });
      continue;
    }
    if (!isMap(e.value))
      throw new OrcbrewError(`pack "${name}" must be a map of content types, but it is ${describe(e.value)}`, loc);
    packs.push(readPack(ctx, name, e.value, loc));
  }
  return { shape: "multi", packs, warnings };
}

interface Ctx {
  at: (offset: number) => SourceLocation;
  warnings: string[];
}

function readPack(ctx: Ctx, name: string, m: EdnMap, loc?: SourceLocation): OrcbrewPack {
  const where = loc ?? ctx.at(m.offset);
  const pack: OrcbrewPack = { name, disabled: false, items: [], skipped: [], ...where };
  for (const e of m.entries) {
    const loc = ctx.at(e.offset);
    const k = e.key;
    if (isKeyword(k) && k.ns === null && k.name === "disabled?") {
      if (e.value === true) pack.disabled = true;
      else if (e.value !== false)
        ctx.warnings.push(
          `pack "${name}": :disabled? is ${describe(e.value)}, not true/false (line ${loc.line}); read as false`,
        );
      continue;
    }
    if (k === null && e.value === null) continue; // {nil nil} cruft
    let type: string | undefined;
    if (isKeyword(k) && k.ns === CONTENT_NS) type = k.name;
    else if (isKeyword(k) && k.ns === null && Object.hasOwn(ORCBREW_CONTENT_TYPES, k.name)) {
      type = k.name;
      ctx.warnings.push(
        `pack "${name}": content key :${k.name} (line ${loc.line}) should be :${CONTENT_NS}/${k.name}; read as ` +
          `${k.name}`,
      );
    }
    if (type === undefined) {
      const shown = isKeyword(k) ? kwText(k) : show(k);
      const why = `stray key ${shown} sits directly in the pack, not under a content type such as :${CONTENT_NS}/races`;
      skip(pack, null, isKeyword(k) ? k.name : show(k), why, loc);
      continue;
    }
    readType(ctx, pack, type, e.value, loc);
  }
  if (pack.disabled) for (const it of pack.items) it.disabled = true;
  return pack;
}

function skip(pack: OrcbrewPack, type: string | null, key: string | null, reason: string, at: SourceLocation): void {
  pack.skipped.push({ type, key, reason, ...at });
}

function readType(ctx: Ctx, pack: OrcbrewPack, type: string, v: EdnValue, loc: SourceLocation): void {
  if (v === null) return;
  if (typeof v === "object" && (v.type === "vector" || v.type === "list")) {
    readItemList(ctx, pack, type, v.items, loc);
    return;
  }
  if (!isMap(v)) {
    skip(pack, type, null, `:${CONTENT_NS}/${type} must be a map of items, but it is ${describe(v)}`, loc);
    return;
  }
  const seen = new Set<string>();
  for (const e of v.entries) {
    const iloc = ctx.at(e.offset);
    if (e.key === null && e.value === null) continue;
    let key: string;
    if (isKeyword(e.key)) {
      key = e.key.name;
      if (!/^[a-zA-Z]/.test(key))
        ctx.warnings.push(
          `${type} ${kwText(e.key)} (line ${iloc.line}): OrcPub refuses item keys that do not start with a letter; ` +
            `imported anyway`,
        );
    } else if (typeof e.key === "string" && e.key.trim().length > 0) {
      key = e.key.trim();
    } else {
      skip(pack, type, show(e.key), `item key ${show(e.key)} is not a keyword`, iloc);
      continue;
    }
    if (seen.has(key)) {
      // `:x` and `:ns/x` (or "x") in the same map: distinct in EDN, the same item here
      skip(pack, type, key, `a second item with key ${key} in the same ${type} map`, iloc);
      continue;
    }
    seen.add(key);
    if (!isMap(e.value)) {
      skip(pack, type, key, `the item is ${describe(e.value)}, not a map`, iloc);
      continue;
    }
    const data = toPlain(e.value) as JsonObject;
    pack.items.push({ type, key, data, disabled: data["disabled?"] === true, ...iloc });
  }
}

/** A content type written as a vector of items (some hand-made files): each item's `:key` (or name) is its key. */
function readItemList(ctx: Ctx, pack: OrcbrewPack, type: string, items: EdnValue[], loc: SourceLocation): void {
  ctx.warnings.push(
    `pack "${pack.name}": :${CONTENT_NS}/${type} (line ${loc.line}) is a list of items, not a map; ` +
      "items are keyed by their :key",
  );
  const seen = new Set<string>();
  items.forEach((v, i) => {
    const iloc = typeof v === "object" && v !== null && "offset" in v ? ctx.at(v.offset) : loc;
    if (!isMap(v)) {
      skip(pack, type, null, `item ${i + 1} of the list is ${describe(v)}, not a map`, iloc);
      return;
    }
    const data = toPlain(v) as JsonObject;
    const raw = typeof data.key === "string" ? data.key : typeof data.name === "string" ? data.name : "";
    const key = raw.trim().toLowerCase().replace(/\s+/g, "-");
    if (!key || seen.has(key)) {
      const why = key ? `a second item with key ${key}` : `item ${i + 1} of the list has neither :key nor :name`;
      skip(pack, type, key || null, why, iloc);
      return;
    }
    seen.add(key);
    pack.items.push({ type, key, data, disabled: data["disabled?"] === true, ...iloc });
  });
}
