/**
 * Homebrew import, what both formats share (reading a file, planning each document, storing a file;
 * the formats themselves: import-orcbrew.ts, import-5etools.ts). Every document of a file is stored
 * in ONE transaction (all or nothing per file). A document is one origin (e.g.
 * `orcbrew:<document_key>`), so re-importing it replaces its earlier entities (no duplicates, no
 * orphans). Homebrew never overwrites API content: an item whose name (or key) is that of an API
 * entity of the same kind is skipped with a reason, unless `force` (then both are kept; they differ
 * by document_key / document_source). See docs/homebrew.md.
 */
import type { Database } from "bun:sqlite";
import { closeSync, constants as fsConstants, fstatSync, openSync, readSync, type Stats, statSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { type DocumentInfo, type Entity, HOMEBREW_SQL } from "../entities/types.ts";
import { slugify } from "../entities/types.ts";
import { capName, oversizeReason } from "../entities/limits.ts";
import { foldConfusables, nameSkeleton } from "../text/confusables.ts";
import type { OrcbrewSkipped, TypeCount } from "../sources/orcbrew/normalize/pack.ts";
import { log } from "../log.ts";
import { storeFailure } from "../store/db.ts";
import { countOrigin, replaceOrigin, type ReplaceResult } from "../store/entities.ts";

export interface ImportOptions {
  /** Report what would be imported; write nothing. */
  dryRun?: boolean;
  /** Import items even when an API entity of the same kind has the same name. */
  force?: boolean;
  onEvent?: (e: ImportEvent) => void;
  /** Largest file read, bytes (default DEFAULT_IMPORT_MAX_BYTES); only regular files are read. */
  maxFileBytes?: number;
}

export type ImportEvent =
  | { type: "file-start"; file: string; bytes: number }
  | { type: "parsed"; file: string; packs: number; items: number; ms: number }
  | { type: "progress"; file: string; pack: string; done: number; total: number }
  | { type: "file-done"; report: FileReport };

export interface PackReport {
  name: string;
  document_key: string;
  origin: string;
  /** Per OrcPub content type: found / imported / skipped. */
  types: TypeCount[];
  skipped: OrcbrewSkipped[];
  warnings: string[];
  /** What the store did (absent on a dry run or when the file failed). */
  store?: ReplaceResult;
  /** Dry run: entities of this pack already in the store (they would be replaced). */
  existing?: number;
}

export interface FileReport {
  file: string;
  ok: boolean;
  dry_run: boolean;
  /** Why the whole file was not imported: `message` = "line L, column C: reason" when the place is known. */
  error?: { message: string; reason: string; line?: number; column?: number };
  shape?: "single" | "multi";
  /** The file's homebrew format (absent when the file could not be read). */
  format?: "orcbrew" | "5etools";
  packs: PackReport[];
  warnings: string[];
  imported: number;
  /** Items that should have been imported and were not (exit code 2). */
  skipped: number;
  /** Items left out by design: types LoreKeeper does not model, disabled items (notes only). */
  not_imported?: number;
  duration_ms: number;
}

export interface ImportReport {
  files: FileReport[];
  imported: number;
  skipped: number;
  not_imported?: number;
  failed: number;
  dry_run: boolean;
}

/**
 * 0 = everything the file asks for was imported (types LoreKeeper does not model and disabled items
 * are notes), 1 = a file failed, 2 = some entities were skipped.
 */
export function importExitCode(r: ImportReport): 0 | 1 | 2 {
  return r.failed > 0 ? 1 : r.skipped > 0 ? 2 : 0;
}

/** File bytes → text: UTF-8 (BOM kept for the reader), UTF-16 with BOM, else Windows-1252 with a warning. */
export function decodeText(bytes: Uint8Array, warnings: string[]): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder("utf-16le").decode(bytes.subarray(2));
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder("utf-16be").decode(bytes.subarray(2));
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    warnings.push("the file is not valid UTF-8; it was read as Windows-1252");
    return new TextDecoder("windows-1252").decode(bytes);
  }
}

type ApiTwin = Pick<Entity, "name" | "document_key" | "document_source">;

/**
 * The API entity of the same kind whose name has the same slug ("Fire Ball!" ~ "fire-ball") or
 * looks the same (`nameSkeleton`: "FirebaII", "Fire ball", "Fiгeball" with a Cyrillic г).
 */
