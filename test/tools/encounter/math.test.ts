/**
 * The encounter arithmetic of both editions against hand-worked examples (numbers worked out from
 * the DMG 2014 / DMG 2024 tables, not from the code).
 */
import { describe, expect, test } from "bun:test";
import {
  classify,
  multiplier2014,
  partyTotals,
  rateGroup,
  targetWindow,
  type Monster,
} from "../../../src/tools/encounter/math.ts";
import { XP_BY_CR } from "../../../src/entities/normalize/vocab.ts";
import { BUDGET_2024, THRESHOLDS_2014 } from "../../../src/tools/encounter/tables.ts";

const ogre: Monster = { name: "Ogre", count: 2, cr: 2, xp: 450 };
const goblin: Monster = { name: "Goblin", count: 6, cr: 0.25, xp: 50 };

describe("tables", () => {
  test("every level 1–20 has a row, rising with level", () => {
    expect(THRESHOLDS_2014).toHaveLength(20);
    expect(BUDGET_2024).toHaveLength(20);
    for (let i = 1; i < 20; i++) {
      for (let d = 0; d < 4; d++) expect(THRESHOLDS_2014[i]![d]!).toBeGreaterThan(THRESHOLDS_2014[i - 1]![d]!);
      for (let d = 0; d < 3; d++) expect(BUDGET_2024[i]![d]!).toBeGreaterThanOrEqual(BUDGET_2024[i - 1]![d]!);
    }
  });
  test("CR → XP spot checks (SRD 5.1 table)", () => {
    expect(XP_BY_CR.size).toBe(34);
    // Ascending CRs: the CR range of a proposal's search is read off this order.
    expect([...XP_BY_CR.keys()]).toEqual([...XP_BY_CR.keys()].sort((a, b) => a - b));
    expect(XP_BY_CR.get(0)).toBe(10);
    expect(XP_BY_CR.get(0.125)).toBe(25);
    expect(XP_BY_CR.get(2)).toBe(450);
    expect(XP_BY_CR.get(13)).toBe(10000);
    expect(XP_BY_CR.get(30)).toBe(155000);
    expect(XP_BY_CR.get(0.3)).toBeUndefined();
  });
});

describe("4 level-5 characters vs 2 ogres and 6 goblins", () => {
  const party = [5, 5, 5, 5];
  test("2014: 1,200 XP × 2.5 (8 monsters) = 3,000 → Hard", () => {
    expect(partyTotals("2014", party)).toEqual({ easy: 1000, medium: 2000, hard: 3000, deadly: 4400 });
    const r = rateGroup("2014", party, [ogre, goblin]);
    expect(r.total_xp).toBe(1200);
    expect(r.monster_count).toBe(8);
    expect(r.multiplier).toBe(2.5);
    expect(r.adjusted_xp).toBe(3000);
    expect(r.difficulty).toBe("hard");
    expect(r.steps.join("\n")).toContain(
      "2 × Ogre (CR 2, 450 XP) = 900; 6 × Goblin (CR 1/4, 50 XP) = 300. Total 1,200 XP.",
    );
    expect(r.steps.join("\n")).toContain("Adjusted XP 1,200 × 2.5 = 3,000");
  });
  test("2024: 1,200 XP fits the Low budget of 2,000", () => {
    expect(partyTotals("2024", party)).toEqual({ low: 2000, moderate: 3000, high: 4400 });
    const r = rateGroup("2024", party, [ogre, goblin]);
    expect(r.total_xp).toBe(1200);
    expect(r.multiplier).toBeUndefined();
    expect(r.adjusted_xp).toBeUndefined();
    expect(r.difficulty).toBe("low");
    expect(r.steps.join("\n")).toContain("Low 4 × 500 = 2,000; Moderate 4 × 750 = 3,000; High 4 × 1,100 = 4,400");
  });
});

describe("2014 multiplier", () => {
  test("bands by monster count, party of 4", () => {
    const m = (n: number) => multiplier2014(n, 4).multiplier;
    expect([1, 2, 3, 6, 7, 10, 11, 14, 15, 40].map(m)).toEqual([1, 1.5, 2, 2, 2.5, 2.5, 3, 3, 4, 4]);
  });
  test("party size below 3 goes one step up, 6 or more one step down", () => {
    expect(multiplier2014(1, 2).multiplier).toBe(1.5);
    expect(multiplier2014(15, 1).multiplier).toBe(5);
    expect(multiplier2014(1, 6).multiplier).toBe(0.5);
    expect(multiplier2014(15, 8).multiplier).toBe(3);
    expect(multiplier2014(3, 5).multiplier).toBe(2);
  });
});

