#!/usr/bin/env bun
/**
 * Lines of at most 120 characters in the TypeScript the project writes. Biome's formatter keeps
 * code within that width but never breaks a string, a regex or a comment, so this names the lines
 * it leaves long. Characters, not bytes: "—" is one. Exits 1 when a line is too long.
 */
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const MAX = 120;
const root = join(import.meta.dir, "..");
const files = spawnSync("git", ["ls-files", "*.ts"], { cwd: root, encoding: "utf8" })
  .stdout.split("\n")
  .filter((f) => f && !f.startsWith("test/fixtures/") && !f.startsWith("node_modules/"));
const long: string[] = [];
for (const f of files) {
  readFileSync(join(root, f), "utf8")
    .split("\n")
    .forEach((line, i) => {
      const n = [...line].length;
      if (n > MAX) long.push(`${f}:${i + 1}: ${n} characters`);
    });
}
if (long.length > 0) {
  console.error(`${long.length} lines over ${MAX} characters (wrap the string or comment):\n${long.join("\n")}`);
  process.exit(1);
}
console.log(`${files.length} files, every line at most ${MAX} characters`);
