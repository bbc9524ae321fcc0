/**
 * The pure-JS tokenizer that stands in for @anush008/tokenizers (packages/tokenizers-js): set up
 * as fastembed sets it up, it must give the native tokenizer's ids. The reference ids were made by
 * the native addon (`bun run check-tokenizer -- --write-fixture`) on real entity texts of a full
 * sync (long ones that are truncated, accented names, tables and stat blocks full of punctuation)
 * and on the eval's and the benchmark's questions, plus a few edge cases.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { FlagEmbedding } from "fastembed";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { AddedToken, Tokenizer } from "../../packages/tokenizers-js/index.ts";
import {
  type AddedTokenClass,
  loadLikeFastembed,
  sameRecord,
  type TokenizerApi,
  type TokenizerClass,
  type TokenRecord,
  toRecord,
} from "../../scripts/tokenizer-reference.ts";

const ROOT = resolve(import.meta.dir, "..", "..");
const FIXTURE = join(ROOT, "test/fixtures/tokenizer");

interface Reference {
  maxLength: number;
  texts: Array<{ source: "entity" | "question"; text: string; native: TokenRecord }>;
}
const reference = JSON.parse(readFileSync(join(FIXTURE, "reference.json"), "utf8")) as Reference;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "lk-tokenizer-"));
  cpSync(join(FIXTURE, "all-MiniLM-L6-v2"), dir, { recursive: true });
  writeFileSync(join(dir, "tokenizer.json"), Bun.gunzipSync(readFileSync(join(dir, "tokenizer.json.gz"))));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const js = (max = reference.maxLength) =>
  loadLikeFastembed(Tokenizer as unknown as TokenizerClass, AddedToken as unknown as AddedTokenClass, dir, max);

async function differences(tok: TokenizerApi): Promise<string[]> {
  const bad: string[] = [];
  for (const r of reference.texts) {
    const got = toRecord(await tok.encode(r.text));
    if (!sameRecord(got, r.native))
      bad.push(
        `${JSON.stringify(r.text.slice(0, 60))}: ${got.ids.length} ids (${got.overflowing} ` +
          `cut off), native ${r.native.ids.length} (${r.native.overflowing})`,
      );
  }
  return bad;
}

describe("pure-JS tokenizer = native tokenizer", () => {
  test("the fixture covers long, accented and punctuation-heavy texts and questions", () => {
    const t = reference.texts;
    expect(t.filter((r) => r.native.overflowing > 0).length).toBeGreaterThanOrEqual(10);
    expect(t.filter((r) => /[À-ÖØ-öø-ɏ]/.test(r.text)).length).toBeGreaterThanOrEqual(10);
    expect(
      t.filter((r) => (r.text.match(/[^\p{L}\p{N}\s]/gu)?.length ?? 0) > r.text.length / 8).length,
    ).toBeGreaterThanOrEqual(5);
    expect(t.filter((r) => r.source === "question").length).toBeGreaterThanOrEqual(50);
  });

  test("token ids, type ids and truncation equal the native ones on every fixture text", async () => {
    expect(await differences(js())).toEqual([]);
  });

  test("fastembed loads the pure-JS tokenizer (the override), and it gives the same ids", async () => {
    const fastembedDir = dirname(Bun.resolveSync("fastembed/package.json", ROOT));
    const resolved = Bun.resolveSync("@anush008/tokenizers", fastembedDir);
    expect(JSON.parse(readFileSync(join(dirname(resolved), "package.json"), "utf8")).name).toBe(
      "@lorekeeper/tokenizers-js",
    );
    // bun installs a copy of the folder: after editing packages/tokenizers-js, `bun install --force` refreshes it.
    const stale =
      readFileSync(resolved, "utf8") !== readFileSync(join(ROOT, "packages/tokenizers-js/index.ts"), "utf8");
    expect(stale ? "node_modules has a stale copy of packages/tokenizers-js: run bun install --force" : "current").toBe(
      "current",
    );
    const load = Reflect.get(FlagEmbedding, "loadTokenizer") as (dir: string, max: number) => TokenizerApi;
    const tok = load.call(FlagEmbedding, dir, reference.maxLength);
    expect(typeof Reflect.get(tok, "encodeSync")).toBe("function");
    expect(await differences(tok)).toEqual([]);
  });
});

describe("the adapter's own behaviour", () => {
  test("pads to maxLength with the pad id, mask 0; the unpadded encoding is its prefix", async () => {
    const tok = js() as unknown as Tokenizer;
    const padded = await tok.encode("Fireball");
    expect(padded.getLength()).toBe(reference.maxLength);
    const mask = padded.getAttentionMask();
    const used = mask.filter((m) => m === 1).length;
    expect(
      padded
        .getIds()
        .slice(used)
        .every((id) => id === 0),
    ).toBe(true);
    expect(padded.getSpecialTokensMask().slice(0, used)).toEqual([1, ...Array(used - 2).fill(0), 1]);
    const bare = tok.encodeSync("Fireball", true, false);
    expect(bare.getIds()).toEqual(padded.getIds().slice(0, used));
    expect(bare.getAttentionMask().every((m) => m === 1)).toBe(true);
  });

  test("truncation keeps maxLength tokens with [CLS] … [SEP] and hands the rest to getOverflowing()", async () => {
    const tok = js(16) as unknown as Tokenizer;
    const e = await tok.encode(
      "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen",
    );
    const ids = e.getIds();
    expect(ids.length).toBe(16);
    expect(ids[0]).toBe(101);
    expect(ids[15]).toBe(102);
    expect(e.getOverflowing().length).toBe(1);
    expect((await tok.encode("one two three")).getOverflowing()).toEqual([]);
  });

  test("a special token added by fastembed's set-up is never split, and a new one gets the next id", async () => {
    const tok = js() as unknown as Tokenizer;
    const inside = tok.encodeSync("before [MASK] after", true, false).getIds();
    expect(inside).toContain(103);
    expect(tok.addSpecialTokens(["<lore>"])).toBe(1);
    const ids = tok.encodeSync("a <lore> b", true, false).getIds();
    expect(ids).toContain(30522);
    expect(tok.addSpecialTokens(["<lore>"])).toBe(0);
  });

  test("what it cannot do, it says", async () => {
    const tok = js() as unknown as Tokenizer;
    await expect(tok.encode("a", "b")).rejects.toThrow("pairs of sequences are not supported");
    expect(() => tok.encodeSync("a").getOffsets()).toThrow("offsets are not available");
    expect(() => tok.setTruncation(8, { stride: 2 })).toThrow("stride");
  });
});
