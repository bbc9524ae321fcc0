/**
 * Hardening, homebrew that passes for official content: a pack named "System Reference
 * Document 5.2" with spells "Fіreball" (Cyrillic і), "Fire\u200bball" and "Fıreball" (dotless ı)
 * imported without --force, ranked just under the real Fireball and labelled as the SRD; and bidi
 * controls (U+202E) in homebrew names coming out raw in tool text, completions and prompts.
 * Also "FirebaII" (capital I for l), "Fire ball" and "Fiгeball" (Cyrillic г) still imported
 * without --force: the clash check compares what names look like now (`nameSkeleton`).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Store } from "../../src/store/db.ts";
import { importOrcbrewText } from "../../src/ingest/import-orcbrew.ts";
import { upsertDocuments } from "../../src/store/documents.ts";
import { makeStore, sampleEntities } from "../support/entities.ts";
import { connectInMemory, makeDeps, textOf } from "../support/mcp.ts";

const BIDI = /[\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/;

function spellEdn(key: string, name: string): string {
  return (
    `:${key} {:key :${key} :name ${JSON.stringify(name)} :level 3 :school "evocation" ` +
    `:spell-lists {:wizard true} :description "A homebrew blast of flame."}`
  );
}

let made: { store: Store; cleanup: () => void };

beforeAll(() => {
  made = makeStore(sampleEntities());
  upsertDocuments(made.store.db, [
    { key: "srd-2024", name: "System Reference Document 5.2", source: "open5e_v2", publisher: "Wizards of the Coast" },
  ]);
});

afterAll(() => made.cleanup());

describe("look-alike names", () => {
  test("Fіreball, Fire\\u200bball and Fıreball clash with the real Fireball and are skipped without --force", () => {
    const text =
      `{"Spoof Pack" {:orcpub.dnd.e5/spells {${spellEdn("fb-cyr", "Fіreball")} ` +
      `${spellEdn("fb-zw", "Fire\u200bball")} ` +
      `${spellEdn("fb-dotless", "Fıreball")} ${spellEdn("ember", "Ember Lance")}}}}`;
    const r = importOrcbrewText(made.store.db, text, "spoof.orcbrew");
    expect(r.ok).toBe(true);
    const skipped = r.packs.flatMap((p) => p.skipped);
    expect(skipped.map((s) => s.key).sort()).toEqual(["fb-cyr", "fb-dotless", "fb-zw"]);
    for (const s of skipped) expect(s.reason).toContain('"Fireball"');
    expect(r.imported).toBe(1);
  });

  test("FirebaII, Fire ball, Fiгeball and other look-alikes clash too; names that only share letters do not", () => {
    const spoofs = [
      "FirebaII",
      "Fire ball",
      "Fiгeball",
      "Fire-Ball",
      "Firebal1",
      "Fireba||",
      "Ｆｉｒｅｂａｌｌ",
      "Fírebáll",
    ];
    const fair = ["Fireballs of Doom", "Firebolt Lance", "Fire"];
    const entries = [...spoofs, ...fair].map((n, i) => spellEdn(`v${i}`, n)).join(" ");
    const text = `{"Look-alike Pack" {:orcpub.dnd.e5/spells {${entries}}}}`;
    const r = importOrcbrewText(made.store.db, text, "lookalike.orcbrew");
    expect(r.ok).toBe(true);
    const skipped = r.packs.flatMap((p) => p.skipped);
    expect(skipped.map((s) => s.name).sort()).toEqual([...spoofs].sort());
    for (const s of skipped) expect(s.reason).toContain('"Fireball"');
    expect(r.imported).toBe(fair.length);
    // With --force they are imported, each with a warning.
    const one = `{"Forced Pack" {:orcpub.dnd.e5/spells {${spellEdn("f0", "FirebaII")}}}}`;
    const forced = importOrcbrewText(made.store.db, one, "forced.orcbrew", { force: true });
    expect(forced.imported).toBe(1);
    expect(forced.packs[0]!.warnings.join(" ")).toContain('"FirebaII" has the same name as the API spell');
  });

  test("a pack named like an official document is shown with a visible homebrew marker", () => {
    for (const packName of ["System Reference Document 5.2", "Sуstem Reference Document 5.2", "SRD Extras"]) {
      const text =
        `{${JSON.stringify(packName)} {:orcpub.dnd.e5/spells ` +
        `{${spellEdn(`x${packName.length}`, `Odd Spell ${packName.length}`)}}}}`;
      const r = importOrcbrewText(made.store.db, text, "official.orcbrew");
      expect(r.ok).toBe(true);
      const pack = r.packs[0]!;
      expect(pack.name).toEndWith("(homebrew)");
      expect(pack.warnings.join(" ")).toContain("never passes for official content");
      const doc = made.store.db
        .query<{ name: string }, [string]>("SELECT name FROM documents WHERE key = ?")
        .get(pack.document_key);
      expect(doc?.name).toEndWith("(homebrew)");
      const names = made.store.db
        .query<{ document_name: string }, [string]>(
          "SELECT DISTINCT document_name FROM entities WHERE document_key = ?",
        )
        .all(pack.document_key);
      expect(names.map((x) => x.document_name)).toEqual([pack.name]);
    }
  });
});

describe("bidirectional and invisible characters in homebrew names", () => {
  let client: Client;
  let close: () => Promise<void>;

  beforeAll(async () => {
    const text =
      `{"Mirror\u202e Pack" {:orcpub.dnd.e5/spells {${spellEdn("mirror", "Mirror\u202eflaM Bolt")} ` +
      `${spellEdn("quiet", "Quiet\u2066 Chime\u2069")}}}}`;
    const r = importOrcbrewText(made.store.db, text, "bidi.orcbrew");
    expect(r.imported).toBe(2);
    ({ client, close } = await connectInMemory(makeDeps(made.store)));
  });

  afterAll(async () => close());

  test("they are dropped on import: tool text, completions and prompts show clean names", async () => {
    const rows = made.store.db
      .query<{ name: string; document_name: string }, []>(
        "SELECT name, document_name FROM entities WHERE document_source = 'orcbrew'",
      )
      .all();
    for (const r of rows) expect(r.name + r.document_name).not.toMatch(BIDI);
    expect(rows.map((r) => r.name)).toContain("MirrorflaM Bolt");

    const search = (await client.callTool({ name: "search_spell", arguments: { name: "Mirror*" } })) as CallToolResult;
    expect(textOf(search)).toContain("MirrorflaM Bolt");
    expect(JSON.stringify(search)).not.toMatch(BIDI);

    const done = await client.complete({
      ref: { type: "ref/prompt", name: "spell_card" },
      argument: { name: "name", value: "Mirr" },
    });
    expect(done.completion.values).toContain("MirrorflaM Bolt");
    expect(JSON.stringify(done)).not.toMatch(BIDI);

    const prompt = await client.getPrompt({ name: "spell_card", arguments: { name: done.completion.values[0]! } });
    expect(JSON.stringify(prompt)).not.toMatch(BIDI);
  });
});
