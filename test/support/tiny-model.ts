/**
 * A tiny fastembed-compatible embedding model, generated inside the test run (no network, nothing
 * from ../shared): a WordPiece tokenizer over a few hundred D&D words and a *static embedding*
 * ONNX graph (like lorekeeper-static-384): inputs input_ids / attention_mask / token_type_ids
 * (int64 [batch, seq]) → `last_hidden_state` [batch, seq, dim] where every position holds the
 * masked mean of a token table. Weights are deterministic: each topic word points mostly along its
 * topic's axis (fire, cold, undead, healing, …) plus a little seeded noise, so semantic ranking is
 * real and testable. Generic words get small noise-only rows; special tokens and punctuation get 0.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { onnx } from "onnx-proto";

/** Topic → words. A word's vector points mostly along its topic's axis. */
export const TINY_TOPICS: Record<string, readonly string[]> = {
  fire: [
    "fire",
    "flame",
    "flames",
    "burn",
    "burning",
    "burns",
    "heat",
    "hot",
    "blaze",
    "inferno",
    "ember",
    "scorch",
    "fiery",
    "smoke",
    "ignite",
  ],
  cold: ["cold", "ice", "frost", "freeze", "freezing", "chill", "snow", "icy", "winter", "frozen", "sleet", "hail"],
  undead: [
    "undead",
    "drain",
    "drains",
    "life",
    "necrotic",
    "death",
    "dead",
    "corpse",
    "zombie",
    "skeleton",
    "wraith",
    "vampire",
    "specter",
    "ghost",
    "soul",
    "wither",
    "grave",
    "lich",
  ],
  healing: [
    "heal",
    "heals",
    "healing",
    "wounds",
    "wound",
    "cure",
    "cures",
    "restore",
    "restores",
    "health",
    "regain",
    "mend",
    "recover",
    "vitality",
    "hit",
    "points",
  ],
  protection: [
    "shield",
    "armor",
    "protect",
    "protects",
    "protection",
    "ward",
    "deflect",
    "block",
    "arrow",
    "arrows",
    "missile",
    "missiles",
    "projectile",
    "projectiles",
    "bolt",
    "catch",
    "catching",
    "against",
  ],
  dragon: [
    "dragon",
    "dragons",
    "wyrm",
    "breath",
    "breathe",
    "breathing",
    "scales",
    "wings",
    "beast",
    "claw",
    "bite",
    "red",
    "hoard",
  ],
  arcane: [
    "arcane",
    "magic",
    "wizard",
    "wizards",
    "sorcerer",
    "sorcerers",
    "mage",
    "magical",
    "masters",
    "study",
    "spellbook",
    "cantrip",
  ],
  divine: [
    "divine",
    "cleric",
    "paladin",
    "holy",
    "god",
    "gods",
    "deity",
    "radiant",
    "sacred",
    "warrior",
    "oath",
    "faith",
    "priest",
  ],
  stealth: [
    "hidden",
    "hide",
    "hiding",
    "stealth",
    "unseen",
    "invisible",
    "sneak",
    "shadow",
    "shadows",
    "attacking",
    "surprise",
    "rogue",
  ],
  falling: ["fall", "falls", "falling", "jump", "climb", "height", "drop", "fly", "flying", "feet", "ground", "ledge"],
  lightning: ["lightning", "thunder", "shock", "electric", "storm", "spark", "thunderous"],
  weapon: [
    "weapon",
    "weapons",
    "throw",
    "thrown",
    "returns",
    "return",
    "hammer",
    "axe",
    "sword",
    "dagger",
    "spear",
    "hand",
    "fighter",
    "martial",
  ],
  poison: ["poison", "poisoned", "venom", "toxic", "disease", "sickness", "acid"],
  water: ["water", "sea", "swim", "ocean", "waves", "amphibious", "fish", "shark", "seahorse"],
};

