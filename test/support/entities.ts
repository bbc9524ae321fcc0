/**
 * Small, realistic hand-made entities for search tests, and a store holding them.
 * Shapes follow src/entities/types.ts; texts are short paraphrases, not copies of the SRD.
 */
import type { Database } from "bun:sqlite";
import { join } from "node:path";
import type { DocumentSource, Entity, EntityFilters, EntityKind } from "../../src/entities/types.ts";
import { openStore, type Store } from "../../src/store/db.ts";
import { replaceOrigin } from "../../src/store/entities.ts";
import { makeTempDir } from "./tmp.ts";

const DOC_NAMES: Record<string, string> = {
  "srd-2014": "System Reference Document 5.1",
  "srd-2024": "System Reference Document 5.2",
  tob: "Tome of Beasts",
  "homebrew-pack": "My Homebrew Pack",
};

export interface MakeOpts {
  doc?: string;
  source?: DocumentSource;
  text?: string;
  key?: string;
}

export function makeEntity(kind: EntityKind, name: string, filters: EntityFilters, opts: MakeOpts = {}): Entity {
  const doc = opts.doc ?? "srd-2014";
  const prefix = doc === "srd-2014" ? "srd" : doc;
  const slug = name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
  const key = opts.key ?? `${prefix}_${slug}`;
  return {
    kind,
    key,
    name,
    document_key: doc,
    document_name: DOC_NAMES[doc] ?? doc,
    document_source: opts.source ?? (doc === "homebrew-pack" ? "orcbrew" : "open5e_v2"),
    source_url: `http://127.0.0.1/v2/${kind}s/${key}/`,
    text: `${name}. ${opts.text ?? ""}`.trim(),
    filters,
    data: { name, kind, ...(filters as Record<string, string | number | boolean | string[] | null>) },
  };
}

const spell = (name: string, f: EntityFilters, text: string, opts: MakeOpts = {}) =>
  makeEntity("spell", name, f, { ...opts, text });
const creature = (name: string, f: EntityFilters, text: string, opts: MakeOpts = {}) =>
  makeEntity("creature", name, f, { ...opts, text });

