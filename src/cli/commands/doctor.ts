/**
 * `lorekeeper doctor`: is this installation healthy? Versions and paths, the store, the embedding
 * model (loaded, and a test sentence embedded), the native libraries, and whether each upstream
 * answers. One OK / WARN / FAIL line per check, with the fix; `--json` for machines. Exit 1 when
 * something essential (store, model, native libraries) is wrong; an unreachable upstream is only a
 * warning because LoreKeeper answers from its store offline.
 */
import type { Database } from "bun:sqlite";
import { existsSync, statSync } from "node:fs";
import { APP_VERSION, type Config, dbPath } from "../../config.ts";
import { getLogLevel, setLogLevel } from "../../log.ts";
import {
  binaryInfoCheck,
  type Check,
  check,
  type CheckStatus,
  extractionCheck,
  nativeLibrariesCheck,
} from "../../native/binary-checks.ts";
import { createEmbedderProvider } from "../../search/model/embedder.ts";
import { withTimeout } from "../../search/model/timeout.ts";
import { noModelAdvice } from "../../search/model/model-advice.ts";
import type { EmbedderProvider } from "../../search/types.ts";
import { activeModelDir, readManifest } from "../../search/model/model-manifest.ts";
import { indexPaths, readSidecar, verifyIndexFile } from "../../search/index/vector-index-file.ts";
import { openStore, rebuildHint, schemaVersionProblem, StoreError, type Store } from "../../store/db.ts";
import { checkStore, isCorruption, unreadableEntities } from "../../store/repair.ts";
import { getMeta, SCHEMA_VERSION } from "../../store/schema.ts";
import { listSyncState } from "../../store/sync-state.ts";
import { PROFILE_GROUPS, type ProfileGroup, profileCoverage } from "../../store/profiles.ts";
import { pendingVectors } from "../../search/index/pending-vectors.ts";
import { upstreamsOf } from "../../sources/index.ts";
import { countVectors, getEmbeddingMeta, unusableVectors } from "../../store/vectors.ts";
import type { RepairReport } from "../repair.ts";
import { parse } from "../args.ts";
import { type Command, EXIT_FAILED, EXIT_OK } from "../command.ts";
import { safeText } from "../../text/sanitize.ts";
import { printJson } from "../progress.ts";
import { packLeftovers } from "../../ingest/pack-file.ts";
import { fetchErrorText } from "../../sources/http.ts";

export interface DoctorReport {
  ok: boolean;
  version: string;
  checks: Check[];
  /** With --repair: what the repair found and did (it runs before the checks). */
  repair?: RepairReport;
}

const HELP = `Usage: lorekeeper doctor [options]

Checks the installation: versions and paths, the store, the embedding model (loads it and embeds a
test sentence), the native libraries, and whether Open5e and the D&D 5e API answer.
Exits 1 when something essential is wrong, and says how to fix it.

With --repair it first repairs the store: rebuilds the full-text search tables and the vector
index (nothing is downloaded), or, when the database itself is damaged, moves its files aside as
<db>.damaged-<time> and says what to run to fill a new one (lorekeeper sync / import).

Options:
  --repair           repair the store first (see above)
  --json             machine-readable report on stdout
  --offline          skip the upstream checks
  --timeout MS       per upstream request (default 3000)
  --db-path PATH     the store to check`;

const TEST_SENTENCE = "A wall of fire that burns creatures passing through it.";

/**
 * `fn` over the store opened read-only; undefined without a store, `onError`'s answer (by default undefined: the
 * store check says why) when it cannot be read.
 */
function readStore<T>(path: string, fn: (store: Store) => T, onError = (_err: Error): T | undefined => undefined) {
  if (!existsSync(path)) return undefined;
  try {
    const store = openStore({ path, readonly: true, busyTimeoutMs: 5000 });
    try {
      return fn(store);
    } finally {
      store.close();
    }
  } catch (err) {
    return onError(err as Error);
  }
}

