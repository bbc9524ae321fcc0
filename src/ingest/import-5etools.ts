/**
 * 5etools homebrew import, beside the OrcBrew one (import.ts) and with its promises: each source of
 * a file's `_meta.sources` is one document and one origin (`5etools:<document_key>`), every source
 * of a file is written in ONE transaction (the file is imported completely or not at all), a
 * re-import replaces what the source held before (no duplicates), API names are never shadowed
 * (look-alikes folded) without `force`, and each file gets a report of what was imported, folded,
 * left out and skipped, and why. Also the entry point for several files and folders of either
 * format (`importHomebrewFiles`). See docs/homebrew.md.
 */
import type { Database } from "bun:sqlite";
import { lstatSync, readdirSync, type Stats, statSync } from "node:fs";
import { basename, extname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { capName, oversizeReason } from "../entities/limits.ts";
import type { SpellData } from "../entities/kinds.ts";
import { type Entity, HOMEBREW_SQL } from "../entities/types.ts";
import { FivetoolsError, looksLikeFivetools, parseFivetools } from "../sources/5etools/file.ts";
import {
  countKind,
  fivetoolsOrigin,
  normalizeFivetoolsFile,
  type OutsideBases,
  type OutsideSpell,
} from "../sources/5etools/normalize/file.ts";
import { FIVETOOLS_SOURCE } from "../sources/5etools/normalize/build-one.ts";
import {
  apiTwinFinder,
  countExisting,
  DEFAULT_IMPORT_MAX_BYTES,
  decodeOrcbrew,
  earlierName,
  failedFile,
  importEach,
  type FileReport,
  HOMEBREW_MARK,
  type ImportOptions,
  type ImportPlan,
  type ImportReport,
  importOrcbrewFile,
  officialNameCheck,
  type PackReport,
  readRegularFile,
  startFileReport,
  storePlans,
} from "./import.ts";

/**
 * The store's spells as bases of `_copy` records whose base is not in the file (a copy of the PHB's
 * Fireball takes the SRD's Fireball): the answering version, never homebrew.
 */
function outsideBases(db: Database | null): OutsideBases {
  if (!db) return {};
  const q = db.query<{ name: string; document_key: string; data: string }, [string]>(
    `SELECT name, document_key, data FROM entities
     WHERE kind = 'spell' AND lower(name) = lower(?) AND document_source NOT IN ${HOMEBREW_SQL} AND dup_of IS NULL
     ORDER BY group_rank, doc_rank LIMIT 1`,
  );
  return {
    spell: (name: string): OutsideSpell | null => {
      const row = q.get(name);
      if (!row) return null;
      try {
        const data = JSON.parse(row.data) as SpellData;
        return typeof data.level === "number" ? { name: row.name, document_key: row.document_key, data } : null;
      } catch {
        return null; // a damaged row is no base (doctor reports it)
      }
    },
  };
}

/** Import one 5etools file's text. `db` null = no store (a dry run without one). Never throws for bad input. */
export function importFivetoolsText(
  db: Database | null,
  text: string,
  file: string,
  opts: ImportOptions = {},
  preWarnings: string[] = [],
): FileReport {
  const dry = opts.dryRun ?? false;
  const { report, done, started } = startFileReport(file, opts, preWarnings, "5etools");
  let parsed: ReturnType<typeof parseFivetools>;
  try {
    parsed = parseFivetools(text);
  } catch (err) {
    if (!(err instanceof FivetoolsError)) throw err;
    const where = err.line !== undefined ? `line ${err.line}, column ${err.column}: ` : "";
    report.error = {
      message: `${where}${err.message}`,
      reason: err.message,
      ...(err.line !== undefined ? { line: err.line, column: err.column } : {}),
    };
    return done();
  }
  opts.onEvent?.({
    type: "parsed",
    file,
    packs: Math.max(1, parsed.sources.length),
    items: parsed.records,
    ms: Math.round(performance.now() - started),
  });
  const fileUrl = pathToFileURL(resolve(file)).href;
  const normalized = normalizeFivetoolsFile(parsed, fileUrl, basename(file), outsideBases(db));
  report.warnings.push(...normalized.warnings);
  const twin = apiTwinFinder(db);
  const officialName = officialNameCheck(db);
  const plans: ImportPlan[] = [];
  for (const src of normalized.sources) {
    const looksOfficial = officialName(src.doc.name);
    const docName = capName(src.doc.name) + (looksOfficial ? HOMEBREW_MARK : "");
    const pr: PackReport = {
      name: docName,
      document_key: src.doc.key,
      origin: fivetoolsOrigin(src.doc.key),
      types: src.types,
      skipped: src.skipped,
      warnings: src.warnings,
    };
    if (looksOfficial)
      pr.warnings.push(
        `the source name "${src.doc.name}" reads as ${looksOfficial}; it is shown as "${docName}" so that homebrew ` +
          `never passes for official content`,
      );
    else if (docName !== src.doc.name)
      pr.warnings.push(
        `the source name is ${src.doc.name.length} characters long; it was shortened to ${docName.length}`,
      );
    const keep: Entity[] = [];
    const skipOne = (type: string, reason: string, name: string, kind: Entity["kind"]) => {
      const count = src.types.find((c) => c.type === type);
      if (count) {
        count.imported--;
        count.skipped++;
        countKind(count, kind, -1);
      }
      pr.skipped.push({ type, key: capName(name), name: capName(name), reason, line: 0, column: 0 });
    };
    for (const [i, e0] of src.entities.entries()) {
      const e: Entity = { ...e0, document_name: docName };
      const type = src.from[i]!;
      const over = oversizeReason(e);
      if (over) {
        skipOne(type, `too large to import: ${over} (see docs/homebrew.md, "Limits")`, e.name, e.kind);
        continue;
      }
      const t = twin(e);
      if (t && !opts.force) {
        skipOne(
          type,
          `an API ${e.kind} "${t.name}" (${t.document_key}, ${t.document_source}) has the same name; homebrew never ` +
            `overwrites API content (use --force to import it anyway)`,
          e.name,
          e.kind,
        );
        continue;
      }
      if (t)
        pr.warnings.push(
          `${e.kind} "${e.name}" has the same name as the API ${e.kind} from ${t.document_key}; imported anyway ` +
            `(--force), both are kept`,
        );
      keep.push(e);
    }
    if (dry) pr.existing = countExisting(db, pr.origin);
    const before = earlierName(db, src.doc.key, docName, FIVETOOLS_SOURCE);
    if (before !== undefined && countExisting(db, pr.origin) > 0)
      pr.warnings.push(`replaces the source "${before}" imported earlier under the same document key ${src.doc.key}`);
    const by = src.doc.authors.length ? ` by ${src.doc.authors.join(", ")}` : "";
    plans.push({
      report: pr,
      entities: keep,
      doc: {
        key: src.doc.key,
        name: docName,
        source: FIVETOOLS_SOURCE,
        publisher: src.doc.authors.length ? capName(src.doc.authors.join(", ")) : null,
        url: fileUrl,
        description: capName(
          `5etools homebrew source "${src.doc.id}"${src.doc.version ? ` v${src.doc.version}` : ""}${by}, imported ` +
            `from ${basename(file)}${src.doc.url ? ` (${src.doc.url})` : ""}`,
        ),
      },
    });
  }
  if (!dry && !db) throw new Error("importFivetoolsText: a database is required unless dryRun");
  storePlans(dry ? null : db, file, plans, report, opts);
  return done();
}

/** Import one 5etools file from disk: only regular files up to `maxFileBytes`. */
export function importFivetoolsFile(
  db: Database | null,
  file: string,
  opts: ImportOptions = {},
  bytes?: Uint8Array,
): FileReport {
  const warnings: string[] = [];
  let text: string;
  try {
    const st = statSync(file);
    if (st.isDirectory()) throw new Error("it is a directory");
    opts.onEvent?.({ type: "file-start", file, bytes: st.isFile() ? st.size : 0 });
    text = decodeOrcbrew(bytes ?? readRegularFile(file, opts.maxFileBytes ?? DEFAULT_IMPORT_MAX_BYTES), warnings);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const why = e.code === "ENOENT" ? "no such file" : e.code === "EACCES" ? "permission denied" : e.message;
    return failedFile(file, `cannot read the file: ${why}`, opts, warnings);
  }
  return importFivetoolsText(db, text, file, opts, warnings);
}

/** Which importer reads `file`: by extension, else by a look at its first bytes (JSON with 5etools keys). */
function homebrewFormatOf(file: string, maxBytes: number): "orcbrew" | "5etools" {
  const ext = extname(file).toLowerCase();
  if (ext === ".json") return "5etools";
  if (ext === ".orcbrew") return "orcbrew";
  try {
    const head = readRegularFile(file, maxBytes);
    return looksLikeFivetools(new TextDecoder().decode(head.subarray(0, 65536))) ? "5etools" : "orcbrew";
  } catch {
    return "orcbrew"; // its importer reports why the file cannot be read
  }
}

/** How deep and how wide a folder given to `import` is searched (links to folders are not followed). */
const FOLDER_LIMITS = { depth: 8, files: 10_000 } as const;

/**
 * The homebrew files a path stands for: a file itself; a folder, every `.json` and `.orcbrew` file
 * under it (sorted), at most FOLDER_LIMITS deep and many. Links to folders are not followed.
 */
function expandHomebrewPaths(paths: readonly string[], warnings: string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string, depth: number) => {
    let names: string[];
    try {
      names = readdirSync(dir).sort();
    } catch (err) {
      warnings.push(`${dir}: cannot list the folder (${(err as Error).message})`);
      return;
    }
    for (const n of names) {
      if (out.length >= FOLDER_LIMITS.files) {
        warnings.push(`${dir}: more than ${FOLDER_LIMITS.files} files; the rest were not imported`);
        return;
      }
      const p = join(dir, n);
      let st: Stats;
      try {
        st = lstatSync(p);
      } catch {
        continue;
      }
      if (st.isDirectory()) {
        if (depth < FOLDER_LIMITS.depth) walk(p, depth + 1);
        else warnings.push(`${p}: deeper than ${FOLDER_LIMITS.depth} folders; not searched`);
      } else if (/\.(json|orcbrew)$/i.test(n) && !st.isSymbolicLink()) out.push(p);
    }
  };
  for (const p of paths) {
    let st: Stats;
    try {
      st = statSync(p);
    } catch {
      out.push(p); // the importer reports "no such file"
      continue;
    }
    if (st.isDirectory()) {
      const before = out.length;
      walk(p, 1);
      if (out.length === before) warnings.push(`${p}: the folder holds no .json or .orcbrew file`);
    } else out.push(p);
  }
  return out;
}

/**
 * Import files and folders of either format one after another; each file is atomic on its own. One
 * file failing in any way never hides the others' outcomes.
 */
export function importHomebrewFiles(
  db: Database | null,
  paths: readonly string[],
  opts: ImportOptions = {},
): ImportReport & { warnings: string[] } {
  const warnings: string[] = [];
  const files = expandHomebrewPaths(paths, warnings);
  const max = opts.maxFileBytes ?? DEFAULT_IMPORT_MAX_BYTES;
  const out = importEach(files, opts, (file) =>
    homebrewFormatOf(file, max) === "5etools" ? importFivetoolsFile(db, file, opts) : importOrcbrewFile(db, file, opts),
  );
  return { ...out, warnings };
}
