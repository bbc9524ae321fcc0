/** Compact row formats: terse values, the unit stated once. */
import { describe, expect, test } from "bun:test";
import { firstSentence, rowsOf, SUMMARY_CHARS } from "../../src/tools/answer/rows.ts";
import type { Entity, JsonObject } from "../../src/entities/types.ts";
import { makeEntity } from "../support/entities.ts";

/** The compact row an answer shows for `e` as its first row. */
const compactRow = (e: Entity) => rowsOf([{ entity: { ...e, id: 1 } }], "summary")[0]!;

function creature(name: string, data: JsonObject): Entity {
  const e = makeEntity("creature", name, {}, { key: name.toLowerCase() });
  return { ...e, data: { ...e.data, ...data } };
}

describe("compact rows", () => {
  test("speed: walk first without a mode name, other modes named, the unit once, hover last", () => {
    const dragon = creature("Dragon", { speed: { walk: 40, fly: 80, swim: 0, hover: true } });
    expect(compactRow(dragon).speed).toBe("40, fly 80 ft. (hover)");
    expect(compactRow(creature("Ooze", { speed: { walk: 10 } })).speed).toBe("10 ft.");
    expect(compactRow(creature("Rock", { speed: { walk: 0 } })).speed).toBe("0 ft.");
    expect(compactRow(creature("Blob", { speed: {} })).speed).toBeUndefined();
  });

  test("summary: the first sentence, cut at a word within the limit", () => {
    const long = "You sense the presence of magic within 30 feet of you for the whole duration. More.";
    const s = firstSentence(long);
    expect(s.length).toBeLessThanOrEqual(SUMMARY_CHARS);
    expect(s).toBe("You sense the presence of magic within 30 feet…");
    expect(firstSentence("Short one. Second.")).toBe("Short one.");
  });
});
