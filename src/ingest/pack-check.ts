/**
 * Checking a content pack whole before anything of it is written (pack.ts writes it after).
 * A pack is someone else's SQLite file: it is trusted for nothing this build would not accept from
 * a sync or an import.
 *
 * - The schema, read from sqlite_master alone (nothing is evaluated): the tables a store has are
 *   tables (a view named `documents` could recurse forever), no view, no trigger this build does
 *   not make, and after migration the columns with the types this build writes.
 * - Every entity row: text where text is stored, a known kind and source, a name and a key, data
 *   that parses as a JSON object of its kind's canonical shape (entities/kinds.ts, the
 *   schemas every normalizer's output meets) and goes through what the store derives from it (the
 *   filter columns, the trait rows), within the size limits an import has.
 * - The vectors to be taken: the dimension of the model they are stored for (an absurd
 *   embedding_dim is refused), every component finite, not all zero.
 * - The documents: controls and bidirectional characters stripped, an official document's name
 *   its own (the SRDs' names reserved, another API document's kept as the store has it), a
 *   homebrew document that reads as official labelled as homebrew (the rules `lorekeeper import`
 *   applies), and every entity carrying its document's name.
 * The first problem found refuses the pack with that reason.
 */
import { Database } from "bun:sqlite";
import {
  DOCUMENT_SOURCES,
  ENTITY_KINDS,
  HOMEBREW_SOURCES,
  HOMEBREW_SQL,
  type DocumentInfo,
  type DocumentSource,
} from "../entities/types.ts";
import { kindDataProblem } from "../entities/kinds.ts";
import { oversizeReason } from "../entities/limits.ts";
import { traitEntities } from "../entities/traits.ts";
import { officialDocumentName } from "../entities/normalize/documents.ts";
import { documentRank } from "../entities/preference.ts";
import { stripInvisible } from "../text/confusables.ts";
import { derivedColumnValues, ENTITY_COLUMNS, type EntityRow, rowToEntity } from "../store/entities.ts";
import { tableColumns } from "../store/schema.ts";
import { getEmbeddingMeta } from "../store/vectors.ts";
import { HOMEBREW_MARK, officialNameCheck } from "./import.ts";
import { PackError } from "./pack-file.ts";

/** The largest embedding dimension a pack may claim (the largest text models use 4096). */
const MAX_EMBEDDING_DIM = 8192;

const REMAKE =
  "Download the pack again, or make one from a synced store " +
  "(`lorekeeper sync --db-path FILE`, then `bun run build -- --content FILE`).";

function refuse(why: string, hint = REMAKE): never {
  throw new PackError(`The content pack cannot be loaded: ${why}; nothing was written.`, hint);
}

/** The tables every pack must have as tables. */
const REQUIRED_TABLES = ["meta", "entities", "documents", "vectors", "sync_state"] as const;
/** Columns the row checks read (every schema version has them). */
const ROW_COLUMNS = ["id", ...ENTITY_COLUMNS, "text", "data", "content_hash"] as const;

const KINDS = new Set<string>(ENTITY_KINDS);
const KNOWN_SOURCES = new Set<string>(DOCUMENT_SOURCES);
const HOMEBREW = new Set<string>(HOMEBREW_SOURCES);

type MasterRow = { type: string; name: string; sql: string | null };

function master(db: Database): MasterRow[] {
  return db.query<MasterRow, []>("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'").all();
}

const squash = (sql: string | null) => (sql ?? "").replace(/\s+/g, " ").trim();

function show(s: string, max = 60): string {
  return JSON.stringify(s.length > max ? `${s.slice(0, max)}…` : s);
}

/**
 * The checks made on the unpacked file before it is opened as a store (opening migrates it, and
 * migrating reads its rows): schema objects against `reference` (this build's store), SQLite's
 * quick_check, then every entity and document row.
 */
export function checkPackFile(path: string, reference: Database): void {
  let db: Database;
  try {
    db = new Database(path, { readonly: true });
  } catch (err) {
    refuse(`it is not a SQLite database (${(err as Error).message})`);
  }
  try {
    let objects: MasterRow[];
    try {
      objects = master(db);
    } catch (err) {
      refuse(`its database cannot be read (${(err as Error).message})`);
    }
    const ours = new Map(master(reference).map((o) => [o.name, o]));
    const byName = new Map(objects.map((o) => [o.name, o]));
    for (const t of REQUIRED_TABLES) {
      const o = byName.get(t);
      if (!o) refuse(`it has no \`${t}\` table, so it is not a LoreKeeper store`);
      if (o.type !== "table") refuse(`its \`${t}\` is a ${o.type}, not a table`);
    }
    for (const o of objects) {
      const mine = ours.get(o.name);
      if (o.type === "view") refuse(`it holds a view (${show(o.name)}); a LoreKeeper store has none`);
      if (mine && mine.type === "table" && o.type !== "table") refuse(`its \`${o.name}\` is a ${o.type}, not a table`);
      if (o.type === "trigger" && (mine?.type !== "trigger" || squash(mine.sql) !== squash(o.sql))) {
        refuse(`it holds a trigger (${show(o.name)}) that this version of LoreKeeper does not make`);
      }
    }
    const check = db.query<{ quick_check: string }, []>("PRAGMA quick_check").all();
    if (check.length !== 1 || check[0]?.quick_check !== "ok") {
      refuse(`its database is damaged (${check[0]?.quick_check ?? "quick_check failed"})`, "Download the pack again.");
    }
    const have = tableColumns(db, "entities");
    for (const c of ROW_COLUMNS) if (!have.has(c)) refuse(`its entities table has no \`${c}\` column`);
    checkEntityRows(db);
    checkDocumentRows(db);
  } finally {
    db.close();
  }
}

