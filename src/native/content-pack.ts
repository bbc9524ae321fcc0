/**
 * Installing the binary's embedded content pack (a store made by `lorekeeper sync` / `import`) when
 * the user's store is missing or empty, so an air-gapped machine has content on first run.
 *
 * - Store missing: the pack's vector index (and its sidecar) is put in place first, then the database is written to a
 *   temp file and hard-linked to the final name (fails if another process won the race: then we
 *   keep theirs). Nobody ever sees a half-written store.
 * - Store exists but holds no entities (e.g. created by a previous empty run): the pack's rows are
 *   copied in one IMMEDIATE transaction through ATTACH, by common column names (FTS follows through
 *   the triggers).
 * - Store with entities: untouched.
 */
import { Database } from "bun:sqlite";
import { existsSync, linkSync, mkdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { tmpdir } from "node:os";
import { log } from "../log.ts";
import { indexPaths } from "../search/index/vector-index-file.ts";
import { openStore } from "../store/db.ts";
import { tableColumns } from "../store/schema.ts";
import { embeddedBytes, ExtractError, writeAtomic } from "./extract.ts";
import type { EmbeddedBundle, ManifestFile } from "./manifest.ts";

/** Name of the pack's database inside the bundle; its side files (vector index) share the prefix. */
export const PACK_DB = "pack/lorekeeper.db";

/** Files that belong beside a store (its vector index and sidecar, see src/search/index/vector-index-file.ts). */
export function storeSideFiles(dbPath: string): string[] {
  const p = indexPaths(dbPath);
  return p ? [p.index, p.sidecar] : [];
}

/** A bundled side file goes beside the store at `dbPath`, with its suffix after the db name. */
async function writeSideFiles(bundle: EmbeddedBundle, files: ManifestFile[], dbPath: string): Promise<void> {
  for (const f of files) writeAtomic(`${dbPath}${f.name.slice(PACK_DB.length)}`, await packBytes(bundle, f), 0o644);
}

/** Tables copied from a pack into an empty store, parents first. */
const COPY_TABLES = ["documents", "entities", "vectors", "sync_state", "meta"] as const;

function packBytes(bundle: EmbeddedBundle, f: ManifestFile): Promise<Uint8Array> {
  const broken = () =>
    new ExtractError(
      `The binary's content pack (${f.name}) is damaged or missing.`,
      "Download or build the binary again, or run `lorekeeper sync` to fill the store from the network.",
    );
  return embeddedBytes(bundle, f, broken);
}

function entityCount(path: string): number | undefined {
  try {
    const db = new Database(path, { readonly: true });
    try {
      const t = db.query("SELECT 1 FROM sqlite_master WHERE type='table' AND name='entities'").get();
      if (!t) return 0;
      return (db.query("SELECT count(*) AS n FROM entities").get() as { n: number }).n;
    } finally {
      db.close();
    }
  } catch {
    return undefined;
  }
}

/** Copy the pack's rows into an existing, empty store. */
function mergeInto(dbPath: string, packPath: string): number {
  const store = openStore({ path: dbPath });
  try {
    const db = store.db;
    db.exec(`ATTACH DATABASE '${packPath.replaceAll("'", "''")}' AS pack`);
    try {
      let copied = 0;
      db.transaction(() => {
        const n = (db.query("SELECT count(*) AS n FROM main.entities").get() as { n: number }).n;
        if (n > 0) return; // someone filled it meanwhile
        for (const t of COPY_TABLES) {
          const theirs = tableColumns(db, t, "pack");
          const common = [...tableColumns(db, t).keys()].filter((c) => theirs.has(c)).map((c) => `"${c}"`);
          if (common.length === 0) continue;
          const cols = common.join(",");
          const where = t === "meta" ? " WHERE key <> 'schema_version'" : "";
          const res = db.run(`INSERT OR REPLACE INTO main.${t} (${cols}) SELECT ${cols} FROM pack.${t}${where}`);
          if (t === "entities") copied = res.changes;
        }
      }).immediate();
      return copied;
    } finally {
      db.exec("DETACH DATABASE pack");
    }
  } finally {
    store.close();
  }
}

/** Install the embedded pack into the store at `dbPath` if that store is missing or empty (`detail`: what happened). */
export async function installContentPack(bundle: EmbeddedBundle, dbPath: string) {
  const t0 = performance.now();
  const done = (installed: boolean, detail: string) => ({ installed, detail, ms: performance.now() - t0 });
  const dbFile = bundle.manifest.files.find((f) => f.role === "pack-db");
  if (!dbFile) return done(false, "no content pack embedded");
  const sideFiles = bundle.manifest.files.filter((f) => f.role === "pack-index" && f.name.startsWith(PACK_DB));
  const exists = existsSync(dbPath);
  if (exists) {
    const n = entityCount(dbPath);
    if (n === undefined) return done(false, `store ${dbPath} could not be read; content pack not installed`);
    if (n > 0) return done(false, `store already has ${n} entities`);
  }
  const bytes = await packBytes(bundle, dbFile);
  mkdirSync(dirname(dbPath), { recursive: true });
  if (!exists) {
    await writeSideFiles(bundle, sideFiles, dbPath);
    const tmp = `${dbPath}.pack-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
    writeAtomic(tmp, bytes, 0o644);
    try {
      linkSync(tmp, dbPath);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      return done(false, "another LoreKeeper process created the store first");
    } finally {
      rmSync(tmp, { force: true });
    }
    const n = bundle.manifest.pack?.entities ?? 0;
    log.info(`installed the embedded content pack (${n} entities) into ${dbPath}`);
    return done(true, `installed ${n} entities into a new store`);
  }
  // Existing but empty store: merge through ATTACH from a temp copy of the pack.
  const tmpPack = join(tmpdir(), `lorekeeper-pack-${process.pid}-${Date.now()}.db`);
  writeAtomic(tmpPack, bytes, 0o600);
  try {
    const copied = mergeInto(dbPath, tmpPack);
    if (copied === 0) return done(false, "store was filled by another process");
    await writeSideFiles(bundle, sideFiles, dbPath);
    log.info(`installed the embedded content pack (${copied} entities) into the empty store ${dbPath}`);
    return done(true, `copied ${copied} entities into the empty store`);
  } finally {
    rmSync(tmpPack, { force: true });
  }
}
