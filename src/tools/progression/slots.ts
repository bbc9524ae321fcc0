/**
 * Spell slots by caster level, for classes whose data gives a caster type but no slot table
 * (OrcBrew homebrew: `:spellcasting {:level-factor 1|2|3}`). Source: SRD 5.1, "Multiclassing ›
 * Spellcasting › Multiclass Spellcaster: Spell Slots per Spell Level" (the full caster's table;
 * half and third casters count half / a third of their levels, rounded down).
 */
export const SLOTS_BY_CASTER_LEVEL: readonly (readonly number[])[] = [
  [2],
  [3],
  [4, 2],
  [4, 3],
  [4, 3, 2],
  [4, 3, 3],
  [4, 3, 3, 1],
  [4, 3, 3, 2],
  [4, 3, 3, 3, 1],
  [4, 3, 3, 3, 2],
  [4, 3, 3, 3, 2, 1],
  [4, 3, 3, 3, 2, 1],
  [4, 3, 3, 3, 2, 1, 1],
  [4, 3, 3, 3, 2, 1, 1],
  [4, 3, 3, 3, 2, 1, 1, 1],
  [4, 3, 3, 3, 2, 1, 1, 1],
  [4, 3, 3, 3, 2, 1, 1, 1, 1],
  [4, 3, 3, 3, 3, 1, 1, 1, 1],
  [4, 3, 3, 3, 3, 2, 1, 1, 1],
  [4, 3, 3, 3, 3, 2, 2, 1, 1],
];

const DIVISOR: Record<string, number> = { full: 1, half: 2, third: 3 };

/** Slots of a `casterType` ("full", "half", "third") class at `level`; undefined for other types or none yet. */
export function derivedSlots(casterType: string | null | undefined, level: number): number[] | undefined {
  const d = casterType ? DIVISOR[casterType.toLowerCase()] : undefined;
  if (!d) return undefined;
  const casterLevel = Math.floor(level / d);
  return casterLevel >= 1 ? [...SLOTS_BY_CASTER_LEVEL[casterLevel - 1]!] : undefined;
}

export const DERIVED_SLOTS_NOTE =
  "spell_slots derived from the class's caster type with the SRD 5.1 multiclass spellcaster table (its data " +
  "has no slot table)";
