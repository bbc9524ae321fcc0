/**
 * What `lorekeeper import FILE` does with a file, decided by its content and its name together: a
 * name promises a format, the first bytes say which one it is, and a file whose name and content
 * disagree is refused rather than guessed at (a content pack renamed `.orcbrew` must never be
 * loaded as a pack: that would replace official entries with no clash check and no homebrew
 * label). One table, FORMATS: a new homebrew format is one more entry.
 */
import { extname } from "node:path";
import { sniffPack } from "./pack-file.ts";

/** What the file holds, by its first bytes. */
type FileContent = "pack" | "other";

/** A content pack (loaded as `sync --pack`), or homebrew (read by import-5etools.ts's readers). */
export type ImportFormat = "pack" | "homebrew";

interface FormatRule {
  format: ImportFormat;
  /** Lower-case file name endings this format goes by. */
  extensions: readonly string[];
  /** The content the format accepts. */
  content: FileContent;
  /** What to call the format in messages. */
  label: string;
}

/** In order: the first rule whose extension matches decides; a file no extension names goes by content. */
const FORMATS: readonly FormatRule[] = [
  { format: "homebrew", extensions: [".orcbrew"], content: "other", label: "an OrcBrew homebrew file" },
  { format: "homebrew", extensions: [".json"], content: "other", label: "a 5etools homebrew JSON file" },
  {
    format: "pack",
    extensions: [".db.gz", ".db", ".gz", ".sqlite", ".sqlite3"],
    content: "pack",
    label: "a LoreKeeper content pack",
  },
];

export type ImportDecision = { format: ImportFormat } | { refused: string; hint: string };

function contentOf(file: string): FileContent {
  return sniffPack(file) !== undefined ? "pack" : "other";
}

/**
 * How to import `file`. A name a rule claims must hold that rule's content; any other name (and a
 * folder) goes by content: a pack is loaded as a pack, anything else goes to the homebrew readers,
 * which say what is wrong with it (a file that cannot be read too).
 */
export function importFormat(file: string): ImportDecision {
  const name = file.toLowerCase();
  const content = contentOf(file);
  const rule = FORMATS.find((r) => r.extensions.some((x) => name.endsWith(x)));
  if (rule && rule.content !== content) {
    const holds =
      content === "pack"
        ? "a LoreKeeper content pack (SQLite or gzip data)"
        : "no LoreKeeper content pack (neither gzip nor SQLite)";
    const hint =
      content === "pack"
        ? "Homebrew is imported from OrcBrew or 5etools text; to load a content pack on purpose, " +
          "give it its own name (lorekeeper-content.db.gz) or use `lorekeeper sync --pack FILE`."
        : `Pass ${rule.label} (${rule.extensions.join(", ")}).`;
    return {
      refused:
        `${file} is named like ${rule.label} (${extname(file) || name}) ` + `but holds ${holds}; nothing was imported.`,
      hint,
    };
  }
  return { format: rule?.format ?? (content === "pack" ? "pack" : "homebrew") };
}
