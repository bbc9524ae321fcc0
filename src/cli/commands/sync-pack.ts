/** `lorekeeper sync --pack` / `lorekeeper import FILE.db.gz`: load a content pack into the store. */
import { checkpoint, openStore } from "../../store/db.ts";
import { embedAfterIngest } from "../../ingest/after-ingest.ts";
import { loadPackInto } from "../../ingest/pack.ts";
import { type CommandContext, EXIT_OK } from "../command.ts";
import { printJson, Progress } from "../progress.ts";

export interface PackRunOptions {
  dbPath?: string;
  sha256?: string;
  withVectors: boolean;
  embed: boolean;
  json?: boolean;
}

export async function runPack(src: string, o: PackRunOptions, ctx: CommandContext): Promise<number> {
  const store = openStore({ path: o.dbPath });
  const progress = new Progress(ctx.config.ci);
  const embedder = ctx.embedder();
  try {
    progress.line(`Loading the content pack ${src} into ${store.path}`);
    const r = await loadPackInto(store, src, embedder, {
      sha256: o.sha256,
      withVectors: o.withVectors,
      say: (m) => progress.line(m),
    });
    const embed = o.embed
      ? await embedAfterIngest(store, { embedder, config: ctx.config }, (m) => progress.line(m))
      : undefined;
    const l = r.load;
    if (o.json) {
      printJson({ ...r, embeddings: embed ?? null });
    } else {
      process.stdout.write(
        `OK: loaded ${l.entities} entities from ${l.origins} content types in ${(r.durationMs / 1000).toFixed(1)} s ` +
          `(${l.inserted} new, ${l.updated} changed, ${l.unchanged} unchanged, ${l.deleted} removed); ` +
          `${l.vectorsCopied} vectors taken from the pack${r.vectorModel ? ` (${r.vectorModel})` : ""}.` +
          `${embed ? ` ${embed.summary}` : ""}\n`,
      );
    }
    return EXIT_OK;
  } finally {
    checkpoint(store);
    store.close();
  }
}