function apiTwinFinder(db: Database | null): (e: Entity) => ApiTwin | undefined {
  if (!db) return () => undefined;
  const q = db.query<ApiTwin, [string, string]>(
    `SELECT name, document_key, document_source FROM entities WHERE kind = ? AND slug = ? AND document_source NOT IN ` +
      `${HOMEBREW_SQL} ORDER BY document_source, document_key LIMIT 1`,
  );
  const all = db.query<ApiTwin, [string]>(
    `SELECT name, document_key, document_source FROM entities WHERE kind = ? AND document_source NOT IN ${HOMEBREW_SQL}
     ORDER BY document_source, document_key`,
  );
  // The API names of a kind by skeleton, made when an import first has an entity of that kind.
  const skeletons = new Map<string, Map<string, ApiTwin>>();
  const bySkeleton = (kind: string): Map<string, ApiTwin> =>
    skeletons.getOrInsertComputed(kind, () => {
      const m = new Map<string, ApiTwin>();
      for (const t of all.all(kind)) {
        const k = nameSkeleton(t.name);
        if (k && !m.has(k)) m.set(k, t);
      }
      return m;
    });
  // Compared as the names read: "Fіreball" (Cyrillic і), "Fire\u200bball" and "Fıreball" are Fireball.
  return (e) => {
    const same = q.get(e.kind, slugify(foldConfusables(e.name)));
    if (same) return same;
    const k = nameSkeleton(e.name);
    return k ? bySkeleton(e.kind).get(k) : undefined;
  };
}

/** Marks a homebrew document name that reads as an official one (an API document's name, or the SRD's). */
export const HOMEBREW_MARK = " (homebrew)";

/** Which official name `name` reads as (an API document's in `db`, one of `more`, or the SRD), or undefined. */
export function officialNameCheck(
  db: Database | null,
  more: readonly string[] = [],
): (name: string) => string | undefined {
  const official = new Map<string, string>();
  for (const n of more) official.set(slugify(foldConfusables(n)), n);
  if (db) {
    for (const r of db
      .query<{ name: string }, []>(`SELECT DISTINCT name FROM documents WHERE source NOT IN ${HOMEBREW_SQL}`)
      .all())
      official.set(slugify(foldConfusables(r.name)), r.name);
  }
  return (name) => {
    const folded = slugify(foldConfusables(name));
    return (
      official.get(folded) ??
      (/(^|-)(system-reference-document|srd)(-|$)/.test(folded) ? "the System Reference Document" : undefined)
    );
  };
}

/** A homebrew document as its format's reader made it: an OrcBrew pack or a 5etools source. */
export interface DocumentDraft {
  /** What messages call it: "pack" (OrcBrew) or "source" (5etools). */
  noun: "pack" | "source";
  /** Its name as the file gives it. */
  name: string;
  key: string;
  origin: string;
  source: "orcbrew" | "5etools";
  /** Its entities under the name it is stored with, where each came from, and the file's counts. */
  normalize: (docName: string) => Pick<PackReport, "types" | "skipped" | "warnings"> & {
    entities: Entity[];
    from: Array<{ type: string; key: string; line: number; column: number }>;
  };
  /** Why an API entity of the same name keeps one out, in the format's words. */
  clash: string;
  /** Recount a type's kinds when one of its entities is skipped (5etools counts them per kind). */
  uncount?: (count: TypeCount, kind: Entity["kind"]) => void;
  doc: (docName: string) => DocumentInfo;
}

/** What an importer writes for one homebrew document of a file. */
interface ImportPlan {
  report: PackReport;
  entities: Entity[];
  doc: DocumentInfo;
}

interface NameChecks {
  twin: ReturnType<typeof apiTwinFinder>;
  officialName: ReturnType<typeof officialNameCheck>;
}

/**
 * One document's plan: a name that reads as official gets the homebrew mark, entities too large to
 * import are skipped, and so (without `force`) are those an API entity's name already answers for.
 */
