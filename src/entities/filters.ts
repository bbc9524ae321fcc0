/**
 * THE filter table: every structured filter, one entry per store column. From an entry come
 *   - the store column (src/store/entities.ts writes it; src/store/filter-columns.ts adds it to an
 *     older store and back-fills it from each row's data when it is derived),
 *   - its value: set by the normalizers (`Entity.filters[column]`), or `derive`d from canonical data,
 *   - per parameter: the SQL (`match`, src/search/filter/filters.ts), the "why is this empty /
 *     nearest values" hint (src/search/rank/explain.ts), the tool parameter with its enum and
 *     description (src/tools/kit/filter-params.ts, in every search tool of the entry's groups), the
 *     `lorekeeper search` option (src/cli/commands/search-filters.ts) and prompt-argument
 *     completion (src/server/features/completions.ts),
 *   - the `StructuredFilters` type (search/types.ts) and the vocabulary test's columns.
 * Vocabularies are defined in the kind catalog (catalog.ts); derivations in derived.ts. Pure.
 */
import {
  ALIGNMENT_WORDS,
  CONDITIONS,
  CREATURE_TYPES,
  DAMAGE_TYPES,
  KINDS,
  MOVEMENT_MODES,
  RARITIES,
  SENSES,
  SIZES,
  SPELL_COMPONENTS,
  SPELL_SCHOOLS,
  type ToolGroup,
  WEAPON_PROPERTIES,
} from "./catalog.ts";
import {
  alignmentWords,
  blockNames,
  components,
  conditionsInflicted,
  environments,
  isMagicItem,
  mentioned,
  speeds,
  spellsCast,
  text,
  weaponProperties,
} from "./derived.ts";
import type { Entity, EntityFilters, EntityKind, JsonObject } from "./types.ts";

/** What a parameter accepts. */
type FilterInput =
  | { type: "int"; min: number; max?: number }
  | { type: "number"; min: number; max?: number }
  /** a challenge rating: a number or "1/4"; `exact` = one of the ratings that exist */
  | { type: "cr"; exact?: boolean }
  /** free text, lower-cased (its hint: the nearest values the store holds) */
  | { type: "key" }
  /** dice as written, "1d8" */
  | { type: "dice" }
  | { type: "bool" }
  /** one value of a closed vocabulary */
  | { type: "vocab"; values: readonly string[]; aliases?: Readonly<Record<string, string>> }
  /** one value or several of a closed vocabulary, all of which must hold */
  | { type: "values"; values: readonly string[]; aliases?: Readonly<Record<string, string>> };

/**
 * How a parameter's value matches the column: `equal` / `at_least` / `at_most` (numbers, booleans
 * as 0/1), `vocab` (any stored spelling: "very rare" = "very-rare"), `casting_time` (its spellings),
 * `dice` (spaces ignored), `has` (a list column "|a|b|" holds the key, also as "<source>_key"),
 * `has_all` (a list column holds every value given), `namesake_has_words` (the list column of the row
 * or of a same-named row of its kind has an element containing the words: an SRD 5.2 creature lists
 * no environments, its SRD 5.1 namesake does).
 */
export type FilterMatch =
  | "equal"
  | "at_least"
  | "at_most"
  | "vocab"
  | "casting_time"
  | "dice"
  | "has"
  | "has_all"
  | "namesake_has_words";

export interface FilterParam {
  /** The `StructuredFilters` key and the CLI option (`--cr-min`). */
  name: string;
  /** The tool parameter, when it is not `name` (search_creature's `type`). */
  tool?: string;
  input: FilterInput;
  match: FilterMatch;
  /** The tool parameter's description (none when its name says enough). */
  description?: string;
  /** Another wording in one group's tool. */
  descriptionIn?: Partial<Record<ToolGroup, string>>;
  /** The search tools that take it; default every group of the column's kinds. */
  groups?: readonly ToolGroup[];
  /** `lorekeeper search --help` text, when the description does not say enough. */
  help?: string;
  /** Completion offers the values the store holds (read from stat blocks), not the vocabulary. */
  completeFromStore?: true;
}

