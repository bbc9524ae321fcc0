/**
 * Where build.ts looks for the embedding model when neither --model nor LOREKEEPER_MODEL_DIR is
 * given: the model cache, `$XDG_CACHE_HOME/lorekeeper/models/<LOREKEEPER_EMBEDDING_MODEL>`.
 */
import { join } from "node:path";
import { cacheDir, loadConfig } from "../config.ts";

export function resolveDefaultModelDir(): string {
  return join(cacheDir(), "models", loadConfig().embeddingModel);
}
