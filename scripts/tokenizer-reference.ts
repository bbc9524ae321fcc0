/**
 * Tokenizing exactly as fastembed 2.1.0 sets its tokenizer up (FlagEmbedding.loadTokenizer), for
 * any class with `@anush008/tokenizers`' API: the native addon or the pure-JS adapter
 * (packages/tokenizers-js). Used by `bun run check-tokenizer` and the tokenizer test.
 */
import { loadTokenizerWith } from "../src/search/model/onnx-session.ts";

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

/**
 * fastembed's loadTokenizer, line for line, on the given classes (the product's set-up: search/model/onnx-session.ts).
 */
export function loadLikeFastembed(
  Tok: TokenizerClass,
  Added: AddedTokenClass,
  dir: string,
  maxLength: number,
): TokenizerApi {
  return loadTokenizerWith(Tok, Added, dir, maxLength);
}

export function toRecord(e: EncodingApi): TokenRecord {
  const mask = e.getAttentionMask();
  let n = mask.length;
  while (n > 0 && mask[n - 1] === 0) n--;
  return { ids: e.getIds().slice(0, n), typeIds: e.getTypeIds().slice(0, n), overflowing: e.getOverflowing().length };
}

export function sameRecord(a: TokenRecord, b: TokenRecord): boolean {
  return (
    a.overflowing === b.overflowing &&
    a.ids.length === b.ids.length &&
    a.ids.every((x, i) => x === b.ids[i]) &&
    a.typeIds.every((x, i) => x === b.typeIds[i])
  );
}
