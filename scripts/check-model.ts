#!/usr/bin/env bun
/**
 * `bun scripts/check-model.ts [MODEL_DIR…]`: check that installed real models behave as published
 * (src/search/model/model-reference.ts). Without arguments: every model in the model cache that has a
 * manifest. Exit 1 when a check fails, 0 when all pass or no model is installed (said on stderr).
 */
import { join } from "node:path";
import { cacheDir } from "../src/config.ts";
import { setLogLevel } from "../src/log.ts";
import { createEmbedderProvider } from "../src/search/model/embedder.ts";
import {
  catalogModelByOnnx,
  findCatalogModel,
  listInstalledModels,
  readManifest,
} from "../src/search/model/model-manifest.ts";
import { checkModel } from "../src/search/model/model-reference.ts";

if (!process.env.LOREKEEPER_LOG_LEVEL) setLogLevel("warn");
const dirs =
  process.argv.length > 2
    ? process.argv.slice(2)
    : listInstalledModels(join(cacheDir(), "models"))
        .filter((m) => m.manifest)
        .map((m) => m.dir);
if (dirs.length === 0) {
  process.stderr.write(
    "check-model: no installed model (lorekeeper model install all-MiniLM-L6-v2); nothing checked\n",
  );
  process.exit(0);
}
let failed = 0;
for (const dir of dirs) {
  const manifest = readManifest(dir);
  const known = manifest
    ? (catalogModelByOnnx(manifest.source_onnx_sha256) ?? findCatalogModel(manifest.name))
    : undefined;
  const provider = createEmbedderProvider({ modelDir: dir, embeddedDir: null, allowDownload: false });
  const e = await provider.get();
  if (!e) {
    console.log(`FAIL  ${dir}: does not load (${provider.reason()})`);
    failed++;
    continue;
  }
  console.log(
    `${dir}: ` +
      `${e.id}${known ? ` = ${known.model}` : " (not a known model: no published reference)"}` +
      `${manifest ? `, ${manifest.pooling} pooling` : ""}`,
  );
  for (const c of await checkModel(e, manifest, known?.reference)) {
    if (!c.pass) failed++;
    console.log(`  ${c.pass ? "PASS" : "FAIL"}  ${c.name}: ${c.detail}`);
  }
}
process.exit(failed ? 1 : 0);
