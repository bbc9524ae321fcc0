/**
 * What `bun run build` adds after compiling: one `.mcpb` per built target (packed by the official
 * MCPB CLI) and `server.json` for the MCP Registry, listing every bundle of this version in the
 * output folder plus the container image. Called from build.ts.
 */
import { join } from "node:path";
import { APP_VERSION } from "../src/config.ts";
import type { Target } from "../src/native/manifest.ts";
import { TOOLS } from "../src/tools/index.ts";
import { packMcpb } from "./mcpb.ts";
import { bundlesIn, imageName, releaseRepository, serverJson, validateServerJson } from "./server-json.ts";

export async function packageRelease(
  built: readonly { target: Target; path: string }[],
  outdir: string,
): Promise<void> {
  const repository = await releaseRepository();
  const repositoryUrl = `https://github.com/${repository}`;
  for (const b of built) {
    const t0 = performance.now();
    const r = await packMcpb({
      version: APP_VERSION,
      target: b.target,
      tools: TOOLS,
      repositoryUrl,
      binary: b.path,
      outdir,
      workDir: join(outdir, ".build", b.target, "mcpb"),
    });
    process.stderr.write(
      `bundled ${r.path} (${(r.size / 1048576).toFixed(1)} MB, ` +
        `${((performance.now() - t0) / 1000).toFixed(1)} s; validated and packed by the MCPB CLI)\n`,
    );
  }
  const doc = serverJson({
    version: APP_VERSION,
    repository,
    bundles: await bundlesIn(outdir, APP_VERSION),
    image: imageName(repository),
  });
  const problems = await validateServerJson(doc);
  if (problems.length) throw new Error(`server.json does not match the registry schema:\n  ${problems.join("\n  ")}`);
  const path = join(outdir, "server.json");
  await Bun.write(path, `${JSON.stringify(doc, null, 2)}\n`);
  process.stderr.write(`wrote ${path} (valid against the registry schema)\n`);
}
