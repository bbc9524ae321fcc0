/**
 * Names as people see them: invisible characters (zero-width spaces and joiners, bidirectional
 * controls, soft hyphens, byte-order marks, control characters) removed, and letters of other
 * scripts that look like Latin ones (Cyrillic "і", Greek "ο", dotless "ı", fullwidth forms) folded
 * to them. Used where a name must not pass for another: homebrew names are cleaned when imported,
 * and compared with official names after folding. Pure.
 */

// Each invisible code point (joiners and variation selectors too) is removed on its own.
const INVISIBLE = new RegExp(
  String.raw`[\u0000-\u001f\u007f-\u009f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180e` +
    String.raw`\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufe00-\ufe0f\ufeff]`,
  "g",
);

/** `s` without invisible and reordering characters (tabs and newlines too: use on one-line names). */
export function stripInvisible(s: string): string {
  return s.replace(INVISIBLE, "");
}

// Look-alikes of Latin letters in Cyrillic, Greek and Latin extensions (Unicode confusables, the common ones).
const LOOKALIKES: Record<string, string> = {
  а: "a",
  в: "b",
  е: "e",
  ё: "e",
  к: "k",
  м: "m",
  н: "h",
  о: "o",
  р: "p",
  с: "c",
  т: "t",
  у: "y",
  х: "x",
  ѕ: "s",
  і: "i",
  ї: "i",
  ј: "j",
  һ: "h",
  ԁ: "d",
  ԛ: "q",
  ԝ: "w",
  ӏ: "l",
  ɡ: "g",
  ʏ: "y",
  г: "r",
  п: "n",
  ԍ: "g",
  ɑ: "a",
  ɩ: "i",
  А: "A",
  В: "B",
  Е: "E",
  К: "K",
  М: "M",
  Н: "H",
  О: "O",
  Р: "P",
  С: "C",
  Т: "T",
  У: "Y",
  Х: "X",
  Ѕ: "S",
  І: "I",
  Ј: "J",
  Ԛ: "Q",
  Ԝ: "W",
  α: "a",
  β: "b",
  ε: "e",
  ι: "i",
  κ: "k",
  ν: "v",
  ο: "o",
  ρ: "p",
  τ: "t",
  υ: "u",
  χ: "x",
  γ: "y",
  ϲ: "c",
  ϳ: "j",
  Α: "A",
  Β: "B",
  Ε: "E",
  Ζ: "Z",
  Η: "H",
  Ι: "I",
  Κ: "K",
  Μ: "M",
  Ν: "N",
  Ο: "O",
  Ρ: "P",
  Τ: "T",
  Υ: "Y",
  Χ: "X",
  ı: "i",
  ȷ: "j",
  ſ: "s",
  ℓ: "l",
  ǀ: "l",
};
const LOOKALIKE_RE = new RegExp(
  `[${Object.keys(LOOKALIKES)
    .filter((k) => k.length === 1)
    .join("")}]`,
  "g",
);

/**
 * `s` as it reads: invisible characters dropped, compatibility
 * forms (fullwidth, ligatures) and look-alike letters made Latin.
 */
export function foldConfusables(s: string): string {
  return stripInvisible(s)
    .normalize("NFKC")
    .replace(LOOKALIKE_RE, (c) => LOOKALIKES[c] ?? c);
}

/**
 * What a name looks like, to tell whether one passes for another: `foldConfusables`, accents
 * dropped, then the glyphs that read alike in common fonts made one — capital I and l ("FirebaII"),
 * 1 and | and l, 0 and o, "rn" and m, "vv" and w — lower-cased, with spaces and punctuation gone
 * ("Fire ball", "Fire-Ball"). Letters of other scripts are kept, so a name in another script never
 * collapses to "" (and "" is no name: callers never match on it).
 */
export function nameSkeleton(s: string): string {
  return foldConfusables(s)
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .replace(/I/g, "l")
    .toLowerCase()
    .replace(/[1|]/g, "l")
    .replace(/0/g, "o")
    .replace(/[^\p{L}\p{N}]+/gu, "")
    .replace(/rn/g, "m")
    .replace(/vv/g, "w");
}
