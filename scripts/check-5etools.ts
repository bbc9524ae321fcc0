#!/usr/bin/env bun
/**
 * Optional check (not part of `bun test`): import every 5etools .json file of a folder with the CLI
 * (`lorekeeper import FOLDER --json --no-embed`) into a throw-away store, twice, and print per file
 * the records found, stored (imported or folded into another entity) and the share stored, each
 * record not stored with its reason, raw `{@` tags left in the store, and what the second import
 * changed. Exits 1 when a file stores less than 98 %, a tag is left raw, or the second import
 * changes anything.
 *
 *   bun scripts/check-5etools.ts [folder] [--store FILE]
 *
 * folder: default ../shared/data/5etools beside the checkout. --store FILE: start from a copy of
 * that store (one holding the SRD, say) instead of an empty one: a `_copy` of an official spell
 * then takes what it does not state from the store, and names that clash with API entities are
 * skipped as on a user's machine. "entries" leaves out the records left out by design (Foundry and
 * Roll20 automation data, deities, …); they are listed with the skips.
 */
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { openStore } from "../src/store/db.ts";
import { makeTempDir } from "../test/support/tmp.ts";
import { SHARED_DATA } from "./shared-dir.ts";

interface TypeRow {
  type: string;
  found: number;
  imported: number;
  folded?: number;
}
interface FileRow {
  file: string;
  ok: boolean;
  error?: { message: string };
  packs: Array<{
    document_key: string;
    types: TypeRow[];
    skipped: Array<{ type: string; key: string | null; reason: string; by_design?: boolean }>;
    store?: { inserted: number; updated: number; deleted: number };
  }>;
}

const args = process.argv.slice(2);
const storeAt = args.indexOf("--store");
const from = storeAt >= 0 ? args.splice(storeAt, 2)[1] : undefined;
const dir = args[0] ?? join(SHARED_DATA, "5etools");
const tmp = makeTempDir("lk-check-5etools-");
const db = join(tmp.dir, "check.db");
if (from) copyFileSync(from, db);
const run = (): FileRow[] => {
  const cli = join(import.meta.dir, "..", "src", "cli", "main.ts");
  const args = [process.execPath, cli, "import", dir, "--json", "--no-embed", "--db-path", db];
  const r = Bun.spawnSync(args, { stdout: "pipe", stderr: "pipe" });
  const out = r.stdout.toString();
  if (!out.trim()) throw new Error(`the import printed nothing (exit ${r.exitCode}): ${r.stderr.toString()}`);
  return (JSON.parse(out) as { files: FileRow[] }).files.filter((f) => f.file.toLowerCase().endsWith(".json"));
};

let bad = 0;
try {
  const first = run();
  const second = run();
  const store = openStore({ path: db, readonly: true });
  const rawOf = (keys: string[]) =>
    keys.length === 0
      ? 0
      : store.db
          .query<{ n: number }, string[]>(
            `SELECT COUNT(*) AS n FROM entities WHERE document_key IN (${keys.map(() => "?").join(",")})
             AND (text LIKE '%{@%' OR data LIKE '%{@%')`,
          )
          .get(...keys)!.n;
  console.log("| file | sources | entries | stored | stored % | raw `{@` | 2nd import changes |");
  console.log("|---|---|---|---|---|---|---|");
  const notes: string[] = [];
  for (const f of first) {
    const name = f.file.split("/").pop()!;
    if (!f.ok) {
      bad++;
      console.log(`| ${name} | FAILED: ${f.error?.message ?? "?"} | | | | | |`);
      continue;
    }
    const types = f.packs.flatMap((p) => p.types);
    const byDesign = f.packs.reduce((n, p) => n + p.skipped.filter((s) => s.by_design).length, 0);
    const found = types.reduce((n, t) => n + t.found, 0) - byDesign;
    const stored = types.reduce((n, t) => n + t.imported + (t.folded ?? 0), 0);
    const share = found ? (100 * stored) / found : 100;
    const raw = rawOf(f.packs.map((p) => p.document_key));
    const again = second.find((s) => s.file === f.file);
    const changed = (p: FileRow["packs"][number]) =>
      p.store ? p.store.inserted + p.store.updated + p.store.deleted : 0;
    const changes = (again?.packs ?? []).reduce((n, p) => n + changed(p), 0);
    if (share < 98 || raw > 0 || changes > 0 || !again?.ok) bad++;
    console.log(`| ${name} | ${f.packs.length} | ${found} | ${stored} | ${share.toFixed(1)} | ${raw} | ${changes} |`);
    for (const p of f.packs) {
      for (const s of p.skipped) {
        notes.push(`${name}: not stored: ${s.type} ${s.key ?? ""}${s.by_design ? " (by design)" : ""}: ${s.reason}`);
      }
    }
  }
  store.close();
  for (const n of notes) console.log(n);
  console.log(`\n${first.length} files; ${bad} below 98 %, with raw tags, changed by a second import or failed`);
} finally {
  tmp.cleanup();
}
process.exit(bad > 0 ? 1 : 0);
