/**
 * 5etools `entries` (strings and typed blocks nested to any depth: `entries`/`section` with a name,
 * `list`, `table`, `inset`, `quote`, `item`, `inline`, `options`, …) → clean plain text, the way the
 * other sources' texts read: a named block is "Name. text", list items are "- item" lines, a table
 * is its caption, header and rows as "a | b" lines. Inline tags go through tags.ts. A block type
 * this file does not know keeps its name and text and is counted. Pure.
 */
import type { JsonValue } from "../../entities/types.ts";
import { stripInvisible } from "../../text/confusables.ts";
import { abilityWord, renderTags, type TagStats } from "./tags.ts";
import { rec } from "../../entities/normalize/read.ts";

export interface RenderStats extends TagStats {
  /** Block types rendered by their name and text only. */
  unknownBlocks: Map<string, number>;
}

export function newRenderStats(): RenderStats {
  return { unknown: new Map(), unknownBlocks: new Map() };
}

/** Control characters other than newline and tab, bidi controls and zero-width characters dropped. */
function cleanText(s: string): string {
  // stripInvisible drops newlines too: clean line by line so that a line break stays one.
  return s.replace(/\r\n?/g, "\n").replace(/\t/g, " ").split("\n").map(stripInvisible).join("\n");
}

/** One string of 5etools text → what a reader sees. */
export function inline(s: string, stats: TagStats): string {
  return renderTags(cleanText(s), stats)
    .replace(/[ \u00a0]+/g, " ")
    .trim();
}

const DEPTH_LIMIT = 64;

function abilities(v: JsonValue | undefined): string {
  const word = (x: string) => (x === "spellcasting" ? "spellcasting ability" : (abilityWord(x) ?? x));
  const xs = Array.isArray(v) ? v.filter((x): x is string => typeof x === "string").map(word) : [];
  return xs.length ? `your ${xs.join(" or ")} modifier` : "your ability modifier";
}

/** The shown text of a table cell (a string, a roll cell, an entry). */
function cell(c: JsonValue, stats: RenderStats, depth: number): string {
  const o = rec(c);
  if (o && o.type === "cell") {
    const roll = rec(o.roll);
    if (typeof roll?.exact === "number") return String(roll.exact);
    if (typeof roll?.min === "number" && typeof roll.max === "number") return `${roll.min}\u2013${roll.max}`;
    return blocks(o.entry ?? o.entries ?? "", stats, depth + 1).join(" ");
  }
  return blocks(c, stats, depth + 1)
    .join(" ")
    .replace(/\n+/g, " ");
}

const bullet = (x: string) => `- ${x}`;

/** `name` prefixed to the first paragraph: "Name. text". */
function named(name: string | null, paras: string[]): string[] {
  if (!name) return paras;
  if (paras.length === 0) return [name];
  const head = /[.!?:]$/.test(name) ? name : `${name}.`;
  return [`${head} ${paras[0]}`, ...paras.slice(1)];
}

/**
 * Entries → paragraphs of plain text. `depth` bounds the recursion (the file's nesting is checked
 * before parsing too; this keeps a hand-built value from recursing without end).
 */
