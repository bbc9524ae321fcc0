/** Small pure helpers the 5etools normalizers share: reading loose values, rendering text, names. */
import type { JsonValue } from "../../../entities/types.ts";
import { stripInvisible } from "../../../text/confusables.ts";
import { blocks, inline, type RenderStats, render } from "../entries.ts";
import { abilityWord } from "../tags.ts";
import { arr, num, own, rec, recs } from "../../../entities/normalize/read.ts";

/** What every normalizer of one file reads: the render counters and the file's own vocabularies. */
export interface FileContext {
  stats: RenderStats;
  /** `_meta.spellSchools`: homebrew school letters → names ("AH" → "annihilation"). */
  schools: Readonly<Record<string, string>>;
  /** `_meta.spellDistanceUnits`: unit → singular name. */
  distanceUnits: Readonly<Record<string, string>>;
  /** `itemType` records of the file: abbreviation → name and entries. */
  itemTypes: ReadonlyMap<string, { name: string; desc: string }>;
  /** `itemProperty` records of the file: abbreviation → name. */
  itemProperties: ReadonlyMap<string, string>;
}

/** The strings of a list (anything else in it left out). */
export function strings(v: JsonValue | undefined): string[] {
  return arr(v).filter((x) => typeof x === "string");
}

/** A string lower-cased and trimmed ("" for anything else): how records name each other. */
export const lower = (x: JsonValue | undefined) => (typeof x === "string" ? x.toLowerCase().trim() : "");

/** A string with tags rendered and invisible characters dropped, or null when empty. */
export function line(v: JsonValue | undefined, ctx: FileContext): string | null {
  if (typeof v === "number" && Number.isFinite(v)) return String(v);
  if (typeof v !== "string") return null;
  const s = stripInvisible(inline(v, ctx.stats).replace(/\s+/g, " ")).trim();
  return s.length ? s : null;
}

/** A list's values as lines (`line`), the empty ones left out. */
export function lines(v: JsonValue | undefined, ctx: FileContext): string[] {
  return arr(v).flatMap((x) => line(x, ctx) ?? []);
}

/** Entries → plain text ("" when there is none). */
export function text(v: JsonValue | undefined, ctx: FileContext): string {
  return render(v, ctx.stats);
}

export function paras(v: JsonValue | undefined, ctx: FileContext): string[] {
  return blocks(v, ctx.stats);
}

/** The non-empty texts of `xs` joined by `sep` ("" when there is none). */
export function joinTexts(sep: string, xs: ReadonlyArray<string | null | undefined>): string {
  return xs.filter(Boolean).join(sep);
}

/** A list in prose: ["a","b","c"] → "a, b, and c". */
export function listText(xs: string[], conj = "and"): string {
  if (xs.length <= 2) return xs.join(` ${conj} `);
  return `${xs.slice(0, -1).join(", ")}, ${conj} ${xs[xs.length - 1]}`;
}

/** Keys set to true in 5etools' `[{ "athletics": true, "any": 1 }]` proficiency lists, with choices spelt out. */
export function proficiencyText(v: JsonValue | undefined, ctx: FileContext): string | null {
  const out: string[] = [];
  for (const o of recs(v)) {
    for (const [k, x] of Object.entries(o)) {
      if (x === true) out.push(line(k.split("|")[0], ctx) ?? k);
      else if (k === "any" && typeof x === "number") out.push(`any ${x} of your choice`);
      else if (k === "anyStandard" && typeof x === "number")
        out.push(`any ${x} standard language${x === 1 ? "" : "s"}`);
      else if (k === "choose") {
        const c = rec(x);
        const from = strings(c?.from);
        if (from.length) out.push(`choose ${num(c?.count) ?? 1} from ${listText(from, "or")}`);
      }
    }
  }
  return out.length ? out.join(", ") : null;
}

/** `{ "str": 1, "choose": {...} }` ability bonuses → "Strength +1, Wisdom +1". */
export function abilityText(v: JsonValue | undefined): string | null {
  const out: string[] = [];
  for (const o of recs(v)) {
    for (const [k, x] of Object.entries(o)) {
      if (abilityWord(k) && typeof x === "number") out.push(`${abilityWord(k)} ${x >= 0 ? "+" : ""}${x}`);
      else if (k === "choose") {
        const c = rec(x);
        const from = strings(c?.from).map((f) => abilityWord(f) ?? f);
        const amount = num(c?.amount) ?? 1;
        if (from.length) out.push(`${num(c?.count) ?? 1} of ${listText(from, "or")} +${amount}`);
      }
    }
  }
  return out.length ? out.join(", ") : null;
}

/** A size letter → its word ("M" → "Medium"). */
const SIZE_WORDS: Readonly<Record<string, string>> = {
  F: "Fine",
  D: "Diminutive",
  T: "Tiny",
  S: "Small",
  M: "Medium",
  L: "Large",
  H: "Huge",
  G: "Gargantuan",
  C: "Colossal",
  V: "Varies",
};

export function sizeWord(v: JsonValue | undefined): string | null {
  const first = Array.isArray(v) ? v.filter((x) => typeof x === "string") : typeof v === "string" ? [v] : [];
  const words = first.map((s) => own(SIZE_WORDS, s as string) ?? (s as string));
  return words.length ? words.join(" or ") : null;
}