function storeCheck(path: string): Check {
  if (!existsSync(path)) {
    // A fresh install has no store yet: the server creates it on first start. Not a failure.
    return check("store", "warn", `no store yet at ${path} (the server creates it on first start)`, {
      fix:
        "Fill it with `lorekeeper sync` (online), or `lorekeeper import` / a binary with a content pack (offline); " +
        "tools also fetch their content on first use when online.",
    });
  }
  let store: Store;
  try {
    store = openStore({ path, readonly: true, busyTimeoutMs: 5000 });
  } catch (err) {
    const e = err as { message?: string; hint?: string };
    const fix = isCorruption(err)
      ? rebuildHint(path)
      : err instanceof StoreError
        ? e.hint
        : "Check the file's permissions, or point --db-path / LOREKEEPER_DB_PATH elsewhere.";
    return check("store", "fail", `cannot open ${path}: ${e.message ?? String(err)}`, { fix });
  }
  try {
    return storeContents(store.db, path);
  } catch (err) {
    const why = isCorruption(err) ? "is damaged" : "is unreadable";
    return check("store", "fail", `${path} ${why}: ${(err as Error).message}`, { fix: rebuildHint(path) });
  } finally {
    store.close();
  }
}

/** The opened store's damage (integrity, unreadable rows, schema version), else what it holds. */
function storeContents(db: Database, path: string): Check {
  const fail = (summary: string, fix: string, details?: Record<string, unknown>) =>
    check("store", "fail", summary, { details, fix });
  const problems = checkStore(db);
  if (problems.length > 0) {
    const fts = problems.every((p) => p.startsWith("the search table"));
    const fix = fts ? `Rebuild the search tables: lorekeeper doctor --repair --db-path "${path}"` : rebuildHint(path);
    return fail(`${path} is damaged: ${problems.slice(0, 3).join("; ")}`, fix, { path, problems });
  }
  const unreadable = unreadableEntities(db);
  if (unreadable.count > 0) {
    const origins = [...new Set(unreadable.examples.map((e) => e.origin))];
    const more = unreadable.count > unreadable.examples.length ? ", …" : "";
    const named = unreadable.examples.map((e) => `${e.kind} "${e.name}"`).join(", ") + more;
    return fail(
      `${path}: ${unreadable.count} entities hold data that is not a JSON object (${named}); ` +
        "answers that show them fail",
      `Write them again from their source: \`lorekeeper sync --force --db-path "${path}"\` for synced content ` +
        `(${origins.join(", ")}), \`lorekeeper import FILE\` again for homebrew, ` +
        "or load a content pack made by this version.",
      { path, unreadable_entities: unreadable.count, examples: unreadable.examples },
    );
  }
  const schema = schemaVersionProblem(db);
  if (schema) {
    return fail(
      `${path}: ${schema.problem}`,
      `Record it again: lorekeeper doctor --repair --db-path "${path}" (a lorekeeper sync or import does it ` +
        `too); nothing else is changed.`,
    );
  }
  const version = Number(getMeta(db, "schema_version") ?? 0);
  const count = (sql: string) => db.query<{ n: number }, []>(sql).get()?.n ?? 0;
  const bySource = db
    .query<{ s: string; n: number }, []>(
      "SELECT document_source AS s, count(*) AS n FROM entities GROUP BY 1 ORDER BY 1",
    )
    .all();
  const rows = bySource.reduce((a, r) => a + r.n, 0);
  // The entries, as `documents`, the embedding and its progress count them: a copy another
  // source's entry answers for (the same SRD entry from two APIs) is a stored row, not an entry.
  const entities = count("SELECT count(*) AS n FROM entities WHERE dup_of IS NULL");
  const vectors = db
    .query<{ m: string; n: number }, []>("SELECT model_id AS m, count(*) AS n FROM vectors GROUP BY 1")
    .all();
  // As `documents` lists them: one per document key holding entries, whatever sources hold it.
  const documents = count("SELECT count(DISTINCT lower(document_key)) AS n FROM entities");
  const sync = listSyncState(db);
  const last = Math.max(0, ...sync.map((s) => s.fetched_at ?? 0));
  const failed = sync.filter((s) => s.status === "failed");
  const details = {
    path,
    size_bytes: statSync(path).size,
    schema_version: version,
    entities,
    stored_rows: rows,
    entities_by_source: Object.fromEntries(bySource.map((r) => [r.s, r.n])),
    documents,
    vectors: Object.fromEntries(vectors.map((v) => [v.m, v.n])),
    last_sync: last ? new Date(last).toISOString() : null,
    failed_syncs: failed.map((s) => `${s.source}/${s.content_type}: ${s.error ?? "failed"}`),
  };
  const vecText = vectors.length ? vectors.map((v) => `${v.n} vectors (${v.m})`).join(", ") : "no vectors";
  const copies = rows > entities ? `; ${rows - entities} more rows are copies other sources' entries answer for` : "";
  const rowsBySource = bySource.map((r) => `${r.s} ${r.n}`).join(", ") || "none";
  const summary =
    `${path}: ${entities} entries (rows by source: ${rowsBySource}${copies}), ${documents} documents, ` +
    `${vecText}; last sync ${details.last_sync ?? "never"}`;
  const found = (status: CheckStatus, fix?: string) => check("store", status, summary, { details, fix });
  if (version > SCHEMA_VERSION)
    return found(
      "fail",
      `The store was written by a newer LoreKeeper (schema ${version} > ${SCHEMA_VERSION}); upgrade LoreKeeper.`,
    );
  // A new store is empty by design: tools fill it on first use (online). Not a failure.
  if (entities === 0)
    return found(
      "warn",
      "The store is empty: each tool fetches its content on first use (online), or fill it now with " +
        "`lorekeeper sync`, or `lorekeeper import FILE`.",
    );
  if (failed.length)
    return found(
      "warn",
      `Some content failed to sync (${details.failed_syncs.join("; ")}); run \`lorekeeper sync\` again.`,
    );
  return found("ok");
}

