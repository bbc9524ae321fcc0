/**
 * The conditions' plain words (src/entities/data/condition-words.json) and how they reach a
 * condition: its search text leads with them, its data (what answers show) does not change.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { CONDITION_WORDS, conditionLead, conditionWords } from "../../src/entities/profiles.ts";
import { conditionEntity } from "../../src/entities/normalize/canonical/reference.ts";
import type { Entity } from "../../src/entities/types.ts";
import { runSearch } from "../../src/search/hybrid.ts";
import { makeStore } from "../support/entities.ts";
import { ctxOf } from "../search/helpers.ts";
import { ALL_TYPES, run } from "./fixtures.ts";

describe("the condition words file", () => {
  test("one entry per condition: plain sentences without numbers, everyday words, no duplicates", () => {
    expect(CONDITION_WORDS.length).toBeGreaterThanOrEqual(15);
    const names = new Set<string>();
    for (const c of CONDITION_WORDS) {
      expect(names.has(c.name.toLowerCase()), `${c.name} twice`).toBe(false);
      names.add(c.name.toLowerCase());
      expect(c.profile, c.name).toMatch(/^[A-Z].{40,300}[.]$/);
      expect(c.profile, `${c.name}: a number`).not.toMatch(/\d/);
      expect(c.names.length, c.name).toBeGreaterThan(1);
      expect(new Set(c.names.map((n) => n.toLowerCase())).size, `${c.name}: a word twice`).toBe(c.names.length);
      for (const n of c.names) expect(n, c.name).toMatch(/^[a-z][a-z' -]*[a-z]$/);
    }
    for (const srd of [
      "Blinded",
      "Charmed",
      "Deafened",
      "Exhaustion",
      "Frightened",
      "Grappled",
      "Incapacitated",
      "Invisible",
      "Paralyzed",
      "Petrified",
      "Poisoned",
      "Prone",
      "Restrained",
      "Stunned",
      "Unconscious",
    ]) {
      expect(conditionWords(srd), srd).not.toBeNull();
    }
  });

  test("looked up by name in any case; an unknown name has none", () => {
    expect(conditionWords(" prone ")?.name).toBe("Prone");
    expect(conditionLead("Prone")).toContain("Also called knocked down");
    expect(conditionLead("Sleepy")).toBeNull();
  });
});

describe("conditions of every source lead with their words", () => {
  const conditions = ALL_TYPES.filter((t) => t.kinds.includes("condition")).flatMap((t) =>
    run(t).entities.filter((e) => e.kind === "condition"),
  );

  test("text: name, header, the plain words, then the rules text; data as before", () => {
    expect(new Set(conditions.map((e) => e.document_source)).size).toBeGreaterThanOrEqual(2);
    let withWords = 0;
    for (const e of conditions) {
      const lead = conditionLead(e.name);
      if (!lead) continue;
      withWords++;
      expect(e.text.split("\n")[2]).toBe(lead);
      expect(String(e.data.desc)).not.toContain(lead);
      expect(e.text.split("\n").slice(3).join(" ")).toContain(e.name.toLowerCase().slice(0, 5));
    }
    expect(withWords).toBeGreaterThan(0);
  });
});

describe("a condition asked for in a player's words (keyword ranking, no model)", () => {
  // Short paraphrases of the rules texts: none says "knocked", "ground" or "scared".
  const RULES: Record<string, string> = {
    Prone:
      "A prone creature can only crawl unless it stands up. It has disadvantage " +
      "on attack rolls; attacks from within 5 feet have advantage against it.",
    Frightened:
      "A frightened creature has disadvantage on ability checks and attack rolls " +
      "while the source of its fear is in sight, and cannot move closer to it.",
    Grappled:
      "A grappled creature's speed becomes 0. The condition ends if the " +
      "grappler is incapacitated or the creature is moved out of reach.",
    Blinded:
      "A blinded creature can't see and fails any check that requires sight. Attack rolls against it have advantage.",
    Poisoned: "A poisoned creature has disadvantage on attack rolls and ability checks.",
  };
  const conditions = (words: boolean): Entity[] =>
    Object.entries(RULES).map(([name, desc]) => {
      const e = conditionEntity(
        "open5e_v2",
        {
          key: name.toLowerCase(),
          name,
          doc: { key: "core", name: "Core" },
          url: `http://127.0.0.1/v2/conditions/${name}/`,
        },
        desc,
      );
      return words ? e : { ...e, text: `${name}\nCondition\n${desc}` };
    });
  const stores = [makeStore(conditions(true)), makeStore(conditions(false))];
  afterAll(() => {
    for (const s of stores) s.cleanup();
  });
  const first = async (i: number, search: string) =>
    (await runSearch(ctxOf(stores[i]!.store), { kinds: ["condition"], limit: 5, search, profile: "rule" })).hits[0]
      ?.entity.name;

  test(
    "'knocked down to the ground' → Prone, 'scared of the dragon' " +
      "→ Frightened; without the words neither is found first",
    async () => {
      expect(await first(0, "knocked down to the ground")).toBe("Prone");
      expect(await first(0, "scared of the dragon")).toBe("Frightened");
      expect(await first(1, "knocked down to the ground")).not.toBe("Prone");
      expect(await first(1, "scared of the dragon")).not.toBe("Frightened");
    },
  );
});