export function blocks(v: JsonValue | undefined, stats: RenderStats, depth = 0): string[] {
  if (v === undefined || v === null || depth > DEPTH_LIMIT) return [];
  if (typeof v === "string") {
    const s = inline(v, stats);
    return s ? [s] : [];
  }
  if (typeof v === "number" || typeof v === "boolean") return [String(v)];
  if (Array.isArray(v)) return v.flatMap((x) => blocks(x, stats, depth + 1));
  const o = v;
  const type = typeof o.type === "string" ? o.type : "entries";
  const says = (x: JsonValue | undefined) => (typeof x === "string" ? inline(x, stats) : null);
  const name = says(o.name) || null;
  const kids = (x: JsonValue | undefined) => blocks(x, stats, depth + 1);
  switch (type) {
    case "entries":
    case "section":
    case "inset":
    case "insetReadaloud":
    case "variant":
    case "variantInner":
    case "variantSub":
    case "optfeature":
    case "patron":
    case "homebrew":
    case "flowBlock":
    case "flowchart":
    case "spellcasting": {
      const pre = type === "variant" && name ? `Variant: ${name}` : name;
      const body = [...kids(o.entries), ...(o.items ? kids(o.items) : [])];
      return named(pre, body);
    }
    case "item":
    case "itemSub":
    case "itemSpell":
      return named(name, kids(o.entry ?? o.entries));
    case "list":
    case "options": {
      const items = Array.isArray(o.items) ? o.items : Array.isArray(o.entries) ? o.entries : [];
      const lines = items.map((x) => kids(x).join(" ")).filter((x) => x.length > 0);
      return named(name, lines.map(bullet));
    }
    case "table": {
      const caption = says(o.caption) ?? name;
      const head = Array.isArray(o.colLabels) ? o.colLabels.map((c) => cell(c, stats, depth)).join(" | ") : null;
      const rows = (Array.isArray(o.rows) ? o.rows : []).map((r) => {
        const ro = rec(r);
        const cells = Array.isArray(r) ? r : ro && Array.isArray(ro.row) ? ro.row : [r];
        return cells.map((c) => cell(c, stats, depth)).join(" | ");
      });
      return [caption, head, ...rows, ...(o.footnotes ? kids(o.footnotes) : [])].filter((x): x is string => !!x);
    }
    case "tableGroup":
      return kids(o.tables);
    case "quote": {
      const by = [says(o.by), says(o.from)].filter(Boolean).join(", ");
      const body = kids(o.entries);
      return by ? [...body, `\u2014 ${by}`] : body;
    }
    case "inline":
    case "inlineBlock":
      return [kids(o.entries).join("")].filter((x) => x.length > 0);
    case "link":
      return typeof o.text === "string" ? [inline(o.text, stats)] : [];
    case "abilityDc":
      return [`${name ?? "Spell"} save DC = 8 + your proficiency bonus + ${abilities(o.attributes)}`];
    case "abilityAttackMod":
      return [`${name ?? "Spell"} attack modifier = your proficiency bonus + ${abilities(o.attributes)}`];
    case "abilityGeneric": {
      const parts = [name ? `${name} =` : null, says(o.text), o.attributes ? `(${abilities(o.attributes)})` : null];
      return [parts.filter(Boolean).join(" ")];
    }
    case "dice": {
      const rolls = (Array.isArray(o.toRoll) ? o.toRoll : []).map((x) => rec(x)).filter((r) => r !== null);
      const mod = (m: JsonValue | undefined) => (typeof m === "number" && m ? (m > 0 ? `+${m}` : m) : "");
      const f = rolls.map((r) => `${r.number ?? 1}d${r.faces ?? 6}${mod(r.modifier)}`).join(" + ");
      return f ? [f] : [];
    }
    case "bonus":
      return typeof o.value === "number" ? [o.value >= 0 ? `+${o.value}` : String(o.value)] : [];
    case "bonusSpeed":
      return typeof o.value === "number" ? [`${o.value >= 0 ? "+" : ""}${o.value} ft.`] : [];
    case "refClassFeature":
    case "refSubclassFeature":
    case "refOptionalfeature": {
      const ref = [o.classFeature, o.subclassFeature, o.optionalfeature].find((x) => typeof x === "string");
      return typeof ref === "string" ? [inline(ref.split("|")[0]!, stats)] : [];
    }
    case "image":
    case "gallery":
    case "hr":
    case "pagebreak":
    case "spellcastingToggle":
      return [];
    case "statblock":
    case "statblockInline": {
      const shown = name ?? (typeof o.tag === "string" ? says(rec(o.data)?.name) : null);
      return shown === null ? [] : [shown];
    }
    case "wrapped":
    case "wrapper":
      return kids(o.wrapped);
    case "code":
      return typeof o.preformatted === "string" ? [cleanText(o.preformatted)] : [];
    default: {
      stats.unknownBlocks.set(type, (stats.unknownBlocks.get(type) ?? 0) + 1);
      const body = [...kids(o.entries), ...kids(o.items), ...(o.entry !== undefined ? kids(o.entry) : [])];
      return named(name, body);
    }
  }
}

/** Entries → one text, paragraphs on their own lines. */
export function render(v: JsonValue | undefined, stats: RenderStats): string {
  return blocks(v, stats).join("\n").trim();
}
