/**
 * Tokenizing exactly as fastembed 2.1.0 sets its tokenizer up (FlagEmbedding.loadTokenizer), for
 * any class with `@anush008/tokenizers`' API: the native addon or the pure-JS adapter
 * (packages/tokenizers-js). Used by `bun run check-tokenizer` and the tokenizer test.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

export interface EncodingApi {
  getIds(): number[];
  getTypeIds(): number[];
  getAttentionMask(): number[];
  getOverflowing(): unknown[];
}

export interface TokenizerApi {
  setTruncation(maxLength: number): void;
  setPadding(options: { maxLength?: number; padId?: number; padToken?: string }): void;
  addSpecialTokens(tokens: string[]): unknown;
  addAddedTokens(tokens: unknown[]): unknown;
  encode(text: string): Promise<EncodingApi>;
}

export interface TokenizerClass {
  fromFile(path: string): TokenizerApi;
}

export type AddedTokenClass = new (content: string, special: boolean, options: Record<string, unknown>) => unknown;

/** What one text becomes: ids and type ids up to the padding, and how many pieces were cut off. */
export interface TokenRecord {
  ids: number[];
  typeIds: number[];
  overflowing: number;
}

const readJson = (dir: string, f: string): Record<string, unknown> => JSON.parse(readFileSync(join(dir, f), "utf8")) as Record<string, unknown>;

/** fastembed's loadTokenizer, line for line, on the given classes. */
export function loadLikeFastembed(Tok: TokenizerClass, Added: AddedTokenClass, dir: string, maxLength: number): TokenizerApi {
  const config = readJson(dir, "config.json");
  const tokenizerConfig = readJson(dir, "tokenizer_config.json");
  const max = Math.min(maxLength, Number(tokenizerConfig.model_max_length));
  const tokensMap = readJson(dir, "special_tokens_map.json");
  const tok = Tok.fromFile(join(dir, "tokenizer.json"));
  tok.setTruncation(max);
  tok.setPadding({ maxLength: max, padId: config.pad_token_id as number, padToken: tokenizerConfig.pad_token as string });
  for (const token of Object.values(tokensMap)) {
    if (typeof token === "string") tok.addSpecialTokens([token]);
    else if (token && typeof token === "object" && "content" in token) {
      const t = token as Record<string, unknown>;
      tok.addAddedTokens([new Added(String(t.content), true, { singleWord: t.single_word, leftStrip: t.lstrip, rightStrip: t.rstrip, normalized: t.normalized })]);
    }
  }
  return tok;
}

export function toRecord(e: EncodingApi): TokenRecord {
  const mask = e.getAttentionMask();
  let n = mask.length;
  while (n > 0 && mask[n - 1] === 0) n--;
  return { ids: e.getIds().slice(0, n), typeIds: e.getTypeIds().slice(0, n), overflowing: e.getOverflowing().length };
}

export function sameRecord(a: TokenRecord, b: TokenRecord): boolean {
  return a.overflowing === b.overflowing && a.ids.length === b.ids.length && a.ids.every((x, i) => x === b.ids[i]) && a.typeIds.every((x, i) => x === b.typeIds[i]);
}
