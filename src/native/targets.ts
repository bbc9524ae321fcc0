/**
 * Which native files a binary for each target needs, and where they come from in node_modules.
 * Pure data: build.ts resolves the folders and reports whatever is missing.
 *
 * - onnxruntime-node ships every OS/arch in its own tarball (bin/napi-v3/<platform>/<arch>/).
 * - usearch ships prebuilds for linux-x64, linux-arm64, darwin (universal) and win32-x64.
 * - The tokenizer is no native addon: fastembed's `@anush008/tokenizers` is mapped to the pure-JS
 *   packages/tokenizers-js (package.json `overrides`), which is bundled like any other code.
 */
import type { FileRole, Target } from "./manifest.ts";

export interface NativeSpec {
  role: FileRole;
  /** npm package holding the file. */
  pkg: string;
  /** Folder inside the package. */
  dir: string;
  /** File name in that folder (a RegExp when it carries a version). */
  file: string | RegExp;
  /** What breaks without it. */
  feature: "semantic" | "vector-index";
}

/** A native file's name inside the extraction folder (all share `native/` so $ORIGIN lookups work). */
export const nativePath = (fileName: string) => `native/${fileName}`;
const USEARCH_DIR: Record<Target, string> = {
  "linux-x64": "linux-x64",
  "linux-arm64": "linux-arm64",
  "darwin-x64": "darwin-arm64+x64",
  "darwin-arm64": "darwin-arm64+x64",
  "windows-x64": "win32-x64",
};

function ortSpecs(t: Target): NativeSpec[] {
  const [os, arch] = t.split("-") as [string, string];
  const dir = `bin/napi-v3/${os === "windows" ? "win32" : os}/${arch}`;
  const base = { pkg: "onnxruntime-node", dir, feature: "semantic" as const };
  const libs: NativeSpec[] =
    os === "linux"
      ? [{ ...base, role: "ort-lib", file: "libonnxruntime.so.1" }]
      : os === "darwin"
        ? [{ ...base, role: "ort-lib", file: /^libonnxruntime\.\d+\.\d+\.\d+\.dylib$/ }]
        : [
            { ...base, role: "ort-dep", file: "DirectML.dll" },
            { ...base, role: "ort-lib", file: "onnxruntime.dll" },
          ];
  return [...libs, { ...base, role: "ort-binding", file: "onnxruntime_binding.node" }];
}

/** The native files of a target. */
export function nativeSpecs(t: Target): NativeSpec[] {
  const usearch: NativeSpec = {
    role: "usearch",
    pkg: "usearch",
    dir: `prebuilds/${USEARCH_DIR[t]}`,
    file: "usearch.node",
    feature: "vector-index",
  };
  return [...ortSpecs(t), usearch];
}

/** How to get the optional dependencies of other platforms into node_modules. */
export const INSTALL_ALL_PLATFORMS = "bun install --os='*' --cpu='*'";
