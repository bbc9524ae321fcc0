/**
 * `edition_note` says why a row is not the preferred edition's: the filters left that one out, or
 * it has another name (the 2014 "Crossbow, heavy" is the 2024 "Heavy Crossbow"). A plain name
 * lookup never claims a filter mismatch.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { openStore, type Store } from "../../src/store/db.ts";
import { replaceOrigin } from "../../src/store/entities.ts";
import { makeEntity } from "../support/entities.ts";
import { answerOf, connectInMemory, makeDeps } from "../support/mcp.ts";
import { makeTempDir } from "../support/tmp.ts";

let tmp: ReturnType<typeof makeTempDir>;
let store: Store;

beforeAll(() => {
  tmp = makeTempDir("lk-edition-note-");
  store = openStore({ path: join(tmp.dir, "store.db") });
  const old = makeEntity("weapon", "Crossbow, heavy", { category: "martial ranged" }, { key: "srd_crossbow-heavy" });
  const now = makeEntity(
    "weapon",
    "Heavy Crossbow",
    { category: "martial-ranged" },
    { doc: "srd-2024", key: "srd-2024_heavy-crossbow" },
  );
  replaceOrigin(store.db, "open5e_v2:srd-2014", [old], []);
  replaceOrigin(store.db, "open5e_v2:srd-2024", [now], []);
});
afterAll(() => {
  store.close();
  tmp.cleanup();
});

async function ask(args: Record<string, unknown>) {
  const conn = await connectInMemory(makeDeps(store));
  try {
    return answerOf(await conn.client.callTool({ name: "search_equipment", arguments: args }));
  } finally {
    await conn.close();
  }
}

test("a lookup by the 2014 name says the preferred 2024 version's name, not a filter mismatch", async () => {
  for (const name of ["crossbow-heavy", "Crossbow, heavy"]) {
    const a = await ask({ name });
    expect(a.results.map((r) => [r.name, r.document_key])).toEqual([["Crossbow, heavy", "srd-2014"]]);
    const note = String(a.results[0]!.edition_note);
    expect(note).not.toContain("filters");
    expect(note).toContain('the preferred srd-2024 one is named "Heavy Crossbow"');
    expect(note).toContain("lorekeeper://weapon/srd-2024_heavy-crossbow");
  }
});
