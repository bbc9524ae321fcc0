/**
 * Hardening, server options: `serve --prefer-documents __proto__` (or `constructor`)
 * stopped with "s.replace is not a function" (the document-alias table answered with Object's
 * own members); `LOREKEEPER_RESPONSE_BUDGET_CHARS=0` was accepted and emptied every list answer.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { ConfigError, loadConfig, RESPONSE_BUDGET_RANGE } from "../../src/config.ts";
import { documentRank, normalizePreference } from "../../src/entities/preference.ts";
import { resolveDocumentKey } from "../../src/entities/normalize/documents.ts";
import { openStore } from "../../src/store/db.ts";
import { replaceOrigin } from "../../src/store/entities.ts";
import { sampleEntities } from "../support/entities.ts";
import { connectStdio, isolatedEnv, namesOf } from "../support/mcp.ts";
import { makeTempDir } from "../support/tmp.ts";
import { expectCleanFailure, runCli } from "./store-health.ts";

let tmp: ReturnType<typeof makeTempDir>;
let env: Record<string, string>;
let db: string;

beforeAll(async () => {
  tmp = makeTempDir("lk-serve-options-");
  env = await isolatedEnv(tmp.dir);
  db = join(tmp.dir, "lk.db");
  const store = openStore({ path: db });
  replaceOrigin(
    store.db,
    "open5e_v2:spells",
    sampleEntities().filter((e) => e.kind === "spell"),
    [],
  );
  store.close();
});

afterAll(() => tmp.cleanup());

describe("--prefer-documents with the names of Object's members", () => {
  test("they are document keys like any other: no alias, a rank, valid SQL", () => {
    for (const k of ["__proto__", "constructor", "toString", "hasOwnProperty"]) {
      expect(resolveDocumentKey(k)).toBe(k.toLowerCase());
    }
    const keys = normalizePreference(["__proto__", "constructor", "srd-5e"]);
    expect(keys).toEqual(["__proto__", "constructor", "srd-2014"]);
    const rank = documentRank(["__proto__", "constructor"]);
    expect(rank.sql).toContain("WHEN '__proto__' THEN 0");
    expect(rank({ document_key: "srd-2024", document_source: "open5e_v2" })).toBe(2);
  });

  test("serve --prefer-documents __proto__,constructor starts and answers", async () => {
    const conn = await connectStdio(["serve", "--prefer-documents", "__proto__,constructor", "--db-path", db], env);
    try {
      const r = await conn.client.callTool({ name: "search_spell", arguments: { name: "Fireball" } });
      expect(r.isError).toBeFalsy();
      expect(namesOf(r)).toContain("Fireball");
      expect(conn.stderr()).not.toContain("is not a function");
    } finally {
      await conn.close();
    }
  }, 30_000);
});

describe("LOREKEEPER_RESPONSE_BUDGET_CHARS", () => {
  const withBudget = (value: string | undefined, run: () => void) => {
    const before = process.env.LOREKEEPER_RESPONSE_BUDGET_CHARS;
    if (value === undefined) delete process.env.LOREKEEPER_RESPONSE_BUDGET_CHARS;
    else process.env.LOREKEEPER_RESPONSE_BUDGET_CHARS = value;
    try {
      run();
    } finally {
      if (before === undefined) delete process.env.LOREKEEPER_RESPONSE_BUDGET_CHARS;
      else process.env.LOREKEEPER_RESPONSE_BUDGET_CHARS = before;
    }
  };

  test("0, negative, fractional, huge and non-numeric values are refused, naming the variable and the range", () => {
    for (const bad of ["0", "-5", "1999", "2500.5", "1e9", "abc", "Infinity"]) {
      withBudget(bad, () => {
        let err: unknown;
        try {
          loadConfig();
        } catch (e) {
          err = e;
        }
        expect(err).toBeInstanceOf(ConfigError);
        expect((err as ConfigError).message).toContain(`LOREKEEPER_RESPONSE_BUDGET_CHARS="${bad}"`);
        expect((err as ConfigError).message).toContain("whole number from 2,000 to 1,000,000");
      });
    }
  });

  test("values in range, and unset or blank (the default), are taken", () => {
    withBudget("2000", () => expect(loadConfig().responseBudgetChars).toBe(2000));
    withBudget(" 120000 ", () => expect(loadConfig().responseBudgetChars).toBe(120_000));
    withBudget("", () => expect(loadConfig().responseBudgetChars).toBe(RESPONSE_BUDGET_RANGE.fallback));
    withBudget(undefined, () => expect(loadConfig().responseBudgetChars).toBe(RESPONSE_BUDGET_RANGE.fallback));
  });

  test("serve with LOREKEEPER_RESPONSE_BUDGET_CHARS=0 exits 64 with the reason, before serving", async () => {
    const all = { ...(process.env as Record<string, string>), ...env, LOREKEEPER_RESPONSE_BUDGET_CHARS: "0" };
    const r = await runCli(["serve", "--db-path", db], all);
    expectCleanFailure(r);
    expect(r.code).toBe(64);
    expect(r.stderr).toContain('lorekeeper serve: LOREKEEPER_RESPONSE_BUDGET_CHARS="0" is out of range');
    expect(r.stdout).toBe("");
  }, 20_000);
});
