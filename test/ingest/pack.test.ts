/**
 * Content packs through the real CLI: `sync --pack` loads a gzipped store with its vectors (file or
 * URL on 127.0.0.1), checks the checksum beside it and the model, embeds nothing when the model
 * matches, keeps what the pack does not hold (homebrew), and refuses damaged, foreign or
 * other-model packs with a sentence while leaving the store as it was.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { writePackFile } from "../../src/ingest/pack-file.ts";
import { openStore } from "../../src/store/db.ts";
import { replaceOrigin } from "../../src/store/entities.ts";
import { makePackStore, packEntities } from "../binary/pack-fixture.ts";
import { makeEntity } from "../support/entities.ts";
import { isolatedEnv, REPO_ROOT } from "../support/mcp.ts";
import { createTinyModel } from "../support/tiny-model.ts";
import { makeTempDir } from "../support/tmp.ts";
import { upstreamsAt } from "../../src/sources/index.ts";

const tmp = makeTempDir("lk-pack-");
let model: string;
let otherModel: string;
let packGz: string;
let packModelId: string;

beforeAll(async () => {
  model = await createTinyModel(join(tmp.dir, "model-a"));
  otherModel = await createTinyModel(join(tmp.dir, "model-b"), { seed: 7 });
  const made = await makePackStore(join(tmp.dir, "source.db"), model);
  packModelId = made.modelId;
  packGz = join(tmp.dir, "lorekeeper-content.db.gz");
  await writePackFile(made.path, packGz);
}, 60_000);
afterAll(() => tmp.cleanup());

async function env(name: string, modelDir = model): Promise<Record<string, string>> {
  return {
    ...(await isolatedEnv(join(tmp.dir, name), modelDir)),
    PATH: process.env.PATH ?? "",
    LOREKEEPER_OFFLINE: "1",
    LOREKEEPER_LOG_LEVEL: "warn",
  };
}

async function cli(args: string[], e: Record<string, string>): Promise<{ code: number; out: string; err: string }> {
  const p = Bun.spawn([process.execPath, join(REPO_ROOT, "src/cli/main.ts"), ...args], {
    env: e,
    stdout: "pipe",
    stderr: "pipe",
  });
  const [code, out, err] = await Promise.all([p.exited, new Response(p.stdout).text(), new Response(p.stderr).text()]);
  return { code, out, err };
}

function counts(db: string): { entities: number; vectors: number; models: string[] } {
  const d = new Database(db, { readonly: true });
  try {
    const n = (q: string) => (d.query(q).get() as { n: number }).n;
    const models = (d.query("SELECT DISTINCT model_id AS m FROM vectors").all() as { m: string }[]).map((r) => r.m);
    return {
      entities: n("SELECT count(*) AS n FROM entities"),
      vectors: n("SELECT count(*) AS n FROM vectors"),
      models,
    };
  } finally {
    d.close();
  }
}

describe("sync --pack", () => {
  test("a pack file with its .sha256: every entity and vector " +
    "loaded, nothing embedded, keyword and meaning search answer", async () => {
    const e = await env("file");
    const db = join(tmp.dir, "file.db");
    const r = await cli(["sync", "--pack", packGz, "--db-path", db, "--json"], e);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.out) as {
      checkedAgainst: string;
      load: { entities: number; vectorsCopied: number };
      embeddings: { embedded: number };
    };
    expect(report.checkedAgainst).toBe("file");
    expect(report.load.entities).toBe(packEntities().length);
    expect(report.load.vectorsCopied).toBe(packEntities().length);
    expect(report.embeddings.embedded).toBe(0);
    expect(counts(db)).toEqual({
      entities: packEntities().length,
      vectors: packEntities().length,
      models: [packModelId],
    });
    const s = await cli(["search", "inferno ember scorch smoke", "--db-path", db, "--json"], e);
    expect(s.code).toBe(0);
    expect(s.out).toContain("Fireball");
  }, 60_000);

  test("from an http URL on 127.0.0.1 (checksum fetched from URL.sha256)", async () => {
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (req) => {
        const path = new URL(req.url).pathname;
        if (path === "/rel/lorekeeper-content.db.gz") return new Response(Bun.file(packGz));
        if (path === "/rel/lorekeeper-content.db.gz.sha256") return new Response(Bun.file(`${packGz}.sha256`));
        return new Response("not found", { status: 404 });
      },
    });
    try {
      const db = join(tmp.dir, "url.db");
      const r = await cli(
        ["sync", "--pack", `http://127.0.0.1:${server.port}/rel/lorekeeper-content.db.gz`, "--db-path", db, "--json"],
        await env("url"),
      );
      expect(r.code).toBe(0);
      expect((JSON.parse(r.out) as { checkedAgainst: string }).checkedAgainst).toBe("file");
      expect(counts(db).vectors).toBe(packEntities().length);
      const missing = await cli(
        ["sync", "--pack", `http://127.0.0.1:${server.port}/rel/nope.db.gz`, "--db-path", db],
        await env("url"),
      );
      expect(missing.code).not.toBe(0);
      expect(missing.err).toContain("HTTP 404");
      expect(missing.err).not.toContain("    at ");
    } finally {
      await server.stop(true);
    }
  }, 60_000);

  test("into a store with homebrew: the homebrew stays, the pack's types are replaced", async () => {
    const db = join(tmp.dir, "homebrew.db");
    const s = openStore({ path: db });
    replaceOrigin(s.db, "orcbrew:my-pack", [
      makeEntity("spell", "Glitter Bomb", { level: 1 }, { doc: "homebrew-pack", text: "Sparkles." }),
    ]);
    s.close();
    const r = await cli(["sync", "--pack", packGz, "--db-path", db], await env("homebrew"));
    expect(r.code).toBe(0);
    expect(r.out).toContain(`loaded ${packEntities().length} entities`);
    const d = new Database(db, { readonly: true });
    expect(
      (d.query("SELECT count(*) AS n FROM entities WHERE origin = 'orcbrew:my-pack'").get() as { n: number }).n,
    ).toBe(1);
    d.close();
  }, 60_000);

  test("refused with a sentence, store untouched: wrong checksum, not a pack, another model", async () => {
    const db = join(tmp.dir, "refused.db");
    const e = await env("refused");
    // A flipped byte: the checksum beside it no longer matches.
    const bad = join(tmp.dir, "bad", "lorekeeper-content.db.gz");
    Bun.spawnSync(["mkdir", "-p", join(tmp.dir, "bad")]);
    const bytes = readFileSync(packGz);
    bytes[bytes.length - 20] = (bytes[bytes.length - 20] ?? 0) ^ 0xff;
    writeFileSync(bad, bytes);
    copyFileSync(`${packGz}.sha256`, `${bad}.sha256`);
    const r1 = await cli(["sync", "--pack", bad, "--db-path", db], e);
    expect(r1.code).not.toBe(0);
    expect(r1.err).toContain("does not match its checksum");
    // Not a pack at all.
    const junk = join(tmp.dir, "junk.db.gz");
    writeFileSync(junk, "hello, I am not a pack");
    const r2 = await cli(["sync", "--pack", junk, "--db-path", db], e);
    expect(r2.err).toContain("is not a LoreKeeper content pack");
    // A --sha256 that is not a digest.
    const r3 = await cli(["sync", "--pack", packGz, "--sha256", "abc", "--db-path", db], e);
    expect(r3.err).toContain("is not a SHA-256 digest");
    // Another active model: refused; --no-vectors loads the content and embeds it here.
    const e2 = await env("other-model", otherModel);
    const r4 = await cli(["sync", "--pack", packGz, "--db-path", db], e2);
    expect(r4.code).not.toBe(0);
    expect(r4.err).toContain("vectors were made with");
    expect(r4.err).toContain("--no-vectors");
    for (const r of [r1, r2, r3, r4]) expect(r.err).not.toContain("    at ");
    const before = counts(db);
    expect(before.entities).toBe(0);
    const r5 = await cli(["sync", "--pack", packGz, "--no-vectors", "--db-path", db, "--json"], e2);
    expect(r5.code).toBe(0);
    const rep = JSON.parse(r5.out) as {
      load: { vectorsCopied: number };
      embeddings: { embedded: number; modelId: string };
    };
    expect(rep.load.vectorsCopied).toBe(0);
    expect(rep.embeddings.embedded).toBe(packEntities().length);
    expect(counts(db).models).toEqual([rep.embeddings.modelId]);
    expect(rep.embeddings.modelId).not.toBe(packModelId);
  }, 90_000);

  test("`import` takes a pack given alone, as sync --pack does", async () => {
    const db = join(tmp.dir, "import.db");
    const r = await cli(["import", packGz, "--db-path", db], await env("import"));
    expect(r.code).toBe(0);
    expect(counts(db).vectors).toBe(packEntities().length);
    const mixed = await cli(["import", packGz, join(tmp.dir, "x.orcbrew"), "--db-path", db], await env("import"));
    expect(mixed.code).toBe(64);
    expect(mixed.err).toContain("on its own");
  }, 60_000);

  test("a pack made by a real sync: every vector is taken over, nothing embedded again", async () => {
    const { startFakeUpstream } = await import("../support/fake-upstream.ts");
    const { runSync } = await import("../../src/ingest/sync.ts");
    const { embedPending } = await import("../../src/ingest/embed.ts");
    const { createEmbedderProvider } = await import("../../src/search/model/embedder.ts");
    const { loadConfig } = await import("../../src/config.ts");
    const fake = await startFakeUpstream({ dataDir: join(REPO_ROOT, "test", "fixtures", "sources") });
    const src = join(tmp.dir, "synced.db");
    try {
      const s = openStore({ path: src });
      await runSync(s, {
        config: { ...loadConfig(), ...upstreamsAt(fake.url), httpRetries: 0 },
        types: ["spells", "rules"],
        force: true,
      });
      const emb = await embedPending(
        s,
        createEmbedderProvider({ modelDir: model, embeddedDir: null, allowDownload: false }),
      );
      expect(emb.embedded).toBeGreaterThan(0);
      s.close();
    } finally {
      await fake.stop();
    }
    const gz = join(tmp.dir, "synced", "lorekeeper-content.db.gz");
    Bun.spawnSync(["mkdir", "-p", join(tmp.dir, "synced")]);
    await writePackFile(src, gz);
    const db = join(tmp.dir, "from-synced.db");
    const r = await cli(["sync", "--pack", gz, "--db-path", db, "--json"], await env("synced"));
    expect(r.code).toBe(0);
    const rep = JSON.parse(r.out) as {
      load: { entities: number; vectorsCopied: number };
      embeddings: { embedded: number };
    };
    expect(rep.load.vectorsCopied).toBe(counts(src).vectors);
    expect(rep.embeddings.embedded).toBe(0);
    expect(counts(db).entities).toBe(counts(src).entities);
  }, 90_000);

  test("--pack with --source is a usage error", async () => {
    const r = await cli(["sync", "--pack", packGz, "--source", "open5e_v2"], await env("usage"));
    expect(r.code).toBe(64);
    expect(r.err).toContain("--pack loads a content pack instead of syncing");
  }, 30_000);
});
