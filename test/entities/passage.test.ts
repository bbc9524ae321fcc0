/**
 * What is embedded per kind (passage.ts): a kind's passage when it has one, else its text; kinds without one keep their
 * content hash.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type PassageBuilder, passageText, PASSAGES } from "../../src/entities/passage.ts";
import type { Entity } from "../../src/entities/types.ts";
import type { Store } from "../../src/store/db.ts";
import { contentHash } from "../../src/store/entities.ts";
import { listPendingVectors } from "../../src/store/vectors.ts";
import { makeEntity, makeStore } from "../support/entities.ts";

const SPELL =
  "Sleet Storm\nLevel 3 conjuration spell\nCasting time: 1 action. Range: 150 feet.\nFreezing rain and sleet fall.";
const withoutCasting: PassageBuilder = (e) =>
  e.text
    .split("\n")
    .filter((l) => !l.startsWith("Casting time:"))
    .join("\n");

describe("passageText (pure)", () => {
  test("a kind's builder makes its passage; other kinds embed their text", () => {
    const builders = { spell: withoutCasting };
    expect(passageText({ kind: "spell", name: "Sleet Storm", text: SPELL }, builders)).toBe(
      "Sleet Storm\nLevel 3 conjuration spell\nFreezing rain and sleet fall.",
    );
    expect(passageText({ kind: "rule", name: "Falling", text: "Falling\nRule\nDamage." }, builders)).toBe(
      "Falling\nRule\nDamage.",
    );
  });
  test("a passage is never empty: an empty one falls back to the text", () => {
    expect(passageText({ kind: "spell", name: "X", text: "X\nbody" }, { spell: () => "  " })).toBe("X\nbody");
  });
});

describe("the passage is what gets embedded, and part of the content hash", () => {
  let store: Store;
  let cleanup: () => void;
  const spell: Entity = { ...makeEntity("spell", "Sleet Storm", { level: 3 }), text: SPELL };
  const rule = makeEntity("rule", "Falling", {}, { text: "A creature takes damage for every 10 feet it fell." });
  beforeAll(() => {
    ({ store, cleanup } = makeStore([spell, rule]));
  });
  afterAll(() => cleanup());

  test("pending vectors carry each entity's passage", () => {
    const texts = listPendingVectors(store.db, "m@1", 10).map((p) => p.text);
    expect(texts.sort()).toEqual([passageText(spell), passageText(rule)].sort());
  });
  test("kinds without a passage builder keep the hash they had before passages (no re-embedding on upgrade)", () => {
    const legacy = (e: Entity) => {
      const h = new Bun.CryptoHasher("sha1");
      h.update(
        JSON.stringify([
          e.kind,
          e.key,
          e.name,
          e.document_key,
          e.document_name,
          e.source_url,
          e.text,
          e.filters,
          e.data,
        ]),
      );
      return h.digest("hex");
    };
    for (const e of [spell, rule]) if (!(e.kind in PASSAGES)) expect(contentHash(e)).toBe(legacy(e));
  });
});