export interface FilterColumn {
  column: string;
  /** From its first parameter (sqlTypeOf). */
  sqlType: "INTEGER" | "REAL" | "TEXT" | "TEXT COLLATE NOCASE";
  /** The kinds whose rows hold a value (NULL for the others). */
  kinds: readonly EntityKind[];
  params: readonly FilterParam[];
  /**
   * A value read from canonical data, whatever the source (list columns: the words; NULL where it
   * does not apply). A source that lists the values itself sets them in `Entity.filters[column]`;
   * `derive` is then skipped. Without `derive` the normalizers fill `Entity.filters[column]`.
   */
  derive?: (data: JsonObject, e: Pick<Entity, "kind" | "name">) => string[] | boolean | null;
  /**
   * The derivation's revision (1 when absent): raise it when `derive` reads the stat blocks
   * differently. A store whose recorded revision is older derives the column again when it opens
   * (store/filter-columns.ts): a sync keeps unchanged rows as they are, derived columns included.
   */
  revision?: number;
}

/** A column with one parameter of the column's own name; `extra`: its derivation. */
function own<
  const C extends string,
  const K extends readonly EntityKind[],
  const P extends Omit<FilterParam, "name">,
  const X extends Pick<FilterColumn, "derive" | "revision"> = Record<never, never>,
>(column: C, kinds: K, param: P, extra: X = {} as X) {
  return { column, kinds, params: [{ name: column, ...param }], ...extra } as const;
}

/**
 * A creature column of the vocabulary words its stat block's text field of the same name mentions
 * ("bludgeoning, piercing, and slashing from nonmagical attacks"): a `values` parameter matching all.
 */
function mentionedIn<const C extends string, const N extends string>(
  column: C,
  name: N,
  values: readonly string[],
  description?: string,
) {
  const param = { name, input: { type: "values", values }, match: "has_all" } as const;
  return {
    column,
    kinds: ["creature"],
    params: [description ? { ...param, description } : param],
    derive: (d: JsonObject) => mentioned(text(d[column]), values),
  } as const;
}

