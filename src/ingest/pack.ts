/**
 * `lorekeeper sync --pack FILE|URL` and `lorekeeper import FILE.db.gz`: bring a content pack in,
 * check it (checksum, database, model), load it (pack-load.ts) and clean up. The caller then runs
 * embedAfterIngest, which finds nothing to embed when the pack's model is the active one and only
 * brings the vector index in line.
 */
import { rmSync } from "node:fs";
import { dirname } from "node:path";
import type { EmbedderProvider } from "../search/types.ts";
import type { Store } from "../store/db.ts";
import { getEmbeddingMeta } from "../store/vectors.ts";
import { fetchPack, PackError, removePackLeftovers, unpackedPath, unpackPack, type FetchedPack } from "./pack-file.ts";
import { checkPackModel, loadPack, openPack, type PackLoadResult, type PackSummary } from "./pack-load.ts";

export interface PackOptions {
  /** Expected SHA-256 (else the `.sha256` file beside the pack, when there is one). */
  sha256?: string;
  /** false: load the content without the pack's vectors. Default true. */
  withVectors?: boolean;
  say?: (msg: string) => void;
}

export interface PackReport {
  source: string;
  sha256: string;
  checkedAgainst: FetchedPack["checkedAgainst"];
  summary: PackSummary;
  load: PackLoadResult;
  /** The model whose vectors were copied, or null. */
  vectorModel: string | null;
  durationMs: number;
}

function removeDb(path: string): void {
  for (const suffix of ["", "-wal", "-shm", "-journal", ".usearch", ".usearch.json"])
    rmSync(`${path}${suffix}`, { force: true });
}

export async function loadPackInto(
  store: Store,
  src: string,
  provider: EmbedderProvider,
  opts: PackOptions = {},
): Promise<PackReport> {
  const t0 = performance.now();
  const say = opts.say ?? (() => {});
  const withVectors = opts.withVectors ?? true;
  const work = dirname(store.path);
  // What an earlier load killed midway left behind goes first (doctor reports it too).
  for (const f of removePackLeftovers(store.path)) say(`removed ${f}, left by an interrupted pack load`);
  const fetched = await fetchPack(src, work, { expected: opts.sha256, storePath: store.path });
  const unpacked = unpackedPath(store.path);
  try {
    say(
      fetched.checkedAgainst === "none"
        ? `content pack ${src}: no checksum to check against (no ${src}.sha256, no --sha256); relying on gzip's CRC ` +
            `and SQLite's checks`
        : `content pack ${src}: checksum ok (sha256 ${fetched.sha256.slice(0, 16)}…)`,
    );
    await unpackPack(fetched, unpacked);
    const { pack, summary } = openPack(unpacked, store);
    try {
      const active = withVectors && summary.vectors > 0 ? await provider.get() : null;
      checkPackModel(summary, active?.id ?? null, withVectors);
      const top = summary.models[0];
      const vectorModel =
        withVectors && top
          ? active
            ? { modelId: active.id, dim: active.dim }
            : { modelId: top.modelId, dim: top.dim }
          : null;
      // The dimension the pack claims for its model is the one its vectors must have, and a model's.
      const claimed = getEmbeddingMeta(pack.db);
      if (vectorModel && claimed && claimed.modelId === vectorModel.modelId && claimed.dim !== vectorModel.dim) {
        throw new PackError(
          `The content pack cannot be loaded: it claims ${claimed.dim} dimensions for ${claimed.modelId}, ` +
            `which makes vectors of ${vectorModel.dim}; nothing was written.`,
          "Make the pack again from a store embedded by LoreKeeper, or load its content alone with --no-vectors.",
        );
      }
      say(
        `content pack: ${summary.entities} entities in ${summary.documents} documents, ${summary.vectors} vectors` +
          `${top ? ` (${summary.models.map((m) => m.modelId).join(", ")})` : ""}`,
      );
      const load = loadPack(store, pack, vectorModel, (origin, done, total) => {
        if (done === total || done % 10 === 0) say(`content pack: ${done}/${total} content types loaded (${origin})`);
      });
      return {
        source: src,
        sha256: fetched.sha256,
        checkedAgainst: fetched.checkedAgainst,
        summary,
        load,
        vectorModel: vectorModel?.modelId ?? null,
        durationMs: Math.round(performance.now() - t0),
      };
    } finally {
      pack.close();
    }
  } finally {
    removeDb(unpacked);
    fetched.cleanup();
  }
}