/** Common words with small noise-only vectors (no topic). */
export const TINY_GENERIC_WORDS: readonly string[] = [
  "the",
  "a",
  "an",
  "of",
  "and",
  "or",
  "to",
  "in",
  "on",
  "at",
  "by",
  "as",
  "for",
  "from",
  "with",
  "that",
  "this",
  "is",
  "it",
  "its",
  "be",
  "you",
  "your",
  "when",
  "what",
  "which",
  "who",
  "i",
  "can",
  "each",
  "any",
  "one",
  "two",
  "three",
  "up",
  "out",
  "damage",
  "creature",
  "creatures",
  "target",
  "spell",
  "spells",
  "level",
  "range",
  "action",
  "bonus",
  "reaction",
  "turn",
  "round",
  "minute",
  "hour",
  "saving",
  "throw",
  "check",
  "roll",
  "dice",
  "d6",
  "d8",
  "d10",
  "d12",
  "d20",
  "takes",
  "take",
  "deals",
  "deal",
  "make",
  "makes",
  "must",
  "succeed",
  "fail",
  "half",
  "all",
  "some",
  "item",
  "items",
  "rule",
  "rules",
  "class",
  "that",
  "happens",
  "while",
  "over",
  "time",
  "then",
  "into",
  "within",
  "radius",
  "sphere",
  "cone",
  "line",
  "point",
  "you",
  "choose",
  "see",
  "until",
  "end",
  "start",
  "next",
  "more",
  "than",
  "other",
  "also",
  "has",
  "have",
  "not",
];

const SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] as const;
const PUNCT = [
  ".",
  ",",
  ";",
  ":",
  "!",
  "?",
  "'",
  '"',
  "-",
  "(",
  ")",
  "/",
  "+",
  "0",
  "1",
  "2",
  "3",
  "4",
  "5",
  "6",
  "7",
  "8",
  "9",
];
const SUFFIXES = ["##s", "##es", "##ed", "##ing", "##ly", "##er", "##ball", "##d"];

export interface TinyModelOptions {
  /** Embedding size (default 32; must be > number of topics). */
  dim?: number;
  /** Changes the noise (and so the file hash / model identity). Default 1. */
  seed?: number;
  /** ONNX file name (default "model.onnx"). */
  onnxName?: string;
  /**
   * Per-token output: `last_hidden_state` holds each token's own row (no pooling in the graph),
   * like a transformer encoder. fastembed's first-token pooling then reads [CLS] (a zero row);
   * mean pooling (src/search/model/onnx-pooling.ts) gives the static model's vector.
   */
  perToken?: boolean;
}

function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The ordered vocabulary: specials first ([PAD] = 0), then punctuation, suffixes, words. */
export function tinyVocabulary(): string[] {
  const words = new Set<string>();
  for (const list of Object.values(TINY_TOPICS)) for (const w of list) words.add(w);
  for (const w of TINY_GENERIC_WORDS) words.add(w);
  return [...SPECIALS, ...PUNCT, ...SUFFIXES, ...[...words].sort()];
}

function tokenTable(vocab: string[], dim: number, seed: number): Float32Array {
  const topics = Object.keys(TINY_TOPICS);
  if (dim <= topics.length) throw new Error(`tiny model dim must be > ${topics.length}`);
  const topicOf = new Map<string, number>();
  topics.forEach((t, i) => {
    for (const w of TINY_TOPICS[t]!) if (!topicOf.has(w)) topicOf.set(w, i);
  });
  const generic = new Set(TINY_GENERIC_WORDS);
  const table = new Float32Array(vocab.length * dim);
  vocab.forEach((tok, row) => {
    const topic = topicOf.get(tok);
    if (topic === undefined && !generic.has(tok)) return; // specials, punctuation, suffixes: zero rows
    const rnd = mulberry32(fnv1a(tok) ^ Math.imul(seed, 0x9e3779b1));
    const noise = topic === undefined ? 0.3 : 0.2;
    for (let d = 0; d < dim; d++) table[row * dim + d] = (rnd() * 2 - 1) * noise;
    if (topic !== undefined) table[row * dim + topic] = (table[row * dim + topic] ?? 0) + 1;
  });
  return table;
}

