/**
 * server.json for the MCP Registry: valid against the registry's published schema (vendored,
 * hash-pinned), listing the .mcpb bundles found in the output folder (with their real sha256) and
 * the container image.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { bundleFileName } from "../../packaging/mcpb.ts";
import {
  bundlesIn,
  imageName,
  REGISTRY_SCHEMA,
  REGISTRY_SCHEMA_URL,
  serverJson,
  validateServerJson,
} from "../../packaging/server-json.ts";
import { APP_VERSION } from "../../src/config.ts";
import { makeTempDir } from "../support/tmp.ts";

const tmp = makeTempDir("lk-serverjson-");
afterAll(() => tmp.cleanup());

describe("server.json", () => {
  test("the vendored schema is the published 2025-12-11 file, byte for byte", async () => {
    const bytes = await Bun.file(REGISTRY_SCHEMA).bytes();
    expect(new Bun.CryptoHasher("sha256").update(bytes).digest("hex")).toBe(
      "3fba09590c99f61735d234822279f4223fab9e300c0a81e81c91ab62a4114de0",
    );
    expect(((await Bun.file(REGISTRY_SCHEMA).json()) as { $id: string }).$id).toBe(REGISTRY_SCHEMA_URL);
  });

  test("names every bundle in the folder (real hashes) and the image, and validates", async () => {
    const out = join(tmp.dir, "dist");
    mkdirSync(out, { recursive: true });
    await Bun.write(join(out, bundleFileName(APP_VERSION, "linux-x64")), "linux bundle bytes");
    await Bun.write(join(out, bundleFileName(APP_VERSION, "windows-x64")), "windows bundle bytes");
    await Bun.write(join(out, bundleFileName("0.0.1", "darwin-arm64")), "an older version: not listed");
    const bundles = await bundlesIn(out, APP_VERSION);
    expect(bundles.map((b) => b.target)).toEqual(["linux-x64", "windows-x64"]);
    expect(bundles[0]!.sha256).toBe(new Bun.CryptoHasher("sha256").update("linux bundle bytes").digest("hex"));

    const doc = serverJson({
      version: APP_VERSION,
      repository: "Example-Org/lorekeeper",
      bundles,
      image: imageName("Example-Org/lorekeeper"),
    }) as {
      name: string;
      packages: { registryType: string; identifier: string; fileSha256?: string; transport: { type: string } }[];
    };
    expect(await validateServerJson(doc)).toEqual([]);
    expect(doc.name).toBe("io.github.Example-Org/lorekeeper");
    const mcpb = doc.packages.filter((p) => p.registryType === "mcpb");
    expect(mcpb.map((p) => p.identifier)).toEqual(
      bundles.map((b) => `https://github.com/Example-Org/lorekeeper/releases/download/v${APP_VERSION}/${b.file}`),
    );
    expect(mcpb.map((p) => p.fileSha256)).toEqual(bundles.map((b) => b.sha256));
    const oci = doc.packages.find((p) => p.registryType === "oci");
    expect(oci?.identifier).toBe(`ghcr.io/example-org/lorekeeper:${APP_VERSION}`);
    expect(oci?.transport.type).toBe("streamable-http");
  });

  test("the schema check is real: a too-long description, bad hash and missing transport are rejected", async () => {
    const good = serverJson({
      version: APP_VERSION,
      repository: "o/r",
      bundles: [{ target: "linux-x64", file: "x.mcpb", sha256: "0".repeat(64) }],
    }) as Record<string, unknown> & { packages: Record<string, unknown>[] };
    expect(await validateServerJson(good)).toEqual([]);
    expect((await validateServerJson({ ...good, description: "x".repeat(101) })).join()).toContain("/description");
    const badHash = { ...good, packages: [{ ...good.packages[0], fileSha256: "XYZ" }] };
    expect((await validateServerJson(badHash)).join()).toContain("fileSha256");
    const { transport: _t, ...noTransport } = good.packages[0]!;
    expect((await validateServerJson({ ...good, packages: [noTransport] })).join()).toContain("transport");
  });
});
