/**
 * Search text: markdown stripped, whitespace collapsed, bounded length.
 */

/** Upper bound for `Entity.text` (characters). Long class/rules texts are cut on a word boundary. */
export const MAX_TEXT_CHARS = 8000;

/** Plain text from Markdown: headings, emphasis, links, tables, quotes, bullets removed. */
export function stripMarkdown(s: string): string {
  return s
    .replace(/\r\n?/g, "\n")
    .replace(/\u00ad/g, "")
    .replace(/[\u2010\u2011]/g, "-")
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]+)\]\([^)]*\)/g, "$1")
    .replace(/^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/gm, "")
    .replace(/(\w)-{2,}(?=\w)/g, "$1-")
    .replace(/^\s*>\s?/gm, "")
    .replace(/^\s*#{1,6}\s*/gm, "")
    .replace(/`+/g, "")
    .replace(/\*+/g, "")
    .replace(/(^|[\s(["'])_+(?=\S)/gm, "$1")
    .replace(/(\S)_+(?=[\s).,;:!?\]"']|$)/gm, "$1")
    .replace(/^\s*[-+•]\s+/gm, "")
    .replace(/\s*\|\s*/g, " | ")
    .replace(/^\s*\|\s*|\s*\|\s*$/gm, "")
    .replace(/[ \t\u00a0]+/g, " ")
    .split("\n")
    .map((l) => l.trim())
    .filter((l, i, all) => l.length > 0 || (i > 0 && all[i - 1]!.length > 0))
    .join("\n")
    .trim();
}

/** Cut to `max` characters on a word boundary, marking the cut with "…". */
export function clip(s: string, max = MAX_TEXT_CHARS): string {
  if (s.length <= max) return s;
  const cut = s.slice(0, max);
  const sp = cut.lastIndexOf(" ");
  return `${(sp > max * 0.8 ? cut.slice(0, sp) : cut).trimEnd()}…`;
}

/** The entity text: name, header line, then every non-empty body part, markdown stripped. */
export function buildText(name: string, header: string, body: (string | null | undefined)[]): string {
  const parts = [name, header, ...body]
    .filter((p): p is string => typeof p === "string" && p.trim().length > 0)
    .map(stripMarkdown)
    .filter((p) => p.length > 0);
  return clip(parts.join("\n"));
}

export function titleCase(s: string): string {
  return s.replace(/[-_]+/g, " ").replace(/\b([a-z])/g, (m) => m.toUpperCase());
}

export function capitalize(s: string): string {
  return s.length ? s[0]!.toUpperCase() + s.slice(1) : s;
}

export function ordinal(n: number): string {
  const v = n % 100;
  const suffix = v >= 11 && v <= 13 ? "th" : (["th", "st", "nd", "rd"][n % 10] ?? "th");
  return `${n}${suffix}`;
}

/** 10 hex digits of the SHA-1 of `s`: a stable key for a name that slugs to nothing. */
export function shortHash(s: string): string {
  return Bun.CryptoHasher.hash("sha1", s, "hex").slice(0, 10);
}
