/** `lorekeeper doctor` says when a store's core creatures, spells, items or rules lack their plain-words profile. */
import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { profilesCheck } from "../../src/cli/commands/doctor.ts";
import { openStore } from "../../src/store/db.ts";
import { replaceOrigin } from "../../src/store/entities.ts";
import { PROFILE_GROUPS, profileCoverage } from "../../src/store/profiles.ts";
import { contentType, run } from "../entities/fixtures.ts";
import { makeTempDir } from "../support/tmp.ts";

const tmp = makeTempDir("lk-doctor-profiles-");
afterAll(() => tmp.cleanup());

const TYPES = ["creatures", "spells", "magicitems", "rulesets"];

function storeWith(name: string): string {
  const path = join(tmp.dir, name);
  const store = openStore({ path });
  try {
    for (const t of TYPES) replaceOrigin(store.db, `open5e_v2:${t}`, run(contentType("open5e_v2", t)).entities);
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
      store.db.run(
        "UPDATE entities SET data = json_remove(data, '$.profile', " +
          "'$.common_names') WHERE kind = 'creature' AND name IN ('Goblin', 'Wraith')",
      );
      const c = profileCoverage(store.db);
      expect(c.core - c.withProfile).toBe(2);
      expect(c.lacking).toEqual(["Goblin", "Wraith"]);
    } finally {
      store.close();
    }
    const check = profilesCheck(path);
    expect(check?.status).toBe("warn");
    expect(check?.summary).toContain("none for Goblin, Wraith");
    expect(check?.fix).toContain("lorekeeper sync --types creature --force");
  });

  test("spells, magic items and rules the same way: ok, then the rows that lost theirs", () => {
    const path = storeWith("kinds.db");
    const groups = PROFILE_GROUPS.filter((g) => g.label !== "creatures");
    for (const g of groups) {
      const check = profilesCheck(path, g);
      expect(check?.status).toBe("ok");
      expect(check?.summary).toMatch(new RegExp(`^(\\d+) of \\1 core ${g.label} `));
    }
    const store = openStore({ path });
    try {
      const lose = "UPDATE entities SET data = json_remove(data, '$.profile') WHERE";
      store.db.run(`${lose} kind = 'spell' AND name = 'Fireball'`);
      store.db.run(`${lose} kind = 'magic_item' AND name = 'Dwarven Thrower'`);
      store.db.run(`${lose} kind = 'rule' AND name = 'Falling'`);
    } finally {
      store.close();
    }
    const want: Record<string, [string, string]> = {
      spells: ["Fireball", "--types spell --force"],
      "magic items": ["Dwarven Thrower", "--types magic_item,item --force"],
      rules: ["Falling", "--types rule,rule_section --force"],
    };
    for (const g of groups) {
      const check = profilesCheck(path, g)!;
      expect(check.status).toBe("warn");
      expect(check.name).toBe(`${g.label.replace(/s$/, "")} profiles`);
      expect(check.summary).toContain(`none for ${want[g.label]![0]}:`);
      expect(check.fix).toContain(want[g.label]![1]);
    }
    // A core rule this version has no profile for is not counted as lacking one.
    const ro = openStore({ path, readonly: true });
    try {
      const rules = profileCoverage(ro.db, PROFILE_GROUPS.find((g) => g.label === "rules")!);
      const rows = ro.db
        .query<{ n: number }, []>("SELECT count(*) AS n FROM entities WHERE kind IN ('rule', 'rule_section')")
        .get()!.n;
      expect(rules.lacking).toEqual(["Falling"]);
      expect(rules.core).toBeLessThan(rows);
    } finally {
      ro.close();
    }
  });

  test("says nothing about a store without core creatures, or no store", () => {
    const path = join(tmp.dir, "empty.db");
    openStore({ path }).close();
    expect(profilesCheck(path)).toBeUndefined();
    expect(profilesCheck(join(tmp.dir, "missing.db"))).toBeUndefined();
  });
});