/** A dozen spells, a few creatures, equipment, rules and oddly named entries (with `_` and `%`). */
export function sampleEntities(): Entity[] {
  return [
    spell(
      "Fireball",
      {
        level: 3,
        school: "evocation",
        classes: ["sorcerer", "wizard"],
        concentration: false,
        ritual: false,
        casting_time: "1 action",
        damage_types: ["fire"],
      },
      "A bright streak flashes to a point you choose and blossoms into an " +
        "explosion of flame. Each creature in a 20-foot sphere takes 8d6 fire damage.",
    ),
    spell(
      "Fireball",
      {
        level: 3,
        school: "evocation",
        classes: ["sorcerer", "wizard"],
        concentration: false,
        ritual: false,
        casting_time: "1 action",
        damage_types: ["fire"],
      },
      "A bright streak flashes from you and explodes into a fiery " +
        "blast. Creatures in a 20-foot sphere take fire damage.",
      { doc: "srd-2024" },
    ),
    spell(
      "Fire Bolt",
      {
        level: 0,
        school: "evocation",
        classes: ["sorcerer", "wizard"],
        concentration: false,
        ritual: false,
        casting_time: "1 action",
        damage_types: ["fire"],
      },
      "You hurl a mote of fire at a creature or object. A flammable object hit by this spell ignites.",
    ),
    spell(
      "Wall of Fire",
      {
        level: 4,
        school: "evocation",
        classes: ["druid", "sorcerer", "wizard"],
        concentration: true,
        ritual: false,
        casting_time: "1 action",
        damage_types: ["fire"],
      },
      "You create a wall of fire on a solid surface. The wall " +
        "deals fire damage to creatures that end their turn near it.",
    ),
    spell(
      "Fire Shield",
      {
        level: 4,
        school: "evocation",
        classes: ["wizard"],
        concentration: false,
        ritual: false,
        casting_time: "1 action",
        damage_types: ["fire", "cold"],
      },
      "Thin and wispy flames wreathe your body, protecting you from fire or cold and harming those who strike you.",
    ),
    spell(
      "Ice Storm",
      {
        level: 4,
        school: "evocation",
        classes: ["druid", "sorcerer", "wizard"],
        concentration: false,
        ritual: false,
        casting_time: "1 action",
        damage_types: ["bludgeoning", "cold"],
      },
      "A hail of rock-hard ice pounds to the ground in a cylinder, dealing bludgeoning and cold damage.",
    ),
    spell(
      "Magic Missile",
      {
        level: 1,
        school: "evocation",
        classes: ["sorcerer", "wizard"],
        concentration: false,
        ritual: false,
        casting_time: "1 action",
        damage_types: ["force"],
      },
      "You create three glowing darts of magical force. Each " +
        "dart hits a creature of your choice and deals force damage.",
    ),
    spell(
      "Shield",
      {
        level: 1,
        school: "abjuration",
        classes: ["sorcerer", "wizard"],
        concentration: false,
        ritual: false,
        casting_time: "1 reaction",
      },
      "An invisible barrier of magical force appears and protects " +
        "you, granting +5 to AC until the start of your next turn.",
    ),
    spell(
      "Cure Wounds",
      {
        level: 1,
        school: "evocation",
        classes: ["bard", "cleric", "druid", "paladin", "ranger"],
        concentration: false,
        ritual: false,
        casting_time: "1 action",
      },
      "A creature you touch regains a number of hit points. This " +
        "spell heals wounds but has no effect on undead or constructs.",
    ),
    spell(
      "Healing Word",
      {
        level: 1,
        school: "evocation",
        classes: ["bard", "cleric", "druid"],
        concentration: false,
        ritual: false,
        casting_time: "1 bonus action",
      },
      "A creature of your choice that you can see regains hit points when you speak a word of healing.",
    ),
    spell(
      "Detect Magic",
      {
        level: 1,
        school: "divination",
        classes: ["bard", "cleric", "wizard"],
        concentration: true,
        ritual: true,
        casting_time: "1 action",
      },
      "For the duration, you sense the presence of magic within 30 feet of you.",
    ),
    spell(
      "Identify",
      {
        level: 1,
        school: "divination",
        classes: ["bard", "wizard"],
        concentration: false,
        ritual: true,
        casting_time: "1 minute",
      },
      "You choose one object that you must touch throughout the casting and learn its magical properties.",
    ),
    spell(
      "Hellfire Orb",
      {
        level: 5,
        school: "evocation",
        classes: ["warlock"],
        concentration: false,
        ritual: false,
        casting_time: "1 action",
        damage_types: ["fire", "necrotic"],
      },
      "You hurl a sphere of hellish fire that burns the soul.",
      { doc: "tob" },
    ),
    spell(
      "Ember_Spark",
      {
        level: 0,
        school: "evocation",
        classes: ["wizard"],
        concentration: false,
        ritual: false,
        casting_time: "1 action",
        damage_types: ["fire"],
      },
      "A tiny spark leaps from your fingertip. (A homebrew cantrip whose name holds an underscore.)",
      { doc: "homebrew-pack", key: "ember-spark" },
    ),
    spell(
      "EmberXSpark",
      {
        level: 0,
        school: "evocation",
        classes: ["wizard"],
        concentration: false,
        ritual: false,
        casting_time: "1 action",
        damage_types: ["fire"],
      },
      "A decoy whose name differs from Ember_Spark only where the underscore is.",
      { doc: "homebrew-pack", key: "emberxspark" },
    ),
    spell(
      "100% Fire",
      {
        level: 2,
        school: "evocation",
        classes: ["wizard"],
        concentration: false,
        ritual: false,
        casting_time: "1 action",
        damage_types: ["fire"],
      },
      "Pure flame, no smoke. (A homebrew spell whose name holds a percent sign.)",
      { doc: "homebrew-pack", key: "100-fire" },
    ),
    spell(
      "1000 Fire",
      {
        level: 2,
        school: "evocation",
        classes: ["wizard"],
        concentration: false,
        ritual: false,
        casting_time: "1 action",
        damage_types: ["fire"],
      },
      "A decoy for the percent-sign test.",
      { doc: "homebrew-pack", key: "1000-fire" },
    ),
    creature(
      "Ancient Red Dragon",
      { cr: 24, creature_type: "dragon", size: "gargantuan", armor_class: 22, hit_points: 546 },
      "A huge red wyrm. Fire Breath: the dragon exhales fire in a 90-foot cone.",
    ),
    creature(
      "Young Green Dragon",
      { cr: 8, creature_type: "dragon", size: "large", armor_class: 18, hit_points: 136 },
      "A green dragon. Poison Breath: the dragon exhales poisonous gas in a 30-foot cone.",
    ),
    creature(
      "Dragon Turtle",
      { cr: 17, creature_type: "dragon", size: "gargantuan", armor_class: 20, hit_points: 341 },
      "A massive turtle that breathes scalding steam.",
    ),
    creature(
      "Goblin",
      { cr: 0.25, creature_type: "humanoid", size: "small", armor_class: 15, hit_points: 7 },
      "A small, black-hearted humanoid that lairs in caves. Nimble Escape.",
    ),
    creature(
      "Kobold",
      { cr: 0.125, creature_type: "humanoid", size: "small", armor_class: 12, hit_points: 5 },
      "A small reptilian humanoid that fights in packs.",
    ),
    creature(
      "Vampire",
      { cr: 13, creature_type: "undead", size: "medium", armor_class: 16, hit_points: 144 },
      "An undead that drains the life of its victims with a bite.",
    ),
    creature(
      "Wraith",
      { cr: 5, creature_type: "undead", size: "medium", armor_class: 13, hit_points: 67 },
      "An undead spirit whose Life Drain reduces its target's hit point maximum.",
    ),
    creature(
      "Zombie",
      { cr: 0.25, creature_type: "undead", size: "medium", armor_class: 8, hit_points: 22 },
      "A shambling corpse.",
    ),
    creature(
      "Fire Drake",
      { cr: 6, creature_type: "dragon", size: "large", armor_class: 17, hit_points: 110 },
      "A wingless dragon kin that spits fire.",
      { doc: "tob" },
    ),
    makeEntity(
      "weapon",
      "Longsword",
      {
        category: "martial melee",
        is_simple: false,
        damage_dice: "1d8",
        damage_types: ["slashing"],
        cost_gp: 15,
        weight_lb: 3,
      },
      { text: "Versatile (1d10)." },
    ),
    makeEntity(
      "weapon",
      "Dagger",
      {
        category: "simple melee",
        is_simple: true,
        damage_dice: "1d4",
        damage_types: ["piercing"],
        cost_gp: 2,
        weight_lb: 1,
      },
      { text: "Finesse, light, thrown (range 20/60)." },
    ),
    makeEntity(
      "weapon",
      "Handaxe",
      {
        category: "simple melee",
        is_simple: true,
        damage_dice: "1d6",
        damage_types: ["slashing"],
        cost_gp: 5,
        weight_lb: 2,
      },
      { text: "Light, thrown (range 20/60)." },
    ),
    makeEntity(
      "armor",
      "Chain Mail",
      { category: "heavy", cost_gp: 75, weight_lb: 55 },
      { text: "Made of interlocking metal rings. AC 16, Strength 13." },
    ),
    makeEntity(
      "magic_item",
      "Dwarven Thrower",
      { category: "weapon", rarity: "very rare", requires_attunement: true },
      { text: "A magic warhammer that returns to your hand when thrown." },
    ),
    makeEntity(
      "magic_item",
      "Wand of Magic Missiles",
      { category: "wand", rarity: "uncommon", requires_attunement: false },
      { text: "This wand has 7 charges for casting magic missile." },
    ),
    makeEntity("condition", "Grappled", {}, { text: "A grappled creature's speed becomes 0." }),
    makeEntity(
      "rule",
      "Opportunity Attacks",
      { section: "combat" },
      { text: "You can make an opportunity attack when a hostile creature you can see moves out of your reach." },
    ),
    makeEntity(
      "rule",
      "Falling",
      { section: "adventuring" },
      { text: "A fall from a great height takes 1d6 bludgeoning damage for every 10 feet it fell." },
    ),
    makeEntity(
      "class",
      "Wizard",
      {},
      { text: "A scholarly magic-user capable of manipulating the structures of reality." },
    ),
    makeEntity("class", "Paladin", {}, { text: "A holy warrior bound to a sacred oath." }),
  ];
}

