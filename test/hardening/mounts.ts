/**
 * Real read-only folders and full disks for the hardening tests. As root, permission bits do not
 * stop writes, so a read-only folder is a read-only bind mount and a full disk a tiny tmpfs; both
 * need mount(8) and CAP_SYS_ADMIN. Without root, permission bits make a folder read-only.
 * `undefined` = this environment cannot do it (the test says so and is skipped).
 */
import { chmodSync, mkdirSync, statfsSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const isRoot = process.getuid?.() === 0;

function run(cmd: string[]): boolean {
  try {
    return Bun.spawnSync(cmd, { stdout: "ignore", stderr: "ignore" }).exitCode === 0;
  } catch {
    return false;
  }
}

/** Make `dir` read-only for this user; returns the undo, or undefined when impossible here. */
export function makeReadOnly(dir: string): (() => void) | undefined {
  if (!isRoot) {
    chmodSync(dir, 0o555);
    return () => chmodSync(dir, 0o755);
  }
  if (!run(["mount", "--bind", dir, dir])) return undefined;
  if (!run(["mount", "-o", "remount,bind,ro", dir])) {
    run(["umount", dir]);
    return undefined;
  }
  // Lazy unmount: a server that is still closing may have files open in it.
  return () => {
    run(["umount", "-l", dir]);
  };
}

/** Mount a tmpfs of `bytes` at `dir` (created); returns the unmount, or undefined when impossible. */
export function mountTinyDisk(dir: string, bytes: number): (() => void) | undefined {
  mkdirSync(dir, { recursive: true });
  if (!isRoot || !run(["mount", "-t", "tmpfs", "-o", `size=${bytes}`, "tmpfs", dir])) return undefined;
  return () => {
    run(["umount", "-l", dir]);
  };
}

/** Fill the file system holding `dir` to the last byte (or all but `keepBytes`) with a file in it; returns its path. */
export function fillDisk(dir: string, keepBytes = 0): string {
  const path = join(dir, "filler.bin");
  const { bavail, bsize } = statfsSync(dir);
  writeFileSync(path, new Uint8Array(Math.max(0, Number(bavail) * Number(bsize) - keepBytes)));
  return path;
}