type RawRow = Record<(typeof ROW_COLUMNS)[number], unknown>;

/**
 * Why a homebrew document key is not one an import makes (`orcbrew-…`, `5etools-…`), or undefined:
 * homebrew under an API document's key ("srd-2024") would answer a filter on that document.
 */
function squattedKey(source: string, key: string): string | undefined {
  if (!HOMEBREW.has(source) || key.toLowerCase().startsWith(`${source}-`)) return undefined;
  return `its ${source} document key ${show(key)} does not start with "${source}-" as an imported one does`;
}

/** Why one stored entity row would not be accepted from a sync, or undefined. */
function entityRowProblem(r: RawRow): string | undefined {
  for (const c of ROW_COLUMNS) {
    if (c === "id") continue;
    if (typeof r[c] !== "string") {
      const type = r[c] === null ? "NULL" : `a ${typeof r[c] === "object" ? "blob" : typeof r[c]}`;
      return `its \`${c}\` is ${type}, not text`;
    }
  }
  const row = r as Record<string, string>;
  if (!KINDS.has(row.kind!)) return `its kind ${show(row.kind!)} is not one LoreKeeper knows`;
  if (!KNOWN_SOURCES.has(row.document_source!))
    return `its source ${show(row.document_source!)} is not one LoreKeeper knows`;
  for (const c of ["key", "name", "document_key", "document_name"] as const)
    if (row[c]!.trim() === "") return `its ${c.replace("_", " ")} is empty`;
  const squat = squattedKey(row.document_source!, row.document_key!);
  if (squat) return squat;
  let data: unknown;
  try {
    data = JSON.parse(row.data!);
  } catch (err) {
    return `its data is not JSON (${(err as Error).message})`;
  }
  if (data === null || typeof data !== "object" || Array.isArray(data))
    return `its data is ${data === null ? "null" : Array.isArray(data) ? "a list" : `a ${typeof data}`}, not an object`;
  // Every column it reads is text (checked above).
  const e = rowToEntity(r as EntityRow);
  const shape = kindDataProblem(e.kind, e.data);
  if (shape) return `its data is not a ${e.kind}'s: ${shape}`;
  const over = oversizeReason(e);
  if (over) return `it is too large: ${over}`;
  try {
    // What the store derives from every row it writes; a shape they cannot read is refused here.
    derivedColumnValues(e);
    if (e.kind === "creature") traitEntities([e], documentRank());
  } catch (err) {
    return `its data does not have the shape of a ${e.kind} (${(err as Error).message})`;
  }
  return undefined;
}

function checkEntityRows(db: Database): void {
  const q = db.query<RawRow, []>(`SELECT ${ROW_COLUMNS.join(", ")} FROM entities`);
  let n = 0;
  for (const r of q.iterate()) {
    n++;
    const problem = entityRowProblem(r);
    if (problem) {
      const what =
        typeof r.name === "string" && typeof r.kind === "string"
          ? `the ${r.kind} ${show(r.name)}`
          : `entity row ${String(r.id)}`;
      refuse(`${what}${typeof r.key === "string" ? ` (${show(r.key)})` : ""}: ${problem}`);
    }
  }
  if (n === 0) refuse("it holds no entities", "Make it from a synced store (`lorekeeper sync --db-path FILE`).");
}

function checkDocumentRows(db: Database): void {
  for (const r of db.query<Record<string, unknown>, []>("SELECT source, key, name FROM documents").iterate()) {
    for (const c of ["source", "key", "name"])
      if (typeof r[c] !== "string")
        refuse(`a document's \`${c}\` is ${r[c] === null ? "NULL" : typeof r[c]}, not text`);
    if (!KNOWN_SOURCES.has(r.source as string))
      refuse(`the document ${show(r.key as string)} has the unknown source ${show(r.source as string)}`);
    const squat = squattedKey(r.source as string, r.key as string);
    if (squat) refuse(`the document ${show(r.name as string)}: ${squat}`);
  }
}

/** Once the pack is migrated: every column this build writes, with its type, in each table read from it. */
export function checkPackColumns(pack: Database, store: Database): void {
  const hint = "Make the pack again with this version of LoreKeeper.";
  for (const table of REQUIRED_TABLES) {
    const theirs = tableColumns(pack, table);
    for (const [name, type] of tableColumns(store, table)) {
      const t = theirs.get(name);
      if (t === undefined) refuse(`its ${table} table has no \`${name}\` column`, hint);
      if (t !== type) refuse(`its ${table}.${name} column is ${t || "untyped"}, not ${type}`, hint);
    }
  }
}

