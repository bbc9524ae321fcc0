/**
 * macOS kills a binary whose code signature is invalid (Apple Silicon: exit 137 at launch), and
 * several Bun releases wrote such signatures for `--compile` darwin outputs. So every darwin binary
 * is checked with `rcodesign verify` (crate apple-codesign: verifies and signs Mach-O files on any
 * OS); an invalid one is ad-hoc signed (`rcodesign sign`, no certificate: what `codesign -s -` does
 * on a Mac) and checked again. Still invalid: the build fails. build.ts runs this after compiling a
 * darwin target; `bun packaging/darwin-signature.ts FILE...` runs it alone.
 */
import { statSync } from "node:fs";

export interface SignatureResult {
  file: string;
  /** valid as built, valid after an ad-hoc signature, or invalid. */
  status: "valid" | "signed" | "invalid";
  detail: string;
}

function rcodesign(bin: string, args: string[]): { ok: boolean; out: string } {
  const r = Bun.spawnSync([bin, ...args], { stdout: "pipe", stderr: "pipe" });
  const out = `${r.stdout.toString()}${r.stderr.toString()}`.trim();
  return { ok: r.exitCode === 0, out };
}

function lastLines(s: string, n = 3): string {
  return s.split("\n").filter(Boolean).slice(-n).join(" | ").slice(0, 400);
}

/** The rcodesign on PATH (or $RCODESIGN), or undefined. */
export function findRcodesign(): string | undefined {
  const env = process.env.RCODESIGN;
  if (env) return env;
  return Bun.which("rcodesign") ?? undefined;
}

/** Verify `file`; ad-hoc sign and verify again when `sign` and the first check fails. */
export function checkSignature(file: string, bin: string, sign = true): SignatureResult {
  const first = rcodesign(bin, ["verify", file]);
  if (first.ok) return { file, status: "valid", detail: lastLines(first.out) || "signature valid" };
  if (!sign) return { file, status: "invalid", detail: lastLines(first.out) };
  const before = statSync(file).mode;
  const signed = rcodesign(bin, ["sign", file]);
  if (!signed.ok) return { file, status: "invalid", detail: `ad-hoc signing failed: ${lastLines(signed.out)}` };
  const again = rcodesign(bin, ["verify", file]);
  if (!again.ok) return { file, status: "invalid", detail: `still invalid after ad-hoc signing: ${lastLines(again.out)}` };
  // rcodesign rewrites the file; keep it executable as it was.
  Bun.spawnSync(["chmod", (before & 0o777).toString(8), file]);
  return { file, status: "signed", detail: `was invalid (${lastLines(first.out, 1)}); ad-hoc signed, now valid` };
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const noSign = args.includes("--no-sign");
  const files = args.filter((a) => !a.startsWith("--"));
  const bin = findRcodesign();
  if (!bin) {
    process.stderr.write("darwin-signature: rcodesign is not installed (cargo install apple-codesign --locked --bin rcodesign)\n");
    process.exit(1);
  }
  if (files.length === 0) {
    process.stderr.write("usage: bun packaging/darwin-signature.ts [--no-sign] dist/lorekeeper-darwin-x64 dist/lorekeeper-darwin-arm64\n");
    process.exit(64);
  }
  let bad = 0;
  for (const f of files) {
    const r = checkSignature(f, bin, !noSign);
    process.stderr.write(`${r.status.toUpperCase()} ${f}: ${r.detail}\n`);
    if (r.status === "invalid") bad++;
  }
  process.exit(bad ? 1 : 0);
}

/** build.ts: check one darwin output. Returns a line to print and, when it must fail, the problem. */
export function darwinBuildCheck(file: string, required: boolean): { line: string; problem?: { message: string; fix: string } } {
  const bin = findRcodesign();
  if (!bin) {
    const line = `signature of ${file} not checked: rcodesign is not installed`;
    return required ? { line, problem: { message: line, fix: "cargo install apple-codesign --locked --bin rcodesign (or set RCODESIGN), then build again" } } : { line };
  }
  const r = checkSignature(file, bin, true);
  const line = `signature of ${file}: ${r.status} (${r.detail})`;
  return r.status === "invalid" ? { line, problem: { message: `invalid code signature: ${r.detail}`, fix: "macOS would kill this binary at launch: try another Bun version, or sign it on a Mac (codesign -s - -f)" } } : { line };
}
