/**
 * The MCP Registry entry (`server.json`) for a release: the `.mcpb` bundles attached to the GitHub
 * release and the container image. Built from what `bun run build` wrote (pure apart from reading
 * the bundles' hashes); validated against the registry's published schema, vendored under
 * packaging/registry-schema/ (see its SOURCE.md).
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { TARGETS, type Target } from "../src/native/manifest.ts";
import { bundleFileName } from "./mcpb.ts";

export const REGISTRY_SCHEMA_URL = "https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json";
export const REGISTRY_SCHEMA = join(import.meta.dir, "registry-schema", "2025-12-11", "server.schema.json");

/** The GitHub repository a release lives in: `$GITHUB_REPOSITORY` (set in Actions), else package.json. */
export async function releaseRepository(): Promise<string> {
  const env = process.env.GITHUB_REPOSITORY;
  if (env && /^[\w.-]+\/[\w.-]+$/.test(env)) return env;
  const pkg = (await Bun.file(join(import.meta.dir, "..", "package.json")).json()) as { repository?: { url?: string } };
  const m = /github\.com\/([\w.-]+\/[\w.-]+?)(\.git)?$/.exec(pkg.repository?.url ?? "");
  if (!m?.[1]) throw new Error("package.json has no GitHub repository URL and GITHUB_REPOSITORY is not set");
  return m[1];
}

export interface BundleFile {
  target: Target;
  file: string;
  sha256: string;
}

export interface ServerJsonInput {
  version: string;
  /** owner/name on GitHub */
  repository: string;
  bundles: readonly BundleFile[];
  /** The container image without tag, e.g. ghcr.io/owner/lorekeeper; omitted when undefined. */
  image?: string;
}

const ENV_INPUTS = [
  {
    name: "LOREKEEPER_DATA_DIR",
    description: "Folder for the store (lorekeeper.db and its vector index)",
    format: "filepath",
  },
  {
    name: "LOREKEEPER_PREFER_DOCUMENTS",
    description: "Documents whose version comes first, comma-separated (e.g. srd-2024,srd-2014)",
    format: "string",
  },
  {
    name: "LOREKEEPER_MODEL_DIR",
    description: "A fastembed model folder to use instead of the embedded model",
    format: "filepath",
  },
] as const;

export function imageName(repository: string): string {
  return `ghcr.io/${repository.toLowerCase().split("/")[0]}/lorekeeper`;
}

export function serverJson(i: ServerJsonInput): Record<string, unknown> {
  const [owner] = i.repository.split("/");
  const url = `https://github.com/${i.repository}`;
  const tag = `v${i.version}`;
  const packages: Record<string, unknown>[] = i.bundles.map((b) => ({
    registryType: "mcpb",
    identifier: `${url}/releases/download/${tag}/${b.file}`,
    version: i.version,
    fileSha256: b.sha256,
    transport: { type: "stdio" },
    environmentVariables: ENV_INPUTS.map((e) => ({ ...e, isRequired: false })),
  }));
  if (i.image) {
    packages.push({
      registryType: "oci",
      identifier: `${i.image}:${i.version}`,
      version: i.version,
      runtimeHint: "docker",
      transport: {
        type: "streamable-http",
        url: "http://localhost:8000/mcp",
        headers: [
          {
            name: "Authorization",
            value: "Bearer {token}",
            isRequired: true,
            isSecret: true,
            description: "The token set in LOREKEEPER_HTTP_TOKEN",
            variables: { token: { isRequired: true, isSecret: true } },
          },
        ],
      },
      environmentVariables: [
        {
          name: "LOREKEEPER_HTTP_TOKEN",
          description: "Bearer token every HTTP request must carry",
          isRequired: true,
          isSecret: true,
        },
      ],
    });
  }
  return {
    $schema: REGISTRY_SCHEMA_URL,
    name: `io.github.${owner}/lorekeeper`,
    title: "LoreKeeper",
    description: "Fast, citable search over D&D 5e content: spells, creatures, classes, items and rules.",
    version: i.version,
    repository: { url, source: "github" },
    websiteUrl: url,
    icons: [
      {
        src: `https://raw.githubusercontent.com/${i.repository}/${tag}/packaging/icon.png`,
        mimeType: "image/png",
        sizes: ["512x512"],
      },
    ],
    packages,
  };
}

/** Every bundle of `version` in `outdir` (several build runs may have filled it), by target order. */
export async function bundlesIn(outdir: string, version: string): Promise<BundleFile[]> {
  const present = new Set(readdirSync(outdir));
  const out: BundleFile[] = [];
  for (const target of TARGETS) {
    const file = bundleFileName(version, target);
    if (!present.has(file)) continue;
    const bytes = await Bun.file(join(outdir, file)).bytes();
    out.push({ target, file, sha256: new Bun.CryptoHasher("sha256").update(bytes).digest("hex") });
  }
  return out;
}

/** Problems of `doc` against the vendored registry schema (draft-07, formats checked); [] when valid. */
export async function validateServerJson(doc: unknown): Promise<string[]> {
  const { default: Ajv } = await import("ajv");
  const { default: addFormats } = await import("ajv-formats");
  const ajv = new Ajv({ allErrors: true, strict: false });
  addFormats(ajv);
  const validate = ajv.compile((await Bun.file(REGISTRY_SCHEMA).json()) as object);
  if (validate(doc)) return [];
  return (validate.errors ?? []).map(
    (e) => `${e.instancePath || "/"} ${e.message ?? "is invalid"}${e.params ? ` ${JSON.stringify(e.params)}` : ""}`,
  );
}