const FILTERS = [
  {
    column: "level",
    kinds: ["spell"],
    params: [
      { name: "level", input: { type: "int", min: 0, max: 9 }, match: "equal", description: "0 = cantrip" },
      { name: "level_min", input: { type: "int", min: 0, max: 9 }, match: "at_least" },
      { name: "level_max", input: { type: "int", min: 0, max: 9 }, match: "at_most" },
    ],
  },
  own("school", ["spell"], { input: { type: "vocab", values: SPELL_SCHOOLS }, match: "vocab" }),
  {
    column: "classes",
    kinds: ["spell", "subclass"],
    params: [
      {
        name: "class_key",
        input: { type: "key" },
        match: "has",
        description: 'e.g. "wizard"',
        descriptionIn: { character_option: 'Subclasses of this class, e.g. "wizard" (type defaults to subclass)' },
        help: "spells castable by / subclasses of this class (e.g. wizard)",
      },
    ],
  },
  own("concentration", ["spell"], { input: { type: "bool" }, match: "equal" }),
  own("ritual", ["spell"], { input: { type: "bool" }, match: "equal" }),
  own("casting_time", ["spell"], {
    input: { type: "key" },
    match: "casting_time",
    description: 'e.g. "1 bonus action", "1 reaction"',
  }),
  {
    column: "cr",
    kinds: ["creature"],
    params: [
      {
        name: "cr",
        input: { type: "cr", exact: true },
        match: "equal",
        description: "Challenge rating 0–30; 1/8, 1/4, 1/2 as 0.125, 0.25, 0.5",
      },
      { name: "cr_min", input: { type: "cr" }, match: "at_least" },
      { name: "cr_max", input: { type: "cr" }, match: "at_most" },
    ],
  },
  own("creature_type", ["creature"], {
    tool: "type",
    input: { type: "vocab", values: CREATURE_TYPES },
    match: "vocab",
  }),
  own("size", ["creature", "species"], {
    input: { type: "vocab", values: SIZES },
    match: "vocab",
    groups: ["creature"],
  }),
  {
    column: "armor_class",
    kinds: ["creature", "armor"],
    params: [{ name: "armor_class_min", input: { type: "int", min: 0 }, match: "at_least", groups: ["creature"] }],
  },
  {
    column: "hit_points",
    kinds: ["creature"],
    params: [{ name: "hit_points_min", input: { type: "int", min: 0 }, match: "at_least" }],
  },
  own("category", ["weapon", "armor", "item", "magic_item"], {
    input: { type: "key" },
    match: "vocab",
    description: 'e.g. "martial melee", "shield", "wondrous item"',
  }),
  own("rarity", ["magic_item"], { input: { type: "vocab", values: RARITIES }, match: "vocab" }),
  own("requires_attunement", ["magic_item"], { input: { type: "bool" }, match: "equal" }),
  own("damage_dice", ["weapon"], { input: { type: "dice" }, match: "dice", description: 'e.g. "1d8"' }),
  {
    column: "damage_types",
    kinds: ["spell", "weapon"],
    params: [{ name: "damage_type", input: { type: "vocab", values: DAMAGE_TYPES }, match: "has" }],
  },
  own("is_simple", ["weapon"], {
    input: { type: "bool" },
    match: "equal",
    description: "Weapons: simple (true) or martial (false)",
  }),
  {
    column: "cost_gp",
    kinds: ["weapon", "armor", "item", "magic_item"],
    params: [
      { name: "cost_min", input: { type: "number", min: 0 }, match: "at_least", description: "In gp" },
      { name: "cost_max", input: { type: "number", min: 0 }, match: "at_most", description: "In gp" },
    ],
  },
  {
    column: "weight_lb",
    kinds: ["weapon", "armor", "item", "magic_item"],
    params: [{ name: "weight_max", input: { type: "number", min: 0 }, match: "at_most", description: "In lb" }],
  },
  own("section", ["rule"], { input: { type: "key" }, match: "vocab", description: 'Rules\' section, e.g. "combat"' }),
  // ── Derived from canonical data ─────────────────────────────────────────────────────────────
  {
    column: "speeds",
    kinds: ["creature"],
    params: [
      {
        name: "speed",
        input: {
          type: "values",
          values: MOVEMENT_MODES,
          aliases: { flying: "fly", swimming: "swim", climbing: "climb", burrowing: "burrow", hovering: "hover" },
        },
        match: "has_all",
        description: "A speed above 0 in this mode",
      },
    ],
    derive: speeds,
  },
  mentionedIn("senses", "sense", SENSES),
  mentionedIn("damage_immunities", "damage_immunity", DAMAGE_TYPES, "Also nonmagical-only"),
  mentionedIn("damage_resistances", "damage_resistance", DAMAGE_TYPES, "Also nonmagical-only"),
  mentionedIn("condition_immunities", "condition_immunity", CONDITIONS),
  own(
    "legendary",
    ["creature"],
    { input: { type: "bool" }, match: "equal", description: "Has legendary actions" },
    { derive: (d: JsonObject) => Array.isArray(d.legendary_actions) && d.legendary_actions.length > 0 },
  ),
  own(
    "alignment",
    ["creature"],
    {
      input: { type: "values", values: ALIGNMENT_WORDS },
      match: "has_all",
      description: 'e.g. ["chaotic", "evil"]; any = any alignment',
    },
    { derive: alignmentWords },
  ),
  own(
    "casts",
    ["creature"],
    { input: { type: "key" }, match: "has", description: 'A spell it casts, e.g. "fireball"', completeFromStore: true },
    // 2: spells named in actions, bonus actions and reactions ("casts Counterspell or Shield").
    { derive: spellsCast, revision: 2 },
  ),
  own(
    "spellcaster",
    ["creature"],
    { input: { type: "bool" }, match: "equal", description: "Casts spells" },
    { derive: (d: JsonObject) => spellsCast(d).length > 0, revision: 2 },
  ),
  own(
    "inflicts",
    ["creature"],
    {
      input: { type: "values", values: CONDITIONS },
      match: "has_all",
      description: "Conditions it imposes",
      completeFromStore: true,
    },
    { derive: conditionsInflicted },
  ),
  {
    column: "traits",
    kinds: ["creature"],
    params: [
      {
        name: "trait",
        input: { type: "key" },
        match: "has",
        description: 'A trait or action it has, by name, e.g. "Pack Tactics"',
        completeFromStore: true,
      },
    ],
    derive: blockNames,
  },
  {
    column: "environments",
    kinds: ["creature"],
    params: [
      {
        name: "environment",
        input: { type: "key" },
        match: "namesake_has_words",
        description: 'e.g. "swamp", "forest", "underdark"',
        help: "creatures of an environment (e.g. swamp; also when only a same-named creature of another book lists it)",
      },
    ],
    derive: environments,
  },
  {
    column: "properties",
    kinds: ["weapon"],
    params: [
      {
        name: "property",
        input: {
          type: "values",
          values: WEAPON_PROPERTIES,
          aliases: { "two handed": "two-handed", twohanded: "two-handed", ammo: "ammunition" },
        },
        match: "has_all",
      },
    ],
    derive: weaponProperties,
  },
  {
    column: "components",
    kinds: ["spell"],
    params: [
      {
        name: "component",
        input: {
          type: "values",
          values: SPELL_COMPONENTS,
          aliases: {
            v: "verbal",
            s: "somatic",
            m: "material",
            costly: "costly material",
            consumed: "consumed material",
          },
        },
        match: "has_all",
        description: "Also V, S, M; costly = a material with a price",
      },
    ],
    derive: components,
  },
  // search_equipment's type "magic-item" sets it (tools/search-tools/search-equipment.ts); no tool parameter of
  // its own.
  own(
    "magic",
    ["item", "magic_item"],
    {
      input: { type: "bool" },
      match: "equal",
      description: "Magic items as a DM means them, whatever kind their document files them under",
      groups: [],
    },
    { derive: (d: JsonObject, e: Pick<Entity, "kind" | "name">) => isMagicItem(e.kind, e.name, d) },
  ),
] as const satisfies readonly Omit<FilterColumn, "sqlType">[];

