/** The preferred edition's counterpart rule first (rank/counterparts.ts). */
import { describe, expect, test } from "bun:test";
import { counterpartsFirst } from "../../src/search/rank/counterparts.ts";

const SURPRISE = ["ambush", "initiative", "surprise"].join("\u0000");
const hit = (id: number, score: number, document_key: string, topics: string | null) => ({
  id,
  score,
  document_key,
  topics,
});
const SRD51 = ["srd-2014"];

describe("counterpartsFirst", () => {
  test("the preferred edition's rule moves above the other edition's rule on the same topics", () => {
    const hits = [
      hit(1, 0.65, "srd-2014", SURPRISE),
      hit(2, 0.59, "srd-2014", null),
      hit(3, 0.52, "srd-2024", SURPRISE),
    ];
    const out = counterpartsFirst(hits, "srd-2024", SRD51);
    expect(out.map((h) => h.id)).toEqual([3, 1, 2]);
    // It takes the place's score, so scores still never increase down the list.
    expect(out.map((h) => h.score)).toEqual([0.65, 0.65, 0.59]);
  });

  test("a rule only one edition has, other topics and third-party rules keep their places", () => {
    const hits = [
      hit(1, 0.7, "srd-2014", "reaction"),
      hit(2, 0.6, "tob", SURPRISE),
      hit(3, 0.5, "srd-2024", SURPRISE),
      hit(4, 0.4, "srd-2024", "cover"),
    ];
    expect(counterpartsFirst(hits, "srd-2024", SRD51).map((h) => h.id)).toEqual([1, 2, 3, 4]);
    // Already first, or the preference is the other edition: nothing moves.
    const ordered = [hit(3, 0.6, "srd-2024", SURPRISE), hit(1, 0.5, "srd-2014", SURPRISE)];
    expect(counterpartsFirst(ordered, "srd-2024", SRD51).map((h) => h.id)).toEqual([3, 1]);
    expect(counterpartsFirst(ordered, "srd-2014", ["srd-2024"]).map((h) => h.id)).toEqual([1, 3]);
  });
});