/** The vector index file beside the store: present, intact, and holding every stored vector? */
async function vectorIndexCheck(path: string): Promise<Check | undefined> {
  const paths = indexPaths(path);
  const stored =
    paths &&
    readStore(path, ({ db }) => {
      const meta = getEmbeddingMeta(db);
      return { meta, vectors: meta ? countVectors(db, meta.modelId) : 0 };
    });
  if (!paths || !stored) return undefined;
  const { meta, vectors } = stored;
  if (!meta)
    return check(
      "vector index",
      "info",
      "no embeddings stored yet (semantic ranking starts after the first sync with a model)",
    );
  const fix =
    `It is rebuilt from the store automatically at the next search; to do it now: lorekeeper doctor ` +
    `--repair --db-path "${path}"`;
  const warn = (summary: string) => check("vector index", "warn", summary, { fix });
  const sidecar = readSidecar(paths);
  if ("problem" in sidecar) return warn(`${paths.index}: ${sidecar.problem}`);
  const damaged = verifyIndexFile(paths, sidecar);
  if (damaged) return warn(`${paths.index}: ${damaged}`);
  if (sidecar.modelId !== meta.modelId || sidecar.dim !== meta.dim)
    return warn(`${paths.index} was made for ${sidecar.modelId} (dim ${sidecar.dim}), the store holds ${meta.modelId}`);
  const summary = `${paths.index}: ${sidecar.entries.length} of ${vectors} stored vectors (${meta.modelId})`;
  if (sidecar.entries.length !== vectors) return warn(`${summary}; it is brought up to date at the next search`);
  // The sidecar only says the file is the one it describes: sample its vectors against the store's.
  const { savedIndexProblem } = await import("../../search/index/vector-index.ts");
  const sampled = readStore(
    path,
    (store) => savedIndexProblem(store, meta.modelId, meta.dim),
    (err) => `it could not be checked (${err.message})`,
  );
  if (sampled) return warn(`${paths.index}: ${sampled}; searches rebuild it from the store`);
  return check("vector index", "ok", `${summary}; sampled vectors match the store`);
}

/** Entities without a current vector of the store's model (an embedding run killed midway, --no-embed). */
function embeddingsCheck(path: string): Check | undefined {
  return readStore(path, ({ db }) => {
    const p = pendingVectors(db);
    const meta = getEmbeddingMeta(db);
    if (!p || !meta) return undefined;
    const unusable = unusableVectors(db, meta);
    if (unusable > 0) {
      const summary =
        `${unusable} stored vectors of ${p.modelId} are unusable (not ${meta.dim} numbers long, or all zeros): ` +
        "semantic ranking misses those entities";
      return check("embeddings", "warn", summary, {
        details: { ...p, unusable },
        fix: `Remove and compute them again: lorekeeper doctor --repair --db-path "${path}"`,
      });
    }
    const summary = `${p.total - p.pending} of ${p.total} entries have a vector of ${p.modelId}`;
    if (p.pending === 0) return check("embeddings", "ok", summary, { details: { ...p } });
    const partial =
      `${summary}; ${p.pending} have none (an embedding run was interrupted, or content was imported with ` +
      `--no-embed): semantic ranking is partial`;
    return check("embeddings", "warn", partial, {
      details: { ...p },
      fix:
        `Compute them: lorekeeper doctor --repair --db-path "${path}" (a running server also computes them in ` +
        `the background at start).`,
    });
  });
}

