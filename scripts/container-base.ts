#!/usr/bin/env bun
/**
 * `bun scripts/container-base.ts [--tag T] [--suite bookworm] [--mirror URL] [--rootfs DIR]`:
 * build the container base image from Debian packages, for build hosts that cannot pull
 * gcr.io/distroless (air-gapped, or a registry mirror that only serves Debian). It runs
 * `debootstrap --variant=minbase` (glibc, libstdc++ and a shell: all the binary needs), trims
 * documentation and package lists, and `podman import`s the folder as T
 * (default localhost/lorekeeper-base:bookworm). Needs root, debootstrap and podman.
 * Then: podman build --build-arg BASE=T --build-arg TOOLS=T -t lorekeeper .
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";

export const DEFAULT_BASE_TAG = "localhost/lorekeeper-base:bookworm";

function run(cmd: string[], what: string): void {
  const r = Bun.spawnSync(cmd, { stdout: "inherit", stderr: "inherit" });
  if (r.exitCode !== 0) throw new Error(`${what} failed (exit ${r.exitCode}): ${cmd.join(" ")}`);
}

/** Build (or rebuild) the base image; returns its tag. */
export function buildBase(opts: { tag?: string; suite?: string; mirror?: string; rootfs?: string } = {}): string {
  const tag = opts.tag ?? DEFAULT_BASE_TAG;
  for (const tool of ["debootstrap", "podman", "tar"]) {
    if (!Bun.which(tool))
      throw new Error(`${tool} is not installed (Debian: apt-get install ${tool === "tar" ? "tar" : tool})`);
  }
  const own = !opts.rootfs;
  const rootfs = opts.rootfs ?? join(mkdtempSync(join(tmpdir(), "lk-base-")), "rootfs");
  try {
    if (!existsSync(join(rootfs, "usr", "bin", "sh"))) {
      run(
        [
          "debootstrap",
          "--variant=minbase",
          opts.suite ?? "bookworm",
          rootfs,
          opts.mirror ?? "http://deb.debian.org/debian",
        ],
        "debootstrap",
      );
    }
    for (const p of [
      "var/cache/apt/archives",
      "var/lib/apt/lists",
      "usr/share/doc",
      "usr/share/man",
      "usr/share/info",
      "usr/share/locale",
    ]) {
      rmSync(join(rootfs, p), { recursive: true, force: true });
    }
    // One tar stream into podman import: the folder becomes a single-layer image.
    const r = Bun.spawnSync(["sh", "-c", `tar -C "$0" -c . | podman import - "$1"`, rootfs, tag], {
      stdout: "inherit",
      stderr: "inherit",
    });
    if (r.exitCode !== 0) throw new Error(`podman import failed (exit ${r.exitCode})`);
    return tag;
  } finally {
    if (own) rmSync(join(rootfs, ".."), { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      tag: { type: "string" },
      suite: { type: "string" },
      mirror: { type: "string" },
      rootfs: { type: "string" },
    },
  });
  try {
    const tag = buildBase(values);
    process.stderr.write(
      `base image ${tag} ready: podman build --build-arg BASE=${tag} --build-arg TOOLS=${tag} -t lorekeeper .\n`,
    );
  } catch (err) {
    process.stderr.write(`container-base: ${(err as Error).message}\n`);
    process.exit(1);
  }
}
