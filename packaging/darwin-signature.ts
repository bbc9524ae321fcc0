/**
 * macOS kills a binary whose code signature is invalid (Apple Silicon: exit 137 at launch), and
 * several Bun releases wrote such signatures for `--compile` darwin outputs. So every darwin binary
 * is checked with `rcodesign verify` (crate apple-codesign: verifies and signs Mach-O files on any
 * OS); an invalid one is ad-hoc signed (`rcodesign sign`, no certificate: what `codesign -s -` does
 * on a Mac) and checked again. Still invalid: the build fails. build.ts runs this after compiling a
 * darwin target; `bun packaging/darwin-signature.ts FILE...` runs it alone.
 */
import { readFileSync, statSync } from "node:fs";

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

/**
 * The stored page digests of a thin Mach-O's code directory, read from the signature at `offset`
 * (big-endian SuperBlob → CodeDirectory: hashOffset, nCodeSlots, hashSize).
 */
export function storedCodeDigests(
  bytes: Uint8Array,
  offset: number,
): { digests: string[]; codeLimit: number; pageSize: number } | undefined {
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (offset + 12 > bytes.length || dv.getUint32(offset) !== 0xfade0cc0) return undefined;
  const count = dv.getUint32(offset + 8);
  for (let i = 0; i < count; i++) {
    const type = dv.getUint32(offset + 12 + i * 8);
    const at = offset + dv.getUint32(offset + 16 + i * 8);
    if (type !== 0 || dv.getUint32(at) !== 0xfade0c02) continue;
    const hashOffset = dv.getUint32(at + 16);
    const nCodeSlots = dv.getUint32(at + 28);
    const codeLimit = dv.getUint32(at + 32);
    const hashSize = dv.getUint8(at + 36);
    const pageSize = 2 ** dv.getUint8(at + 39);
    const digests: string[] = [];
    for (let k = 0; k < nCodeSlots; k++)
      digests.push(
        Buffer.from(bytes.subarray(at + hashOffset + k * hashSize, at + hashOffset + (k + 1) * hashSize)).toString(
          "hex",
        ),
      );
    return { digests, codeLimit, pageSize };
  }
  return undefined;
}

/**
 * An ad-hoc signature (what Bun writes) has an empty or no CMS blob, which `rcodesign verify`
 * reports as an error whatever the code. Check it as macOS does: every page digest the code directory stores
 * equals the digest `rcodesign compute-code-hashes` computes from the file now.
 */
function adhocCheck(file: string, bin: string): { ok: boolean; detail: string } {
  const info = rcodesign(bin, ["print-signature-info", file]);
  if (!/flags: CodeSignatureFlags\(ADHOC/.test(info.out)) return { ok: false, detail: "not an ad-hoc signature" };
  const m = /macho_signature_start_offset: (\d+)/.exec(info.out);
  if (!m) return { ok: false, detail: "no signature found" };
  const stored = storedCodeDigests(new Uint8Array(readFileSync(file)), Number(m[1]));
  if (!stored) return { ok: false, detail: "no code directory in the signature" };
  const computed = rcodesign(bin, ["compute-code-hashes", "--hash", "sha256", file]);
  if (!computed.ok) return { ok: false, detail: `compute-code-hashes failed: ${lastLines(computed.out)}` };
  const now = computed.out
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => /^[0-9a-f]{64}$/.test(l));
  if (now.length !== stored.digests.length)
    return { ok: false, detail: `${stored.digests.length} pages signed, ${now.length} in the file` };
  const bad = now.findIndex((d, i) => d !== stored.digests[i]);
  if (bad >= 0) return { ok: false, detail: `page ${bad} does not match its signed digest` };
  return {
    ok: true,
    detail:
      `ad-hoc signature valid: all ${now.length} page digests ` +
      `(${stored.pageSize}-byte pages, ${stored.codeLimit} bytes) match`,
  };
}

function verify(file: string, bin: string): { ok: boolean; detail: string } {
  const v = rcodesign(bin, ["verify", file]);
  if (v.ok) return { ok: true, detail: lastLines(v.out) || "signature valid" };
  // rcodesign verify wants a CMS signature; an ad-hoc one has none ("CMS error", "no cryptographic signature").
  const adhoc = adhocCheck(file, bin);
  return adhoc.detail === "not an ad-hoc signature" ? { ok: false, detail: lastLines(v.out) } : adhoc;
}

/** Verify `file`; ad-hoc sign and verify again when `sign` and the first check fails. */
export function checkSignature(file: string, bin: string, sign = true): SignatureResult {
  const first = verify(file, bin);
  if (first.ok) return { file, status: "valid", detail: first.detail };
  if (!sign) return { file, status: "invalid", detail: first.detail };
  const before = statSync(file).mode;
  const signed = rcodesign(bin, ["sign", file]);
  if (!signed.ok) return { file, status: "invalid", detail: `ad-hoc signing failed: ${lastLines(signed.out)}` };
  const again = verify(file, bin);
  if (!again.ok) return { file, status: "invalid", detail: `still invalid after ad-hoc signing: ${again.detail}` };
  // rcodesign rewrites the file; keep it executable as it was.
  Bun.spawnSync(["chmod", (before & 0o777).toString(8), file]);
  return { file, status: "signed", detail: `was invalid (${first.detail}); ad-hoc signed, now valid` };
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const noSign = args.includes("--no-sign");
  const files = args.filter((a) => !a.startsWith("--"));
  const bin = findRcodesign();
  if (!bin) {
    process.stderr.write(
      "darwin-signature: rcodesign is not installed (cargo install apple-codesign --locked --bin rcodesign)\n",
    );
    process.exit(1);
  }
  if (files.length === 0) {
    process.stderr.write(
      "usage: bun packaging/darwin-signature.ts [--no-sign] dist/lorekeeper-darwin-x64 dist/lorekeeper-darwin-arm64\n",
    );
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
export function darwinBuildCheck(
  file: string,
  required: boolean,
): { line: string; problem?: { message: string; fix: string } } {
  const bin = findRcodesign();
  if (!bin) {
    const line = `signature of ${file} not checked: rcodesign is not installed`;
    return required
      ? {
          line,
          problem: {
            message: line,
            fix: "cargo install apple-codesign --locked --bin rcodesign (or set RCODESIGN), then build again",
          },
        }
      : { line };
  }
  const r = checkSignature(file, bin, true);
  const line = `signature of ${file}: ${r.status} (${r.detail})`;
  return r.status === "invalid"
    ? {
        line,
        problem: {
          message: `invalid code signature: ${r.detail}`,
          fix:
            "macOS would kill this binary at launch: try another " +
            "Bun version, or sign it on a Mac (codesign -s - -f)",
        },
      }
    : { line };
}
