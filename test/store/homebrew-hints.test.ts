/**
 * The way back from a damaged or missing store names both homebrew formats: the files to
 * re-import (OrcBrew and 5etools, as the store recorded them), the hints, and the server
 * instructions' list of content.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { repairStore } from "../../src/cli/repair.ts";
import { importHomebrewFile } from "../../src/ingest/import-5etools.ts";
import { importOrcbrewFile } from "../../src/ingest/import-orcbrew.ts";
import { SERVER_INSTRUCTIONS } from "../../src/server/mcp.ts";
import { openStore, rebuildHint } from "../../src/store/db.ts";
import { importedHomebrewFiles } from "../../src/store/repair.ts";
import { makeTempDir } from "../support/tmp.ts";

const FIXTURES = join(import.meta.dir, "../fixtures");
let tmp: ReturnType<typeof makeTempDir>;

beforeAll(() => {
  tmp = makeTempDir("lk-homebrew-hints-");
});
afterAll(() => tmp.cleanup());

test("importedHomebrewFiles lists the 5etools files as well as the OrcBrew ones", () => {
  const brew = join(tmp.dir, "all-types.orcbrew");
  const tools = join(tmp.dir, "ember-forge.json");
  copyFileSync(join(FIXTURES, "orcbrew/all-types.orcbrew"), brew);
  copyFileSync(join(FIXTURES, "5etools/ember-forge.json"), tools);
  const path = join(tmp.dir, "lk.db");
  const store = openStore({ path });
  try {
    expect(importOrcbrewFile(store.db, brew).ok).toBe(true);
    expect(importHomebrewFile(store.db, tools).ok).toBe(true);
  } finally {
    store.close();
  }
  expect(importedHomebrewFiles(path)).toEqual([brew, tools].sort());
});

test("the hints for a damaged or missing store name 5etools .json files too", () => {
  expect(rebuildHint("/x/lk.db")).toContain(".json");
  const none = repairStore(join(tmp.dir, "nothing-here.db"));
  expect(none.outcome).toBe("no-store");
  expect(none.next.join("\n")).toMatch(/lorekeeper import <file\.orcbrew \| file\.json>/);
});

test("the server instructions name both homebrew formats and the newer tools, and stay short", () => {
  expect(SERVER_INSTRUCTIONS).toContain("5etools");
  expect(SERVER_INSTRUCTIONS).toContain("compare_editions");
  expect(SERVER_INSTRUCTIONS).toContain("roll_odds");
  // Sent at every start-up: a margin over today's ~2,050 characters, not room for a manual.
  expect(SERVER_INSTRUCTIONS.length).toBeLessThan(2_300);
});