/** Files an interrupted content pack load left beside the store (its unpacked copy, a download). */
function leftoversCheck(path: string): Check | undefined {
  const files = packLeftovers(path);
  if (files.length === 0) return undefined;
  // A leftover that cannot be stat'ed (no permission) still counts as a file to remove, and doctor reports.
  const size = (f: string) => {
    try {
      return statSync(f).size;
    } catch {
      return 0;
    }
  };
  const bytes = files.reduce((n, f) => n + size(f), 0);
  const summary =
    `${files.length} file(s) left by an interrupted content pack load (${(bytes / 1024 / 1024).toFixed(1)} MB): ` +
    `${files.slice(0, 3).join(", ")}${files.length > 3 ? ", …" : ""}`;
  return check("pack leftovers", "warn", summary, {
    details: { files, bytes },
    fix:
      `Remove them: lorekeeper doctor --repair --db-path "${path}" (the next pack load removes them too); ` +
      "the store itself is not affected.",
  });
}

const INSTALLED_FIX =
  "Install it again (`lorekeeper model install … --force`), switch to another (`lorekeeper model use NAME`), or " +
  "remove it (`lorekeeper model remove NAME`).";

/**
 * Core entries (SRD 5.1/5.2) of one profile group (creatures, spells, magic items, rules) stored
 * without the plain-words profile this version has for them (synced or packed before it existed).
 */
export function profilesCheck(path: string, group: ProfileGroup = PROFILE_GROUPS[0]!): Check | undefined {
  return readStore(path, ({ db }) => {
    const c = profileCoverage(db, group);
    if (c.core === 0) return undefined;
    const name = `${group.label.replace(/s$/, "")} profiles`;
    const summary = `${c.withProfile} of ${c.core} core ${group.label} (SRD 5.1/5.2) have a profile`;
    if (c.withProfile === c.core) return check(name, "ok", summary, { details: { ...c } });
    const more = c.lackingCount > c.lacking.length ? `, … (${c.lackingCount} names)` : "";
    const weaker = `${summary}; none for ${c.lacking.join(", ")}${more}: searching them by description is weaker`;
    return check(name, "warn", weaker, {
      details: { ...c },
      fix:
        `Their rows were stored by an older LoreKeeper: sync them again (online) with \`lorekeeper sync --types ` +
        `${group.kinds.join(",")} --force --db-path "${path}"\`, or import a content pack built with this version. ` +
        `Names this version has no profile for are listed by \`bun scripts/check-profiles.ts\` in a checkout.`,
    });
  });
}

