/** OrcBrew homebrew import: a file's packs, each its own document, through the shared steps of import.ts. */
import type { Database } from "bun:sqlite";
import { basename } from "node:path";
import { normalizeOrcbrewPack, orcbrewDocumentKey, orcbrewOrigin } from "../sources/orcbrew/normalize/pack.ts";
import { OrcbrewError, type OrcbrewPack, parseOrcbrew } from "../sources/orcbrew/packs.ts";
import { stripInvisible } from "../text/confusables.ts";
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

/** Packs whose names give the same document key are one document: merge them (first name wins). */
function mergeSameKey(packs: OrcbrewPack[], warnings: string[]): Array<{ pack: OrcbrewPack; key: string }> {
  const byKey = new Map<string, OrcbrewPack>();
  for (const p of packs) {
    const key = orcbrewDocumentKey(p.name);
    const prev = byKey.get(key);
    if (!prev) byKey.set(key, { ...p, items: [...p.items], skipped: [...p.skipped] });
    else {
      warnings.push(
        `packs "${prev.name}" and "${p.name}" (line ${p.line}) share the document key ${key}; imported together as ` +
          `"${prev.name}"`,
      );
      prev.items.push(...p.items);
      prev.skipped.push(...p.skipped);
    }
  }
  return [...byKey.entries()].map(([key, pack]) => ({ pack, key }));
}

/** Import one OrcBrew file's text. */
export const importOrcbrewText = textImporter("orcbrew", ({ text, file, opts, report }) => {
  let parsed: ReturnType<typeof parseOrcbrew>;
  try {
    parsed = parseOrcbrew(text, file);
  } catch (err) {
    if (!(err instanceof OrcbrewError)) throw err;
    return { error: formatError(err.reason, err.line, err.column) };
  }
  report.shape = parsed.shape;
  report.warnings.push(...parsed.warnings);
  const packs = parsed.packs.length;
  const items = parsed.packs.reduce((n, p) => n + p.items.length, 0);
  const drafts = (fileUrl: string) =>
    mergeSameKey(parsed.packs, report.warnings).map(
      ({ pack, key }): DocumentDraft => ({
        noun: "pack",
        name: stripInvisible(pack.name).trim() || pack.name,
        key,
        origin: orcbrewOrigin(key),
        source: "orcbrew",
        normalize: (docName) => {
          const n = normalizeOrcbrewPack(pack, { documentKey: key, documentName: docName, fileUrl });
          const total = pack.items.length;
          opts.onEvent?.({ type: "progress", file, pack: pack.name, done: n.entities.length, total });
          return n;
        },
        clash: "has the same name or one that reads the same; OrcBrew never overwrites API content",
        doc: (docName) => ({
          key,
          name: docName,
          source: "orcbrew",
          url: fileUrl,
          description: `OrcBrew pack "${docName}" imported from ${basename(file)}`,
        }),
      }),
    );
  return { packs, items, drafts };
});

/** Import one OrcBrew file from disk (see importFile, importOrcbrewText). */
export function importOrcbrewFile(db: Database | null, file: string, opts: ImportOptions = {}): FileReport {
  const notOne = "it is a directory, not an .orcbrew file";
  return importFile(file, opts, notOne, (text, warnings) => importOrcbrewText(db, text, file, opts, warnings));
}

/**
 * Import files one after another; each is atomic on its own. One file failing in any way (even
 * an unexpected error) is reported as that file's outcome and never hides the others' outcomes.
 */
export function importOrcbrewFiles(db: Database | null, files: string[], opts: ImportOptions = {}): ImportReport {
  return importEach(files, opts, (file) => importOrcbrewFile(db, file, opts));
}
