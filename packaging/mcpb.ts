/**
 * The Claude Desktop one-click bundle (`.mcpb`, MCP Bundle): one per target, around the compiled
 * binary. The manifest is built here (pure); validating and zipping are left to Anthropic's own
 * MCPB CLI (`@anthropic-ai/mcpb`, a devDependency), run as a child process. See docs/install.md.
 */
import { cpSync, existsSync, mkdirSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { Target } from "../src/native/manifest.ts";
import { PROMPTS, type PromptDef } from "../src/server/features/prompts.ts";

/**
 * The newest stable manifest version of the pinned CLI. 0.4 exists but its schema says
 * "experimental and subject to change" and only adds the `uv` server type; the package's own
 * `mcpb-manifest-latest.schema.json` is 0.3.
 */
export const MCPB_MANIFEST_VERSION = "0.3";

export const PACKAGING_DIR = import.meta.dir;
export const ICON_PATH = join(PACKAGING_DIR, "icon.png");

export interface BundleTool {
  name: string;
  description: string;
}

export interface BundlePrompt {
  name: string;
  description: string;
  arguments: string[];
  /** The prompt's text with `${arguments.<name>}` where a required argument goes. */
  text: string;
}

export interface BundleInput {
  version: string;
  target: Target;
  tools: readonly BundleTool[];
  /** Default: every prompt the server offers (src/server/features/prompts.ts). */
  prompts?: readonly BundlePrompt[];
  /** Where the project lives (repository URL, for the manifest's links). */
  repositoryUrl: string;
}

const PLATFORM: Record<Target, "linux" | "darwin" | "win32"> = {
  "linux-x64": "linux",
  "linux-arm64": "linux",
  "darwin-x64": "darwin",
  "darwin-arm64": "darwin",
  "windows-x64": "win32",
};

export function binaryName(t: Target): string {
  return t.startsWith("windows") ? "lorekeeper.exe" : "lorekeeper";
}

/** The bundle's file name, e.g. `lorekeeper-0.1.0-linux-x64.mcpb`. */
export function bundleFileName(version: string, t: Target): string {
  return `lorekeeper-${version}-${t}.mcpb`;
}

/**
 * A server prompt as the manifest lists it: required arguments become `${arguments.x}` placeholders,
 * optional ones are left out of the text (the server's own prompts/get fills them in use).
 */
export function bundlePrompt(p: PromptDef): BundlePrompt {
  const a: Record<string, string | undefined> = {};
  for (const [k, schema] of Object.entries(p.args))
    a[k] = schema.safeParse(undefined).success ? undefined : `\${arguments.${k}}`;
  return { name: p.name, description: p.description, arguments: Object.keys(p.args), text: p.text(a) };
}

/** The first sentence of a tool description: the manifest's tool list is a summary for people. */
function firstSentence(s: string): string {
  const m = /^(.+?[.!?])(\s|$)/s.exec(s.trim());
  return (m?.[1] ?? s).trim();
}

/**
 * manifest.json for one target. `user_config` values reach the binary as environment variables;
 * each has `default: ""` because hosts that get no value may otherwise pass the literal
 * `${user_config.…}` placeholder (src/config.ts ignores both).
 */
export function mcpbManifest(input: BundleInput): Record<string, unknown> {
  const bin = `server/${binaryName(input.target)}`;
  return {
    manifest_version: MCPB_MANIFEST_VERSION,
    name: "lorekeeper",
    display_name: "LoreKeeper — D&D 5e search",
    version: input.version,
    description:
      "Fast, citable search over D&D 5e content: spells, creatures, " +
      "classes, items, rules (Open5e, D&D 5e API, OrcBrew homebrew).",
    long_description:
      "LoreKeeper keeps a complete local copy of D&D 5e SRD and open content in an embedded " +
      "SQLite store and answers with small, citable results. Keyword search works at once; " +
      "semantic ranking uses the embedding model inside the binary. Content is fetched from Open5e " +
      "and the D&D 5e API on first use (or with `lorekeeper sync`) and then works offline.",
    author: { name: "LoreKeeper contributors", url: input.repositoryUrl },
    repository: { type: "git", url: input.repositoryUrl },
    homepage: input.repositoryUrl,
    documentation: `${input.repositoryUrl}#readme`,
    support: `${input.repositoryUrl}/issues`,
    icon: "icon.png",
    license: "MIT",
    keywords: ["dnd", "d&d", "5e", "srd", "open5e", "rpg", "search"],
    server: {
      type: "binary",
      entry_point: bin,
      mcp_config: {
        command: `\${__dirname}/${bin}`,
        args: ["serve"],
        env: {
          LOREKEEPER_DATA_DIR: "${user_config.data_folder}",
          LOREKEEPER_PREFER_DOCUMENTS: "${user_config.document_preference}",
          LOREKEEPER_MODEL_DIR: "${user_config.model_folder}",
        },
      },
    },
    tools: input.tools.map((t) => ({ name: t.name, description: firstSentence(t.description) })),
    prompts: input.prompts ?? PROMPTS.map(bundlePrompt),
    compatibility: { platforms: [PLATFORM[input.target]] },
    user_config: {
      data_folder: {
        type: "directory",
        title: "Data folder",
        description:
          "Where LoreKeeper keeps its store (lorekeeper.db and its vector index). Empty: ~/.local/share/lorekeeper.",
        required: false,
        default: "",
      },
      document_preference: {
        type: "string",
        title: "Document preference",
        description:
          "Documents whose version of an entry comes first, " +
          "comma-separated, e.g. srd-2024,srd-2014. Empty: newest SRD first.",
        required: false,
        default: "",
      },
      model_folder: {
        type: "directory",
        title: "Embedding model folder",
        description:
          "A fastembed model folder (model.onnx + tokenizer files) to " +
          "use instead of the model inside the binary. Usually left empty.",
        required: false,
        default: "",
      },
    },
  };
}

export interface CliResult {
  ok: boolean;
  output: string;
}

/** Runs Anthropic's MCPB CLI (`mcpb <args>`) with the current Bun. */
export function runMcpbCli(args: string[]): CliResult {
  let pkgDir: string;
  try {
    pkgDir = dirname(Bun.resolveSync("@anthropic-ai/mcpb/package.json", PACKAGING_DIR));
  } catch {
    return { ok: false, output: "the MCPB CLI (@anthropic-ai/mcpb) is not installed: run `bun install`" };
  }
  const cli = join(pkgDir, "dist", "cli", "cli.js");
  const r = Bun.spawnSync([process.execPath, cli, ...args], {
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, NO_COLOR: "1" },
  });
  return { ok: r.exitCode === 0, output: `${r.stdout.toString()}${r.stderr.toString()}` };
}