function planDocument(db: Database | null, opts: ImportOptions, checks: NameChecks, d: DocumentDraft): ImportPlan {
  const looksOfficial = checks.officialName(d.name);
  const docName = capName(d.name) + (looksOfficial ? HOMEBREW_MARK : "");
  const n = d.normalize(docName);
  const report: PackReport = {
    name: docName,
    document_key: d.key,
    origin: d.origin,
    types: n.types,
    skipped: n.skipped,
    warnings: n.warnings,
  };
  if (looksOfficial)
    report.warnings.push(
      `the ${d.noun} name "${d.name}" reads as ${looksOfficial}; it is shown as "${docName}" so that homebrew never ` +
        `passes for official content`,
    );
  else if (docName !== d.name)
    report.warnings.push(
      `the ${d.noun} name is ${d.name.length} characters long; it was shortened to ${docName.length}`,
    );
  const keep: Entity[] = [];
  for (const [i, e] of n.entities.entries()) {
    const from = n.from[i]!;
    const over = oversizeReason(e);
    const t = over ? undefined : checks.twin(e);
    let reason: string | undefined;
    if (over) reason = `too large to import: ${over} (see docs/homebrew.md, "Limits")`;
    else if (t && !opts.force)
      reason =
        `an API ${e.kind} "${t.name}" (${t.document_key}, ${t.document_source}) ${d.clash} ` +
        "(use --force to import it anyway)";
    if (reason) {
      const count = n.types.find((c) => c.type === from.type);
      if (count) {
        count.imported--;
        count.skipped++;
        d.uncount?.(count, e.kind);
      }
      const { type, line, column } = from;
      report.skipped.push({ type, key: capName(from.key), name: capName(e.name), reason, line, column });
      continue;
    }
    if (t)
      report.warnings.push(
        `${e.kind} "${e.name}" has the same name as the API ${e.kind} from ${t.document_key}; imported anyway ` +
          `(--force), both are kept`,
      );
    keep.push(e);
  }
  const existing = db ? countOrigin(db, d.origin) : 0;
  if (opts.dryRun) report.existing = existing;
  const before = db
    ?.query<{ name: string }, [string, string]>("SELECT name FROM documents WHERE source = ? AND key = ?")
    .get(d.source, d.key)?.name;
  if (before !== undefined && before !== docName && existing > 0)
    report.warnings.push(`replaces the ${d.noun} "${before}" imported earlier under the same document key ${d.key}`);
  return { report, entities: keep, doc: d.doc(docName) };
}

/** A file's report as an import starts it, and `done`, which stamps its duration and announces it. */
function startFileReport(
  file: string,
  opts: ImportOptions,
  warnings: readonly string[],
  format?: FileReport["format"],
): { report: FileReport; done: () => FileReport } {
  const started = performance.now();
  const report: FileReport = {
    file,
    ok: false,
    dry_run: opts.dryRun ?? false,
    ...(format ? { format } : {}),
    packs: [],
    warnings: [...warnings],
    imported: 0,
    skipped: 0,
    duration_ms: 0,
  };
  const done = () => {
    report.duration_ms = Math.round(performance.now() - started);
    opts.onEvent?.({ type: "file-done", report });
    return report;
  };
  return { report, done };
}

/** A report's `error` for a file its format's reader refused ("line L, column C: reason" when placed). */
export function formatError(reason: string, line?: number, column?: number): NonNullable<FileReport["error"]> {
  if (line === undefined) return { message: reason, reason };
  return { message: `line ${line}, column ${column}: ${reason}`, reason, line, column };
}

/** What a format's reader makes of a file's text: its documents, or why it cannot be read. */
type ReadResult =
  | { error: NonNullable<FileReport["error"]> }
  | { packs: number; items: number; drafts: (fileUrl: string) => DocumentDraft[] };

/** What a format's reader is given: the file's text, and its report to add to (shape, warnings). */
type ReadInput = { db: Database | null; text: string; file: string; opts: ImportOptions; report: FileReport };

/**
 * The text importer of a format: one file's text read with `read`. `db` null = no store (a dry run
 * without a database). Never throws for bad input: the report says what failed, where.
 */
export function textImporter(format: NonNullable<FileReport["format"]>, read: (input: ReadInput) => ReadResult) {
  return (
    db: Database | null,
    text: string,
    file: string,
    opts: ImportOptions = {},
    preWarnings: readonly string[] = [],
  ): FileReport => {
    const started = performance.now();
    const { report, done } = startFileReport(file, opts, preWarnings, format);
    const r = read({ db, text, file, opts, report });
    if ("error" in r) {
      report.error = r.error;
      return done();
    }
    const ms = Math.round(performance.now() - started);
    opts.onEvent?.({ type: "parsed", file, packs: r.packs, items: r.items, ms });
    const checks = { twin: apiTwinFinder(db), officialName: officialNameCheck(db) };
    const plans = r.drafts(pathToFileURL(resolve(file)).href).map((d) => planDocument(db, opts, checks, d));
    if (!opts.dryRun && !db) throw new Error(`importing ${format}: a database is required unless dryRun`);
    storePlans(opts.dryRun ? null : db, file, plans, report, opts);
    return done();
  };
}

/**
 * Write a file's plans in one transaction (replaceOrigin's own become savepoints) and total the
 * file's report; `db` null is a dry run. A failed write leaves nothing of the file and says why.
 */
