/** Equal scores: the core SRD entry ranks above a look-alike from another book (search/rank/page.ts). */
import { afterAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { rankedPage, tiesPreferred } from "../../src/search/rank/page.ts";
import { documentRank } from "../../src/entities/preference.ts";
import { openStore } from "../../src/store/db.ts";
import { replaceOrigin } from "../../src/store/entities.ts";
import { contentType, raw, run } from "../entities/fixtures.ts";
import { makeTempDir } from "../support/tmp.ts";

describe("tiesPreferred", () => {
  test("reorders equal scores only, by rank; keeps score-1 hits and every other order", () => {
    const xs = [
      { id: "a", s: 1, r: 5 },
      { id: "b", s: 1, r: 0 },
      { id: "c", s: 0.8, r: 3 },
      { id: "d", s: 0.8, r: 1 },
      { id: "e", s: 0.8, r: 1 },
      { id: "f", s: 0.5, r: 0 },
    ];
    expect(
      tiesPreferred(
        xs,
        (x) => x.s,
        (x) => x.r,
      ).map((x) => x.id),
    ).toEqual(["a", "b", "d", "e", "c", "f"]);
  });
});

describe("rankedPage with tied scores", () => {
  const tmp = makeTempDir("lk-ties-");
  afterAll(() => tmp.cleanup());
  const store = openStore({ path: join(tmp.dir, "ties.db") });
  afterAll(() => store.close());
  const t = contentType("open5e_v2", "creatures");
  const goblin = raw("open5e/v2/creatures.json", "srd_goblin");
  const core = run(t, [goblin]).entities[0]!;
  const lookAlike = run(t, [
    {
      ...goblin,
      key: "tob_goblin-raider",
      name: "Goblin Raider",
      document: { ...goblin.document, key: "tob", name: "Tome of Beasts" },
    },
  ]).entities[0]!;
  replaceOrigin(store.db, "test", [lookAlike, core]);
  const id = (key: string) =>
    store.db.query<{ id: number }, [string]>("SELECT id FROM entities WHERE key = ?").get(key)!.id;
  const spec = (collapse: boolean) => ({ offset: 0, limit: 10, collapse, rank: documentRank(), withText: false });

  for (const collapse of [true, false]) {
    test(`the SRD creature first on a tie, the better score first otherwise (collapse ${collapse})`, () => {
      const names = (fused: { id: number; score: number }[]) =>
        rankedPage(store.db, () => true, fused, spec(collapse)).hits.map((h) => h.entity.name);
      expect(
        names([
          { id: id("tob_goblin-raider"), score: 0.5 },
          { id: id("srd_goblin"), score: 0.5 },
        ]),
      ).toEqual(["Goblin", "Goblin Raider"]);
      expect(
        names([
          { id: id("tob_goblin-raider"), score: 0.6 },
          { id: id("srd_goblin"), score: 0.5 },
        ]),
      ).toEqual(["Goblin Raider", "Goblin"]);
    });
  }
});