export interface PackResult {
  path: string;
  sha256: string;
  size: number;
}

/**
 * Stages `<work>/manifest.json`, `icon.png` and `server/<binary>`, validates the manifest and
 * packs the folder with the official CLI into `<outdir>/<bundleFileName>`.
 */
export async function packMcpb(
  o: BundleInput & { binary: string; outdir: string; workDir: string },
): Promise<PackResult> {
  if (!existsSync(o.binary)) throw new Error(`cannot bundle ${o.target}: ${o.binary} does not exist`);
  const work = resolve(o.workDir);
  rmSync(work, { recursive: true, force: true });
  mkdirSync(join(work, "server"), { recursive: true });
  const manifestPath = join(work, "manifest.json");
  await Bun.write(manifestPath, `${JSON.stringify(mcpbManifest(o), null, 2)}\n`);
  cpSync(ICON_PATH, join(work, "icon.png"));
  const bin = join(work, "server", binaryName(o.target));
  cpSync(o.binary, bin);
  const validated = runMcpbCli(["validate", manifestPath]);
  if (!validated.ok) throw new Error(`mcpb validate rejected the manifest for ${o.target}:\n${validated.output}`);
  mkdirSync(o.outdir, { recursive: true });
  const out = join(resolve(o.outdir), bundleFileName(o.version, o.target));
  rmSync(out, { force: true });
  const packed = runMcpbCli(["pack", work, out]);
  if (!packed.ok || !existsSync(out)) throw new Error(`mcpb pack failed for ${o.target}:\n${packed.output}`);
  rmSync(work, { recursive: true, force: true });
  const bytes = await Bun.file(out).bytes();
  return { path: out, size: bytes.length, sha256: new Bun.CryptoHasher("sha256").update(bytes).digest("hex") };
}
