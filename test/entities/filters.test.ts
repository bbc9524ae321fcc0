/**
 * The filter table, through one of its entries: the creature `alignment` filter, read from the
 * stated alignment, in the tool, the CLI, prompt completion, the "why is this empty" hint, and in
 * a store written before the column existed (back-filled when it opens).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { searchCommand } from "../../src/cli/commands/search.ts";
import { loadConfig } from "../../src/config.ts";
import { alignmentWords } from "../../src/entities/derived.ts";
import { FILTER_PARAMS, paramsOfGroup } from "../../src/entities/filters.ts";
import type { Entity } from "../../src/entities/types.ts";
import { complete } from "../../src/server/features/completions.ts";
import { openStore, type Store } from "../../src/store/db.ts";
import { replaceOrigin } from "../../src/store/entities.ts";
import { dropLateIndexes, makeEntity } from "../support/entities.ts";
import { answerOf, connectInMemory, makeDeps, namesOf, textOf } from "../support/mcp.ts";
import { makeTempDir } from "../support/tmp.ts";

const words = (alignment: string) => alignmentWords({ alignment });

describe("alignment words", () => {
  test("a stated alignment gives its words; 'any X' opens the other axis; 'non-X' rules X out", () => {
    expect(words("Chaotic Evil")).toEqual(["chaotic", "evil"]);
    expect(words("neutral")).toEqual(["neutral"]);
    expect(words("lawful neutral or evil")).toEqual(["lawful", "neutral", "evil"]);
    expect(words("neutral good (50%) or neutral evil (50%)")).toEqual(["neutral", "good", "evil"]);
    expect(words("any evil alignment")).toEqual(["lawful", "neutral", "chaotic", "evil"]);
    expect(words("any chaotic alignment")).toEqual(["neutral", "chaotic", "good", "evil"]);
    expect(words("any non-good alignment")).toEqual(["lawful", "neutral", "chaotic", "evil"]);
    expect(words("any non-lawful alignment")).toEqual(["neutral", "chaotic", "good", "evil"]);
    expect(words("any alignment (as its creator deity)")).toEqual(["any"]);
    expect(words("Unaligned")).toEqual(["unaligned"]);
    expect(words("")).toEqual([]);
  });
});

function creature(name: string, alignment: string, type = "humanoid"): Entity {
  const e = makeEntity("creature", name, { cr: 1, creature_type: type, size: "medium" });
  e.data = { ...e.data, alignment };
  return e;
}

const CREATURES = [
  creature("Cultist", "any non-good alignment"),
  creature("Knight", "lawful good"),
  creature("Orc", "chaotic evil"),
  creature("Mule", "unaligned", "beast"),
  creature("Zombie", "neutral evil", "undead"),
];

describe("the alignment filter", () => {
  let tmp: ReturnType<typeof makeTempDir>;
  let store: Store;
  beforeAll(() => {
    tmp = makeTempDir();
    store = openStore({ path: join(tmp.dir, "lk.db") });
    replaceOrigin(store.db, "open5e_v2:creatures", CREATURES);
  });
  afterAll(() => {
    store.close();
    tmp.cleanup();
  });

  test("is one entry of the table, offered by search_creature only", () => {
    expect(FILTER_PARAMS.filter((p) => p.name === "alignment").length).toBe(1);
    expect(paramsOfGroup("creature").map((p) => p.name)).toContain("alignment");
    expect(paramsOfGroup("spell").map((p) => p.name)).not.toContain("alignment");
  });

  test("search_creature: every word must be one the creature may have; a wrong word names the valid ones", async () => {
    const { client, close } = await connectInMemory(makeDeps(store));
    try {
      const call = (args: Record<string, unknown>) => client.callTool({ name: "search_creature", arguments: args });
      expect(namesOf(await call({ alignment: "evil" })).sort()).toEqual(["Cultist", "Orc", "Zombie"]);
      expect(namesOf(await call({ alignment: ["Lawful", "good"] }))).toEqual(["Knight"]);
      expect(namesOf(await call({ alignment: ["lawful", "evil"] }))).toEqual(["Cultist"]);
      expect(namesOf(await call({ alignment: "unaligned" }))).toEqual(["Mule"]);
      const bad = await call({ alignment: "wicked" });
      expect(bad.isError).toBe(true);
      expect(textOf(bad)).toContain("alignment");
      expect(textOf(bad)).toContain("chaotic");
      // The hint: which filter emptied the answer, and how many match without it.
      const empty = answerOf(await call({ type: "undead", alignment: "good" }));
      expect(empty.count).toBe(0);
      expect(empty.message).toContain(
        'No creature matches alignment=["good"] together with creature_type="undead" (1 match without it)',
      );
    } finally {
      await close();
    }
  });

  test("lorekeeper search --alignment, and a wrong word as a usage message", async () => {
    const out: string[] = [];
    const orig = process.stdout.write.bind(process.stdout);
    process.stdout.write = ((c: string | Uint8Array) =>
      out.push(typeof c === "string" ? c : new TextDecoder().decode(c)) > 0) as typeof process.stdout.write;
    try {
      const provider = () => ({
        state: () => "unavailable" as const,
        get: async () => null,
        reason: () => "no model in tests",
      });
      const code = await searchCommand.run(
        ["--type", "creature", "--alignment", "chaotic,evil", "--json", "--db-path", store.path],
        { config: loadConfig(), embedder: provider },
      );
      expect(code).toBe(0);
    } finally {
      process.stdout.write = orig;
    }
    const json = JSON.parse(out.join("")) as { results: Array<{ name: string }> };
    expect(json.results.map((r) => r.name).sort()).toEqual(["Cultist", "Orc"]);
  });

  test("prompt completion: prepare_encounter's alignment argument completes the word being typed", () => {
    const c = complete(store.db, {
      ref: { type: "ref/prompt", name: "prepare_encounter" },
      argument: { name: "alignment", value: "chaotic e" },
    });
    expect(c.values).toEqual(["evil"]);
    expect(
      complete(store.db, {
        ref: { type: "ref/prompt", name: "prepare_encounter" },
        argument: { name: "creature_type", value: "un" },
      }).values,
    ).toEqual(["undead"]);
  });

  test("a store written before the column gets it, filled from the stored data, when it opens", () => {
    const path = join(tmp.dir, "old.db");
    const s = openStore({ path });
    replaceOrigin(s.db, "open5e_v2:creatures", CREATURES);
    s.close();
    const raw = new Database(path);
    // Before the column, its index of later columns did not hold it either.
    dropLateIndexes(raw);
    raw.exec("ALTER TABLE entities DROP COLUMN alignment");
    raw.close();
    const again = openStore({ path });
    try {
      const rows = again.db
        .query<{ name: string; alignment: string | null }, []>("SELECT name, alignment FROM entities ORDER BY name")
        .all();
      expect(rows).toEqual([
        { name: "Cultist", alignment: "|lawful|neutral|chaotic|evil|" },
        { name: "Knight", alignment: "|lawful|good|" },
        { name: "Mule", alignment: "|unaligned|" },
        { name: "Orc", alignment: "|chaotic|evil|" },
        { name: "Zombie", alignment: "|neutral|evil|" },
      ]);
    } finally {
      again.close();
    }
  });
});
