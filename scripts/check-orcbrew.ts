#!/usr/bin/env bun
/**
 * Optional check (not part of `bun test`): import every .orcbrew file of a folder into a throw-away
 * store and print, per file, either the counts per pack and type or the error with its place.
 *
 *   bun scripts/check-orcbrew.ts [folder]     (default ../shared/data/orcbrew beside the checkout)
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { importOrcbrewFile } from "../src/ingest/import-orcbrew.ts";
import { openStore } from "../src/store/db.ts";
import { listDocuments } from "../src/store/documents.ts";
import { makeTempDir } from "../test/support/tmp.ts";
import { SHARED_DATA } from "./shared-dir.ts";

const dir = process.argv[2] ?? join(SHARED_DATA, "orcbrew");
const files = readdirSync(dir)
  .filter((f) => f.toLowerCase().endsWith(".orcbrew"))
  .sort();
const tmp = makeTempDir("lk-check-orcbrew-");
const store = openStore({ path: join(tmp.dir, "check.db") });
let failed = 0;
try {
  for (const f of files) {
    const r = importOrcbrewFile(store.db, join(dir, f));
    if (!r.ok) {
      failed++;
      console.log(`${f}\n  FAILED: ${r.error?.message}`);
      continue;
    }
    console.log(`${f} (${r.shape}, ${r.duration_ms} ms): imported ${r.imported}, skipped ${r.skipped}`);
    for (const p of r.packs) {
      const types = p.types
        .map((t) => `${t.type} ${t.imported}/${t.found}${t.skipped ? ` (${t.skipped} skipped)` : ""}`)
        .join(", ");
      console.log(`  ${p.document_key}: ${types || "(empty)"}`);
      for (const s of p.skipped) console.log(`    skipped ${s.type} ${s.key ?? ""} (line ${s.line}): ${s.reason}`);
    }
    for (const w of [...r.warnings, ...r.packs.flatMap((p) => p.warnings)]) console.log(`    note: ${w}`);
  }
  const docs = listDocuments(store.db, "orcbrew");
  console.log(
    `\n${files.length} files, ${failed} failed; ${docs.length} documents, ` +
      `${docs.reduce((n, d) => n + d.entity_count, 0)} entities in the store`,
  );
} finally {
  store.close();
  tmp.cleanup();
}
