/**
 * The passage of a rule that answers a question: the sentence (or two) sharing the most of the question's words,
 * rarer words counting more. A rule found by meaning is often a whole chapter (6,000 characters) whose opening
 * words rarely hold the answer. Pure.
 */
import { STOPWORDS } from "../../search/rank/lexical.ts";
import { cutAtWord } from "./compact-fields.ts";

const HOW_MUCH = /\bhow (?:many|much|long|far|often|fast|high)\b/i;
const AMOUNT_WORDS =
  "one|two|three|four|five|six|ten|once|twice|only|half|double|per|each|every|until|minutes?|hours?|rounds?";
const AMOUNT = new RegExp(`\\d|\\b(?:${AMOUNT_WORDS})\\b`, "i");

/** Longest passage, in characters. */
export const PASSAGE_CHARS = 300;

/**
 * A word's comparable form: lower-case, without a plural or verb ending, its first five letters
 * ("surprised" = "surprise" = "surpr", "falling" = "fall").
 */
function stem(w: string): string {
  const base = w.toLowerCase().replace(/['’]s$/, "");
  const bare = base.replace(/(?:ing|ed|es|s)$/, "");
  return (bare.length >= 3 ? bare : base).slice(0, 5);
}

function words(s: string): string[] {
  return (s.toLowerCase().match(/[\p{L}\p{N}'’]+/gu) ?? []).filter((w) => w.length >= 3 && !STOPWORDS.has(w));
}

/** Plain sentences of a markdown text: headings, table rows and list marks become sentence breaks. */
export function sentences(text: string): string[] {
  const plain = text
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/^\s*\|.*\|\s*$/gm, "\n")
    .replace(/^\s*#+\s*(.*)$/gm, "\n$1\n")
    .replace(/^\s*[-*+]\s+/gm, "\n")
    .replace(/[*_`>]+/g, "");
  const out: string[] = [];
  for (const block of plain.split(/\n\s*\n|\n/)) {
    const b = block.replace(/\s+/g, " ").trim();
    if (!b) continue;
    for (const s of b.split(/(?<=[.!?])\s+(?=[\p{Lu}\d"“(])/u)) if (s.trim()) out.push(s.trim());
  }
  return out;
}

/**
 * The best-matching sentence of `text` for `query`, with the next one when both fit in `max`
 * characters and the next also shares a word of the query or the first is short; undefined when no
 * sentence shares a word (the caller keeps its usual summary).
 */
export function answeringPassage(text: string, query: string, max = PASSAGE_CHARS): string | undefined {
  const terms = [...new Set(words(query).map(stem))];
  if (terms.length === 0) return undefined;
  const ss = sentences(text);
  const stems = ss.map((s) => new Set(words(s).map(stem)));
  // A term found in few of the entry's sentences says more about which one answers.
  const weight = new Map(terms.map((t) => [t, Math.log(1 + ss.length / (1 + stems.filter((w) => w.has(t)).length))]));
  // "How many / much / long / far / often …" is answered by a sentence that states an amount.
  const amount = HOW_MUCH.test(query) ? Math.max(...weight.values()) / 2 : 0;
  const score = (i: number) => {
    const shared = terms.reduce((sum, t) => sum + (stems[i]!.has(t) ? weight.get(t)! : 0), 0);
    return shared > 0 && amount && AMOUNT.test(ss[i]!) ? shared + amount : shared;
  };
  let best = -1;
  let bestScore = 0;
  for (let i = 0; i < ss.length; i++) {
    // A heading alone ("Surprise") names the topic; the sentence after it answers.
    if (!/[.!?:]$/.test(ss[i]!) && ss[i]!.split(" ").length <= 6) continue;
    const s = score(i);
    if (s > bestScore) (best = i), (bestScore = s);
  }
  if (best < 0) return undefined;
  const first = ss[best]!;
  const next = ss[best + 1];
  const fits = next !== undefined && first.length + 1 + next.length <= max;
  if (fits && (score(best + 1) > 0 || first.length < max / 3)) return `${first} ${next}`;
  return cutAtWord(first, max);
}