type Entry = (typeof FILTERS)[number];
type Param = Entry["params"][number];
type ValueOf<I> = I extends { type: "int" | "number" }
  ? number
  : I extends { type: "cr" }
    ? number | string
    : I extends { type: "bool" }
      ? boolean
      : I extends { type: "values" }
        ? string | string[]
        : string;

/** Structured filters as tools and the CLI give them (all optional; ANDed): one key per table parameter. */
export type StructuredFilters = { [P in Param as P["name"]]?: ValueOf<P["input"]> };
export type FilterName = Param["name"];
export type DerivedColumn = Extract<Entry, { derive: unknown }>["column"];

/**
 * A column's SQL type follows from how its parameters match: list columns ("|a|b|") are TEXT, whole
 * numbers and booleans INTEGER, other numbers REAL, other text case-insensitive.
 */
function sqlTypeOf(p: FilterParam): FilterColumn["sqlType"] {
  if (p.match === "has" || p.match === "has_all" || p.match === "namesake_has_words") return "TEXT";
  if (p.input.type === "int" || p.input.type === "bool") return "INTEGER";
  if (p.input.type === "number" || p.input.type === "cr") return "REAL";
  return "TEXT COLLATE NOCASE";
}

export const FILTER_TABLE: readonly FilterColumn[] = FILTERS.map((c) => ({ ...c, sqlType: sqlTypeOf(c.params[0]) }));

/** The derived columns, in table order. */
export const DERIVED_COLUMNS = FILTER_TABLE.filter((f) => f.derive).map((f) => f.column) as DerivedColumn[];
/**
 * The columns the normalizers fill (Entity.filters), in table order; each must be a field of EntityFilters (else this
 * does not compile).
 */
export const SOURCE_COLUMNS: readonly (keyof EntityFilters)[] = FILTER_TABLE.filter((f) => !f.derive).map(
  (f) => f.column,
) as Exclude<Entry["column"], DerivedColumn>[];

export interface TableParam extends FilterParam {
  column: FilterColumn;
}

/** Every parameter of the table, with its column, in table order. */
export const FILTER_PARAMS: readonly TableParam[] = FILTER_TABLE.flatMap((c) =>
  c.params.map((p) => ({ ...p, column: c })),
);

const GROUP_PARAMS = new Map<ToolGroup, readonly TableParam[]>();

/** The parameters a group's search tool takes, in table order (computed once per group: every call reads it). */
export function paramsOfGroup(group: ToolGroup): readonly TableParam[] {
  let ps = GROUP_PARAMS.get(group);
  if (!ps) {
    // A parameter's own groups, else every group of its column's kinds.
    ps = FILTER_PARAMS.filter((p) => (p.groups ?? p.column.kinds.map((k) => KINDS[k].group)).includes(group));
    GROUP_PARAMS.set(group, ps);
  }
  return ps;
}

export function filterParam(name: string): TableParam | undefined {
  return FILTER_PARAMS.find((p) => p.name === name);
}

/** The derived column values of one entity (null where the filter does not apply). */
export function derivedValues(
  e: Pick<Entity, "kind" | "name" | "data"> & { filters?: Entity["filters"] },
): Record<DerivedColumn, string[] | boolean | null> {
  const out = {} as Record<DerivedColumn, string[] | boolean | null>;
  const given = (e.filters ?? {}) as Record<string, unknown>;
  for (const f of FILTER_TABLE) {
    if (!f.derive) continue;
    const col = f.column as DerivedColumn;
    if (!f.kinds.includes(e.kind)) out[col] = null;
    else out[col] = Array.isArray(given[f.column]) ? (given[f.column] as string[]) : f.derive(e.data, e);
  }
  return out;
}
