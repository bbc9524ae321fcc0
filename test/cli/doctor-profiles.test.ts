/** `lorekeeper doctor` says when a store's core creatures lack their plain-words profile. */
import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { profilesCheck } from "../../src/cli/commands/doctor.ts";
import { openStore } from "../../src/store/db.ts";
import { replaceOrigin } from "../../src/store/entities.ts";
import { profileCoverage } from "../../src/store/profiles.ts";
import { contentType, run } from "../entities/fixtures.ts";
import { makeTempDir } from "../support/tmp.ts";

const tmp = makeTempDir("lk-doctor-profiles-");
afterAll(() => tmp.cleanup());

function storeWith(name: string): string {
  const path = join(tmp.dir, name);
  const store = openStore({ path });
  try {
    replaceOrigin(store.db, "open5e_v2:creatures", run(contentType("open5e_v2", "creatures")).entities);
  } finally {
    store.close();
  }
  return path;
}

describe("doctor: creature profiles", () => {
  test("ok when every core creature has its profile", () => {
    const check = profilesCheck(storeWith("full.db"));
    expect(check?.status).toBe("ok");
    expect(check?.summary).toMatch(/^(\d+) of \1 core creatures/);
  });

  test("warns, naming them, when rows were stored without one, with the fix", () => {
    const path = storeWith("old.db");
    const store = openStore({ path });
    try {
      // A row as an older LoreKeeper stored it: no profile in its data.
      store.db.run("UPDATE entities SET data = json_remove(data, '$.profile', '$.common_names') WHERE kind = 'creature' AND name IN ('Goblin', 'Wraith')");
      const c = profileCoverage(store.db);
      expect(c.core - c.withProfile).toBe(2);
      expect(c.lacking).toEqual(["Goblin", "Wraith"]);
    } finally {
      store.close();
    }
    const check = profilesCheck(path);
    expect(check?.status).toBe("warn");
    expect(check?.summary).toContain("none for Goblin, Wraith");
    expect(check?.fix).toContain("lorekeeper sync --types creatures --force");
  });

  test("says nothing about a store without core creatures, or no store", () => {
    const path = join(tmp.dir, "empty.db");
    openStore({ path }).close();
    expect(profilesCheck(path)).toBeUndefined();
    expect(profilesCheck(join(tmp.dir, "missing.db"))).toBeUndefined();
  });
});
