/**
 * What is embedded for an entity is its search text, and its content hash (which makes a vector
 * stale when it changes) covers exactly the stored fields, so an upgrade re-embeds nothing.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Entity } from "../../src/entities/types.ts";
import type { Store } from "../../src/store/db.ts";
import { contentHash } from "../../src/store/entities.ts";
import { listPendingVectors } from "../../src/store/vectors.ts";
import { makeEntity, makeStore } from "../support/entities.ts";

const SPELL =
  "Sleet Storm\nLevel 3 conjuration spell\nCasting time: 1 action. Range: 150 feet.\nFreezing rain and sleet fall.";

describe("the search text is what gets embedded, and part of the content hash", () => {
  let store: Store;
  let cleanup: () => void;
  const spell: Entity = { ...makeEntity("spell", "Sleet Storm", { level: 3 }), text: SPELL };
  const rule = makeEntity("rule", "Falling", {}, { text: "A creature takes damage for every 10 feet it fell." });
  beforeAll(() => {
    ({ store, cleanup } = makeStore([spell, rule]));
  });
  afterAll(() => cleanup());

  test("pending vectors carry each entity's text", () => {
    const texts = listPendingVectors(store.db, "m@1", 10).map((p) => p.text);
    expect(texts.sort()).toEqual([spell.text, rule.text].sort());
  });
  test("the content hash is the one stores were written with (no re-embedding on upgrade)", () => {
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
    for (const e of [spell, rule]) expect(contentHash(e)).toBe(legacy(e));
  });
});