/** A fresh store (real SQLite file in a temp dir) holding `entities`. */
export function makeStore(entities: Entity[] = sampleEntities()): { store: Store; cleanup: () => void } {
  const tmp = makeTempDir("lk-search-");
  const store = openStore({ path: join(tmp.dir, "lk.db") });
  const byOrigin = new Map<string, Entity[]>();
  for (const e of entities) {
    const origin = `${e.document_source}:${e.kind}`;
    const list = byOrigin.get(origin) ?? [];
    list.push(e);
    byOrigin.set(origin, list);
  }
  for (const [origin, list] of byOrigin) replaceOrigin(store.db, origin, list);
  return {
    store,
    cleanup: () => {
      store.close();
      tmp.cleanup();
    },
  };
}

/**
 * A store of `entities` changed by `prepare` (e.g. set back to an older schema), then closed and
 * opened again, migrated, for `check`; removed afterwards.
 */
export async function reopenedAfter(
  entities: Entity[],
  prepare: (store: Store) => void | Promise<void>,
  check: (again: Store) => Promise<void>,
): Promise<void> {
  const { store, cleanup } = makeStore(entities);
  try {
    await prepare(store);
    store.close();
    const again = openStore({ path: store.path });
    try {
      await check(again);
    } finally {
      again.close();
    }
  } finally {
    cleanup();
  }
}

/** Turn a store back into what schema 6 wrote: no doc_rank, the filter indexes of migration 5. */
const FILTER_COLS =
  `document_key, document_source, key, slug, level, school, classes, concentration, ritual,
  casting_time, ` +
  `damage_types, cr, creature_type, size, armor_class, hit_points, category, rarity, requires_attunement, ` +
  `damage_dice, is_simple, cost_gp, weight_lb,
  section, also_documents, speeds, senses, ` +
  `damage_immunities, damage_resistances, condition_immunities, legendary, properties, components, magic`;

