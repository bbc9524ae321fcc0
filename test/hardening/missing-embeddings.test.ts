/**
 * vectors lost to a kill -9 in the middle of an embedding run.
 * A child process embeds the store in small batches and SIGKILLs itself after the second batch
 * (a real kill -9 mid-embedding: what was written stays, the rest is missing). Then:
 * - `doctor` reports the missing vectors (warn, with the fix); `doctor --repair` computes them;
 * - a search ranked by meaning says the ranking is partial while they are missing;
 * - a server started on such a store computes them in the background once a session calls a
 *   tool (nothing is loaded at start), after which its answers are hybrid with no such note.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { createEmbedderProvider } from "../../src/search/model/embedder.ts";
import { runSearch } from "../../src/search/hybrid.ts";
import { pendingVectors, withPendingNote } from "../../src/search/index/pending-vectors.ts";
import { closeVectorIndex } from "../../src/search/index/vector-index.ts";
import { openStore } from "../../src/store/db.ts";
import { replaceOrigin } from "../../src/store/entities.ts";
import { sampleEntities } from "../support/entities.ts";
import { answerOf, connectStdio, isolatedEnv, REPO_ROOT } from "../support/mcp.ts";
import { createTinyModel } from "../support/tiny-model.ts";
import { makeTempDir } from "../support/tmp.ts";
import { waitFor } from "../support/wait.ts";

let tmp: ReturnType<typeof makeTempDir>;
let model: string;
let partial: string;
let env: Record<string, string>;
let total = 0;

function pendingIn(path: string) {
  const store = openStore({ path, readonly: true });
  try {
    return pendingVectors(store.db);
  } finally {
    store.close();
  }
}

beforeAll(async () => {
  tmp = makeTempDir("lk-missing-vectors-");
  model = await createTinyModel(join(tmp.dir, "model"));
  env = { ...(await isolatedEnv(tmp.dir, model)), LOREKEEPER_LOG_LEVEL: "warn" };
  partial = join(tmp.dir, "partial.db");
  const store = openStore({ path: partial });
  total = sampleEntities().length;
  replaceOrigin(store.db, "open5e_v2:sample", sampleEntities(), []);
  store.close();
  // Embed in batches of 4 and kill -9 ourselves after the second batch is written.
  const code =
    `
    const { embedPending } = await import(${JSON.stringify(join(REPO_ROOT, "src/ingest/embed.ts"))});
 ` +
    `   const { createEmbedderProvider } = await ` +
    `import(${JSON.stringify(join(REPO_ROOT, "src/search/model/embedder.ts"))});
    const { openStore } = await ` +
    `import(${JSON.stringify(join(REPO_ROOT, "src/store/db.ts"))});
    const store = openStore({ path: ${JSON.stringify(partial)} ` +
    `});
    const provider = createEmbedderProvider({ modelDir: ${JSON.stringify(model)}, ` +
    `embeddedDir: null, allowDownload: false });
    await embedPending(store, provider, { batchSize: ` +
    `4, onProgress: (done) => { if (done >= 8) process.kill(process.pid, "SIGKILL"); } });
  `;
  const r = Bun.spawnSync([process.execPath, "-e", code], { env, cwd: REPO_ROOT, stdout: "pipe", stderr: "pipe" });
  expect(r.signalCode).toBe("SIGKILL");
  // What the killed process committed is in the WAL: move it into the file, which the tests copy.
  const after = openStore({ path: partial });
  after.db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  after.close();
});

afterAll(() => tmp.cleanup());

function doctor(path: string, repair = false) {
  const r = Bun.spawnSync(
    [
      process.execPath,
      join(REPO_ROOT, "src/cli/main.ts"),
      "doctor",
      "--offline",
      "--json",
      "--db-path",
      path,
      ...(repair ? ["--repair"] : []),
    ],
    { env, cwd: REPO_ROOT, stdout: "pipe", stderr: "pipe" },
  );
  return JSON.parse(r.stdout.toString()) as {
    checks: Array<{ name: string; status: string; summary: string; fix?: string }>;
    repair?: { steps: string[] };
  };
}

test("the kill left 8 of the entities with vectors", () => {
  expect(pendingIn(partial)).toEqual({ modelId: expect.any(String), pending: total - 8, total });
});

describe("doctor", () => {
  test("reports the missing vectors with the fix; --repair computes them", () => {
    const copy = join(tmp.dir, "doctor.db");
    copyFileSync(partial, copy);
    const before = doctor(copy).checks.find((c) => c.name === "embeddings");
    expect(before?.status).toBe("warn");
    expect(before?.summary).toContain(`8 of ${total} entries have a vector`);
    expect(before?.fix).toContain("doctor --repair");
    const repaired = doctor(copy, true);
    expect(repaired.repair?.steps.join("\n")).toContain(`computed the ${total - 8} missing vectors`);
    expect(repaired.checks.find((c) => c.name === "embeddings")?.status).toBe("ok");
    expect(pendingIn(copy)?.pending).toBe(0);
  }, 60_000);
});

describe("answers", () => {
  test("a search ranked by meaning says the ranking is partial while vectors are missing", async () => {
    const copy = join(tmp.dir, "note.db");
    copyFileSync(partial, copy);
    const store = openStore({ path: copy, readonly: true });
    try {
      const embedder = createEmbedderProvider({ modelDir: model, embeddedDir: null, allowDownload: false });
      const res = withPendingNote(
        await runSearch(
          { store, embedder, embeddingTimeoutMs: 10_000 },
          { kinds: ["spell"], search: "fire damage", limit: 5 },
        ),
        store.db,
      );
      expect(res.mode).toBe("hybrid");
      expect(res.message).toContain(
        `Semantic ranking is partial: ${total - 8} of ${total} entries have no embedding yet`,
      );
      const lexical = withPendingNote(
        await runSearch(
          { store, embedder, embeddingTimeoutMs: 10_000 },
          { kinds: ["spell"], name: "Fireball", limit: 5 },
        ),
        store.db,
      );
      expect(lexical.message ?? "").not.toContain("partial");
    } finally {
      closeVectorIndex(store);
      store.close();
    }
  });

  test("the note is one true sentence: computing while another process holds the lease, else the fix", async () => {
    const copy = join(tmp.dir, "lease.db");
    copyFileSync(partial, copy);
    // A live process of this machine holding the lease, as a `lorekeeper sync` embedding beside the server would.
    const other = Bun.spawn(["sleep", "30"]);
    const store = openStore({ path: copy });
    try {
      const embedder = createEmbedderProvider({ modelDir: model, embeddedDir: null, allowDownload: false });
      const query = { kinds: ["spell" as const], search: "fire damage", limit: 5 };
      const ctx = { store, embedder, embeddingTimeoutMs: 10_000 };
      const ask = async () => withPendingNote(await runSearch(ctx, query), store.db).message ?? "";
      const now = Date.now();
      const lease = { pid: other.pid, host: hostname(), holder: "sync", started_at: now, renewed_at: now };
      const upsert =
        "INSERT INTO meta(key, value) VALUES ('embed_lease', ?) " +
        "ON CONFLICT(key) DO UPDATE SET value = excluded.value";
      store.db.query(upsert).run(JSON.stringify(lease));
      for (let i = 0; i < 2; i++) {
        const note = await ask();
        expect(note).toContain("they are being computed in the background");
        expect(note).not.toContain("doctor --repair");
      }
      store.db.exec("DELETE FROM meta WHERE key = 'embed_lease'");
      const after = await ask();
      expect(after).toContain("run `lorekeeper doctor --repair` to compute them");
      expect(after).not.toContain("being computed");
    } finally {
      other.kill();
      closeVectorIndex(store);
      store.close();
    }
  });

  test("a server computes them in the background once called; then its answers carry no note", async () => {
    const copy = join(tmp.dir, "serve.db");
    copyFileSync(partial, copy);
    const conn = await connectStdio(["serve", "--db-path", copy], env);
    try {
      // Nothing is computed before a session calls a tool: starting the server loads no model.
      await Bun.sleep(300);
      expect(pendingIn(copy)?.pending).toBe(total - 8);
      const first = answerOf(
        await conn.client.callTool({ name: "search_spell", arguments: { search: "fire damage" } }),
      );
      expect(first.message ?? "").toContain("partial");
      await waitFor(() => (pendingIn(copy)?.pending ?? 1) === 0, 60_000, 100);
      expect(pendingIn(copy)?.pending).toBe(0);
      const a = answerOf(await conn.client.callTool({ name: "search_spell", arguments: { search: "fire damage" } }));
      expect(a.search_mode).toBe("hybrid");
      expect(a.message ?? "").not.toContain("partial");
    } finally {
      await conn.close();
    }
  }, 60_000);
});
