/**
 * D&D 5e API class level records (`/api/<year>/classes/<index>/levels`) → the class's level table
 * as markdown, in the same form as the other sources' `table` (one row per level: proficiency
 * bonus, features, cantrips / spells known / prepared, the class's own columns, spell slots).
 */
import { int, isRec, names, type Rec, refKey } from "../../../entities/normalize/read.ts";

const SLOT_NAMES = ["1st", "2nd", "3rd", "4th", "5th", "6th", "7th", "8th", "9th"];
const SPELL_COLUMNS: [string, string][] = [
  ["cantrips_known", "Cantrips Known"],
  ["spells_known", "Spells Known"],
  ["prepared_spells", "Prepared Spells"],
];

/** Class columns under the SRD 5.1 tables' headers where the API's key says it otherwise. */
const SRD_HEADERS: Record<string, string> = { rage_count: "Rages", rage_damage_bonus: "Rage Damage" };

const humanize = (k: string) => SRD_HEADERS[k] ?? k.replace(/_/g, " ").replace(/\b\w/g, (c) => c.toUpperCase());

/** One class-specific value as the books print it ("d6", "2d6", "3", "+2", "+10 ft."); null when not shown. */
function cell(key: string, v: unknown): string | null {
  // The API writes "unlimited" (a 20th-level barbarian's rages) as 9999.
  if (typeof v === "number" && v > 0 && v < 9999 && key === "rage_damage_bonus") return `+${v}`;
  if (typeof v === "number" && v > 0 && key === "unarmored_movement") return `+${v} ft.`;
  if (typeof v === "number") return v >= 9999 ? "Unlimited" : key.endsWith("_die") ? `d${v}` : String(v);
  if (isRec(v) && typeof v.dice_count === "number" && typeof v.dice_value === "number")
    return `${v.dice_count}d${v.dice_value}`;
  if (typeof v === "boolean") return v ? "yes" : "no";
  return null;
}

const shown = (s: string | null) => (s === null || s === "0" || s === "no" ? "—" : s);

/** The markdown level table of class `classIndex` from its level records (subclass records are left out). */
export function dndLevelTable(levels: unknown[], classIndex: string): string | null {
  const rows = levels
    .filter((l): l is Rec => isRec(l) && refKey(l.class) === classIndex && !l.subclass && int(l.level) !== null)
    .sort((a, b) => int(a.level)! - int(b.level)!);
  if (rows.length === 0) return null;
  const sc = (r: Rec) => (isRec(r.spellcasting) ? r.spellcasting : {});
  const cs = (r: Rec) => (isRec(r.class_specific) ? r.class_specific : {});
  const spellCols = SPELL_COLUMNS.filter(([k]) => rows.some((r) => (int(sc(r)[k]) ?? 0) > 0));
  const slotCols = SLOT_NAMES.map((_, i) => i + 1).filter((n) =>
    rows.some((r) => (int(sc(r)[`spell_slots_level_${n}`]) ?? 0) > 0),
  );
  const specific = [...new Set(rows.flatMap((r) => Object.keys(cs(r))))].filter((k) =>
    rows.some((r) => shown(cell(k, cs(r)[k])) !== "—"),
  );
  const slotsOf = (r: Rec) => SLOT_NAMES.map((_, i) => int(sc(r)[`spell_slots_level_${i + 1}`]) ?? 0);
  // Pact Magic (the Warlock): at every level its slots are all of one level, and that level rises.
  // The SRD's table prints them as Spell Slots and Slot Level; the 1st–9th columns stay for spell_slots.
  const levelsWithSlots = (r: Rec) => slotsOf(r).filter((n) => n > 0).length;
  const pact = rows.every((r) => levelsWithSlots(r) <= 1) && rows.some((r) => slotsOf(r).findIndex((n) => n > 0) > 0);
  const pactCols = pact ? ["Spell Slots", "Slot Level"] : [];
  const head = [
    "Level",
    "Proficiency Bonus",
    "Features",
    ...spellCols.map(([, h]) => h),
    ...specific.map(humanize),
    ...pactCols,
    ...slotCols.map((n) => SLOT_NAMES[n - 1]!),
  ];
  const lines = [`| ${head.join(" | ")} |`, `|${head.map(() => "---").join("|")}|`];
  for (const r of rows) {
    const pb = int(r.prof_bonus);
    const feats = names(r.features);
    const cells = [
      String(int(r.level)),
      pb === null ? "—" : `+${pb}`,
      feats.length ? feats.join(", ") : "—",
      ...spellCols.map(([k]) => shown(int(sc(r)[k]) === null ? null : String(int(sc(r)[k])))),
      ...specific.map((k) => shown(cell(k, cs(r)[k]))),
      ...(pact ? pactCells(slotsOf(r)) : []),
      ...slotCols.map((n) => shown(String(int(sc(r)[`spell_slots_level_${n}`]) ?? 0))),
    ];
    lines.push(`| ${cells.join(" | ")} |`);
  }
  return lines.join("\n");
}

/** A Pact Magic row's Spell Slots and Slot Level cells ("2", "3rd"). */
function pactCells(slots: number[]): string[] {
  const at = slots.findIndex((n) => n > 0);
  return at < 0 ? ["—", "—"] : [String(slots[at]), SLOT_NAMES[at]!];
}
