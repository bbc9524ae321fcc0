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

// Look-alikes of Latin letters in Cyrillic, Greek and Latin extensions (Unicode confusables, the common
// ones): each letter of a row's first string reads as the letter at the same place in its second.
const LOOKALIKE_ROWS: ReadonlyArray<readonly [string, string]> = [
  ["авеёкмнорстухѕіїјһԁԛԝӏгпԍ", "abeekmhopctyxsiijhdqwlrng"], // Cyrillic lower case
  ["АВЕКМНОРСТУХЅІЈԚԜ", "ABEKMHOPCTYXSIJQW"], // Cyrillic upper case
  ["αβεικνορτυχγϲϳ", "abeikvoptuxycj"], // Greek lower case
  ["ΑΒΕΖΗΙΚΜΝΟΡΤΥΧ", "ABEZHIKMNOPTYX"], // Greek upper case
  ["ɡʏɑɩıȷſℓǀ", "gyaiijsll"], // Latin extensions
];
const LOOKALIKES = new Map(LOOKALIKE_ROWS.flatMap(([from, to]) => [...from].map((c, i) => [c, to[i]!] as const)));
const LOOKALIKE_RE = new RegExp(`[${[...LOOKALIKES.keys()].join("")}]`, "g");

/**
 * `s` as it reads: invisible characters dropped, compatibility
 * forms (fullwidth, ligatures) and look-alike letters made Latin.
 */
export function foldConfusables(s: string): string {
  return stripInvisible(s)
    .normalize("NFKC")
    .replace(LOOKALIKE_RE, (c) => LOOKALIKES.get(c) ?? c);
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
