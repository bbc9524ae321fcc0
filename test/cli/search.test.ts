import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { parseTypes, searchCommand } from "../../src/cli/commands/search.ts";
import { FILTER_HELP } from "../../src/cli/commands/search-filters.ts";
import { loadConfig } from "../../src/config.ts";
import { UsageError } from "../../src/cli/command.ts";
import type { EmbedderProvider } from "../../src/search/types.ts";
import { makeStore } from "../support/entities.ts";
import { embedAll, readyProvider, TopicEmbedder, unavailableProvider } from "../search/helpers.ts";

let dbPath: string;
let cleanup: () => void;
const emb = new TopicEmbedder();

beforeAll(async () => {
  const s = makeStore();
  await embedAll(s.store.db, emb);
  dbPath = s.store.path;
  s.store.db.close();
  cleanup = s.cleanup;
});
afterAll(() => cleanup());

/** Run the command, capturing stdout and stderr. */
async function cli(
  args: string[],
  provider: EmbedderProvider = unavailableProvider("no model here"),
): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const o = process.stdout.write.bind(process.stdout);
  const e = process.stderr.write;
  const text = (c: string | Uint8Array) => (typeof c === "string" ? c : new TextDecoder().decode(c));
  process.stdout.write = ((c: string | Uint8Array) => out.push(text(c)) > 0) as typeof process.stdout.write;
  process.stderr.write = ((c: string | Uint8Array) => err.push(text(c)) > 0) as typeof process.stderr.write;
  try {
    const code = await searchCommand.run([...args, "--db-path", dbPath], {
      config: loadConfig(),
      embedder: () => provider,
    });
    return { code, out: out.join(""), err: err.join("") };
  } finally {
    process.stdout.write = o;
    process.stderr.write = e;
  }
}

describe("--type", () => {
  test("kinds, plurals, hyphens, groups, lists", () => {
    expect(parseTypes(["spell"])).toEqual(["spell"]);
    expect(parseTypes(["spells", "Creatures"])).toEqual(["spell", "creature"]);
    expect(parseTypes(["magic-item"])).toEqual(["magic_item"]);
    expect(parseTypes(["equipment"])).toEqual(["weapon", "armor", "item", "magic_item"]);
    expect(parseTypes(["monster", "race"])).toEqual(["creature", "species"]);
    expect(parseTypes(["all"]).length).toBeGreaterThan(20);
    expect(parseTypes(undefined)).toEqual(parseTypes(["all"]));
    expect(() => parseTypes(["wizardry"])).toThrow(UsageError);
  });
});

describe("lorekeeper search", () => {
  test("an aligned table with scores, and the note on stderr", async () => {
    const r = await cli(["magik", "missle", "--type", "spell,magic-item", "--limit", "3"]);
    expect(r.code).toBe(0);
    const lines = r.out.split("\n");
    expect(lines[0]).toMatch(/^name\s+kind\s+document\s+score\s+summary$/);
    expect(lines[1]).toMatch(/^-+ {2}-+/);
    expect(lines[2]).toMatch(/^Magic Missile\s+spell\s+srd-2014\s+1\.000\s+level 1 evocation$/);
    expect(lines.filter((l) => /^\S.*\s\d\.\d{3}\s/.test(l)).length).toBe(3);
    expect(r.out).toContain("3 results, ranked by keywords.");
    expect(r.err).toContain("Semantic ranking is off (no model here)");
  }, 30_000);

  test("--json: mode, count and entities with scores", async () => {
    const r = await cli(["protect from fire", "--type", "spell", "--json", "--limit", "4"], readyProvider(emb));
    const j = JSON.parse(r.out) as {
      mode: string;
      count: number;
      results: Array<{ name: string; similarity_score: number; data: unknown; text?: string }>;
    };
    expect(j.mode).toBe("hybrid");
    expect(j.count).toBe(4);
    expect(j.results.length).toBe(4);
    expect(j.results[0]!.name).toBe("Fire Shield");
    expect(j.results[0]!.similarity_score).toBeGreaterThan(0);
    expect(j.results[0]!.data).toBeDefined();
    expect(j.results[0]!.text).toBeUndefined();
  }, 30_000);

  test("no query: ordered by name, no score column; --documents filters", async () => {
    const r = await cli(["--type", "creature", "--documents", "tob", "--limit", "5"]);
    expect(r.out.split("\n")[0]).toMatch(/^name\s+kind\s+document\s+summary$/);
    expect(r.out).toMatch(/Fire Drake\s+creature\s+tob\s+CR 6 large dragon/);
    expect(r.out).toContain("1 result, ordered by name.");
  }, 30_000);

  test("no query, no --documents: one row per thing, the preferred " +
    "documents' first, then by name; --all-versions: by name", async () => {
    const r = await cli(["--type", "spell", "--limit", "50"]);
    expect(r.out).toMatch(/\d+ results, preferred documents first, then by name\./);
    const rows = r.out
      .split("\n")
      .slice(2)
      .filter((l) => /\sspell\s/.test(l))
      .map((l) => ({ name: l.split(/\s{2,}/)[0]!, doc: l.split(/\s{2,}/)[2]!.split(" ")[0]! }));
    const tier = (d: string) => ["srd-2024", "srd-2014"].indexOf(d) + 1 || (d === "homebrew-pack" ? 4 : 3);
    // Every tier present, in order; names in order within a tier.
    expect([...new Set(rows.map((x) => tier(x.doc)))]).toEqual([1, 2, 3, 4]);
    for (let i = 1; i < rows.length; i++) {
      const [a, b] = [rows[i - 1]!, rows[i]!];
      if (tier(a.doc) === tier(b.doc)) expect(a.name.toLowerCase() <= b.name.toLowerCase()).toBe(true);
    }
    const all = await cli(["--type", "spell", "--limit", "50", "--all-versions"]);
    expect(all.out).toMatch(/\d+ results, ordered by name\./);
    const names = all.out
      .split("\n")
      .slice(2)
      .filter((l) => /\sspell\s/.test(l))
      .map((l) => l.split(/\s{2,}/)[0]!.toLowerCase());
    expect(names).toEqual([...names].sort());
  }, 30_000);

  test("unknown documents: no results and the available ones", async () => {
    const r = await cli(["fire", "--documents", "phb"]);
    expect(r.out).toContain("No results.");
    expect(r.err).toContain("Available documents: homebrew-pack, srd-2014, srd-2024, tob.");
  }, 30_000);

  test("bad options are usage errors", async () => {
    await expect(cli(["fire", "--limit", "0"])).rejects.toThrow(UsageError);
    await expect(cli(["fire", "--type", "nope"])).rejects.toThrow(/unknown --type/);
    await expect(cli(["fire", "--bogus"])).rejects.toThrow(UsageError);
  }, 30_000);
});

test("`search --help` filter lines: every option is apart from its kinds and says what it takes", () => {
  for (const line of FILTER_HELP.split("\n")) {
    // "  --requires-attunement true|false  magic_item: true or false", never "true|falsemagic_item:".
    expect(line).toMatch(/^ {2}--[a-z-]+ \S+ {2,}[a-z_/]+: \S/);
  }
  expect(FILTER_HELP).toContain("--requires-attunement true|false  magic_item: true or false");
});
