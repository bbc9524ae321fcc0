/**
 * one oversized entity must not empty every answer.
 * - At import: a spell with 9,000 `:spell-lists` entries, one with a 16,000-word name and one
 *   with a 300-character key are skipped with the reason; the rest of the pack is imported.
 * - At answer time (such entities already in a store): the budget cuts reserved strings such as
 *   `name` and long lists of short strings, leaves out a result whose identity alone is too big
 *   without dropping the ones after it, keeps the message short, and its hint never suggests a
 *   name over the 200-character limit. `search_spell {}`, `{"level": 3}`, `{"name": "*fire*"}`
 *   keep their normal results.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { ENTITY_LIMITS } from "../../src/entities/limits.ts";
import type { Entity } from "../../src/entities/types.ts";
import { importOrcbrewFiles } from "../../src/ingest/import-orcbrew.ts";
import { openStore, type Store } from "../../src/store/db.ts";
import { replaceOrigin } from "../../src/store/entities.ts";
import { fitAnswer, MESSAGE_CAP, RESERVED_CAP } from "../../src/tools/answer/budget.ts";
import type { FlatResult, SearchAnswer } from "../../src/tools/answer/response.ts";
import { makeEntity } from "../support/entities.ts";
import { answerOf, connectInMemory, makeDeps, textOf } from "../support/mcp.ts";
import { makeTempDir } from "../support/tmp.ts";

const BUDGET = 60_000;
const HUGE_NAME = Array.from({ length: 16_000 }, (_, i) => `word${i}`).join(" ");
const CLASSES = Array.from({ length: 9_000 }, (_, i) => `class-${i}`);

let tmp: ReturnType<typeof makeTempDir>;

beforeAll(() => {
  tmp = makeTempDir("lk-oversized-");
});
afterAll(() => tmp.cleanup());

const QUERIES: Array<Record<string, unknown>> = [{}, { level: 3 }, { name: "*fire*" }];

async function expectNormalAnswers(store: Store, normal: string[]) {
  const conn = await connectInMemory(makeDeps(store, { responseBudgetChars: BUDGET }));
  try {
    for (const args of QUERIES) {
      const res = await conn.client.callTool({ name: "search_spell", arguments: args });
      const text = textOf(res);
      const a = answerOf(res);
      const want = Object.keys(args).length === 0 ? normal : normal.filter((n) => n !== "Frost Nail");
      expect({
        args,
        kept: a.results
          .map((r) => String(r.name))
          .filter((n) => normal.includes(n))
          .sort(),
      }).toEqual({ args, kept: [...want].sort() });
      expect(text.length).toBeLessThanOrEqual(BUDGET);
      expect((a.message ?? "").length).toBeLessThanOrEqual(MESSAGE_CAP);
      for (const r of a.results) expect(String(r.name).length).toBeLessThanOrEqual(RESERVED_CAP + 20);
      // The hint never suggests a name longer than the `name` parameter accepts.
      // (the tools write the call as JSON: {"name":"…"}.)
      for (const m of (a.message ?? "").matchAll(/name"?[=:]"((?:[^"\\]|\\.)*)"/g))
        expect(m[1]!.length).toBeLessThanOrEqual(RESERVED_CAP);
    }
  } finally {
    await conn.close();
  }
}

describe("at import", () => {
  test("oversized spells are skipped with a reason; the rest of the pack is imported, answers stay full", async () => {
    const file = join(tmp.dir, "hostile.orcbrew");
    const lists = CLASSES.map((c) => `:${c} true`).join(" ");
    const spell = (key: string, name: string, level: number, extra = "") =>
      `:${key} {:name ${JSON.stringify(name)}, :level ${level}, :school "evocation", ` +
      `:spell-lists {:wizard true ${extra}}, :description "A burst of fire."}`;
    writeFileSync(
      file,
      `{"Hostile Pack" {:orcpub.dnd.e5/spells {${[
        spell("fire-lists", "Fire of Many Lists", 3, lists),
        spell("fire-name", `Fire ${HUGE_NAME}`, 3),
        spell(`fire-${"k".repeat(300)}`, "Fire Long Key", 3),
        spell("fireburst", "Fireburst", 3),
        spell("fire-whip", "Fire Whip", 3),
        spell("frost-nail", "Frost Nail", 1),
      ].join(", ")}}}}`,
    );
    const store = openStore({ path: join(tmp.dir, "import.db") });
    try {
      const report = importOrcbrewFiles(store.db, [file]);
      const pack = report.files[0]!.packs[0]!;
      expect(report.files[0]!.ok).toBe(true);
      expect(report.imported).toBe(3);
      const reasons = pack.skipped.map((s) => s.reason);
      expect(reasons).toContainEqual(
        expect.stringMatching(/too large to import: it holds a list of 9001 items; the limit is 1000/),
      );
      expect(reasons).toContainEqual(
        expect.stringMatching(/too large to import: its name is \d+ characters long; the limit is 200/),
      );
      expect(reasons).toContainEqual(
        expect.stringMatching(/too large to import: its key is \d+ characters long; the limit is 200/),
      );
      // The report itself does not echo the 16,000 words.
      for (const s of pack.skipped) expect((s.name ?? "").length).toBeLessThanOrEqual(ENTITY_LIMITS.nameChars);
      await expectNormalAnswers(store, ["Fire Whip", "Fireburst", "Frost Nail"]);
    } finally {
      store.close();
    }
  });
});

describe("at answer time (oversized entities already stored)", () => {
  function hostile(): Entity[] {
    const f = { level: 3, school: "evocation", classes: ["wizard"] };
    const lists = makeEntity("spell", "Aaa Fire Lists", f, { key: "a-lists" });
    lists.data = { ...lists.data, spell_lists: CLASSES, classes: CLASSES };
    const name = makeEntity("spell", `Aab Fire ${HUGE_NAME}`, f, { key: "a-name" });
    // Its identity alone (key, uri) is over the budget: it can only be left out.
    const key = makeEntity("spell", "Aac Fire Key", f, { key: `a-${"k".repeat(70_000)}` });
    return [lists, name, key];
  }

  test("search_spell {}, level 3 and *fire* keep every normal result; the budget holds", async () => {
    const store = openStore({ path: join(tmp.dir, "answer.db") });
    try {
      replaceOrigin(store.db, "open5e_v2:hostile", hostile(), []);
      replaceOrigin(
        store.db,
        "open5e_v2:normal",
        [
          makeEntity("spell", "Fireburst", { level: 3, school: "evocation", classes: ["wizard"] }),
          makeEntity("spell", "Fire Whip", { level: 3, school: "evocation", classes: ["wizard"] }),
          makeEntity("spell", "Frost Nail", { level: 1, school: "evocation", classes: ["wizard"] }),
        ],
        [],
      );
      await expectNormalAnswers(store, ["Fire Whip", "Fireburst", "Frost Nail"]);
    } finally {
      store.close();
    }
  });

  test(
    "fitAnswer: a first result with 9,000 short strings and a " +
      "16,000-word name is cut, not dropped, and nothing after it is lost",
    () => {
      const normal = (i: number): FlatResult => ({
        key: `k${i}`,
        name: `Spell ${i}`,
        kind: "spell",
        document_key: "d",
        document_name: "D",
        document_source: "open5e_v2",
        source_url: "u",
        uri: `lorekeeper://spell/k${i}`,
        desc: "x ".repeat(300),
      });
      const first: FlatResult = { ...normal(0), name: HUGE_NAME, spell_lists: CLASSES };
      const answer: SearchAnswer = {
        results: [first, ...Array.from({ length: 20 }, (_, i) => normal(i + 1))],
        count: 21,
        total: 21,
        offset: 0,
        has_more: false,
        detail: "full",
        search_mode: "structured",
        metadata: { generated_at: "t", data_synced_at: null, sources: [] },
      };
      const fitted = fitAnswer(answer, { budgetChars: 20_000 });
      expect(fitted.text.length).toBeLessThanOrEqual(20_000);
      expect(fitted.answer.results.length).toBe(21);
      expect(String(fitted.answer.results[0]!.name).length).toBeLessThanOrEqual(RESERVED_CAP + 20);
      expect((fitted.answer.results[0]!.spell_lists as string[]).at(-1)).toBe("… and 8950 more");
      expect(fitted.answer.message).not.toContain("word199");
      expect(JSON.parse(fitted.text)).toEqual(fitted.answer as unknown as Record<string, unknown>);
    },
  );
});
