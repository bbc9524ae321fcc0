/**
 * 5etools homebrew found by meaning: one record of every kind the importer writes
 * (fixtures/5etools/by-meaning.json, each about one topic of the tiny test model) is imported,
 * embedded by the real embed step (fastembed + the generated tiny ONNX model), and found through
 * search_all with words of its topic that appear in no record, so only the vector leg can find it.
 * Every answer is rendered text: no raw `{@` tag.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { join } from "node:path";
import { embedPending } from "../../src/ingest/embed.ts";
import { importHomebrewFile } from "../../src/ingest/import-5etools.ts";
import { closeVectorIndex } from "../../src/search/index/vector-index.ts";
import { createEmbedderProvider } from "../../src/search/model/embedder.ts";
import type { EmbedderProvider } from "../../src/search/types.ts";
import { openStore, type Store } from "../../src/store/db.ts";
import { answerOf, connectInMemory, makeDeps, namesOf } from "../support/mcp.ts";
import { createTinyModel } from "../support/tiny-model.ts";
import { makeTempDir } from "../support/tmp.ts";

const FIXTURE = join(import.meta.dir, "../fixtures/5etools/by-meaning.json");

/** Each record, its kind, and a query of its topic's words that none of the records contains. */
const SAMPLES: ReadonlyArray<{ name: string; kind: string; query: string }> = [
  { name: "Rimeveil", kind: "spell", query: "winter chill freezing" },
  { name: "Gravecaller Husk", kind: "creature", query: "zombie skeleton wraith" },
  { name: "Mending Locket", kind: "magic_item", query: "cure vitality regain" },
  { name: "Warden Plate", kind: "armor", query: "shield block bolt catching" },
  { name: "Hurling Axe", kind: "weapon", query: "sword dagger spear fighter" },
  { name: "Spellbound", kind: "weapon_property", query: "sorcerer mage cantrip study" },
  { name: "Tidefolk", kind: "species", query: "waves fish shark amphibious" },
  { name: "Tidefolk (Stormcaller)", kind: "subspecies", query: "shock electric spark" },
  { name: "Skyleap", kind: "feat", query: "ledge drop ground flying" },
  { name: "Shrine Keeper", kind: "background", query: "cleric deity radiant paladin" },
  { name: "Nightblade", kind: "class", query: "invisible rogue surprise stealth" },
  { name: "Path of the Scaled", kind: "subclass", query: "wyrm hoard bite breathe" },
  { name: "Envenomed", kind: "condition", query: "disease sickness acid" },
  { name: "Emberspeech", kind: "language", query: "inferno ignite fiery scorch" },
];

let tmp: ReturnType<typeof makeTempDir>;
let store: Store;
let provider: EmbedderProvider;
let client: Client;
let close: () => Promise<void>;
let lexical: { client: Client; close: () => Promise<void> };

beforeAll(async () => {
  tmp = makeTempDir("lk-5etools-meaning-");
  const modelDir = await createTinyModel(join(tmp.dir, "tiny"));
  const cacheDir = join(tmp.dir, "cache");
  provider = createEmbedderProvider({ modelDir, embeddedDir: null, allowDownload: false, cacheDir });
  store = openStore({ path: join(tmp.dir, "lk.db") });
  const r = importHomebrewFile(store.db, FIXTURE);
  expect(r.ok).toBe(true);
  expect(r.imported).toBe(SAMPLES.length);
  const embedded = await embedPending(store, provider);
  expect(embedded.embedded).toBe(SAMPLES.length);
  ({ client, close } = await connectInMemory(makeDeps(store, { embedder: provider })));
  lexical = await connectInMemory(makeDeps(store));
}, 60_000);

afterAll(async () => {
  await close();
  await lexical.close();
  closeVectorIndex(store);
  store.close();
  tmp.cleanup();
});

describe("every kind of 5etools record is found by meaning", () => {
  test("the samples cover every kind the importer wrote", () => {
    const sql = "SELECT DISTINCT kind FROM entities WHERE document_source = '5etools'";
    const kinds = store.db.query<{ kind: string }, []>(sql).all();
    expect(kinds.map((k) => k.kind).sort()).toEqual(SAMPLES.map((s) => s.kind).sort());
  });

  for (const s of SAMPLES) {
    test(`${s.kind}: "${s.query}" → ${s.name}`, async () => {
      const words = await lexical.client.callTool({ name: "search_all", arguments: { query: s.query } });
      // The words are in no record: keyword search alone does not find it.
      expect(namesOf(words)).not.toContain(s.name);
      const r = await client.callTool({ name: "search_all", arguments: { query: s.query, limit: 3 } });
      const a = answerOf(r);
      expect(a.search_mode).toBe("hybrid");
      expect(String(a.results[0]?.name)).toBe(s.name);
      expect(JSON.stringify(r)).not.toContain("{@");
    });
  }

  test("the full answer of each sample is rendered text", async () => {
    for (const s of SAMPLES) {
      const r = await client.callTool({ name: "search_all", arguments: { query: s.name, detail: "full", limit: 1 } });
      expect(namesOf(r)[0]).toBe(s.name);
      expect(JSON.stringify(r)).not.toContain("{@");
    }
  });
});