function storePlans(
  db: Database | null,
  file: string,
  plans: ImportPlan[],
  report: FileReport,
  opts: ImportOptions,
): void {
  report.packs = plans.map((p) => p.report);
  if (db) {
    try {
      db.transaction(() => {
        for (const p of plans) {
          p.report.store = replaceOrigin(db, p.report.origin, p.entities, [p.doc]);
          const n = p.entities.length;
          opts.onEvent?.({ type: "progress", file, pack: p.report.name, done: n, total: n });
        }
      }).immediate();
    } catch (err) {
      for (const p of plans) delete p.report.store;
      const storeErr = storeFailure(err, db.filename);
      const why = storeErr ? `${storeErr.message} ${storeErr.hint}` : (err as Error).message;
      const reason = `storing failed, nothing from this file was imported: ${why}`;
      report.error = { message: reason, reason };
      return;
    }
  }
  report.imported = plans.reduce((n, p) => n + p.entities.length, 0);
  report.skipped = report.packs.reduce((n, p) => n + p.skipped.filter((x) => !x.by_design).length, 0);
  report.not_imported = report.packs.reduce((n, p) => n + p.skipped.filter((x) => x.by_design).length, 0);
  report.ok = true;
}

/** Default largest file read (config: LOREKEEPER_IMPORT_MAX_MB). */
const DEFAULT_IMPORT_MAX_BYTES = 64 * 1024 * 1024;

function kindOfFile(st: Stats): string {
  if (st.isDirectory()) return "a directory";
  if (st.isFIFO()) return "a named pipe (FIFO)";
  if (st.isCharacterDevice() || st.isBlockDevice()) return "a device";
  if (st.isSocket()) return "a socket";
  return "not a regular file";
}

/**
 * The bytes of a regular file of at most `max` bytes. Opened without blocking (a FIFO never
 * waits for a writer) and checked on the open descriptor (what is read is what was checked);
 * a file that grows past `max` while being read is refused too.
 */
function readRegularFile(file: string, max: number): Uint8Array {
  const fd = openSync(file, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK);
  try {
    const st = fstatSync(fd);
    if (!st.isFile())
      throw Object.assign(new Error(`it is ${kindOfFile(st)}; only regular files are imported`), { code: "ENOTREG" });
    if (st.size > max) throw tooLarge(st.size, max);
    const buf = Buffer.allocUnsafe(Math.min(max, st.size) + 1);
    let n = 0;
    for (;;) {
      const got = readSync(fd, buf, n, buf.length - n, null);
      if (got === 0) break;
      n += got;
      if (n > max) throw tooLarge(n, max);
      if (n === buf.length) break;
    }
    return buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}

function tooLarge(size: number, max: number): Error {
  const shown = (b: number) => (b >= 1024 * 1024 ? `${(b / 1024 / 1024).toFixed(1)} MB` : `${Math.round(b / 1024)} KB`);
  return Object.assign(
    new Error(`it is ${shown(size)}; the limit is ${shown(max)} (set LOREKEEPER_IMPORT_MAX_MB to raise it)`),
    { code: "EFBIG" },
  );
}

/**
 * Read `file` (only a regular file up to `maxFileBytes`; `directory` says why a folder is not one)
 * and import its text with `importText`.
 */
export function importFile(
  file: string,
  opts: ImportOptions,
  directory: string,
  importText: (text: string, warnings: string[]) => FileReport,
): FileReport {
  const warnings: string[] = [];
  let text: string;
  try {
    const st = statSync(file);
    if (st.isDirectory()) throw new Error(directory);
    opts.onEvent?.({ type: "file-start", file, bytes: st.isFile() ? st.size : 0 });
    text = decodeText(readRegularFile(file, opts.maxFileBytes ?? DEFAULT_IMPORT_MAX_BYTES), warnings);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const why = e.code === "ENOENT" ? "no such file" : e.code === "EACCES" ? "permission denied" : e.message;
    return failedFile(file, `cannot read the file: ${why}`, opts, warnings);
  }
  return importText(text, warnings);
}

function failedFile(file: string, reason: string, opts: ImportOptions, warnings: string[] = []): FileReport {
  const { report, done } = startFileReport(file, opts, warnings);
  report.error = { message: reason, reason };
  return done();
}

/**
 * `importOne` for each file in turn, totalled. A file failing in any way (even an unexpected
 * error) is reported as that file's outcome and never hides the others'.
 */
export function importEach(
  files: readonly string[],
  opts: ImportOptions,
  importOne: (file: string) => FileReport,
): ImportReport {
  const out: ImportReport = { files: [], imported: 0, skipped: 0, failed: 0, dry_run: opts.dryRun ?? false };
  for (const file of files) {
    let r: FileReport;
    try {
      r = importOne(file);
    } catch (err) {
      log.error(`importing ${file} failed unexpectedly`, err);
      r = failedFile(
        file,
        `unexpected error while importing, nothing from this file was imported: ` +
          `${(err as Error)?.message ?? String(err)}`,
        opts,
      );
    }
    out.files.push(r);
    if (!r.ok) out.failed++;
    out.imported += r.imported;
    out.skipped += r.skipped;
    out.not_imported = (out.not_imported ?? 0) + (r.not_imported ?? 0);
  }
  return out;
}