async function modelCheck(cfg: Config, storeVectors: Record<string, number> | undefined): Promise<Check> {
  const provider = createEmbedderProvider({ config: cfg, allowDownload: false });
  const t0 = performance.now();
  const fail = (summary: string, fix: string) => check("model", "fail", summary, { fix });
  try {
    const embedder = await withTimeout(provider.get(), 60_000, "loading the embedding model");
    if (!embedder) {
      const why = provider.reason() ?? "unknown reason";
      // A model the user pointed at that does not load is a real failure; no model at all is not.
      if (cfg.modelDir)
        return fail(
          `LOREKEEPER_MODEL_DIR=${cfg.modelDir} does not load: ${why}`,
          "Point LOREKEEPER_MODEL_DIR at a complete fastembed model folder (model.onnx + tokenizer files), or " +
            "unset it.",
        );
      const installed = activeModelDir(cfg.modelsDir);
      if (installed) return fail(`the installed model in use (${installed}) does not load: ${why}`, INSTALLED_FIX);
      const advice = noModelAdvice(provider.reason(), { downloadAllowed: !cfg.offline, modelName: cfg.embeddingModel });
      const made = storeVectors ? Object.keys(storeVectors) : [];
      const hint = made.length
        ? ` The store's vectors were made with ${made.join(", ")}: install that model (\`lorekeeper model install ` +
          `<name>\`) to use them.`
        : "";
      return check("model", "warn", advice.state, { fix: `${advice.fix}${hint}` });
    }
    const info = provider.info();
    const installed = cfg.modelDir ? undefined : activeModelDir(cfg.modelsDir);
    if (installed && info?.dir !== installed) {
      return fail(
        `the installed model in use (${installed}) does not load (${embedder.id} answers instead): ` +
          `${provider.reason() ?? "see the log"}`,
        INSTALLED_FIX,
      );
    }
    const t1 = performance.now();
    const v = await embedder.embedQuery(TEST_SENTENCE);
    const embedMs = performance.now() - t1;
    let norm = 0;
    for (const x of v) norm += x * x;
    const details = {
      id: embedder.id,
      dim: embedder.dim,
      source: info?.source,
      dir: info?.dir,
      load_ms: Math.round(t1 - t0),
      embed_ms: Number(embedMs.toFixed(1)),
      norm: Number(Math.sqrt(norm).toFixed(4)),
    };
    // An installed model's manifest (lorekeeper model install): what it is, where it came from, its license.
    const manifest = info?.dir ? readManifest(info.dir) : undefined;
    const about = manifest
      ? `; ${manifest.model}, ${manifest.pooling} pooling, ${manifest.precision}, license ${manifest.license}, from ` +
        `${manifest.source.join(" + ")}`
      : "";
    const summary =
      `${embedder.id} (dim ${embedder.dim}, from ${info?.source ?? "?"} ${info?.dir ?? ""}) loaded in ` +
      `${details.load_ms} ms; test sentence embedded in ${details.embed_ms} ms${about}`;
    if (manifest) Object.assign(details, { manifest });
    if (!Number.isFinite(norm) || norm === 0)
      return check("model", "fail", `${summary}, but the vector is empty`, {
        details,
        fix: "The model knows none of the test sentence's words; check the model folder.",
      });
    const other = storeVectors ? Object.keys(storeVectors).filter((m) => m !== embedder.id) : [];
    if (storeVectors && Object.keys(storeVectors).length > 0 && !storeVectors[embedder.id]) {
      return check("model", "warn", `${summary}; the store's vectors were made with ${other.join(", ")}`, {
        details,
        fix: "Run `lorekeeper sync` to embed the store with this model (semantic ranking uses only its own vectors).",
      });
    }
    return check("model", "ok", summary, { details });
  } catch (err) {
    return fail(
      `the embedding model failed: ${(err as Error).message}`,
      cfg.modelDir
        ? "Run with -v for details; check LOREKEEPER_MODEL_DIR."
        : "Run with -v for details; `lorekeeper model list` shows the installed models.",
    );
  }
}

async function usearchProbe(): Promise<string | undefined> {
  try {
    const { Index, MetricKind, ScalarKind } = await import("usearch");
    const idx = new Index(4, MetricKind.Cos, ScalarKind.F32, 8);
    idx.add(1n, new Float32Array([1, 0, 0, 0]));
    idx.add(2n, new Float32Array([0, 1, 0, 0]));
    const hit = idx.search(new Float32Array([0.9, 0.1, 0, 0]), 1, 1);
    return hit.keys[0] === 1n ? undefined : "a test search returned the wrong neighbour";
  } catch (err) {
    return (err as Error).message.split("\n")[0];
  }
}

async function upstreamCheck(name: string, url: string, timeoutMs: number): Promise<Check> {
  const t0 = performance.now();
  try {
    const res = await fetch(url, {
      signal: AbortSignal.timeout(timeoutMs),
      headers: { accept: "application/json" },
      redirect: "follow",
    });
    await res.body?.cancel();
    const ms = Math.round(performance.now() - t0);
    if (res.status >= 500)
      return check(name, "warn", `${url} answered HTTP ${res.status} (${ms} ms)`, {
        fix: "The service has trouble; LoreKeeper keeps answering from its store. Retry `lorekeeper sync` later.",
      });
    return check(name, "ok", `${url} answered HTTP ${res.status} in ${ms} ms`);
  } catch (err) {
    return check(name, "warn", `${url} is not reachable (${fetchErrorText(err, timeoutMs)})`, {
      fix: "Offline is fine: LoreKeeper answers from its store. To refresh content, connect and run `lorekeeper sync`.",
    });
  }
}

