/**
 * What `lorekeeper import FILE` does with a file, decided by its content and its name together: a
 * name promises a format, the first bytes say which one it is, and a file whose name and content
 * disagree is refused rather than guessed at (a content pack renamed `.orcbrew` must never be
 * loaded as a pack: that would replace official entries with no clash check and no homebrew
 * label). One table, FORMATS: a new homebrew format is one more entry.
 */
import { extname } from "node:path";
import { sniffPack } from "./pack-file.ts";

/**
 * In order: the first rule whose (lower-case) extension matches decides, and the file must hold a
 * content pack exactly when `pack` says so; a file no extension names goes by content.
 */
const FORMATS: ReadonlyArray<{ extensions: readonly string[]; pack: boolean; label: string }> = [
  { extensions: [".orcbrew"], pack: false, label: "an OrcBrew homebrew file" },
  { extensions: [".json"], pack: false, label: "a 5etools homebrew JSON file" },
  { extensions: [".db.gz", ".db", ".gz", ".sqlite", ".sqlite3"], pack: true, label: "a LoreKeeper content pack" },
];

/**
 * How to import `file`: as a content pack (loaded as `sync --pack`) or as homebrew (read by
 * import-5etools.ts's readers, which say what is wrong with anything else, a folder or a file that
 * cannot be read too); or refused, when its name and content disagree.
 */
export function importFormat(file: string): { format: "pack" | "homebrew" } | { refused: string; hint: string } {
  const name = file.toLowerCase();
  const pack = sniffPack(file) !== undefined;
  const rule = FORMATS.find((r) => r.extensions.some((x) => name.endsWith(x)));
  if (rule && rule.pack !== pack) {
    const holds = pack
      ? "a LoreKeeper content pack (SQLite or gzip data)"
      : "no LoreKeeper content pack (neither gzip nor SQLite)";
    const hint = pack
      ? "Homebrew is imported from OrcBrew or 5etools text; to load a content pack on purpose, " +
        "give it its own name (lorekeeper-content.db.gz) or use `lorekeeper sync --pack FILE`."
      : `Pass ${rule.label} (${rule.extensions.join(", ")}).`;
    const named = `${file} is named like ${rule.label} (${extname(file) || name})`;
    return { refused: `${named} but holds ${holds}; nothing was imported.`, hint };
  }
  return { format: pack ? "pack" : "homebrew" };
}
