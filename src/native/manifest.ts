/**
 * What a compiled binary carries: the list of embedded files with their sizes and sha256, written by
 * build.ts and read by the bootstrap. Pure types and helpers only (no I/O).
 */

/** The targets `bun build --compile` can produce that LoreKeeper knows about. */
export const TARGETS = ["linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64", "windows-x64"] as const;
export type Target = (typeof TARGETS)[number];

/** Native libraries the app loads through the bootstrap's loader. */
export type NativeName = "onnxruntime" | "usearch";

/**
 * ort-lib: the shared library loaded before the ORT binding (libonnxruntime, onnxruntime.dll);
 * ort-dep: a file that only has to sit beside it (DirectML.dll); pack-index: the content pack's
 * vector index file, beside its SQLite store (pack-db).
 */
export type FileRole = "ort-lib" | "ort-dep" | "ort-binding" | "usearch" | "model" | "pack-db" | "pack-index";

export interface ManifestFile {
  /** Relative path with forward slashes: where it goes inside the extraction folder. */
  name: string;
  role: FileRole;
  size: number;
  sha256: string;
}

export interface Manifest {
  format: 1;
  app_version: string;
  target: Target;
  built_at: string;
  bun_version: string;
  /** Model folder name and the ONNX file in it; null when built with --no-semantic. */
  model: { name: string; onnx_file: string } | null;
  /** Content pack summary, null when none is embedded. */
  pack: { entities: number; vectors: number; model_ids: string[]; schema_version: number } | null;
  /** Why semantic search is missing from this build (only with --no-semantic). */
  semantic_disabled_reason: string | null;
  files: ManifestFile[];
}

/** The embedded bundle as the generated module exports it: the manifest plus /$bunfs paths by file name. */
export interface EmbeddedBundle {
  manifest: Manifest;
  paths: Record<string, string>;
}

/** Files that are extracted to the cache folder (the pack is installed into the store instead). */
export function extractedFiles(m: Manifest): ManifestFile[] {
  return m.files.filter((f) => f.role !== "pack-db" && f.role !== "pack-index");
}

/** Stable identity of the extracted content: sha256 over the sorted (name, sha256, size) lines. */
export function manifestHash(m: Manifest): string {
  const lines = extractedFiles(m)
    .map((f) => `${f.name}\t${f.size}\t${f.sha256}`)
    .sort()
    .join("\n");
  return Bun.CryptoHasher.hash("sha256", `${m.app_version}\n${m.target}\n${lines}`, "hex");
}

/** Name of the versioned extraction folder: `<version>-<12 hex of the manifest hash>`. */
export function extractionFolderName(m: Manifest): string {
  return `${m.app_version}-${manifestHash(m).slice(0, 12)}`;
}

/** "linux-x64", "bun-linux-x64" or "win32-x64" as a Target; undefined when Bun cannot compile for it. */
export function parseTarget(s: string): Target | undefined {
  const t = s.replace(/^bun-/, "").replace(/^win32-/, "windows-");
  return (TARGETS as readonly string[]).includes(t) ? (t as Target) : undefined;
}

/** The host as a Target, or undefined when Bun cannot compile for it. */
export function hostTarget(): Target | undefined {
  return parseTarget(`${process.platform}-${process.arch}`);
}
