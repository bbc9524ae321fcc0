/**
 * `@anush008/tokenizers`' API, as far as fastembed 2.1.0 and LoreKeeper call it, on Hugging Face's
 * pure-JS tokenizer. The root package.json maps `@anush008/tokenizers` here (`overrides`).
 *
 * Faithful to the native (Rust) tokenizer for single sequences:
 * - added/special tokens given with addSpecialTokens / addAddedTokens join tokenizer.json's
 *   `added_tokens` (same id as in the vocabulary when the token is there, else the next free id);
 * - truncation cuts the text's own tokens to `maxLength` minus the special tokens the
 *   post-processor adds, from the right; what is cut off is in `getOverflowing()` (stride 0);
 * - padding (Fixed to `maxLength`, or none) appends `padId` / type id `padTypeId` / mask 0.
 */
import { Tokenizer as HfTokenizer } from "@huggingface/tokenizers";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";

export interface AddedTokenOptions {
  singleWord?: boolean;
  leftStrip?: boolean;
  rightStrip?: boolean;
  normalized?: boolean;
}

export class AddedToken {
  constructor(
    private readonly content: string,
    readonly special: boolean,
    readonly options: AddedTokenOptions = {},
  ) {}

  getContent(): string {
    return this.content;
  }
}

export interface TruncationOptions {
  maxLength?: number;
  strategy?: string;
  direction?: string;
  stride?: number;
}

export interface PaddingOptions {
  maxLength?: number;
  direction?: string | number;
  padToMultipleOf?: number;
  padId?: number;
  padTypeId?: number;
  padToken?: string;
}

export interface EncodeOptions {
  isPretokenized?: boolean;
  addSpecialTokens?: boolean;
}

/** One encoded text; the getters return copies, as the native ones do. */
export class Encoding {
  constructor(
    private readonly ids: number[],
    private readonly typeIds: number[],
    private readonly specialMask: number[],
    /** Tokens that carry content (the rest is padding). */
    private readonly used: number,
    private readonly overflowing: Encoding[],
  ) {}

  getIds(): number[] {
    return this.ids.slice();
  }
  getTypeIds(): number[] {
    return this.typeIds.slice();
  }
  getAttentionMask(): number[] {
    return this.ids.map((_, i) => (i < this.used ? 1 : 0));
  }
  getSpecialTokensMask(): number[] {
    return this.specialMask.slice();
  }
  getLength(): number {
    return this.ids.length;
  }
  getOverflowing(): Encoding[] {
    return this.overflowing.slice();
  }
  getOffsets(): never {
    throw new Error("token offsets are not available from the pure-JS tokenizer");
  }
}

interface JsonAddedToken {
  id: number;
  content: string;
  single_word: boolean;
  lstrip: boolean;
  rstrip: boolean;
  normalized: boolean;
  special: boolean;
}

interface TokenizerJson {
  added_tokens?: JsonAddedToken[];
  model?: { vocab?: Record<string, number> | unknown };
  [key: string]: unknown;
}

/** The special tokens around one sequence, as the post-processor places them. */
interface Template {
  prefix: number[];
  prefixTypes: number[];
  suffix: number[];
  suffixTypes: number[];
  typeId: number;
}

const MARKER = "\u0000lorekeeper-sequence\u0000";

export class Tokenizer {
  private hf: HfTokenizer | undefined;
  private template: Template | undefined;
  private truncation: TruncationOptions | undefined;
  private padding: PaddingOptions | undefined;

  private constructor(
    private readonly json: TokenizerJson,
    private readonly config: Record<string, unknown>,
  ) {}

  /** tokenizer.json, with tokenizer_config.json from the same folder when it is there. */
  static fromFile(path: string): Tokenizer {
    const json = JSON.parse(readFileSync(path, "utf8")) as TokenizerJson;
    let config: Record<string, unknown> = {};
    try {
      config = JSON.parse(readFileSync(join(dirname(path), "tokenizer_config.json"), "utf8")) as Record<
        string,
        unknown
      >;
    } catch {
      // optional: the tokenizer works from tokenizer.json alone
    }
    return Tokenizer.build(json, config);
  }