function tokenizerJson(vocab: string[]): string {
  const ids: Record<string, number> = {};
  vocab.forEach((t, i) => {
    ids[t] = i;
  });
  const special = (content: string) => ({
    id: ids[content]!,
    content,
    single_word: false,
    lstrip: false,
    rstrip: false,
    normalized: false,
    special: true,
  });
  return JSON.stringify({
    version: "1.0",
    truncation: null,
    padding: null,
    added_tokens: SPECIALS.map(special),
    normalizer: {
      type: "BertNormalizer",
      clean_text: true,
      handle_chinese_chars: true,
      strip_accents: null,
      lowercase: true,
    },
    pre_tokenizer: { type: "BertPreTokenizer" },
    post_processor: {
      type: "TemplateProcessing",
      single: [
        { SpecialToken: { id: "[CLS]", type_id: 0 } },
        { Sequence: { id: "A", type_id: 0 } },
        { SpecialToken: { id: "[SEP]", type_id: 0 } },
      ],
      pair: [
        { SpecialToken: { id: "[CLS]", type_id: 0 } },
        { Sequence: { id: "A", type_id: 0 } },
        { SpecialToken: { id: "[SEP]", type_id: 0 } },
        { Sequence: { id: "B", type_id: 1 } },
        { SpecialToken: { id: "[SEP]", type_id: 1 } },
      ],
      special_tokens: {
        "[CLS]": { id: "[CLS]", ids: [ids["[CLS]"]], tokens: ["[CLS]"] },
        "[SEP]": { id: "[SEP]", ids: [ids["[SEP]"]], tokens: ["[SEP]"] },
      },
    },
    decoder: { type: "WordPiece", prefix: "##", cleanup: true },
    model: {
      type: "WordPiece",
      unk_token: "[UNK]",
      continuing_subword_prefix: "##",
      max_input_chars_per_word: 100,
      vocab: ids,
    },
  });
}

const FLOAT = onnx.TensorProto.DataType.FLOAT;
const INT64 = onnx.TensorProto.DataType.INT64;

function bytes(a: Float32Array | BigInt64Array): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}

function valueInfo(name: string, elemType: number, dims: (string | number)[]): onnx.IValueInfoProto {
  return {
    name,
    type: {
      tensorType: {
        elemType,
        shape: { dim: dims.map((d) => (typeof d === "string" ? { dimParam: d } : { dimValue: d })) },
      },
    },
  };
}

function node(
  opType: string,
  input: string[],
  output: string[],
  attribute: onnx.IAttributeProto[] = [],
): onnx.INodeProto {
  return { opType, input, output, name: output[0], attribute };
}

/** The static-embedding graph: masked mean of `table` rows, broadcast to every position. */
export function staticEmbeddingOnnx(table: Float32Array, vocabSize: number, dim: number): Uint8Array {
  const model: onnx.IModelProto = {
    irVersion: 8,
    producerName: "lorekeeper-tiny-model",
    opsetImport: [{ domain: "", version: 17 }],
    graph: {
      name: "static_embedding",
      initializer: [
        { name: "table", dataType: FLOAT, dims: [vocabSize, dim], rawData: bytes(table) },
        { name: "axis2", dataType: INT64, dims: [1], rawData: bytes(new BigInt64Array([2n])) },
        { name: "axis1", dataType: INT64, dims: [1], rawData: bytes(new BigInt64Array([1n])) },
        { name: "eps", dataType: FLOAT, dims: [1], rawData: bytes(new Float32Array([1e-9])) },
      ],
      input: [
        valueInfo("input_ids", INT64, ["batch", "sequence"]),
        valueInfo("attention_mask", INT64, ["batch", "sequence"]),
        valueInfo("token_type_ids", INT64, ["batch", "sequence"]),
      ],
      output: [valueInfo("last_hidden_state", FLOAT, ["batch", "sequence", dim])],
      node: [
        node(
          "Gather",
          ["table", "input_ids"],
          ["emb"],
          [{ name: "axis", type: onnx.AttributeProto.AttributeType.INT, i: 0 }],
        ),
        node(
          "Cast",
          ["attention_mask"],
          ["mask_f"],
          [{ name: "to", type: onnx.AttributeProto.AttributeType.INT, i: FLOAT }],
        ),
        node("Unsqueeze", ["mask_f", "axis2"], ["mask3"]),
        node("Mul", ["emb", "mask3"], ["weighted"]),
        node(
          "ReduceSum",
          ["weighted", "axis1"],
          ["summed"],
          [{ name: "keepdims", type: onnx.AttributeProto.AttributeType.INT, i: 1 }],
        ),
        node(
          "ReduceSum",
          ["mask3", "axis1"],
          ["count"],
          [{ name: "keepdims", type: onnx.AttributeProto.AttributeType.INT, i: 1 }],
        ),
        node("Max", ["count", "eps"], ["count_safe"]),
        node("Div", ["summed", "count_safe"], ["mean"]),
        node("Shape", ["emb"], ["emb_shape"]),
        node("Expand", ["mean", "emb_shape"], ["last_hidden_state"]),
      ],
    },
  };
  return onnx.ModelProto.encode(model).finish();
}

