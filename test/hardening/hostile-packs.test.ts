/**
 * Hostile content packs: a good pack edited the way an attacker (or a broken tool) would, then
 * loaded. Each is refused with its first reason, naming the real cause, before anything is
 * written (the store's rows are byte-for-byte those it had), or, for documents, loaded under the
 * import rules (controls stripped, the SRDs' names reserved even in an empty store, homebrew
 * labelled and under a key of its own). Also: a `.orcbrew`
 * that holds a pack, checksum files that exist but hold no digest, and what an interrupted load
 * leaves behind.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { loadConfig } from "../../src/config.ts";
import { writePackFile } from "../../src/ingest/pack-file.ts";
import { loadPackInto } from "../../src/ingest/pack.ts";
import { createEmbedderProvider } from "../../src/search/model/embedder.ts";
import type { EmbedderProvider } from "../../src/search/types.ts";
import { openStore } from "../../src/store/db.ts";
import { runDoctor } from "../../src/cli/commands/doctor.ts";
import { fivetoolsDocumentKey } from "../../src/sources/5etools/normalize/file.ts";
import { orcbrewDocumentKey } from "../../src/sources/orcbrew/normalize/pack.ts";
import { makePackStore } from "../binary/pack-fixture.ts";
import { createTinyModel } from "../support/tiny-model.ts";
import { makeTempDir } from "../support/tmp.ts";
import { cliEnv, expectCleanFailure, runCli } from "./store-health.ts";

const tmp = makeTempDir("lk-hostile-packs-");
let model: string;
let good: string;
let provider: EmbedderProvider;
const noModel: EmbedderProvider = {
  state: () => "unavailable" as never,
  get: async () => null,
  reason: () => "no model in this test",
};

beforeAll(async () => {
  model = await createTinyModel(join(tmp.dir, "model"));
  good = (await makePackStore(join(tmp.dir, "good.db"), model)).path;
  provider = createEmbedderProvider({ modelDir: model, embeddedDir: null, allowDownload: false });
}, 60_000);
afterAll(() => tmp.cleanup());

let n = 0;
/** A copy of the good pack with `sql` applied to it. */
function hostile(sql: string | ((db: Database) => void)): string {
  const path = join(tmp.dir, `hostile-${++n}.db`);
  copyFileSync(good, path);
  const db = new Database(path);
  try {
    if (typeof sql === "string") db.exec(sql);
    else sql(db);
  } finally {
    db.close();
  }
  return path;
}

/** A store that already holds the good pack, and what its rows are. */
async function loadedStore(): Promise<{ path: string; rows: () => string }> {
  const path = join(tmp.dir, `store-${++n}.db`);
  const store = openStore({ path });
  try {
    await loadPackInto(store, good, provider);
  } finally {
    store.close();
  }
  const rows = () => {
    const d = new Database(path, { readonly: true });
    try {
      return JSON.stringify(
        ["entities", "vectors", "documents", "meta"].map((t) => d.query(`SELECT * FROM ${t} ORDER BY 1, 2`).all()),
      );
    } finally {
      d.close();
    }
  };
  return { path, rows };
}

/**
 * Load `pack` into a store holding the good pack: refused with a message matching `why`, store
 * untouched, nothing left behind.
 */
async function refused(pack: string, why: RegExp, p: EmbedderProvider = provider): Promise<string> {
  const { path, rows } = await loadedStore();
  const before = rows();
  const store = openStore({ path });
  let message = "";
  try {
    await loadPackInto(store, pack, p).then(
      () => {
        throw new Error("the hostile pack was loaded");
      },
      (err: unknown) => {
        const e = err as { code?: string; message: string; hint?: string };
        expect(e.code).toBe("pack");
        message = e.message;
      },
    );
  } finally {
    store.close();
  }
  expect(message).toMatch(why);
  expect(message).toContain("nothing was written");
  expect(rows()).toBe(before);
  expect(readdirSync(tmp.dir).filter((f) => f.includes(".pack-"))).toEqual([]);
  return message;
}

