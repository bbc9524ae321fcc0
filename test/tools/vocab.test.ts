/** tools/kit/vocab.ts: forgiving matching of vocabulary values and content type names. */
import { describe, expect, test } from "bun:test";
import { RARITIES } from "../../src/entities/catalog.ts";
import { canonical, contentTypeKinds, RULE_TYPES } from "../../src/tools/kit/vocab.ts";

describe("vocabularies", () => {
  test("canonical ignores case, separators and plurals, and keeps unknown values for the enum check", () => {
    expect(canonical("Very_Rare", RARITIES)).toBe("very rare");
    expect(canonical("VERY-RARE", RARITIES)).toBe("very rare");
    expect(canonical("damage_type", RULE_TYPES.values)).toBe("damage-type");
    expect(canonical("Conditions", RULE_TYPES.values)).toBe("condition");
    expect(canonical("abilities", RULE_TYPES.values, { ability: "ability-score" })).toBe("ability-score");
    expect(canonical(" Bogus ", RULE_TYPES.values)).toBe("bogus");
    expect(canonical(3, RULE_TYPES.values)).toBe(3);
  });

  test("content types map Open5e names, snake/kebab forms and plurals to kinds", () => {
    expect(contentTypeKinds("MagicItem")).toEqual(["magic_item"]);
    expect(contentTypeKinds("magic_item")).toEqual(["magic_item"]);
    expect(contentTypeKinds("magic-items")).toEqual(["magic_item"]);
    expect(contentTypeKinds("spells")).toEqual(["spell"]);
    expect(contentTypeKinds("Race")).toEqual(["species"]);
    expect(contentTypeKinds("classes")).toEqual(["class"]);
    expect(contentTypeKinds("Equipment")).toEqual(["weapon", "armor", "item", "magic_item"]);
    expect(contentTypeKinds("Dragon")).toBeUndefined();
    expect(contentTypeKinds("")).toBeUndefined();
  });
});
