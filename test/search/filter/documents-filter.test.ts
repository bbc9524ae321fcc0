import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { resolveDocuments } from "../../../src/search/filter/documents-filter.ts";
import { runSearch } from "../../../src/search/hybrid.ts";
import type { SearchQuery } from "../../../src/search/types.ts";
import type { Store } from "../../../src/store/db.ts";
import { makeStore } from "../../support/entities.ts";
import { ctxOf, labels } from "../helpers.ts";

let store: Store;
let cleanup: () => void;
beforeAll(() => {
  ({ store, cleanup } = makeStore());
});
afterAll(() => cleanup());

const run = (q: Partial<SearchQuery>) =>
  runSearch(ctxOf(store), { kinds: ["spell"], limit: 50, name: "fireball", ...q });
const docsOf = (r: Awaited<ReturnType<typeof run>>) => [...new Set(r.hits.map((h) => h.entity.document_key))].sort();

describe("resolveDocuments (pure)", () => {
  const known = ["srd-2014", "srd-2024", "tob", "wotc-srd"];
  test("null and undefined = no filter", () => {
    expect(resolveDocuments(null, known)).toEqual({ keys: null });
    expect(resolveDocuments(undefined, known)).toEqual({ keys: null });
  });
  test("aliases and case", () => {
    expect(resolveDocuments(["SRD-5E"], known).keys).toEqual(["srd-2014"]);
    expect(resolveDocuments(["srd-5.2"], known).keys).toEqual(["srd-2024"]);
    // a stored key that is also an alias keeps both
    expect(resolveDocuments(["wotc-srd"], known).keys?.sort()).toEqual(["srd-2014", "wotc-srd"]);
    expect(resolveDocuments(["TOB"], known).keys).toEqual(["tob"]);
    // Open5e v1 slugs of the same book
    expect(resolveDocuments(["dmag"], ["deepm", "tob"]).keys).toEqual(["deepm"]);
  });
  test("an alias whose target is not stored is unknown", () => {
    const r = resolveDocuments(["srd-5e"], ["tob"]);
    expect(r.keys).toEqual([]);
    expect(r.message).toContain("Available documents: tob.");
  });
});

describe("documents filter in searches", () => {
  test("null / omitted = every document", async () => {
    expect(docsOf(await run({ documents: null }))).toEqual(["srd-2014", "srd-2024"]);
    expect(docsOf(await run({}))).toEqual(["srd-2014", "srd-2024"]);
  });

  test("[] = empty result", async () => {
    const r = await run({ documents: [] });
    expect(r.hits).toEqual([]);
    expect(r.message).toMatch(/empty list/);
  });

  test("unknown keys = empty result and the available documents", async () => {
    const r = await run({ documents: ["phb", "non-existent"] });
    expect(r.hits).toEqual([]);
    expect(r.mode).toBe("structured");
    expect(r.message).toContain('"phb", "non-existent"');
    expect(r.message).toContain("homebrew-pack, srd-2014, srd-2024, tob");
  });

  test("known and unknown together: the known ones filter, the unknown ones are named", async () => {
    const r = await run({ documents: ["srd-2024", "phb"] });
    expect(labels(r)).toEqual(["Fireball [srd-2024]"]);
    expect(r.message).toContain('ignored: "phb"');
  });

  test("aliases: srd-5e, srd-5.1, wotc-srd → srd-2014; srd-5.2 → srd-2024", async () => {
    for (const a of ["srd-5e", "srd-5.1", "wotc-srd", "SRD-5E"])
      expect(labels(await run({ documents: [a] }))).toEqual(["Fireball [srd-2014]"]);
    expect(labels(await run({ documents: ["srd-5.2"] }))).toEqual(["Fireball [srd-2024]"]);
    expect((await run({ documents: ["srd-5e"] })).message).toBeUndefined();
  });

  test("several documents, with other filters and a ranked search", async () => {
    const r = await run({ name: undefined, documents: ["tob", "homebrew-pack"], filters: { damage_type: "fire" } });
    expect(r.hits.map((h) => h.entity.name)).toEqual([
      "100% Fire",
      "1000 Fire",
      "Ember_Spark",
      "EmberXSpark",
      "Hellfire Orb",
    ]);
    const s = await run({ name: undefined, documents: ["tob"], search: "fire" });
    expect(labels(s)).toEqual(["Hellfire Orb [tob]"]);
  });
});