  /** From parsed tokenizer.json (and tokenizer_config.json); the objects are copied. */
  static fromJson(json: object, config: object = {}): Tokenizer {
    return Tokenizer.build(structuredClone(json) as TokenizerJson, { ...(config as Record<string, unknown>) });
  }

  /** Takes ownership of `copy` (added tokens are written into it). */
  private static build(copy: TokenizerJson, config: Record<string, unknown>): Tokenizer {
    // The native tokenizer starts with no truncation or padding unless tokenizer.json has them.
    const t = copy.truncation as { max_length?: number } | null | undefined;
    const p = copy.padding as
      | { strategy?: { Fixed?: number } | string; pad_id?: number; pad_type_id?: number; pad_token?: string }
      | null
      | undefined;
    const tok = new Tokenizer(copy, config);
    if (t && typeof t.max_length === "number") tok.truncation = { maxLength: t.max_length };
    if (p) {
      const fixed = typeof p.strategy === "object" ? p.strategy.Fixed : undefined;
      tok.padding = {
        ...(fixed !== undefined ? { maxLength: fixed } : {}),
        padId: p.pad_id ?? 0,
        padTypeId: p.pad_type_id ?? 0,
        padToken: p.pad_token ?? "[PAD]",
      };
    }
    return tok;
  }

  setTruncation(maxLength: number, options: Omit<TruncationOptions, "maxLength"> = {}): void {
    if (options.direction && String(options.direction).toLowerCase() !== "right")
      throw new Error("only right truncation is supported");
    if (options.stride) throw new Error("truncation with a stride is not supported");
    this.truncation = { ...options, maxLength };
  }

  disableTruncation(): void {
    this.truncation = undefined;
  }

  setPadding(options: PaddingOptions = {}): void {
    if (
      options.direction !== undefined &&
      options.direction !== 1 &&
      String(options.direction).toLowerCase() !== "right"
    )
      throw new Error("only right padding is supported");
    this.padding = { ...options };
  }

  disablePadding(): void {
    this.padding = undefined;
  }

  addSpecialTokens(tokens: string[]): number {
    return this.add(tokens.map((content) => ({ content, special: true })));
  }

  addAddedTokens(tokens: AddedToken[]): number {
    return this.add(tokens.map((t) => ({ content: t.getContent(), special: t.special, options: t.options })));
  }

  getVocabSize(withAddedTokens = true): number {
    return this.tokenizer().get_vocab(withAddedTokens).size;
  }

  /** Asynchronous like the native encode. */
  async encode(sentence: string, pair?: string | null, options?: EncodeOptions | null): Promise<Encoding> {
    if (pair !== undefined && pair !== null) throw new Error("pairs of sequences are not supported");
    if (options?.isPretokenized) throw new Error("pre-tokenized input is not supported");
    return this.encodeSync(sentence, options?.addSpecialTokens ?? true, true);
  }

  /** The same encoding, synchronously; `pad: false` leaves out the padding (for one query). */
  encodeSync(sentence: string, addSpecialTokens = true, pad = true): Encoding {
    const hf = this.tokenizer();
    const content = hf.encode(sentence, { add_special_tokens: false }).ids;
    const tpl = addSpecialTokens
      ? this.sequenceTemplate()
      : { prefix: [], prefixTypes: [], suffix: [], suffixTypes: [], typeId: 0 };
    const room =
      this.truncation?.maxLength !== undefined
        ? Math.max(0, this.truncation.maxLength - tpl.prefix.length - tpl.suffix.length)
        : Infinity;
    const kept = content.length > room ? content.slice(0, room) : content;
    const overflowing: Encoding[] = [];
    for (let at = kept.length; at < content.length && room > 0; at += room)
      overflowing.push(this.assemble(content.slice(at, at + room), tpl, [], pad));
    return this.assemble(kept, tpl, overflowing, pad);
  }

