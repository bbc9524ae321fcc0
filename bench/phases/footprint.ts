/**
 * Phase 4 (on disk): the store and its vector index, the biggest tables (SQLite dbstat), the binary.
 * Peak RSS while serving is read by the phases that run the servers.
 */
import { Database } from "bun:sqlite";
import { existsSync, statSync } from "node:fs";
import { indexPaths } from "../../src/search/index/vector-index-file.ts";

export interface DiskFootprint {
  /** Database file after a checkpoint (WAL folded in). */
  storeBytes: number;
  walBytes: number;
  indexBytes: number;
  indexSidecarBytes: number;
  /** Largest tables/indexes by pages, bytes. */
  tables: Array<{ name: string; bytes: number }>;
  /** The HTTP response cache kept in the store by sync (not needed to serve). */
  httpCacheBytes: number;
  binaryBytes: number | null;
}

function size(p: string | undefined): number {
  return p && existsSync(p) ? statSync(p).size : 0;
}

export function measureDisk(dbPath: string, binary: string | undefined): DiskFootprint {
  const db = new Database(dbPath);
  let tables: Array<{ name: string; bytes: number }> = [];
  try {
    db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    try {
      tables = db
        .query<{ name: string; bytes: number }, []>(
          "SELECT name, sum(pgsize) AS bytes FROM dbstat GROUP BY name ORDER BY bytes DESC LIMIT 8",
        )
        .all();
    } catch {
      tables = []; // dbstat not compiled in
    }
  } finally {
    db.close();
  }
  const paths = indexPaths(dbPath);
  const byName = new Map(tables.map((t) => [t.name, t.bytes]));
  return {
    storeBytes: size(dbPath),
    walBytes: size(`${dbPath}-wal`),
    indexBytes: size(paths?.index),
    indexSidecarBytes: size(paths?.sidecar),
    tables,
    httpCacheBytes: byName.get("http_cache") ?? 0,
    binaryBytes: binary && existsSync(binary) ? statSync(binary).size : null,
  };
}
