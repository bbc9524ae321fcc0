/**
 * 5etools homebrew import, through the shared steps of import.ts and with their promises (one
 * transaction per file, a re-import replaces, no API name shadowed without `force`, a report per
 * file): each source of a file's `_meta.sources` is one document and one origin
 * (`5etools:<document_key>`). Also the entry point for several files and folders of either format
 * (`importHomebrewFiles`). See docs/homebrew.md.
 */
import type { Database } from "bun:sqlite";
import { lstatSync, readdirSync, type Stats, statSync } from "node:fs";
import { basename, extname, join } from "node:path";
import { capName } from "../entities/limits.ts";
import type { SpellData } from "../entities/kinds.ts";
import { HOMEBREW_SQL } from "../entities/types.ts";
import { FivetoolsError, looksLikeFivetools, parseFivetools } from "../sources/5etools/file.ts";
import {
  countKind,
  type FivetoolsTypeCount,
  fivetoolsOrigin,
  type NormalizedSource,
  normalizeFivetoolsFile,
  type OutsideBases,
  type OutsideSpell,
} from "../sources/5etools/normalize/file.ts";
import { FIVETOOLS_SOURCE } from "../sources/5etools/normalize/build-one.ts";
import {
  type DocumentDraft,
  type FileReport,
  formatError,
  importEach,
  importFile,
  type ImportOptions,
  type ImportReport,
  textImporter,
} from "./import.ts";
import { importOrcbrewText } from "./import-orcbrew.ts";

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

/** Import one 5etools file's text. */
export const importFivetoolsText = textImporter("5etools", ({ db, text, file, report }) => {
  let parsed: ReturnType<typeof parseFivetools>;
  try {
    parsed = parseFivetools(text);
  } catch (err) {
    if (!(err instanceof FivetoolsError)) throw err;
    return { error: formatError(err.message, err.line, err.column) };
  }
  const drafts = (fileUrl: string) => {
    const normalized = normalizeFivetoolsFile(parsed, fileUrl, basename(file), outsideBases(db));
    report.warnings.push(...normalized.warnings);
    return normalized.sources.map((src) => sourceDraft(src, file, fileUrl));
  };
  return { packs: Math.max(1, parsed.sources.length), items: parsed.records, drafts };
});

/** One source of a 5etools file as a document to import. */
function sourceDraft(src: NormalizedSource, file: string, fileUrl: string): DocumentDraft {
  const { doc } = src;
  const by = doc.authors.length ? ` by ${doc.authors.join(", ")}` : "";
  return {
    noun: "source",
    name: doc.name,
    key: doc.key,
    origin: fivetoolsOrigin(doc.key),
    source: FIVETOOLS_SOURCE,
    normalize: (docName) => ({
      ...src,
      entities: src.entities.map((e) => ({ ...e, document_name: docName })),
      // Skipped records are reported by their entity's name.
      from: src.from.map((type, i) => ({ type, key: src.entities[i]!.name, line: 0, column: 0 })),
    }),
    clash: "has the same name; homebrew never overwrites API content",
    // The counts are this source's own (`types` above).
    uncount: (count, kind) => countKind(count as FivetoolsTypeCount, kind, -1),
    doc: (docName) => ({
      key: doc.key,
      name: docName,
      source: FIVETOOLS_SOURCE,
      publisher: doc.authors.length ? capName(doc.authors.join(", ")) : null,
      url: fileUrl,
      description: capName(
        `5etools homebrew source "${doc.id}"${doc.version ? ` v${doc.version}` : ""}${by}, imported ` +
          `from ${basename(file)}${doc.url ? ` (${doc.url})` : ""}`,
      ),
    }),
  };
}

/**
 * Import one homebrew file of either format from disk (see importFile), read once: the format by
 * extension, else by a look at its first characters (JSON with 5etools keys).
 */
export function importHomebrewFile(db: Database | null, file: string, opts: ImportOptions = {}): FileReport {
  const ext = extname(file).toLowerCase();
  return importFile(file, opts, "it is a directory", (text, warnings) => {
    const fivetools = ext === ".json" || (ext !== ".orcbrew" && looksLikeFivetools(text.slice(0, 65536)));
    return (fivetools ? importFivetoolsText : importOrcbrewText)(db, text, file, opts, warnings);
  });
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
  const out = importEach(files, opts, (file) => importHomebrewFile(db, file, opts));
  return { ...out, warnings };
}
