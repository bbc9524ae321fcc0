/**
 * Small pure helpers for the OrcBrew normalizers: reading loosely-typed plain values (what real
 * homebrew holds), OrcPub's key conventions, and building search text.
 */
import type { NamedText } from "../../../entities/kinds.ts";
import type { JsonObject, JsonValue } from "../../../entities/types.ts";
import { stripInvisible } from "../../../text/confusables.ts";
import { arr, int, rec } from "../../../entities/normalize/read.ts";

/** A trimmed, whitespace-tidied string, or null when absent/empty. Numbers are accepted. */
export function str(v: JsonValue | undefined): string | null {
  if (typeof v === "number" && Number.isFinite(v)) return String(v);
  if (typeof v !== "string") return null;
  const s = tidy(v);
  return s.length > 0 ? s : null;
}

/** Line endings unified, trailing spaces and surplus blank lines removed, ends trimmed. */
function tidy(s: string): string {
  return s
    .replace(/\r\n?/g, "\n")
    .replace(/[ \t\u00a0]+\n/g, "\n")
    .replace(/\n{3,}/g, "\n\n")
    .trim();
}

/**
 * One line: every whitespace run becomes one space, invisible and bidi control characters dropped (names, pack names).
 */
export function oneLine(v: JsonValue | undefined): string | null {
  const s = str(v);
  if (s === null) return null;
  const line = stripInvisible(s.replace(/\s+/g, " ")).trim();
  return line.length > 0 ? line : null;
}

/** Keys whose value is "on": true, or any value but false/nil/0 (OrcPub keeps unticked toggles as false). */
export function onKeys(v: JsonValue | undefined): string[] {
  if (Array.isArray(v)) return v.filter((x): x is string => typeof x === "string" && x.length > 0);
  const o = rec(v);
  if (!o) return [];
  return Object.keys(o).filter((k) => o[k] !== false && o[k] !== null && o[k] !== 0);
}

/** Every key of a map, whatever its value (class :profs, where false still means proficient). */
export function allKeys(v: JsonValue | undefined): string[] {
  const o = rec(v);
  return o ? Object.keys(o).filter((k) => o[k] !== null) : [];
}

const SMALL_WORDS = new Set(["of", "the", "and", "or", "a", "an", "in", "on", "to", "with", "for"]);

/** OrcPub keyword name → display text: "sleight-of-hand" → "Sleight of Hand". */
export function humanize(key: string): string {
  const words = key
    .replace(/[-_]+/g, " ")
    .trim()
    .split(/\s+/)
    .filter((w) => w.length > 0);
  return words
    .map((w, i) => (i > 0 && SMALL_WORDS.has(w.toLowerCase()) ? w.toLowerCase() : w[0]!.toUpperCase() + w.slice(1)))
    .join(" ");
}

/** Lower-case words: "swarm-of-tiny-beasts" → "swarm of tiny beasts". */
export function words(key: string): string {
  return key.replace(/[-_]+/g, " ").trim().toLowerCase();
}

/** `[{:name :description}]` → named texts; nil entries and entries with neither name nor text are dropped. */
export function namedTexts(v: JsonValue | undefined): Array<NamedText & { level: number | null; type: string | null }> {
  const out: Array<NamedText & { level: number | null; type: string | null }> = [];
  for (const t of arr(v)) {
    const o = rec(t);
    if (!o) continue;
    const name = oneLine(o.name);
    const desc = str(o.description) ?? str(o.desc) ?? str(o.summary) ?? "";
    if (!name && !desc) continue;
    out.push({ name: name ?? "Unnamed", desc, level: int(o.level), type: typeof o.type === "string" ? o.type : null });
  }
  return out;
}

/** A list in prose: ["a","b","c"] → "a, b and c". */
export function listText(xs: string[], conj = "and"): string {
  if (xs.length <= 1) return xs[0] ?? "";
  return `${xs.slice(0, -1).join(", ")} ${conj} ${xs[xs.length - 1]}`;
}

/** "x2"-style quantities of `{item-kw qty}` maps: "Abacus, Amulet, Clothes Common (2)". */
export function quantities(v: JsonValue | undefined): string[] {
  const o = rec(v) ?? {};
  return onKeys(o).map((k) => (typeof o[k] === "number" && o[k] > 1 ? `${humanize(k)} (${o[k]})` : humanize(k)));
}

/** Equipment, weapons and armor of a class or background, then its `:equipment-choices` as `choice` words them. */
export function equipmentList(d: JsonObject, choice: (options: string, name: string | null) => string): string[] {
  const out = [...quantities(d.equipment), ...quantities(d.weapons), ...quantities(d.armor)];
  for (const c of arr(d["equipment-choices"])) {
    const o = rec(c);
    const opts = quantities(o?.options);
    if (opts.length) out.push(choice(listText(opts, "or"), oneLine(o?.name)));
  }
  return out;
}
