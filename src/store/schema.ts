import type { Database } from "bun:sqlite";

/**
 * The versioned schema. Each migration runs once, in order, inside a transaction; `meta.schema_version`
 * records the last one applied. Append new migrations; never edit an applied one.
 */

// The last filter columns of the wide covering indexes (migrations 6 to 11), as each of them wrote them.
const WIDE_TAIL = `casting_time, damage_types, cr, creature_type, size, armor_class, hit_points, category, rarity, \
requires_attunement, damage_dice, is_simple, cost_gp, weight_lb,
  section, also_documents, speeds, senses, damage_immunities, damage_resistances, condition_immunities, legendary, \
properties, components, magic`;

// A `\` that ends a line inside an sql template continues it on the next line without a line break, so the
// source stays within the line width while the SQL of an applied migration keeps every byte.
export const MIGRATIONS: Array<{ version: number; description: string; sql: string }> = [
  {
    version: 1,
    description: "entities, fts, vectors, documents, sync state, http cache",
    sql: `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

CREATE TABLE entities (
  id INTEGER PRIMARY KEY,
  origin TEXT NOT NULL,
  kind TEXT NOT NULL,
  key TEXT NOT NULL,
  name TEXT NOT NULL COLLATE NOCASE,
  slug TEXT NOT NULL,
  document_key TEXT NOT NULL COLLATE NOCASE,
  document_name TEXT NOT NULL,
  document_source TEXT NOT NULL,
  source_url TEXT NOT NULL,
  level INTEGER,
  school TEXT COLLATE NOCASE,
  classes TEXT,
  concentration INTEGER,
  ritual INTEGER,
  casting_time TEXT COLLATE NOCASE,
  damage_types TEXT,
  cr REAL,
  creature_type TEXT COLLATE NOCASE,
  size TEXT COLLATE NOCASE,
  armor_class INTEGER,
  hit_points INTEGER,
  category TEXT COLLATE NOCASE,
  rarity TEXT COLLATE NOCASE,
  requires_attunement INTEGER,
  damage_dice TEXT COLLATE NOCASE,
  is_simple INTEGER,
  cost_gp REAL,
  weight_lb REAL,
  section TEXT COLLATE NOCASE,
  text TEXT NOT NULL,
  data TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (document_source, kind, key)
);
CREATE INDEX entities_origin ON entities(origin);
CREATE INDEX entities_kind_name ON entities(kind, name, document_key, key);
CREATE INDEX entities_kind_slug ON entities(kind, slug);
CREATE INDEX entities_kind_doc ON entities(kind, document_key);
CREATE INDEX entities_spell ON entities(kind, level, school);
CREATE INDEX entities_creature ON entities(kind, cr, creature_type);
CREATE INDEX entities_equipment ON entities(kind, category, rarity);
CREATE INDEX entities_rule ON entities(kind, section);

CREATE VIRTUAL TABLE entities_fts USING fts5(
  name, text,
  content='entities', content_rowid='id',
  tokenize='porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER entities_ai AFTER INSERT ON entities BEGIN
  INSERT INTO entities_fts(rowid, name, text) VALUES (new.id, new.name, new.text);
END;
CREATE TRIGGER entities_ad AFTER DELETE ON entities BEGIN
  INSERT INTO entities_fts(entities_fts, rowid, name, text) VALUES ('delete', old.id, old.name, old.text);
END;
CREATE TRIGGER entities_au AFTER UPDATE OF name, text ON entities BEGIN
  INSERT INTO entities_fts(entities_fts, rowid, name, text) VALUES ('delete', old.id, old.name, old.text);
  INSERT INTO entities_fts(rowid, name, text) VALUES (new.id, new.name, new.text);
END;

CREATE TABLE vectors (
  entity_id INTEGER PRIMARY KEY REFERENCES entities(id) ON DELETE CASCADE,
  model_id TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  vector BLOB NOT NULL
);

CREATE TABLE documents (
  source TEXT NOT NULL,
  key TEXT NOT NULL COLLATE NOCASE,
  name TEXT NOT NULL,
  publisher TEXT,
  license TEXT,
  url TEXT,
  description TEXT,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (source, key)
);

CREATE TABLE sync_state (
  source TEXT NOT NULL,
  content_type TEXT NOT NULL,
  status TEXT NOT NULL,
  fetched_at INTEGER,
  record_count INTEGER NOT NULL DEFAULT 0,
  skipped_count INTEGER NOT NULL DEFAULT 0,
  request_count INTEGER NOT NULL DEFAULT 0,
  duration_ms INTEGER NOT NULL DEFAULT 0,
  error TEXT,
  PRIMARY KEY (source, content_type)
);

CREATE TABLE http_cache (
  cache_key TEXT PRIMARY KEY,
  url TEXT NOT NULL,
  ok INTEGER NOT NULL,
  status INTEGER NOT NULL,
  body TEXT,
  error TEXT,
  fetched_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
);
`,
  },
  {
    version: 2,
    description: "names_fts + names_vocab: unstemmed vocabulary of entity names (search typo tolerance)",
    sql: `
CREATE VIRTUAL TABLE names_fts USING fts5(
  name,
  content='entities', content_rowid='id',
  tokenize='unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE names_vocab USING fts5vocab(names_fts, 'row');
CREATE TRIGGER entities_names_ai AFTER INSERT ON entities BEGIN
  INSERT INTO names_fts(rowid, name) VALUES (new.id, new.name);
END;
CREATE TRIGGER entities_names_ad AFTER DELETE ON entities BEGIN
  INSERT INTO names_fts(names_fts, rowid, name) VALUES ('delete', old.id, old.name);
END;
CREATE TRIGGER entities_names_au AFTER UPDATE OF name ON entities BEGIN
  INSERT INTO names_fts(names_fts, rowid, name) VALUES ('delete', old.id, old.name);
  INSERT INTO names_fts(rowid, name) VALUES (new.id, new.name);
END;
INSERT INTO names_fts(names_fts) VALUES ('rebuild');
`,
  },
  {
    version: 3,
    description: "entities.also_documents: documents whose wording an entity also carries (documents filter)",
    sql: `ALTER TABLE entities ADD COLUMN also_documents TEXT;`,
  },
  {
    version: 4,
    description: "entities: derived filter columns, and dup_of (the same entity from a preferred source)",
    sql: `
ALTER TABLE entities ADD COLUMN speeds TEXT;
ALTER TABLE entities ADD COLUMN senses TEXT;
ALTER TABLE entities ADD COLUMN damage_immunities TEXT;
ALTER TABLE entities ADD COLUMN damage_resistances TEXT;
ALTER TABLE entities ADD COLUMN condition_immunities TEXT;
ALTER TABLE entities ADD COLUMN legendary INTEGER;
ALTER TABLE entities ADD COLUMN properties TEXT;
ALTER TABLE entities ADD COLUMN components TEXT;
ALTER TABLE entities ADD COLUMN magic INTEGER;
ALTER TABLE entities ADD COLUMN dup_of INTEGER;
CREATE INDEX entities_dup_of ON entities(dup_of) WHERE dup_of IS NOT NULL;
`,
  },
  {
    version: 5,
    description: "entities.group_rank: each entity's place among the same-named ones of its kind (store/canonical.ts)",
    sql: `
ALTER TABLE entities ADD COLUMN group_rank INTEGER;
-- The filter indexes also carry what every collapsed answer checks (dup_of, group_rank) and orders
-- by (name): counting a filter's groups and picking a page of them read the index alone.
DROP INDEX entities_kind_name;
CREATE INDEX entities_kind_name ON entities(kind, name, document_key, key, dup_of, group_rank);
DROP INDEX entities_spell;
CREATE INDEX entities_spell ON entities(kind, level, school, dup_of, group_rank, name);
DROP INDEX entities_creature;
CREATE INDEX entities_creature ON entities(kind, cr, creature_type, dup_of, group_rank, name);
DROP INDEX entities_equipment;
CREATE INDEX entities_equipment ON entities(kind, category, rarity, dup_of, group_rank, name);
DROP INDEX entities_rule;
CREATE INDEX entities_rule ON entities(kind, section, dup_of, group_rank, name);
INSERT INTO meta(key, value) VALUES ('group_rank_preference', '') ON CONFLICT(key) DO NOTHING;
`,
  },
  {
    version: 6,
    description: "entities_listing: every filter column in one covering index, so a listing reads no wide row",
    sql: `
CREATE INDEX entities_listing ON entities(kind, name, dup_of, group_rank, document_key, document_source, key, slug, \
level, school, classes, concentration, ritual,
  ${WIDE_TAIL});
`,
  },
  {
    version: 7,
    description: "entities.doc_rank, entities_by_preference: lists walk a kind in preference, then name order",
    sql: `
ALTER TABLE entities ADD COLUMN doc_rank INTEGER;
-- The filter indexes carry doc_rank too (as migration 5 made them carry name): a few matches read
-- through one of them are then ordered without reading their rows.
DROP INDEX entities_spell;
CREATE INDEX entities_spell ON entities(kind, level, school, dup_of, group_rank, name, doc_rank);
DROP INDEX entities_creature;
CREATE INDEX entities_creature ON entities(kind, cr, creature_type, dup_of, group_rank, name, doc_rank);
DROP INDEX entities_equipment;
CREATE INDEX entities_equipment ON entities(kind, category, rarity, dup_of, group_rank, name, doc_rank);
DROP INDEX entities_rule;
CREATE INDEX entities_rule ON entities(kind, section, dup_of, group_rank, name, doc_rank);
CREATE INDEX entities_by_preference ON entities(kind, doc_rank, name, dup_of, group_rank, document_key, \
document_source, key, slug, level, school, classes, concentration,
  ritual, ${WIDE_TAIL});
`,
  },
  {
    version: 8,
    description: "entities.name_form (entities/name-form.ts), which group_rank ranks by, and entities_by_form",
    sql: `
ALTER TABLE entities ADD COLUMN name_form TEXT;
CREATE INDEX entities_by_form ON entities(kind, name_form, dup_of, group_rank, document_key, document_source, key, \
slug, level, school, classes, concentration, ritual,
  ${WIDE_TAIL});
`,
  },
  {
    version: 9,
    description: "trait reference rows (kind trait, origin derived:traits), derived from the stored creatures",
    sql: `SELECT 1;`,
  },
  {
    version: 10,
    description: "the filter, listing and preference indexes carry name_form, which a collapsed list checks per match",
    sql: `
DROP INDEX entities_spell;
CREATE INDEX entities_spell ON entities(kind, level, school, dup_of, group_rank, name, doc_rank, name_form);
DROP INDEX entities_creature;
CREATE INDEX entities_creature ON entities(kind, cr, creature_type, dup_of, group_rank, name, doc_rank, name_form);
DROP INDEX entities_equipment;
CREATE INDEX entities_equipment ON entities(kind, category, rarity, dup_of, group_rank, name, doc_rank, name_form);
DROP INDEX entities_rule;
CREATE INDEX entities_rule ON entities(kind, section, dup_of, group_rank, name, doc_rank, name_form);
DROP INDEX entities_listing;
CREATE INDEX entities_listing ON entities(kind, name, dup_of, group_rank, document_key, document_source, key, slug, \
level, school, classes, concentration, ritual,
  ${WIDE_TAIL}, name_form);
DROP INDEX entities_by_preference;
CREATE INDEX entities_by_preference ON entities(kind, doc_rank, name, dup_of, group_rank, document_key, \
document_source, key, slug, level, school, classes, concentration, ritual,
  ${WIDE_TAIL}, name_form);
`,
  },
  {
    version: 11,
    description: "entities_by_form carries name; entities_creature_type seeks creatures by type, then a CR range",
    sql: `
CREATE INDEX IF NOT EXISTS entities_creature_type ON entities(kind, creature_type, cr, dup_of, group_rank, name, \
doc_rank, name_form);
DROP INDEX entities_by_form;
CREATE INDEX entities_by_form ON entities(kind, name_form, dup_of, group_rank, document_key, document_source, key, \
slug, level, school, classes, concentration, ritual,
  ${WIDE_TAIL}, name);
`,
  },
  {
    version: 12,
    description: "straight apostrophes in stored trait names (mended after the migrations: straightenTraitNames)",
    sql: `SELECT 1;`,
  },
];

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/** The columns of `table` (of the database `schema`, main or an attached one) → declared type, upper case. */
export function tableColumns(db: Database, table: string, schema = "main"): Map<string, string> {
  const q = db.query<{ name: string; type: string }, [string, string]>(
    "SELECT name, type FROM pragma_table_info(?, ?)",
  );
  return new Map(q.all(table, schema).map((c) => [c.name, c.type.toUpperCase()]));
}

export function getMeta(db: Database, key: string): string | undefined {
  return db.query<{ value: string }, [string]>("SELECT value FROM meta WHERE key = ?").get(key)?.value;
}

/** The JSON value of a meta entry; undefined when absent, null or not JSON (a hand edit). */
export function getMetaJson(db: Database, key: string): unknown {
  try {
    return JSON.parse(getMeta(db, key) ?? "null") ?? undefined;
  } catch {
    return undefined;
  }
}

export function setMeta(db: Database, key: string, value: string): void {
  db.query("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)").run(key, value);
}