export async function runDoctor(
  cfg: Config,
  embedder: () => EmbedderProvider,
  opts: { dbPath?: string; offline?: boolean; timeoutMs?: number; repair?: boolean },
): Promise<DoctorReport> {
  const path = dbPath(opts.dbPath);
  // Loaded only when asked: the repair rebuilds the vector index, which loads the native usearch library.
  const repairing = opts.repair ? await import("../repair.ts") : undefined;
  const repair = repairing?.repairStore(path);
  if (repairing && repair?.outcome === "repaired") repair.steps.push(await repairing.repairVectors(path, embedder()));
  const { platform, arch } = process;
  const store = storeCheck(path);
  const checks = [
    check("version", "info", `lorekeeper ${APP_VERSION}, bun ${Bun.version} on ${platform}-${arch}`, {
      details: { lorekeeper: APP_VERSION, bun: Bun.version, platform, arch },
    }),
    check("paths", "info", `store ${path}; data ${cfg.dataDir}; cache ${cfg.cacheDir}`, {
      details: {
        store: path,
        data_dir: cfg.dataDir,
        cache_dir: cfg.cacheDir,
        model_dir: cfg.modelDir ?? cfg.embeddedModelDir ?? null,
        cwd: process.cwd(),
      },
    }),
    binaryInfoCheck(),
    extractionCheck(),
    store,
    await vectorIndexCheck(path),
    leftoversCheck(path),
    embeddingsCheck(path),
    ...PROFILE_GROUPS.map((group) => profilesCheck(path, group)),
    await modelCheck(cfg, store.details?.vectors as Record<string, number> | undefined),
    nativeLibrariesCheck(await usearchProbe()),
    // Each source with an API says which address shows it answering.
    ...(opts.offline
      ? []
      : await Promise.all(
          upstreamsOf(cfg).map(({ source, api, baseUrl }) =>
            upstreamCheck(`upstream ${source.id}`, api.probeUrl(baseUrl), opts.timeoutMs ?? 3000),
          ),
        )),
  ].filter((c) => c !== undefined);
  return { ok: !checks.some((c) => c.status === "fail"), version: APP_VERSION, checks, ...(repair ? { repair } : {}) };
}

function renderReport(r: DoctorReport): string {
  const tag: Record<CheckStatus, string> = { ok: "OK  ", warn: "WARN", fail: "FAIL", info: "    " };
  const width = Math.max(...r.checks.map((c) => c.name.length));
  const lines = r.checks.flatMap((c) => [
    `${tag[c.status]}  ${c.name.padEnd(width)}  ${c.summary}`,
    ...(c.fix && c.status !== "ok" ? [`${" ".repeat(width + 8)}fix: ${c.fix}`] : []),
  ]);
  const fails = r.checks.filter((c) => c.status === "fail").length;
  const warns = r.checks.filter((c) => c.status === "warn").length;
  lines.push(
    "",
    fails
      ? `${fails} problem(s) need fixing${warns ? `, ${warns} warning(s)` : ""}.`
      : `All essential checks passed${warns ? ` (${warns} warning(s))` : ""}.`,
  );
  return lines.join("\n");
}

export const doctorCommand: Command = {
  name: "doctor",
  summary: "check the installation: store, model, native libraries, upstreams",
  help: HELP,
  async run(argv, ctx) {
    const { values } = parse(argv, {
      json: { type: "boolean" },
      offline: { type: "boolean" },
      timeout: { type: "string" },
      repair: { type: "boolean" },
    });
    const timeoutMs = values.timeout !== undefined ? Number(values.timeout) : undefined;
    // The report says everything the checks find; their log warnings would only repeat it (-v shows them).
    if (getLogLevel() === "info") setLogLevel("error");
    const report = await runDoctor(ctx.config, ctx.embedder, {
      dbPath: values["db-path"],
      offline: values.offline === true,
      timeoutMs: timeoutMs !== undefined && Number.isFinite(timeoutMs) && timeoutMs > 0 ? timeoutMs : undefined,
      repair: values.repair === true,
    });
    const repairText = report.repair ? `${(await import("../repair.ts")).renderRepair(report.repair)}\n\n` : "";
    if (values.json) printJson(report);
    else process.stdout.write(safeText(`${repairText}${renderReport(report)}\n`));
    return report.ok ? EXIT_OK : EXIT_FAILED;
  },
};
