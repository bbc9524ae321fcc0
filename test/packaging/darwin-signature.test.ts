/**
 * macOS signatures of the darwin binaries (packaging/darwin-signature.ts). The code-directory
 * reader is checked on a hand-made signature blob; where rcodesign is installed (crate
 * apple-codesign; not in CI), a real Bun-compiled darwin-arm64 executable is verified, a tampered
 * copy found invalid, and the ad-hoc re-signing makes it valid again.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { checkSignature, findRcodesign, storedCodeDigests } from "../../packaging/darwin-signature.ts";
import { makeTempDir } from "../support/tmp.ts";

const tmp = makeTempDir("lk-sig-");
afterAll(() => tmp.cleanup());

describe("the code directory reader", () => {
  test("reads the page digests of a SuperBlob's CodeDirectory (big-endian), and nothing from other bytes", () => {
    const hashes = [Buffer.alloc(32, 1), Buffer.alloc(32, 2)];
    const cdLen = 44 + 64;
    const buf = Buffer.alloc(20 + cdLen);
    buf.writeUInt32BE(0xfade0cc0, 0); // SuperBlob
    buf.writeUInt32BE(buf.length, 4);
    buf.writeUInt32BE(1, 8); // one blob
    buf.writeUInt32BE(0, 12); // CodeDirectory slot
    buf.writeUInt32BE(20, 16); // at 20
    const cd = 20;
    buf.writeUInt32BE(0xfade0c02, cd);
    buf.writeUInt32BE(cdLen, cd + 4);
    buf.writeUInt32BE(44, cd + 16); // hashOffset
    buf.writeUInt32BE(2, cd + 28); // nCodeSlots
    buf.writeUInt32BE(8192, cd + 32); // codeLimit
    buf.writeUInt8(32, cd + 36); // hashSize
    buf.writeUInt8(12, cd + 39); // 4096-byte pages
    hashes.forEach((h, i) => {
      h.copy(buf, cd + 44 + i * 32);
    });
    const got = storedCodeDigests(new Uint8Array(buf), 0)!;
    expect(got.digests).toEqual(hashes.map((h) => h.toString("hex")));
    expect([got.codeLimit, got.pageSize]).toEqual([8192, 4096]);
    expect(storedCodeDigests(new Uint8Array(buf), 4)).toBeUndefined();
  });
});

const rcodesign = findRcodesign();
describe.skipIf(!rcodesign)(
  "a real darwin executable" +
    (rcodesign
      ? ""
      : " — skipped: rcodesign is not installed " + "(cargo install apple-codesign --locked --bin rcodesign)"),
  () => {
    test("Bun's ad-hoc signature verifies; a changed byte does not; ad-hoc signing again makes it valid", async () => {
      const src = join(tmp.dir, "hello.ts");
      writeFileSync(src, 'console.log("hello");\n');
      const out = join(tmp.dir, "hello-darwin-arm64");
      const b = Bun.spawnSync(
        [process.execPath, "build", "--compile", "--target=bun-darwin-arm64", src, "--outfile", out],
        { stdout: "pipe", stderr: "pipe" },
      );
      if (b.exitCode !== 0) throw new Error(`could not compile for darwin-arm64: ${b.stderr.toString().slice(-500)}`);
      expect(checkSignature(out, rcodesign!, false).status).toBe("valid");
      const bad = join(tmp.dir, "tampered");
      copyFileSync(out, bad);
      const bytes = readFileSync(bad);
      bytes[1_000_000] = (bytes[1_000_000] ?? 0) ^ 0xff;
      writeFileSync(bad, bytes);
      const r = checkSignature(bad, rcodesign!, false);
      expect(r.status).toBe("invalid");
      expect(r.detail).toMatch(/page \d+ does not match/);
      expect(checkSignature(bad, rcodesign!, true).status).toBe("signed");
      expect(checkSignature(bad, rcodesign!, false).status).toBe("valid");
    }, 180_000);
  },
);
