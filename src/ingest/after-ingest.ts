/**
 * After a sync or an import: embed new or changed entities and bring the vector index in line.
 * Never fails the ingest: without a model, semantic ranking is simply off (one warning).
 */
import type { Config } from "../config.ts";
import { log } from "../log.ts";
import { noModelAdvice } from "../search/model/model-advice.ts";
import type { EmbedderProvider } from "../search/types.ts";
import type { Store } from "../store/db.ts";

/** The model to embed with, and the Config that says how to get one when there is none. */
export interface IngestModel {
  embedder: EmbedderProvider;
  config: Config;
}

/** Why nothing was embedded without a model, and how to get one. */
function noModelSentence({ embedder, config }: IngestModel): string {
  const reason = embedder.reason() ?? "unknown reason";
  const a = noModelAdvice(reason, { downloadAllowed: !config.offline, modelName: config.embeddingModel });
  return `Not embedded: ${a.state}. ${a.fix}`;
}

export interface EmbedSummary {
  embedded: number;
  modelId: string | null;
  /** Embedding throughput of this run (null when nothing was embedded). */
  entitiesPerSecond: number | null;
  summary: string;
}

/** "48 min", "40 s", "1 h 10 min". */
export function roughDuration(seconds: number): string {
  if (seconds < 90) return `${Math.max(1, Math.round(seconds))} s`;
  const min = Math.round(seconds / 60);
  return min < 90 ? `${min} min` : `${Math.floor(min / 60)} h ${min % 60} min`;
}

/** Below this many entities an embed is short: no estimate line. */
const LONG_EMBED = 200;
/** A progress line at least this often (ms) on a long embed. */
const PROGRESS_EVERY_MS = 3000;

/**
 * Embed what is new or changed, saying so: before a long run how many entities and roughly how
 * long (the model's rate measured on this machine: by an earlier run, else on the first batches),
 * then a progress line every few seconds. `holder` names the command for the embedding lease.
 */
export async function embedAfterIngest(
  store: Store,
  model: IngestModel,
  say: (msg: string) => void = () => {},
  holder = "sync",
): Promise<EmbedSummary> {
  try {
    const { embedPending } = await import("./embed.ts");
    const t0 = Date.now();
    let lastSaid = 0;
    const r = await embedPending(store, model.embedder, {
      holder,
      targetBatchMs: 1500,
      onEstimate: (remaining, perSecond, measured, total, modelName) => {
        if (remaining < LONG_EMBED) return;
        const how =
          measured === "earlier" ? "measured by an earlier run on this machine" : "measured on the first batches";
        // The same number as the progress lines and `documents` (entries new or changed; copies of
        // another source's entries get none).
        const first = total > remaining ? ` (${(total - remaining).toLocaleString("en-US")} done)` : "";
        const rate = `${perSecond.toFixed(1)} per second (${how})`;
        const time = `about ${roughDuration(remaining / perSecond)} more at ${rate}`;
        say(
          `Embedding ${total.toLocaleString("en-US")} new or changed entries${first} with ${modelName}: ${time}. ` +
            "Keyword search works meanwhile; stop with Ctrl-C and the rest is embedded next time " +
            "(`--no-embed` skips it).",
        );
      },
      onProgress: (done: number, total: number) => {
        const now = Date.now();
        if (done === total || now - lastSaid >= PROGRESS_EVERY_MS) {
          lastSaid = now;
          say(`embedding: ${done.toLocaleString("en-US")}/${total.toLocaleString("en-US")} entries`);
        }
      },
    });
    const ms = Date.now() - t0;
    const rate = r.embedded > 0 && ms > 0 ? Math.round((r.embedded / (ms / 1000)) * 10) / 10 : null;
    const summary = r.busy
      ? `Not embedded now: another LoreKeeper process, ${r.busy}, is embedding this store; its vectors serve this ` +
        `data too.`
      : r.modelId
        ? `Embedded ${r.embedded} new/changed entries with ${r.modelId} in ${(ms / 1000).toFixed(1)} s` +
          `${rate !== null ? ` (${rate} entities/s)` : ""}.`
        : noModelSentence(model);
    return { embedded: r.embedded, modelId: r.modelId ?? null, entitiesPerSecond: rate, summary };
  } catch (err) {
    log.warn("embedding after ingest failed; lexical search still works", err);
    return {
      embedded: 0,
      modelId: null,
      entitiesPerSecond: null,
      summary: "Embedding failed (see log); lexical search still works.",
    };
  }
}
