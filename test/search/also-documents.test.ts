import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { createEmbedderProvider } from "../../src/search/model/embedder.ts";
import { runSearch } from "../../src/search/hybrid.ts";
import { openStore, type Store } from "../../src/store/db.ts";
import { replaceOrigin } from "../../src/store/entities.ts";
import { makeEntity } from "../support/entities.ts";
import { makeTempDir } from "../support/tmp.ts";

describe("documents filter and entities carrying several documents' wording", () => {
  let tmp: ReturnType<typeof makeTempDir>;
  let store: Store;
  beforeEach(() => {
    tmp = makeTempDir();
    store = openStore({ path: join(tmp.dir, "lk.db") });
    const grappled = makeEntity("condition", "Grappled", {}, { doc: "core", key: "grappled" });
    grappled.filters.also_documents = ["srd-2014", "a5e-ag"];
    replaceOrigin(store.db, "t", [
      grappled,
      makeEntity("condition", "Prone", {}, { doc: "tob" }),
      makeEntity("spell", "Fireball", { level: 3 }),
    ]);
  });
  afterEach(() => {
    store.close();
    tmp.cleanup();
  });
  const ctx = () => ({
    store,
    embedder: createEmbedderProvider({ modelDir: null, embeddedDir: null, allowDownload: false }),
    embeddingTimeoutMs: 1000,
  });

  test("a core record is found by any document whose wording it carries, and by its own", async () => {
    const names = async (documents: string[]) =>
      (await runSearch(ctx(), { kinds: ["condition"], documents, limit: 10 })).hits.map((h) => h.entity.name);
    expect(await names(["srd-2014"])).toEqual(["Grappled"]);
    expect(await names(["srd-5e"])).toEqual(["Grappled"]);
    expect(await names(["core"])).toEqual(["Grappled"]);
    expect(await names(["tob"])).toEqual(["Prone"]);
    const back = (await runSearch(ctx(), { kinds: ["condition"], name: "grappled", limit: 1 })).hits[0]!.entity;
    expect(back.filters.also_documents).toEqual(["srd-2014", "a5e-ag"]);
  });
});