/**
 * The vectors of `modelId` in the attached or opened `pack`, checked against `dim`: the dimension
 * the pack claims for that model, and each vector: exactly `dim` float32 components, all finite,
 * not all zero.
 */
export function checkPackVectors(pack: Database, modelId: string, dim: number): void {
  if (!Number.isInteger(dim) || dim < 1 || dim > MAX_EMBEDDING_DIM)
    refuse(`its embedding dimension ${dim} is not a model's (1 to ${MAX_EMBEDDING_DIM})`);
  const claimed = getEmbeddingMeta(pack);
  if (claimed && claimed.modelId === modelId && claimed.dim !== dim)
    refuse(
      `it claims ${claimed.dim} dimensions for ${claimed.modelId}, which makes vectors of ${dim}`,
      "Make the pack again from a store embedded by LoreKeeper, or load its content alone with --no-vectors.",
    );
  const q = pack.query<{ id: number; vector: unknown }, [string]>(
    "SELECT entity_id AS id, vector FROM vectors WHERE model_id = ?",
  );
  for (const r of q.iterate(modelId)) {
    const v = r.vector;
    if (!(v instanceof Uint8Array)) refuse(`the vector of entity ${r.id} is not binary data`);
    if (v.byteLength !== dim * 4)
      refuse(
        `the vector of entity ${r.id} is ${v.byteLength} bytes; ` +
          `${modelId} makes vectors of ${dim} dimensions (${dim * 4} bytes)`,
      );
    const f = new Float32Array(v.buffer.slice(v.byteOffset, v.byteOffset + v.byteLength));
    let zero = true;
    for (const x of f) {
      if (!Number.isFinite(x)) refuse(`the vector of entity ${r.id} holds ${x}`);
      if (x !== 0) zero = false;
    }
    if (zero) refuse(`the vector of entity ${r.id} is all zeros`);
  }
}

/** Characters no document field shows: controls (newlines and tabs too in names) and bidirectional ones. */
const FIELD_UNSAFE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;

function cleanField(s: unknown): string | null {
  return typeof s === "string" ? s.replace(FIELD_UNSAFE, "").trim() || null : null;
}

/**
 * The pack's documents as they will be stored in `store`: fields cleaned; an official document key
 * (the SRDs) carries its official name, whatever the pack or the store calls it, even in an empty
 * store; another API document the store already holds keeps its stored name (a pack cannot rename
 * it); a homebrew document whose name reads as official gets the homebrew mark, as an import gives
 * it. Also returns, per document (source NUL lower-case key), the name its entities must carry.
 */
export function packDocuments(
  pack: Database,
  store: Database,
): { docs: DocumentInfo[]; documentNames: Map<string, string> } {
  const stored = store.query<{ name: string }, [string, string]>(
    "SELECT name FROM documents WHERE source = ? AND key = ?",
  );
  const officialName = officialNameCheck(
    store,
    pack
      .query<{ name: string }, []>(
        `SELECT DISTINCT name FROM documents WHERE source NOT IN ${HOMEBREW_SQL} AND typeof(name) = 'text'`,
      )
      .all()
      .map((r) => r.name),
  );
  const docs: DocumentInfo[] = [];
  const documentNames = new Map<string, string>();
  const label = (name: string) => (officialName(name) ? `${name}${HOMEBREW_MARK}` : name);
  type Row = Record<"source" | "key" | "name", string> &
    Record<"publisher" | "license" | "url" | "description", unknown>;
  for (const r of pack
    .query<Row, []>("SELECT source, key, name, publisher, license, url, description FROM documents")
    .iterate()) {
    const key = cleanField(r.key) ?? r.key;
    let name = stripInvisible(r.name).trim() || key;
    if (HOMEBREW.has(r.source)) name = label(name);
    else name = officialDocumentName(key) ?? stored.get(r.source, key)?.name ?? name;
    documentNames.set(`${r.source}\u0000${key.toLowerCase()}`, name);
    docs.push({
      source: r.source as DocumentSource,
      key,
      name,
      publisher: cleanField(r.publisher),
      license: cleanField(r.license),
      url: cleanField(r.url),
      description: cleanField(r.description),
    });
  }
  // Entities whose document has no row of its own: homebrew ones are labelled by their own document
  // name, others get the official or stored name of their document, if there is one.
  const entityDocs =
    "SELECT DISTINCT document_source AS source, document_key AS key, document_name AS name FROM entities";
  for (const r of pack.query<{ source: string; key: string; name: string }, []>(entityDocs).iterate()) {
    const id = `${r.source}\u0000${r.key.toLowerCase()}`;
    if (documentNames.has(id)) continue;
    const name = HOMEBREW.has(r.source)
      ? label(stripInvisible(r.name).trim() || r.key)
      : (officialDocumentName(r.key.toLowerCase()) ?? stored.get(r.source, r.key)?.name);
    if (name !== undefined) documentNames.set(id, name);
  }
  return { docs, documentNames };
}