  /** For a text: its tokens, unpadded, without special tokens (what truncation counts). */
  countTokens(sentence: string): number {
    return this.tokenizer().encode(sentence, { add_special_tokens: false }).ids.length;
  }

  private assemble(content: number[], tpl: Template, overflowing: Encoding[], pad: boolean): Encoding {
    const ids = [...tpl.prefix, ...content, ...tpl.suffix];
    const types = [...tpl.prefixTypes, ...content.map(() => tpl.typeId), ...tpl.suffixTypes];
    const special = [...tpl.prefix.map(() => 1), ...content.map(() => 0), ...tpl.suffix.map(() => 1)];
    const used = ids.length;
    const target = pad ? this.padTo(used) : used;
    for (let i = used; i < target; i++) {
      ids.push(this.padding?.padId ?? 0);
      types.push(this.padding?.padTypeId ?? 0);
      special.push(1);
    }
    return new Encoding(ids, types, special, used, overflowing);
  }

  private padTo(length: number): number {
    const p = this.padding;
    if (!p) return length;
    let target = p.maxLength !== undefined ? Math.max(length, p.maxLength) : length;
    if (p.padToMultipleOf && target % p.padToMultipleOf !== 0)
      target += p.padToMultipleOf - (target % p.padToMultipleOf);
    return target;
  }

  private add(tokens: Array<{ content: string; special: boolean; options?: AddedTokenOptions }>): number {
    const list = (this.json.added_tokens ??= []);
    const vocab = this.json.model?.vocab;
    const inVocab =
      vocab && typeof vocab === "object" && !Array.isArray(vocab) ? (vocab as Record<string, number>) : {};
    let added = 0;
    for (const t of tokens) {
      const existing = list.find((a) => a.content === t.content);
      if (existing) {
        existing.special ||= t.special;
        continue;
      }
      const nextId = Math.max(Object.keys(inVocab).length - 1, ...list.map((a) => a.id)) + 1;
      list.push({
        id: inVocab[t.content] ?? nextId,
        content: t.content,
        single_word: t.options?.singleWord ?? false,
        lstrip: t.options?.leftStrip ?? false,
        rstrip: t.options?.rightStrip ?? false,
        normalized: t.options?.normalized ?? !t.special,
        special: t.special,
      });
      added++;
    }
    if (added) {
      this.hf = undefined;
      this.template = undefined;
    }
    return added;
  }

  private tokenizer(): HfTokenizer {
    this.hf ??= new HfTokenizer(this.json, this.config);
    return this.hf;
  }

  /** Where the post-processor puts one sequence and which special tokens surround it. */
  private sequenceTemplate(): Template {
    if (this.template) return this.template;
    const hf = this.tokenizer();
    const pp = hf.post_processor;
    if (!pp) return (this.template = { prefix: [], prefixTypes: [], suffix: [], suffixTypes: [], typeId: 0 });
    const out = pp.post_process([MARKER], null, true);
    const at = out.tokens.indexOf(MARKER);
    if (at < 0 || out.tokens.indexOf(MARKER, at + 1) >= 0)
      throw new Error("the tokenizer's post-processor does not keep the sequence in one piece");
    const types = out.token_type_ids ?? out.tokens.map(() => 0);
    const id = (t: string) => {
      const v = hf.token_to_id(t);
      if (v === undefined) throw new Error(`the post-processor's token ${t} is not in the vocabulary`);
      return v;
    };
    this.template = {
      prefix: out.tokens.slice(0, at).map(id),
      prefixTypes: types.slice(0, at),
      suffix: out.tokens.slice(at + 1).map(id),
      suffixTypes: types.slice(at + 1),
      typeId: types[at] ?? 0,
    };
    return this.template;
  }
}
