/**
 * A class's per-level progression from its stored data, pure. Every source's class data carries
 * its level table as markdown (`table`: Open5e v1 as published, Open5e v2 and the D&D 5e API built
 * from their level data, OrcBrew from its spellcasting maps); this reads it back into rows, and
 * adds the features by level (from the table's Features column, else from `features`) and a
 * subclass's features.
 */
import type { ClassData } from "../../entities/kinds.ts";
import { DERIVED_SLOTS_NOTE, derivedSlots } from "./slots.ts";

export interface LevelRow {
  level: number;
  proficiency_bonus: string | null;
  features: string[];
  cantrips_known?: string;
  spells_known?: string;
  prepared_spells?: string;
  /** Slots per spell level, index 0 = 1st level, up to the highest level with a slot (absent: none). */
  spell_slots?: number[];
  /** The class's own columns ("Rage Count": "2", "Sneak Attack": "1d6"...). */
  other?: Record<string, string>;
}

export interface Progression {
  rows: LevelRow[];
  /** The other columns, in table order. */
  columns: string[];
  /** How a part of the table was derived rather than read. */
  note?: string;
}

const ORDINAL_SLOT = /^(\d)(st|nd|rd|th)(\s*level)?$/i;
const EMPTY = new Set(["", "-", "—", "–", "0"]);

function cells(line: string): string[] {
  const t = line.trim().replace(/^\|/, "").replace(/\|$/, "");
  return t.split("|").map((c) => c.trim());
}

/** Markdown table → header and rows of cells (separator lines dropped). */
export function parseMarkdownTable(md: string): { head: string[]; rows: string[][] } | null {
  const lines = md.split(/\r?\n/).filter((l) => l.trim().startsWith("|"));
  if (lines.length < 2) return null;
  const head = cells(lines[0]!);
  const rows = lines
    .slice(1)
    .filter((l) => !/^\s*\|?\s*:?-{2,}/.test(l))
    .map(cells);
  return { head, rows };
}

function levelOf(s: string): number | null {
  const m = /^(\d{1,2})(st|nd|rd|th)?$/i.exec(s.trim());
  return m ? Number(m[1]) : null;
}

const splitList = (s: string) =>
  EMPTY.has(s.trim())
    ? []
    : s
        .split(/,\s*/)
        .map((x) => x.trim())
        .filter(Boolean);

/** Rows from a class's markdown table (null when it has none or no Level column). */
export function rowsFromTable(
  md: string | null,
): { rows: Map<number, LevelRow>; columns: string[]; hasFeatures: boolean } | null {
  if (!md) return null;
  const t = parseMarkdownTable(md);
  if (!t) return null;
  const li = t.head.findIndex((h) => /^level$/i.test(h));
  if (li < 0) return null;
  const rows = new Map<number, LevelRow>();
  const columns: string[] = [];
  let hasFeatures = false;
  for (const r of t.rows) {
    const level = levelOf(r[li] ?? "");
    if (level === null || level < 1 || level > 20) continue;
    const row: LevelRow = rows.get(level) ?? { level, proficiency_bonus: null, features: [] };
    const slots: number[] = [];
    t.head.forEach((h, i) => {
      if (i === li) return;
      const v = (r[i] ?? "").trim();
      const slot = ORDINAL_SLOT.exec(h);
      if (slot) slots[Number(slot[1]) - 1] = EMPTY.has(v) ? 0 : Number.parseInt(v, 10) || 0;
      else if (/proficiency bonus/i.test(h))
        row.proficiency_bonus = EMPTY.has(v) ? null : v.startsWith("+") ? v : `+${v}`;
      else if (/^features?$/i.test(h)) {
        hasFeatures = true;
        row.features.push(...splitList(v));
      } else if (/^cantrips( known)?$/i.test(h)) row.cantrips_known = v;
      else if (/^spells known$/i.test(h)) row.spells_known = v;
      else if (/^prepared spells$/i.test(h)) row.prepared_spells = v;
      else if (h) {
        if (!columns.includes(h)) columns.push(h);
        row.other = { ...row.other, [h]: v };
      }
    });
    if (slots.length) row.spell_slots = Array.from(slots, (n) => n ?? 0);
    rows.set(level, row);
  }
  // Spell levels without a slot at that character level are left out (trailing zeros).
  for (const r of rows.values()) {
    if (!r.spell_slots) continue;
    while (r.spell_slots.length && r.spell_slots[r.spell_slots.length - 1] === 0) r.spell_slots.pop();
    if (r.spell_slots.length === 0) delete r.spell_slots;
  }
  return { rows, columns, hasFeatures };
}

/** Proficiency bonus by level, the same for every class (+2 at 1–4 up to +6 at 17–20). */
const proficiencyBonus = (level: number) => `+${Math.ceil(level / 4) + 1}`;

/**
 * The level-by-level table of a class (and optionally one of its subclasses): 20 rows, features
 * gained at each level (subclass features marked with the subclass name).
 */
export function buildProgression(cls: { data: ClassData }, sub?: { name: string; data: ClassData }): Progression {
  const parsed = rowsFromTable(cls.data.table);
  const rows: LevelRow[] = [];
  for (let level = 1; level <= 20; level++) {
    const row: LevelRow = parsed?.rows.get(level) ?? { level, proficiency_bonus: null, features: [] };
    row.proficiency_bonus ??= proficiencyBonus(level);
    if (!parsed?.hasFeatures)
      row.features = (cls.data.features ?? []).filter((f) => f.level === level).map((f) => f.name);
    if (sub)
      row.features = [
        ...row.features,
        ...(sub.data.features ?? []).filter((f) => f.level === level).map((f) => `${f.name} (${sub.name})`),
      ];
    rows.push(row);
  }
  // No slot column at all but a caster type (OrcBrew): the multiclass slot table by caster level.
  const derive = !rows.some((r) => r.spell_slots) && derivedSlots(cls.data.caster_type, 20) !== undefined;
  if (derive) {
    for (const r of rows) {
      const slots = derivedSlots(cls.data.caster_type, r.level);
      if (slots) r.spell_slots = slots;
    }
  }
  return {
    rows,
    columns: parsed?.columns ?? [],
    ...(derive ? { note: DERIVED_SLOTS_NOTE } : {}),
  };
}
