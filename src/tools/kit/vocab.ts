/**
 * Fixed vocabularies of the tool parameters and how each maps to entity kinds (pure). Matching ignores case,
 * spaces, "-" and "_" ("Very_Rare" → "very rare", "MagicItem" → "magic_item").
 */
import {
  CATALOG_KINDS,
  GROUPS,
  KINDS,
  kindsOfGroup,
  type ToolGroup,
  toolTypeKinds,
  toolTypesOf,
} from "../../entities/catalog.ts";
import type { EntityKind } from "../../entities/types.ts";

/** The `type` values of a group tool, as literal types read from the catalog. */
type Catalog = typeof KINDS;
type ToolTypeOf<G extends ToolGroup> = {
  [K in keyof Catalog]: Catalog[K] extends { group: G }
    ? Catalog[K]["toolType"] | (Catalog[K] extends { toolAliases: readonly (infer A)[] } ? A : never)
    : never;
}[keyof Catalog];
const tuple = <T extends string>(xs: readonly string[]) => xs as unknown as readonly [T, ...T[]];

export const EQUIPMENT_TYPES = tuple<ToolTypeOf<"equipment"> | "all">([...toolTypesOf("equipment"), "all"]);
export type EquipmentType = (typeof EQUIPMENT_TYPES)[number];
/**
 * `magic-item` is what a DM means by it in every edition: every magic_item, and the items a
 * document files as gear that are magic (SRD 5.2 lists Potion of Healing as an item of category
 * Potion; SRD 5.1 as a magic item); search_equipment narrows those items to the magic ones.
 */
export const EQUIPMENT_KINDS: Record<EquipmentType, readonly EntityKind[]> = {
  ...toolTypeKinds("equipment", EQUIPMENT_TYPES.slice(0, -1)),
  "magic-item": ["magic_item", "item"],
  all: kindsOfGroup("equipment"),
};

/** A group tool's `type` enum, and the kinds a value of it selects (every kind of the group for none). */
function groupTypes<G extends ToolGroup>(group: G) {
  const values = tuple<ToolTypeOf<G>>(toolTypesOf(group));
  const kinds = toolTypeKinds(group, values);
  const all: readonly EntityKind[] = kindsOfGroup(group);
  return { values, all, select: (type: unknown) => (type ? kinds[type as ToolTypeOf<G>] : all) };
}

/** `rule` covers the top-level rules and their sections (where `section=` applies). */
export const RULE_TYPES = groupTypes("rule");

/** `race` is the older name of `species`. */
export const CHARACTER_OPTION_TYPES = groupTypes("character_option");

export const FORMATS = ["json", "text"] as const;

/**
 * `search_all(content_types=...)`: display name → kinds, from the catalog (each kind's label and
 * aliases, then a named group such as Equipment after its last kind). Open5e-style names (Spell,
 * MagicItem, Creature); matching ignores case, "-", "_" and a plural "s".
 */
export const CONTENT_TYPES: ReadonlyArray<{ name: string; aliases?: readonly string[]; kinds: readonly EntityKind[] }> =
  CATALOG_KINDS.flatMap((k, i) => {
    const info = KINDS[k];
    const own = { name: info.label, ...(info.aliases.length ? { aliases: info.aliases } : {}), kinds: [k] };
    const next = CATALOG_KINDS[i + 1];
    const label = GROUPS[info.group].label;
    const closesGroup = label !== null && (next === undefined || KINDS[next].group !== info.group);
    return closesGroup ? [own, { name: label, kinds: kindsOfGroup(info.group) }] : [own];
  });

/** Lower-case with spaces, "-" and "_" removed: the form two spellings are compared in. */
export function squash(s: string): string {
  return s.toLowerCase().replace(/[\s_-]+/g, "");
}

/**
 * The canonical vocabulary value `raw` stands for, or `raw` itself (trimmed, lower-cased) when
 * nothing matches, so the enum check reports it. Non-strings pass through untouched.
 */
export function canonical(raw: unknown, values: readonly string[], aliases: Record<string, string> = {}): unknown {
  if (typeof raw !== "string") return raw;
  for (const s of singulars(squash(raw.trim()))) {
    for (const v of values) if (squash(v) === s) return v;
    for (const [alias, v] of Object.entries(aliases)) if (squash(alias) === s) return v;
  }
  return raw.trim().toLowerCase();
}

/** The word itself, then its plausible singulars ("classes" → "class", "abilities" → "ability"). */
function singulars(s: string): string[] {
  const out = [s];
  if (s.length > 3 && s.endsWith("ies")) out.push(`${s.slice(0, -3)}y`);
  if (s.length > 3 && s.endsWith("es")) out.push(s.slice(0, -2));
  if (s.length > 3 && s.endsWith("s")) out.push(s.slice(0, -1));
  return out;
}

const CONTENT_TYPE_INDEX = new Map<string, (typeof CONTENT_TYPES)[number]>();
for (const ct of CONTENT_TYPES) {
  for (const n of [ct.name, ...(ct.aliases ?? []), ...ct.kinds.filter(() => ct.kinds.length === 1)])
    CONTENT_TYPE_INDEX.set(squash(n), ct);
}

/** One content type name → its kinds, or undefined. Accepts "MagicItem", "magic_item", "magic-items", "spells". */
export function contentTypeKinds(raw: string): readonly EntityKind[] | undefined {
  for (const c of singulars(squash(raw.trim()))) {
    const hit = CONTENT_TYPE_INDEX.get(c);
    if (hit) return hit.kinds;
  }
  return undefined;
}

export const CONTENT_TYPE_NAMES: readonly string[] = CONTENT_TYPES.map((c) => c.name);
