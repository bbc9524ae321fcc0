#!/usr/bin/env bun
/**
 * Embed a store's pending entities kind by kind, smallest total text first, so that on a slow
 * machine whole kinds are finished early and `bun run eval -- --complete-only` can already rank
 * the queries over them. Used by the eval (`--embed-budget`) and on its own:
 *   bun scripts/embed-by-kind.ts STORE MODEL_DIR [KIND,KIND… [N/M]]   (N/M: ids with id % M = N, for
 *   parallel workers; stops cleanly on SIGINT/SIGTERM)
 */
import type { Database } from "bun:sqlite";
import { setLogLevel } from "../src/log.ts";
import { createEmbedderProvider } from "../src/search/model/embedder.ts";
import type { Embedder } from "../src/search/types.ts";
import { syncIndex } from "../src/search/index/vector-index.ts";
import { openStore, type Store } from "../src/store/db.ts";
import { listPendingVectors, setEmbeddingMeta, writeVectors } from "../src/store/vectors.ts";

const PENDING = `FROM entities e LEFT JOIN vectors v ON v.entity_id = e.id AND v.model_id = ?1
  WHERE (v.entity_id IS NULL OR v.content_hash <> e.content_hash)`;

function pendingKinds(db: Database, modelId: string): { kind: string; n: number }[] {
  return db
    .query<{ kind: string; n: number }, [string]>(
      `SELECT e.kind AS kind, count(*) AS n ${PENDING} GROUP BY 1 ORDER BY sum(min(length(e.text), 1100))`,
    )
    .all(modelId);
}

/** Embed what is pending, kind by kind; returns how many were embedded and whether everything is done. */
export async function embedByKind(
  store: Store,
  e: Embedder,
  opts: {
    stop?: () => boolean;
    log?: (l: string) => void;
    kinds?: string[] /** [n, m]: only entities with id % m = n (parallel workers) */;
    share?: [number, number];
  } = {},
): Promise<{ embedded: number; complete: boolean }> {
  setEmbeddingMeta(store.db, { modelId: e.id, dim: e.dim });
  const t0 = performance.now();
  let done = 0;
  for (const k of pendingKinds(store.db, e.id).filter((x) => !opts.kinds || opts.kinds.includes(x.kind))) {
    if (opts.stop?.()) break;
    const t1 = performance.now();
    for (;;) {
      if (opts.stop?.()) break;
      // What is embedded is each entity's search text, as in `lorekeeper sync`.
      const batch = listPendingVectors(store.db, e.id, 64, 0, { kind: k.kind, share: opts.share ?? [0, 1] });
      if (batch.length === 0) break;
      const vs = await e.embedPassages(batch.map((b) => b.text));
      writeVectors(
        store.db,
        e.id,
        batch.map((b, i) => ({ id: b.id, contentHash: b.content_hash, vector: vs[i]! })),
      );
      done += batch.length;
    }
    opts.log?.(
      `${k.kind}: ${k.n} in ${((performance.now() - t1) / 1000).toFixed(0)} ` +
        `s (total ${done}, ${((performance.now() - t0) / 1000).toFixed(0)} s)`,
    );
  }
  syncIndex(store, { modelId: e.id, dim: e.dim });
  return { embedded: done, complete: pendingKinds(store.db, e.id).length === 0 };
}

if (import.meta.main) {
  if (!process.env.LOREKEEPER_LOG_LEVEL) setLogLevel("warn");
  const [storePath, modelDir, kinds, share] = process.argv.slice(2);
  const part = share?.match(/^(\d+)\/(\d+)$/);
  if (!storePath || !modelDir) {
    process.stderr.write("usage: bun scripts/embed-by-kind.ts STORE MODEL_DIR\n");
    process.exit(64);
  }
  let stop = false;
  process.on("SIGINT", () => (stop = true));
  process.on("SIGTERM", () => (stop = true));
  const store = openStore({ path: storePath });
  const provider = createEmbedderProvider({ modelDir, embeddedDir: null, allowDownload: false });
  const e = await provider.get();
  if (!e) throw new Error(`no model: ${provider.reason()}`);
  const r = await embedByKind(store, e, {
    stop: () => stop,
    log: (l) => process.stderr.write(`${l}\n`),
    kinds: kinds?.split(","),
    share: part ? [Number(part[1]), Number(part[2])] : undefined,
  });
  process.stderr.write(
    `embedded ${r.embedded}; ${r.complete ? "every entity has a vector" : "stopped before the end"}\n`,
  );
  store.close();
}