describe("edge cases", () => {
  test("one monster: a young red dragon (CR 10, 5,900 XP) vs 4 level-5 characters", () => {
    const dragon: Monster = { name: "Young Red Dragon", count: 1, cr: 10, xp: 5900 };
    const r14 = rateGroup("2014", [5, 5, 5, 5], [dragon]);
    expect(r14.adjusted_xp).toBe(5900); // ×1
    expect(r14.difficulty).toBe("deadly"); // ≥ 4,400
    const r24 = rateGroup("2024", [5, 5, 5, 5], [dragon]);
    expect(r24.difficulty).toBe("beyond high"); // > 4,400
  });
  test("15+ monsters: 16 skeletons (CR 1/4) vs 5 level-3 characters", () => {
    const skel: Monster = { name: "Skeleton", count: 16, cr: 0.25, xp: 50 };
    const r = rateGroup("2014", [3, 3, 3, 3, 3], [skel]);
    // 800 XP × 4 = 3,200; thresholds 375 / 750 / 1,125 / 2,000 → Deadly
    expect(r.total_xp).toBe(800);
    expect(r.multiplier).toBe(4);
    expect(r.adjusted_xp).toBe(3200);
    expect(r.difficulty).toBe("deadly");
    // 2024: budgets 750 / 1,125 / 2,000; 800 → Moderate
    expect(rateGroup("2024", [3, 3, 3, 3, 3], [skel]).difficulty).toBe("moderate");
  });
  test("CR 0: ten rats (10 XP each) vs one level-1 character", () => {
    const rats: Monster = { name: "Rat", count: 10, cr: 0, xp: 10 };
    const r = rateGroup("2014", [1], [rats]);
    // 100 XP; 7–10 monsters ×2.5, one character → ×3; 300 ≥ Deadly 100
    expect(r.multiplier).toBe(3);
    expect(r.adjusted_xp).toBe(300);
    expect(r.difficulty).toBe("deadly");
    const frog: Monster = { name: "Frog", count: 1, cr: 0, xp: 0 };
    expect(rateGroup("2014", [1], [frog]).difficulty).toBe("trivial");
  });
  test("mixed party: levels 2, 3, 3 and 4 vs 3 orcs (CR 1/2)", () => {
    const orcs: Monster = { name: "Orc", count: 3, cr: 0.5, xp: 100 };
    // 2014 thresholds: easy 50+75+75+125 = 325, medium 100+150+150+250 = 650, hard 975, deadly 200+400+400+500 = 1,500
    expect(partyTotals("2014", [2, 3, 3, 4])).toEqual({ easy: 325, medium: 650, hard: 975, deadly: 1500 });
    const r = rateGroup("2014", [4, 3, 2, 3], [orcs]);
    expect(r.adjusted_xp).toBe(600); // 300 × 2
    expect(r.difficulty).toBe("easy");
    expect(r.steps[0]).toContain("1 × level 2, 2 × level 3, 1 × level 4");
    // 2024 budgets: low 100+150+150+250 = 650, moderate 150+225+225+375 = 975, high 200+400+400+500 = 1,500
    expect(partyTotals("2024", [2, 3, 3, 4])).toEqual({ low: 650, moderate: 975, high: 1500 });
    expect(rateGroup("2024", [2, 3, 3, 4], [orcs]).difficulty).toBe("low");
  });
  test("boundaries: exactly a threshold / budget", () => {
    expect(classify("2014", 2000, partyTotals("2014", [5, 5, 5, 5])).difficulty).toBe("medium");
    expect(classify("2014", 1999, partyTotals("2014", [5, 5, 5, 5])).difficulty).toBe("easy");
    expect(classify("2024", 3000, partyTotals("2024", [5, 5, 5, 5])).difficulty).toBe("moderate");
    expect(classify("2024", 3001, partyTotals("2024", [5, 5, 5, 5])).difficulty).toBe("high");
  });
  test("target windows", () => {
    expect(targetWindow("2024", "moderate", partyTotals("2024", [5, 5, 5, 5]))).toEqual({
      min: 2001,
      max: 3000,
      target: 3000,
    });
    expect(targetWindow("2014", "hard", partyTotals("2014", [5, 5, 5, 5]))).toEqual({
      min: 3000,
      max: 4399,
      target: 3700,
    });
    expect(targetWindow("2014", "deadly", partyTotals("2014", [5, 5, 5, 5])).max).toBe(5500);
  });
});
