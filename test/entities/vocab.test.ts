import { describe, expect, test } from "bun:test";
import {
  costDisplay,
  costToGp,
  itemCategory,
  normalizeCastingTime,
  rarityFilter,
  rarityText,
  weightToLb,
  xpForCr,
  attunementDetail,
  abilityName,
  classKey,
} from "../../src/entities/normalize/vocab.ts";
import { clip, stripMarkdown, buildText, MAX_TEXT_CHARS } from "../../src/entities/normalize/text.ts";
import { formatCr, parseCr } from "../../src/entities/types.ts";
import { crFields } from "../../src/entities/normalize/canonical/creature.ts";

describe("casting time vocabulary", () => {
  test.each([
    ["action", "1 action"],
    ["1 action", "1 action"],
    ["1 Action", "1 action"],
    ["bonus-action", "1 bonus action"],
    ["1 bonus action", "1 bonus action"],
    ["reaction", "1 reaction"],
    ["1 reaction, which you take when you see a creature within 60 feet of you casting a spell", "1 reaction"],
    ["1 action, or 1 reaction that you take while falling", "1 action"],
    ["1minute", "1 minute"],
    ["10minutes", "10 minutes"],
    ["10 minutes plus 1 hour of attunement", "10 minutes"],
    ["1hour", "1 hour"],
    ["8hours", "8 hours"],
    ["24 hours", "24 hours"],
    ["round", "1 round"],
    ["1week", "1 week"],
  ])("%p → %p", (input, expected) => {
    expect(normalizeCastingTime(input)).toBe(expected);
  });
  test("empty and non-string values give null; unknown text is kept lower-cased", () => {
    expect(normalizeCastingTime("")).toBeNull();
    expect(normalizeCastingTime(null)).toBeNull();
    expect(normalizeCastingTime("Special")).toBe("special");
  });
});

describe("cost and weight", () => {
  test.each([
    ["15 gp", 15],
    ["5 sp", 0.5],
    ["2 cp", 0.02],
    ["1 pp", 10],
    ["1 ep", 0.5],
    ["1,500 gp", 1500],
    ["15.00", 15],
    [150, 150],
  ])("cost %p → %p gp", (input, gp) => {
    expect(costToGp(input)).toBe(gp);
  });
  test("cost objects {quantity, unit} are converted", () => {
    expect(costToGp({ quantity: 5, unit: "sp" })).toBe(0.5);
    expect(costToGp({ quantity: 2, unit: "gp" })).toBe(2);
    expect(costToGp({ quantity: 3, unit: "xx" })).toBeNull();
    expect(costDisplay({ quantity: 5, unit: "sp" })).toBe("5 sp");
    expect(costDisplay("15 gp")).toBe("15 gp");
    expect(costDisplay("15.00")).toBe("15 gp");
  });
  test("unparseable costs are null", () => {
    expect(costToGp("free")).toBeNull();
    expect(costToGp("")).toBeNull();
    expect(costToGp(undefined)).toBeNull();
  });
  test("weights", () => {
    expect(weightToLb("3.000")).toBe(3);
    expect(weightToLb("2 lb.")).toBe(2);
    expect(weightToLb("1/2 lb.")).toBe(0.5);
    expect(weightToLb(65)).toBe(65);
    expect(weightToLb("")).toBeNull();
  });
});

describe("rarity, category, abilities, class keys", () => {
  test("rarity text and filter", () => {
    expect(rarityText({ name: "Very Rare", key: "very-rare" })).toBe("very rare");
    expect(rarityText("very-rare")).toBe("very rare");
    expect(rarityFilter("Very Rare")).toBe("very rare");
    expect(rarityFilter("uncommon (+1), rare (+2), or very rare (+3)")).toBe("varies");
    expect(rarityFilter(null)).toBeNull();
  });
  test("item categories", () => {
    expect(itemCategory("Wondrous item")).toBe("wondrous-item");
    expect(itemCategory("wondrous-items")).toBe("wondrous-item");
    expect(itemCategory("Weapon (any sword)")).toBe("weapon");
    expect(itemCategory("Armor (shield)")).toBe("shield");
    expect(itemCategory("weapons")).toBe("weapon");
  });
  test("abilities and class keys", () => {
    expect(abilityName("DEX")).toBe("dexterity");
    expect(abilityName("Wisdom")).toBe("wisdom");
    expect(abilityName("dexterous")).toBeNull();
    expect(classKey("srd_wizard")).toBe("wizard");
    expect(classKey("srd-2024_wizard")).toBe("wizard");
    expect(classKey("wizard")).toBe("wizard");
    expect(classKey("2014-wizard")).toBe("wizard");
  });
  test("attunement detail keeps only the qualifier", () => {
    expect(attunementDetail("requires attunement by a dwarf")).toBe("by a dwarf");
    expect(attunementDetail("(requires attunement)")).toBeNull();
  });
});

describe("challenge rating", () => {
  test("fractions display as fractions", () => {
    expect(formatCr(0.125)).toBe("1/8");
    expect(formatCr(0.25)).toBe("1/4");
    expect(formatCr(0.5)).toBe("1/2");
    expect(formatCr(24)).toBe("24");
    expect(formatCr(null)).toBeNull();
    expect(crFields(parseCr("1/4") ?? null)).toEqual({ cr: 0.25, cr_display: "1/4" });
  });
  test("XP by CR fills in when the source has none", () => {
    expect(xpForCr(0.25)).toBe(50);
    expect(xpForCr(5)).toBe(1800);
    expect(xpForCr(null)).toBeNull();
  });
});

describe("search text", () => {
  test("markdown is stripped", () => {
    const md =
      "### Falling\n\n> **_Note._** A fall deals *1d6* per [10 feet](http://x).\n\n| " +
      "d6 | Trait |\n|---|---|\n| 1 | I idolize |\n- bullet one\n* bullet two";
    const s = stripMarkdown(md);
    expect(s).not.toMatch(/[#*>_`[\]]/);
    expect(s).toContain("Falling");
    expect(s).toContain("Note. A fall deals 1d6 per 10 feet.");
    expect(s).toContain("I idolize");
    expect(s).toContain("bullet two");
    expect(s).not.toContain("---");
  });
  test("soft hyphens and doubled hyphens collapse", () => {
    expect(stripMarkdown("self-\u00adexpression, one-\u00ad\u2010\u2011handed")).toBe("self-expression, one-handed");
  });
  test("long text is clipped on a word boundary", () => {
    const long = "word ".repeat(5000);
    const c = clip(long);
    expect(c.length).toBeLessThanOrEqual(MAX_TEXT_CHARS + 1);
    expect(c.endsWith("…")).toBe(true);
    expect(buildText("Name", "Header", [long]).length).toBeLessThanOrEqual(MAX_TEXT_CHARS + 1);
  });
});