describe("a pack is checked whole before anything is written", () => {
  test("malformed entity JSON (and data null) is refused, naming the entity; nothing half-written", async () => {
    await refused(
      hostile("UPDATE entities SET data = '{not json' WHERE name = 'Fireball'"),
      /the spell "Fireball" \("srd_fireball"\): its data is not JSON/,
    );
    await refused(
      hostile("UPDATE entities SET data = 'null' WHERE name = 'Wraith'"),
      /the creature "Wraith".*its data is null, not an object/,
    );
    await refused(
      hostile("UPDATE entities SET kind = 'spaceship' WHERE name = 'Shield'"),
      /kind "spaceship" is not one LoreKeeper knows/,
    );
    await refused(
      hostile("UPDATE entities SET name = x'4142' WHERE name = 'Shield'"),
      /its `name` is a blob, not text/,
    );
  }, 30_000);

  test("data of the wrong shape for its kind is refused, naming the kind, the key and the field", async () => {
    await refused(
      hostile("UPDATE entities SET data = '{}' WHERE name = 'Fireball'"),
      /the spell "Fireball" \("srd_fireball"\): its data is not a spell's: `level` is missing/,
    );
    await refused(
      hostile(`UPDATE entities SET data = json_set(data, '$.level', 'x') WHERE name = 'Fireball'`),
      /the spell "Fireball" \("srd_fireball"\): its data is not a spell's: `level` is "x", expected a number/,
    );
    await refused(
      hostile(`UPDATE entities SET data = json_set(data, '$.actions', 'bite') WHERE name = 'Wraith'`),
      /the creature "Wraith" \("srd_wraith"\): its data is not a creature's: `actions` is "bite", expected a list/,
    );
    await refused(
      hostile(
        `UPDATE entities SET data = json_set(data, '$.actions', json('[{"name": "Touch"}]')) WHERE name = 'Wraith'`,
      ),
      /the creature "Wraith".*`actions\.0\.desc` is missing/,
    );
    await refused(
      hostile(`UPDATE entities SET data = json_set(data, '$.components.verbal', 'yes') WHERE name = 'Shield'`),
      /the spell "Shield".*`components\.verbal` is "yes", expected true or false/,
    );
  }, 30_000);

  test("through the CLI (gzipped, as the repro): exit 1, the cause named, no stack trace", async () => {
    const gz = join(tmp.dir, "bad-json", "lorekeeper-content.db.gz");
    Bun.spawnSync(["mkdir", "-p", join(tmp.dir, "bad-json")]);
    await writePackFile(hostile("UPDATE entities SET data = '{not json' WHERE name = 'Fireball'"), gz);
    const r = await runCli(
      ["sync", "--pack", gz, "--db-path", join(tmp.dir, "cli.db")],
      cliEnv(tmp.dir, { LOREKEEPER_MODEL_DIR: model }),
    );
    expectCleanFailure(r);
    expect(r.stderr).toMatch(/"Fireball".*data is not JSON.*nothing was written/);
    expect(r.stderr).not.toContain("content types loaded");
  }, 30_000);

  test("vectors: wrong size, all zeros, not finite, an absurd embedding_dim", async () => {
    await refused(
      hostile("UPDATE vectors SET vector = zeroblob(100)"),
      /is 100 bytes; .* makes vectors of \d+ dimensions/,
    );
    await refused(hostile("UPDATE vectors SET vector = zeroblob(length(vector))"), /is all zeros/);
    const nan = hostile((db) => {
      const bytes = new Uint8Array(db.query<{ v: Uint8Array }, []>("SELECT vector AS v FROM vectors LIMIT 1").get()!.v);
      new DataView(bytes.buffer).setFloat32(8, Number.NaN, true);
      db.query("UPDATE vectors SET vector = ? WHERE entity_id = (SELECT min(entity_id) FROM vectors)").run(bytes);
    });
    await refused(nan, /holds NaN/);
    const huge = hostile("UPDATE meta SET value = '1000000000' WHERE key = 'embedding_dim'");
    await refused(huge, /claims 1000000000 dimensions/);
    // With no model here, the pack's claim is all there is: still refused, never recorded.
    await refused(huge, /embedding dimension 1000000000 is not a model's/, noModel);
  }, 30_000);

  test("schema: a recursive view is refused at once, so are foreign triggers and retyped columns", async () => {
    const view = hostile(
      "DROP TABLE documents; CREATE VIEW documents AS " +
        "WITH RECURSIVE r(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM r) " +
        "SELECT 'open5e_v2' AS source, x AS key, 'n' AS name, NULL AS publisher, NULL AS license, NULL AS url, " +
        "NULL AS description, 0 AS updated_at FROM r",
    );
    await refused(view, /its `documents` is a view, not a table/);
    await refused(
      hostile("CREATE TRIGGER wipe AFTER INSERT ON meta BEGIN DELETE FROM entities; END"),
      /trigger \("wipe"\) that this version of LoreKeeper does not make/,
    );
    await refused(
      hostile(
        "ALTER TABLE vectors RENAME TO old_vectors; " +
          "CREATE TABLE vectors (entity_id INTEGER PRIMARY KEY, model_id TEXT NOT NULL, content_hash TEXT NOT NULL, " +
          "vector TEXT NOT NULL); INSERT INTO vectors SELECT * FROM old_vectors; DROP TABLE old_vectors",
      ),
      /vectors\.vector column is TEXT, not BLOB/,
    );
  }, 30_000);
});

describe("a pack's documents obey the import rules", () => {
  test("the SRD cannot be renamed (RLO, ESC, markup); homebrew reading as official is labelled", async () => {
    const { path } = await loadedStore();
    const store = openStore({ path });
    store.db
      .query(
        "INSERT INTO documents (source, key, name, updated_at) " +
          "VALUES ('open5e_v2', 'srd-2024', 'System Reference Document 5.2', 0)",
      )
      .run();
    store.close();
    const pack = hostile((db) => {
      const doc = db.query("INSERT INTO documents (source, key, name, description, updated_at) VALUES (?, ?, ?, ?, 0)");
      doc.run(
        "open5e_v2",
        "srd-2024",
        "\u202eSystem \u001b[31mReference\u001b[0m <b>Document</b> 6",
        "fine\u0007 text",
      );
      doc.run("open5e_v2", "new-book", "New\u202e Book\u001b[2J", null);
      doc.run("orcbrew", "orcbrew-fake-srd", "System Reference Document 5.2", null);
      // A homebrew Fireball in a document named as the SRD.
      db.query(
        `INSERT INTO entities (origin, kind, key, name, slug, document_key, document_name, document_source,
           source_url, text, data, content_hash, updated_at)
         SELECT 'orcbrew:orcbrew-fake-srd', kind, 'fake_fireball', name, slug, 'orcbrew-fake-srd',
           'System Reference Document 5.2', 'orcbrew', source_url, text, data, 'x', 0
         FROM entities WHERE name = 'Fireball'`,
      ).run();
    });
    const s = openStore({ path });
    try {
      await loadPackInto(s, pack, provider);
      const doc = (source: string, key: string) =>
        s.db
          .query<{ name: string; description: string | null }, [string, string]>(
            "SELECT name, description FROM documents WHERE source = ? AND key = ?",
          )
          .get(source, key);
      expect(doc("open5e_v2", "srd-2024")?.name).toBe("System Reference Document 5.2");
      expect(doc("open5e_v2", "srd-2024")?.description).toBe("fine text");
      expect(doc("open5e_v2", "new-book")?.name).toBe("New Book[2J");
      expect(doc("orcbrew", "orcbrew-fake-srd")?.name).toBe("System Reference Document 5.2 (homebrew)");
      const brew = s.db
        .query<{ document_name: string }, []>("SELECT document_name FROM entities WHERE key = 'fake_fireball'")
        .get();
      expect(brew?.document_name).toBe("System Reference Document 5.2 (homebrew)");
    } finally {
      s.close();
    }
  }, 30_000);
});

describe("official document names are reserved, even in an empty store", () => {
  test("the SRDs get their own names (documents and every entity), whatever the pack calls them", async () => {
    const pack = hostile((db) => {
      const doc = db.query("INSERT INTO documents (source, key, name, updated_at) VALUES (?, ?, ?, 0)");
      doc.run("open5e_v2", "srd-2024", "Totally Official SRD");
      doc.run("dnd5e_api", "srd-2014", "\u202eSystem <b>Reference</b> \u001b[31mDocument\u001b[0m 9");
      // Fireball moves to SRD 5.2 under the pack's name for it; every other row keeps SRD 5.1's key
      // (which has no document row here) under a name of the pack's own.
      db.exec(
        "UPDATE entities SET document_key = 'srd-2024', document_name " +
          "= 'Totally Official SRD' WHERE name = 'Fireball'; " +
          "UPDATE entities SET document_name = 'Totally Official SRD' WHERE name <> 'Fireball'",
      );
    });
    const path = join(tmp.dir, `empty-${++n}.db`);
    const s = openStore({ path });
    try {
      await loadPackInto(s, pack, provider);
      const docs = s.db.query("SELECT source, key, name FROM documents ORDER BY source, key").all();
      expect(docs).toEqual([
        { source: "dnd5e_api", key: "srd-2014", name: "System Reference Document 5.1" },
        { source: "open5e_v2", key: "srd-2024", name: "System Reference Document 5.2" },
      ]);
      const names = s.db
        .query(
          "SELECT document_key AS key, document_name AS name, count(*) AS n FROM entities GROUP BY 1, 2 ORDER BY 1",
        )
        .all();
      expect(names).toEqual([
        { key: "srd-2014", name: "System Reference Document 5.1", n: 5 },
        { key: "srd-2024", name: "System Reference Document 5.2", n: 1 },
      ]);
    } finally {
      s.close();
    }
  }, 30_000);

  test("homebrew under an API document's key is refused (an import's keys carry their source)", async () => {
    // The prefix the check asks for is the one the importers make.
    expect(orcbrewDocumentKey("System Reference Document 5.2")).toStartWith("orcbrew-");
    expect(fivetoolsDocumentKey("SRD")).toStartWith("5etools-");
    await refused(
      hostile(
        "UPDATE entities SET document_source = 'orcbrew', origin = 'orcbrew:srd-2024', document_key = 'srd-2024' " +
          "WHERE name = 'Fireball'",
      ),
      /the spell "Fireball".*its orcbrew document key "srd-2024" does not start with "orcbrew-"/,
    );
    await refused(
      hostile("INSERT INTO documents (source, key, name, updated_at) VALUES ('5etools', 'srd-2014', 'SRD', 0)"),
      /the document "SRD": its 5etools document key "srd-2014" does not start with "5etools-"/,
    );
  }, 30_000);
});

describe("import: name and content together", () => {
  test("a pack named .orcbrew (or .json) is refused, not loaded as a pack", async () => {
    const { path, rows } = await loadedStore();
    const before = rows();
    const disguised = join(tmp.dir, "totally-homebrew.orcbrew");
    copyFileSync(hostile("UPDATE entities SET text = 'Fireball. It tickles.' WHERE name = 'Fireball'"), disguised);
    const r = await runCli(["import", disguised, "--db-path", path], cliEnv(tmp.dir, { LOREKEEPER_MODEL_DIR: model }));
    expectCleanFailure(r);
    expect(r.stderr).toMatch(/named like an OrcBrew homebrew file \(\.orcbrew\) but holds a LoreKeeper content pack/);
    expect(r.stderr).toContain("sync --pack");
    expect(rows()).toBe(before);
    const json = join(tmp.dir, "homebrew.json");
    copyFileSync(disguised, json);
    const j = await runCli(["import", json, "--db-path", path], cliEnv(tmp.dir, { LOREKEEPER_MODEL_DIR: model }));
    expectCleanFailure(j);
    expect(j.stderr).toMatch(/named like a 5etools homebrew JSON file \(\.json\) but holds a LoreKeeper content pack/);
    expect(rows()).toBe(before);
  }, 30_000);
});

describe("checksums and leftovers", () => {
  test("a .sha256 that exists but holds garbage or a web page, or answers 500, is an error saying so", async () => {
    const { path } = await loadedStore();
    const local = join(tmp.dir, "with-bad-sum.db");
    copyFileSync(good, local);
    const store = openStore({ path });
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (req) => {
        const p = new URL(req.url).pathname;
        if (p.endsWith(".db")) return new Response(Bun.file(good));
        if (p === "/html/p.db.sha256")
          return new Response("<!doctype html><html>Not here</html>", { headers: { "content-type": "text/html" } });
        if (p === "/err/p.db.sha256") return new Response("oops", { status: 500 });
        return new Response("not found", { status: 404 });
      },
    });
    const why = async (src: string) =>
      loadPackInto(store, src, provider).then(
        () => "loaded",
        (e: Error) => e.message,
      );
    try {
      writeFileSync(`${local}.sha256`, "this is not a digest\n");
      expect(await why(local)).toMatch(
        /checksum .*with-bad-sum\.db\.sha256 exists but holds no SHA-256 digest \(it begins "this is not a digest"\)/,
      );
      writeFileSync(`${local}.sha256`, "<html><body>hi</body></html>");
      expect(await why(local)).toMatch(/holds no SHA-256 digest \(it is an HTML page\)/);
      const base = `http://127.0.0.1:${server.port}`;
      expect(await why(`${base}/html/p.db`)).toMatch(/exists but holds no SHA-256 digest \(it is an HTML page\)/);
      expect(await why(`${base}/err/p.db`)).toMatch(/could not be fetched: the server answered HTTP 500/);
      // Absent is still fine (404): loaded, relying on SQLite's own checks.
      expect(await why(`${base}/none/p.db`)).toBe("loaded");
    } finally {
      await server.stop(true);
      store.close();
    }
  }, 30_000);

  test("a download cut off by the server: the cause, without Bun's advice to pass `verbose: true`", async () => {
    const { path } = await loadedStore();
    const rude = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data: (s) => void s.end(), open: () => {} } });
    const store = openStore({ path });
    try {
      const message = await loadPackInto(
        store,
        `http://127.0.0.1:${rude.port}/lorekeeper-content.db.gz`,
        provider,
      ).then(
        () => "loaded",
        (e: Error) => e.message,
      );
      expect(message).toMatch(
        /^Cannot download the content pack from http:\/\/127\.0\.0\.1:\d+\/lorekeeper-content\.db\.gz: .*closed/,
      );
      expect(message).not.toContain("verbose");
    } finally {
      rude.stop(true);
      store.close();
    }
  }, 30_000);

  test("a database path in /proc names the real cause, not a missing table", () => {
    if (process.platform !== "linux") return;
    for (const p of ["/proc/version", "/proc/self/lorekeeper.db"]) {
      expect(() => openStore({ path: p, fallbackReadonly: true })).toThrow(
        /cannot hold the LoreKeeper database: it is on a file system the kernel makes up/,
      );
    }
  });

  test("a store such packs wrote: doctor names bad rows and vectors; --repair recomputes them", async () => {
    const { path } = await loadedStore();
    const raw = new Database(path);
    raw.exec(
      "UPDATE entities SET data = '{not json' WHERE name = 'Fireball'; " +
        "UPDATE entities SET data = 'null' WHERE name = 'Wraith'",
    );
    raw.exec(
      "UPDATE vectors SET vector = zeroblob(100) " +
        "WHERE entity_id IN (SELECT id FROM entities WHERE name IN ('Shield', 'Ice Storm'))",
    );
    raw.exec(
      "UPDATE vectors SET vector = zeroblob(length(vector)) " +
        "WHERE entity_id = (SELECT id FROM entities WHERE name = 'Cure Wounds')",
    );
    raw.close();
    const cfg = { ...loadConfig(), modelDir: model };
    const report = await runDoctor(cfg, () => provider, { dbPath: path, offline: true });
    const store = report.checks.find((c) => c.name === "store");
    expect(store?.status).toBe("fail");
    expect(store?.summary).toMatch(/2 entities hold data that is not a JSON object \(.*spell "Fireball".*\)/);
    expect(store?.fix).toContain("sync --force");
    expect(report.checks.find((c) => c.name === "embeddings")?.summary).toMatch(/^3 stored vectors of .* are unusable/);
    const repaired = await runDoctor(cfg, () => provider, { dbPath: path, offline: true, repair: true });
    expect(repaired.repair?.steps.join("\n")).toMatch(
      /removed 3 unusable vectors.*\n.*rebuilt the vector index from the 3 stored vectors[\s\S]*computed the 3 missing/,
    );
    expect(repaired.checks.find((c) => c.name === "embeddings")?.status).toBe("ok");
  }, 60_000);

  test("an interrupted load's copy: doctor reports it, --repair removes it, a live load's own stays", async () => {
    const { path } = await loadedStore();
    const dead = `${path}.pack-999999-1.db`;
    const mine = `${path}.pack-${process.pid}-1.db`;
    writeFileSync(dead, new Uint8Array(4096));
    writeFileSync(`${dead}-journal`, "x");
    writeFileSync(mine, "x");
    const cfg = { ...loadConfig(), modelDir: model };
    const embedder = () => provider;
    const report = await runDoctor(cfg, embedder, { dbPath: path, offline: true });
    const check = report.checks.find((c) => c.name === "pack leftovers");
    expect(check?.status).toBe("warn");
    expect(check?.summary).toContain(dead);
    expect(check?.summary).not.toContain(mine);
    const repaired = await runDoctor(cfg, embedder, { dbPath: path, offline: true, repair: true });
    expect(repaired.repair?.steps.join("\n")).toContain(`removed ${dead}, left by an interrupted content pack load`);
    expect(existsSync(dead) || existsSync(`${dead}-journal`)).toBe(false);
    expect(existsSync(mine)).toBe(true);
    expect(repaired.checks.find((c) => c.name === "pack leftovers")).toBeUndefined();
  }, 60_000);
});