/** The per-token graph: each position's token row, unpooled (TinyModelOptions.perToken). */
export function perTokenOnnx(table: Float32Array, vocabSize: number, dim: number): Uint8Array {
  const model: onnx.IModelProto = {
    irVersion: 8,
    producerName: "lorekeeper-tiny-model",
    opsetImport: [{ domain: "", version: 17 }],
    graph: {
      name: "per_token_embedding",
      initializer: [{ name: "table", dataType: FLOAT, dims: [vocabSize, dim], rawData: bytes(table) }],
      input: [
        valueInfo("input_ids", INT64, ["batch", "sequence"]),
        valueInfo("attention_mask", INT64, ["batch", "sequence"]),
        valueInfo("token_type_ids", INT64, ["batch", "sequence"]),
      ],
      output: [valueInfo("last_hidden_state", FLOAT, ["batch", "sequence", dim])],
      node: [
        node(
          "Gather",
          ["table", "input_ids"],
          ["last_hidden_state"],
          [{ name: "axis", type: onnx.AttributeProto.AttributeType.INT, i: 0 }],
        ),
      ],
    },
  };
  return onnx.ModelProto.encode(model).finish();
}

/**
 * Write a complete fastembed model folder into `dir` (created if needed) and return `dir`.
 * Files: model.onnx (or opts.onnxName), tokenizer.json, config.json, tokenizer_config.json,
 * special_tokens_map.json.
 */
export async function createTinyModel(dir: string, opts: TinyModelOptions = {}): Promise<string> {
  const dim = opts.dim ?? 32;
  const seed = opts.seed ?? 1;
  mkdirSync(dir, { recursive: true });
  const vocab = tinyVocabulary();
  const table = tokenTable(vocab, dim, seed);
  const onnxPath = join(dir, opts.onnxName ?? "model.onnx");
  mkdirSync(dirname(onnxPath), { recursive: true });
  writeFileSync(onnxPath, (opts.perToken ? perTokenOnnx : staticEmbeddingOnnx)(table, vocab.length, dim));
  writeFileSync(join(dir, "tokenizer.json"), tokenizerJson(vocab));
  writeFileSync(
    join(dir, "config.json"),
    JSON.stringify(
      {
        _name_or_path: "lorekeeper-tiny-test",
        model_type: "static-embedding",
        hidden_size: dim,
        vocab_size: vocab.length,
        pad_token_id: 0,
      },
      null,
      2,
    ),
  );
  writeFileSync(
    join(dir, "tokenizer_config.json"),
    JSON.stringify(
      {
        cls_token: "[CLS]",
        do_lower_case: true,
        mask_token: "[MASK]",
        model_max_length: 512,
        pad_token: "[PAD]",
        sep_token: "[SEP]",
        tokenizer_class: "BertTokenizer",
        unk_token: "[UNK]",
      },
      null,
      2,
    ),
  );
  writeFileSync(
    join(dir, "special_tokens_map.json"),
    JSON.stringify(
      { cls_token: "[CLS]", mask_token: "[MASK]", pad_token: "[PAD]", sep_token: "[SEP]", unk_token: "[UNK]" },
      null,
      2,
    ),
  );
  return dir;
}
