/**
 * Hardening, the store: a `meta.schema_version` deleted or made unreadable by hand (every
 * command then said "table entities already exists, run doctor" while doctor said all was well),
 * and `--db-path` pointed at another application's SQLite file (LoreKeeper silently added its
 * tables to it). Doctor names the first and `doctor --repair` (or any write) records the version
 * again from the tables themselves; the second is refused, untouched.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { cpSync } from "node:fs";
import { join } from "node:path";
import { inferSchemaVersion, openStore } from "../../src/store/db.ts";
import { getMeta } from "../../src/store/schema.ts";
import { replaceOrigin } from "../../src/store/entities.ts";
import { SCHEMA_VERSION } from "../../src/store/schema.ts";
import { sampleEntities } from "../support/entities.ts";
import { makeTempDir } from "../support/tmp.ts";
import { cliEnv, expectCleanFailure, runCli } from "./store-health.ts";

interface DoctorJson {
  ok: boolean;
  checks: Array<{ name: string; status: string; summary: string; fix?: string }>;
  repair?: { outcome: string; steps: string[] };
}

const tmp = makeTempDir("lk-tampered-");
const template = join(tmp.dir, "template.db");
let n = 0;

beforeAll(() => {
  const s = openStore({ path: template });
  replaceOrigin(
    s.db,
    "open5e_v2:spells",
    sampleEntities().filter((e) => e.kind === "spell"),
    [],
  );
  s.db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  s.close();
});

afterAll(() => tmp.cleanup());

function tampered(sql: string): string {
  const path = join(tmp.dir, `case-${++n}.db`);
  cpSync(template, path);
  const db = new Database(path);
  db.exec(sql);
  db.close();
  return path;
}

const env = () => cliEnv(join(tmp.dir, `home-${++n}`));

describe("a missing or unreadable schema version", () => {
  for (const [what, sql] of [
    ["deleted", "DELETE FROM meta WHERE key='schema_version'"],
    ["-1", "UPDATE meta SET value='-1' WHERE key='schema_version'"],
    ["abc", "UPDATE meta SET value='abc' WHERE key='schema_version'"],
  ] as const) {
    test(`${what}: doctor names it, doctor --repair records it again, ` +
      `and the commands work (was: "table entities already exists")`, async () => {
      const path = tampered(sql);
      const e = env();
      const doctor = await runCli(["doctor", "--offline", "--json", "--db-path", path], e);
      const report = JSON.parse(doctor.stdout) as DoctorJson;
      const store = report.checks.find((c) => c.name === "store")!;
      expect(store.status).toBe("fail");
      expect(store.summary).toContain("schema_version");
      expect(store.summary).toContain(`schema ${SCHEMA_VERSION}`);
      expect(store.fix).toContain("doctor --repair");
      expect(doctor.code).toBe(1);

      const repaired = await runCli(["doctor", "--repair", "--offline", "--json", "--db-path", path], e);
      const after = JSON.parse(repaired.stdout) as DoctorJson;
      expect(after.repair?.steps.join("\n")).toContain("schema_version");
      expect(after.checks.find((c) => c.name === "store")!.status).not.toBe("fail");
      const db = new Database(path, { readonly: true });
      expect(getMeta(db, "schema_version")).toBe(String(SCHEMA_VERSION));
      db.close();

      // Without the repair, the commands work on such a store (and record the version as they open it).
      const other = tampered(sql);
      const docs = await runCli(["documents", "--db-path", other], e);
      expect(docs.stderr).not.toContain("already exists");
      expect(docs.code).toBe(0);
    }, 30_000);
  }

  test("opening for writing records the version the tables show, and keeps every row", () => {
    const path = tampered("DELETE FROM meta WHERE key='schema_version'");
    const s = openStore({ path });
    try {
      expect(getMeta(s.db, "schema_version")).toBe(String(SCHEMA_VERSION));
      expect(inferSchemaVersion(s.db)).toBe(SCHEMA_VERSION);
      expect(s.db.query<{ n: number }, []>("SELECT count(*) AS n FROM entities").get()!.n).toBeGreaterThan(0);
    } finally {
      s.close();
    }
  });
});

describe("another application's database", () => {
  test("a non-empty SQLite file that is not a LoreKeeper store " +
    "is refused and left untouched (was: ~20 tables added)", async () => {
    const path = join(tmp.dir, "other-app.db");
    const db = new Database(path);
    db.exec("CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT); INSERT INTO customers(name) VALUES ('Ada');");
    db.close();
    const tables = () => {
      const d = new Database(path, { readonly: true });
      const t = d
        .query<{ name: string }, []>("SELECT name FROM sqlite_master ORDER BY name")
        .all()
        .map((r) => r.name);
      d.close();
      return t;
    };
    expect(() => openStore({ path })).toThrow(/not a LoreKeeper store.*customers/);
    const e = env();
    for (const args of [
      ["sync", "--db-path", path],
      ["documents", "--db-path", path],
      ["search", "fire", "--db-path", path],
    ]) {
      const r = await runCli(args, e);
      expectCleanFailure(r);
      expect(r.stderr).toContain("not a LoreKeeper store");
    }
    expect(tables()).toEqual(["customers"]);
  }, 30_000);

  test("an empty SQLite file still becomes a store", () => {
    const path = join(tmp.dir, "empty.db");
    new Database(path).close();
    const s = openStore({ path });
    expect(getMeta(s.db, "schema_version")).toBe(String(SCHEMA_VERSION));
    s.close();
  });
});
