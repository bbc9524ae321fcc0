/**
 * Doctor checks that only apply to the compiled binary: what it embeds, whether the unpacked files
 * still match their checksums, and the state of the native libraries. From source they report
 * "running from source".
 */
import { join } from "node:path";
import { fileMatches } from "./extract.ts";
import { extractedFiles } from "./manifest.ts";

export type CheckStatus = "ok" | "warn" | "fail" | "info";

/** One line of `lorekeeper doctor` (its own checks and these binary ones share the type). */
export interface Check {
  name: string;
  status: CheckStatus;
  summary: string;
  details?: Record<string, unknown>;
  fix?: string;
}

export function check(name: string, status: CheckStatus, summary: string, more: Pick<Check, "details" | "fix"> = {}) {
  return { name, status, summary, ...more } satisfies Check;
}

/** What the binary carries and where it unpacked it. */
export function binaryInfoCheck(): Check {
  const b = globalThis.__lorekeeperBinary;
  if (!b) return check("binary", "info", `running from source (${process.argv[1] ?? "bun"})`);
  const m = b.manifest;
  const mb = (n: number) => `${(n / 1048576).toFixed(1)} MB`;
  const total = m.files.reduce((s, f) => s + f.size, 0);
  const summary =
    `${m.target}, built ${m.built_at} with bun ${m.bun_version}; embeds ${m.files.length} files ` +
    `(${mb(total)}); unpacked in ${b.dir ?? "(not yet)"}`;
  return check("binary", "info", summary, {
    details: {
      executable: process.execPath,
      target: m.target,
      built_at: m.built_at,
      extraction_dir: b.dir ?? null,
      extraction: b.extract ?? null,
      model: m.model,
      content_pack: m.pack,
      content_pack_install: b.pack ?? null,
      semantic_disabled_reason: m.semantic_disabled_reason,
    },
  });
}

/** Re-hash every unpacked file (slow path, doctor only). */
export function extractionCheck(): Check | undefined {
  const b = globalThis.__lorekeeperBinary;
  if (!b) return undefined;
  const dir = b.dir;
  if (!dir)
    return check("unpacked files", "fail", "the binary's files were not unpacked", {
      fix: "Make $XDG_CACHE_HOME (or ~/.cache) writable and run again.",
    });
  const files = extractedFiles(b.manifest);
  const bad = files.filter((f) => !fileMatches(join(dir, f.name), f)).map((f) => f.name);
  if (bad.length)
    return check(
      "unpacked files",
      "fail",
      `${bad.length} unpacked file(s) do not match their checksums: ${bad.join(", ")}`,
      {
        fix: `Delete ${dir} and start lorekeeper again; it unpacks a fresh copy.`,
      },
    );
  return check("unpacked files", "ok", `${files.length} files verified (sha256) in ${dir}`);
}

/** After the model and usearch were exercised: what the native loader did. */
export function nativeLibrariesCheck(usearchError: string | undefined): Check {
  const name = "native libraries";
  const loader = globalThis.__lorekeeperNative;
  if (!loader && usearchError)
    return check(name, "fail", `usearch failed: ${usearchError}`, {
      fix: "Reinstall dependencies with `bun install`.",
    });
  if (!loader) return check(name, "ok", "usearch works; onnxruntime loads from node_modules (see model)");
  const st = loader.status();
  const failed = st.filter((s) => s.state === "failed");
  const line = st.map((s) => `${s.name} ${s.state}`).join(", ");
  if (failed.length || usearchError) {
    return check(name, "fail", `${line}${usearchError ? `; usearch: ${usearchError}` : ""}`, {
      details: { libraries: st },
      fix:
        `${failed.map((f) => f.error).join("; ")} — check that ${loader.dir} is on a filesystem that allows ` +
        `executing libraries (not noexec), or set XDG_CACHE_HOME elsewhere.`,
    });
  }
  return check(name, "ok", line, { details: { libraries: st } });
}
