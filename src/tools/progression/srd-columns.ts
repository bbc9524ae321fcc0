/**
 * The class columns of the SRD 5.1 class tables (besides Level, Proficiency Bonus and Features),
 * as reviewed data read from the SRD 5.1 class chapters: what a 2014 class answer must show, so
 * that a table synced from a source without them says which are missing. "Spell Slots" stands
 * for the slot columns of any shape (1st–9th, or the Warlock's Spell Slots and Slot Level).
 */
const SRD51_COLUMNS: Readonly<Record<string, readonly string[]>> = {
  barbarian: ["Rages", "Rage Damage"],
  bard: ["Cantrips Known", "Spells Known", "Spell Slots"],
  cleric: ["Cantrips Known", "Spell Slots"],
  druid: ["Cantrips Known", "Spell Slots"],
  fighter: [],
  monk: ["Martial Arts", "Ki Points", "Unarmored Movement"],
  paladin: ["Spell Slots"],
  ranger: ["Spells Known", "Spell Slots"],
  rogue: ["Sneak Attack"],
  sorcerer: ["Sorcery Points", "Cantrips Known", "Spells Known", "Spell Slots"],
  warlock: ["Cantrips Known", "Spells Known", "Spell Slots", "Slot Level", "Invocations Known"],
  wizard: ["Cantrips Known", "Spell Slots"],
};

/** The SRD 5.1 class columns of `className` (none for a class the SRD does not have). */
export function srd51Columns(className: string): readonly string[] {
  return SRD51_COLUMNS[className.trim().toLowerCase()] ?? [];
}
