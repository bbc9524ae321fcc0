/** A fake embedded bundle for tests: real files in a temp folder stand in for the binary's /$bunfs files. */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { sha256 } from "../../src/native/extract.ts";
import type { EmbeddedBundle, FileRole, Manifest } from "../../src/native/manifest.ts";

export interface FixtureFile {
  name: string;
  role: FileRole;
  bytes: Uint8Array;
}

export function randomBytes(n: number, seed: number): Uint8Array {
  const out = new Uint8Array(n);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

/** Write `files` under `srcDir` and describe them as a bundle. */
export function makeBundle(srcDir: string, files: FixtureFile[], version = "9.9.9"): EmbeddedBundle {
  const paths: Record<string, string> = {};
  for (const f of files) {
    const p = join(srcDir, f.name);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, f.bytes);
    paths[f.name] = p;
  }
  const manifest: Manifest = {
    format: 1,
    app_version: version,
    target: "linux-x64",
    built_at: "2026-01-01T00:00:00.000Z",
    bun_version: Bun.version,
    model: { name: "tiny", onnx_file: "model.onnx" },
    pack: null,
    semantic_disabled_reason: null,
    files: files.map((f) => ({ name: f.name, role: f.role, size: f.bytes.length, sha256: sha256(f.bytes) })),
  };
  return { manifest, paths };
}

export function defaultFiles(seed = 1): FixtureFile[] {
  return [
    { name: "native/libfake.so.1", role: "ort-lib", bytes: randomBytes(300_000, seed) },
    { name: "native/usearch.node", role: "usearch", bytes: randomBytes(70_000, seed + 1) },
    { name: "models/tiny/model.onnx", role: "model", bytes: randomBytes(50_000, seed + 2) },
    { name: "models/tiny/config.json", role: "model", bytes: new TextEncoder().encode('{"pad_token_id":0}') },
  ];
}
