/**
 * The compiled binary's loader for native addons. build.ts rewrites the loaders of onnxruntime-node
 * and usearch so they call `globalThis.__lorekeeperNative.load(name)` instead of
 * looking in node_modules; this module answers from the extracted cache folder.
 *
 * Loading is lazy: nothing is dlopen'ed until a module that needs it is first evaluated (the MCP
 * handshake never loads onnxruntime). For onnxruntime the shared library is dlopen'ed first through
 * bun:ffi, then the binding (which also finds it beside itself through its $ORIGIN / @loader_path).
 */
import { dlopen } from "bun:ffi";
import { join } from "node:path";
import type { Manifest, NativeName } from "./manifest.ts";

export interface NativeStatus {
  name: NativeName;
  files: string[];
  state: "not-embedded" | "not-loaded" | "loaded" | "failed";
  error?: string;
}

export interface NativeLoader {
  readonly dir: string;
  readonly manifest: Manifest;
  /** The addon's exports; throws an Error with a clear message when it is missing or fails. */
  load(name: NativeName): unknown;
  status(): NativeStatus[];
}

declare global {
  var __lorekeeperNative: NativeLoader | undefined;
}

const ROLES: Record<NativeName, string> = { onnxruntime: "ort-binding", usearch: "usearch" };

export function createNativeLoader(dir: string, manifest: Manifest): NativeLoader {
  const cache = new Map<NativeName, { ok: true; exports: unknown } | { ok: false; error: Error }>();
  const filesOf = (...roles: string[]) =>
    roles.flatMap((r) => manifest.files.filter((f) => f.role === r)).map((f) => f.name);

  function doLoad(name: NativeName): unknown {
    const main = filesOf(ROLES[name])[0];
    if (!main) {
      const why = manifest.semantic_disabled_reason ? ` (${manifest.semantic_disabled_reason})` : "";
      throw new Error(
        `This LoreKeeper binary (${manifest.target}) was built without the ${name} native library${why}.`,
      );
    }
    try {
      // Keeps the library loaded for the process; one symbol is required by bun:ffi.
      if (name === "onnxruntime")
        for (const lib of filesOf("ort-lib")) dlopen(join(dir, lib), { OrtGetApiBase: { args: [], returns: "ptr" } });
      const mod = { exports: {} as unknown };
      process.dlopen(mod, join(dir, main));
      return mod.exports;
    } catch (err) {
      throw new Error(`Cannot load the ${name} native library from ${dir}: ${(err as Error).message}`);
    }
  }

  return {
    dir,
    manifest,
    load(name) {
      let entry = cache.get(name);
      if (!entry) {
        try {
          entry = { ok: true, exports: doLoad(name) };
        } catch (err) {
          entry = { ok: false, error: err as Error };
        }
        cache.set(name, entry);
      }
      if (!entry.ok) throw entry.error;
      return entry.exports;
    },
    status() {
      return (Object.keys(ROLES) as NativeName[]).map((name) => {
        const files = name === "onnxruntime" ? filesOf("ort-lib", "ort-dep", "ort-binding") : filesOf(ROLES[name]);
        const entry = cache.get(name);
        const state: NativeStatus["state"] =
          files.length === 0 ? "not-embedded" : !entry ? "not-loaded" : entry.ok ? "loaded" : "failed";
        return {
          name,
          files: files.map((f) => join(dir, f)),
          state,
          ...(entry && !entry.ok ? { error: entry.error.message } : {}),
        };
      });
    },
  };
}