/**
 * Drop the indexes of the filter table's later columns (store/filter-columns.ts): a store written
 * before them has none, and SQLite refuses to drop a column an index holds.
 */
export function dropLateIndexes(raw: Database): void {
  raw.exec(
    "DROP INDEX IF EXISTS entities_late_by_preference; DROP INDEX IF " +
      "EXISTS entities_late_by_name; DROP INDEX IF EXISTS entities_late_by_cr;",
  );
}

/** Turn a store back into schema 10: entities_by_form without name, no entities_creature_type. */
export function undoMigration11(raw: Database): void {
  dropLateIndexes(raw);
  raw.exec(
    `
DROP INDEX IF EXISTS entities_creature_type;
DROP INDEX entities_by_form; ` +
      `CREATE INDEX entities_by_form ON entities(kind, name_form, dup_of, group_rank, ` +
      `${FILTER_COLS});
UPDATE meta SET value = '10' WHERE key = 'schema_version';`,
  );
}

/** Turn a store back into schema 9: the indexes of migrations 6 and 7, without name_form (migration 10). */
export function undoMigration10(raw: Database): void {
  undoMigration11(raw);
  raw.exec(
    `
DROP INDEX entities_spell; CREATE INDEX entities_spell ON entities(kind, level, school, dup_of, group_rank, ` +
      `name, doc_rank);
DROP INDEX entities_creature; CREATE INDEX entities_creature ON entities(kind, cr, ` +
      `creature_type, dup_of, group_rank, name, doc_rank);
DROP INDEX entities_equipment; CREATE INDEX ` +
      `entities_equipment ON entities(kind, category, rarity, dup_of, group_rank, name, doc_rank);
DROP INDEX entities_rule; ` +
      `CREATE INDEX entities_rule ON entities(kind, section, dup_of, group_rank, name, doc_rank);
DROP ` +
      `INDEX entities_listing; CREATE INDEX entities_listing ON entities(kind, name, dup_of, group_rank, ` +
      `${FILTER_COLS});
DROP INDEX entities_by_preference; CREATE INDEX entities_by_preference ON entities(kind, doc_rank, ` +
      `name, dup_of, group_rank, ${FILTER_COLS});
UPDATE meta SET value = '9' WHERE key = 'schema_version';`,
  );
}

/** Turn a store back into schema 7: no stored name forms (lists grouped by NOCASE name). */
export function undoMigration8(raw: Database): void {
  undoMigration10(raw);
  raw.exec(`
DROP INDEX IF EXISTS entities_by_form;
ALTER TABLE entities DROP COLUMN name_form;
UPDATE meta SET value = '7' WHERE key = 'schema_version';`);
}

export function undoMigration7(raw: Database): void {
  undoMigration8(raw);
  raw.exec(
    `
DROP INDEX IF EXISTS entities_by_preference;
DROP INDEX entities_spell; CREATE INDEX entities_spell ` +
      `ON entities(kind, level, school, dup_of, group_rank, name);
DROP INDEX entities_creature; CREATE INDEX ` +
      `entities_creature ON entities(kind, cr, creature_type, dup_of, group_rank, name);
DROP INDEX entities_equipment; ` +
      `CREATE INDEX entities_equipment ON entities(kind, category, rarity, dup_of, group_rank, name);
DROP ` +
      `INDEX entities_rule; CREATE INDEX entities_rule ON entities(kind, section, dup_of, group_rank, ` +
      `name);
ALTER TABLE entities DROP COLUMN doc_rank;
UPDATE meta SET value = '6' WHERE key = 'schema_version';`,
  );
}

/** Turn a store back into what schema 4 wrote: the indexes before migrations 5, 6 and 7, no group_rank. */
export function undoMigration5(raw: Database): void {
  undoMigration7(raw);
  raw.exec(`
DROP INDEX IF EXISTS entities_listing;
DROP INDEX entities_kind_name; CREATE INDEX entities_kind_name ON entities(kind, name, document_key, key);
DROP INDEX entities_spell; CREATE INDEX entities_spell ON entities(kind, level, school);
DROP INDEX entities_creature; CREATE INDEX entities_creature ON entities(kind, cr, creature_type);
DROP INDEX entities_equipment; CREATE INDEX entities_equipment ON entities(kind, category, rarity);
DROP INDEX entities_rule; CREATE INDEX entities_rule ON entities(kind, section);
ALTER TABLE entities DROP COLUMN group_rank;
DELETE FROM meta WHERE key = 'group_rank_preference';
UPDATE meta SET value = '4' WHERE key = 'schema_version';`);
}
