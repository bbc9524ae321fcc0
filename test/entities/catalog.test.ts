/**
 * The kind catalog against real data: every source synced (fake upstream over the trimmed real
 * fixtures) plus an OrcBrew pack imported into one store; every value the store holds in a
 * vocabulary column must lie inside the tool enum the catalog gives that column. A normalizer that
 * stores a value the tools cannot ask for fails here instead of silently matching nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { loadConfig } from "../../src/config.ts";
import { CATALOG_KINDS, KINDS } from "../../src/entities/catalog.ts";
import { FILTER_PARAMS } from "../../src/entities/filters.ts";
import { ENTITY_KINDS } from "../../src/entities/types.ts";
import { importOrcbrewFile } from "../../src/ingest/import-orcbrew.ts";
import { runSync, SYNC_SOURCES } from "../../src/ingest/sync.ts";
import { HttpClient } from "../../src/sources/http.ts";
import { openStore, type Store } from "../../src/store/db.ts";
import { startFakeUpstream, type FakeUpstream } from "../support/fake-upstream.ts";
import { makeTempDir } from "../support/tmp.ts";
import { upstreamsAt } from "../../src/sources/index.ts";

const FIXTURES = join(import.meta.dir, "..", "fixtures");

describe("kind catalog", () => {
  test("lists every kind once, with a label and a tool type", () => {
    expect([...CATALOG_KINDS].sort()).toEqual([...ENTITY_KINDS].sort());
    const labels = CATALOG_KINDS.map((k) => KINDS[k].label);
    expect(new Set(labels).size).toBe(labels.length);
  });
});

describe("stored vocabulary values lie inside their tool enums", () => {
  let fake: FakeUpstream;
  let tmp: ReturnType<typeof makeTempDir>;
  let store: Store;
  beforeAll(async () => {
    fake = await startFakeUpstream({ dataDir: join(FIXTURES, "upstream") });
    tmp = makeTempDir();
    store = openStore({ path: join(tmp.dir, "lk.db") });
    const config = { ...loadConfig(), ...upstreamsAt(fake.url), httpRetries: 0 };
    const report = await runSync(store, {
      sources: SYNC_SOURCES,
      config,
      force: true,
      http: new HttpClient({ retries: 0 }),
    });
    expect(
      report.results.filter((r) => r.status === "failed").map((r) => `${r.source}:${r.contentType} ${r.error}`),
    ).toEqual([]);
    expect(importOrcbrewFile(store.db, join(FIXTURES, "orcbrew", "all-types.orcbrew")).imported).toBeGreaterThan(0);
  }, 60_000); // every source synced from the fake upstream: more than Bun's 5 s default on a loaded machine
  afterAll(async () => {
    store?.close();
    tmp?.cleanup();
    await fake.stop();
  });

  // Every (kind, column, vocabulary) of a single-value vocabulary parameter.
  const vocabularyColumns = FILTER_PARAMS.flatMap(({ input, column }) =>
    input.type === "vocab" ? column.kinds.map((kind) => ({ kind, column: column.column, values: input.values })) : [],
  );
  for (const { kind, column, values } of vocabularyColumns) {
    test(`${kind}.${column}`, () => {
      const rows = store.db
        .query<{ v: string }, [string]>(
          `SELECT DISTINCT ${column} AS v FROM entities WHERE kind = ? AND ${column} IS NOT NULL`,
        )
        .all(kind);
      // List columns are stored as "|a|b|".
      const stored = [...new Set(rows.flatMap((r) => r.v.split("|").filter(Boolean)))];
      expect(stored.length).toBeGreaterThan(0); // the fixtures exercise every vocabulary column
      const allowed = new Set(values.map((v) => v.toLowerCase()));
      expect({ kind, column, outside: stored.filter((v) => !allowed.has(v.toLowerCase())) }).toEqual({
        kind,
        column,
        outside: [],
      });
    });
  }
});
