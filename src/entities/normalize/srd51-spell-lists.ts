/**
 * The SRD 5.1 class spell lists (System Reference Document 5.1, "Spell Lists", pp. 105-113), as
 * data. They are the evidence for correcting Open5e's SRD 5.1 spell classes: Open5e v2 (`srd_*`)
 * and v1 (`wotc-srd`) add the spells of subclasses (cleric domains, druid circles, warlock patrons,
 * paladin oaths) to the class (the 2014 Identify and Speak with Animals "cleric" come from the
 * Knowledge and Nature domains) and v2 leaves the paladin out; the D&D 5e API (2014), generated
 * from the same SRD, agrees with these lists for all 319 spells. Pure.
 */

import { groupByKeys } from "./read.ts";

/** Spell names per class, " | "-separated. */
const LISTS: Readonly<Record<string, string>> = {
  bard: `
    Animal Friendship | Animal Messenger | Animate Objects | Arcane Sword | Awaken | Bane | Bestow Curse
    | Blindness/Deafness | Calm Emotions | Charm Person | Clairvoyance | Comprehend Languages |
    Compulsion | Confusion | Cure Wounds | Dancing Lights | Detect Magic | Detect Thoughts | Dimension
    Door | Disguise Self | Dispel Magic | Dominate Monster | Dominate Person | Dream | Enhance Ability |
    Enthrall | Etherealness | Eyebite | Fear | Feather Fall | Feeblemind | Find the Path | Forcecage |
    Foresight | Freedom of Movement | Geas | Glibness | Glyph of Warding | Greater Invisibility |
    Greater Restoration | Guards and Wards | Hallucinatory Terrain | Healing Word | Heat Metal | Heroism
    | Hideous Laughter | Hold Monster | Hold Person | Hypnotic Pattern | Identify | Illusory Script |
    Invisibility | Irresistible Dance | Knock | Legend Lore | Lesser Restoration | Light | Locate
    Animals or Plants | Locate Creature | Locate Object | Longstrider | Mage Hand | Magic Mouth |
    Magnificent Mansion | Major Image | Mass Cure Wounds | Mass Suggestion | Mending | Message | Mind
    Blank | Minor Illusion | Mirage Arcane | Mislead | Modify Memory | Nondetection | Planar Binding |
    Plant Growth | Polymorph | Power Word Kill | Power Word Stun | Prestidigitation | Programmed
    Illusion | Project Image | Raise Dead | Regenerate | Resurrection | Scrying | See Invisibility |
    Seeming | Sending | Shatter | Silence | Silent Image | Sleep | Speak with Animals | Speak with Dead
    | Speak with Plants | Stinking Cloud | Suggestion | Symbol | Teleport | Teleportation Circle |
    Thunderwave | Tiny Hut | Tongues | True Polymorph | True Seeing | True Strike | Unseen Servant |
    Vicious Mockery | Zone of Truth`,
  cleric: `
    Aid | Animate Dead | Antimagic Field | Arcane Eye | Astral Projection | Augury | Bane | Banishment |
    Beacon of Hope | Bestow Curse | Blade Barrier | Bless | Blindness/Deafness | Calm Emotions |
    Clairvoyance | Command | Commune | Conjure Celestial | Contagion | Continual Flame | Control Water |
    Control Weather | Create Food and Water | Create Undead | Create or Destroy Water | Cure Wounds |
    Daylight | Death Ward | Detect Evil and Good | Detect Magic | Detect Poison and Disease | Dispel
    Evil and Good | Dispel Magic | Divine Word | Earthquake | Enhance Ability | Etherealness | Find
    Traps | Find the Path | Fire Storm | Flame Strike | Forbiddance | Freedom of Movement | Gate | Geas
    | Gentle Repose | Glyph of Warding | Greater Restoration | Guardian of Faith | Guidance | Guiding
    Bolt | Hallow | Harm | Heal | Healing Word | Heroes' Feast | Hold Person | Holy Aura | Inflict
    Wounds | Insect Plague | Legend Lore | Lesser Restoration | Light | Locate Creature | Locate Object
    | Magic Circle | Mass Cure Wounds | Mass Heal | Mass Healing Word | Meld Into Stone | Mending |
    Planar Ally | Planar Binding | Plane Shift | Prayer of Healing | Protection From Energy | Protection
    from Evil and Good | Protection from Poison | Purify Food and Drink | Raise Dead | Regenerate |
    Remove Curse | Resistance | Resurrection | Revivify | Sacred Flame | Sanctuary | Scrying | Sending |
    Shield of Faith | Silence | Spare the Dying | Speak with Dead | Spirit Guardians | Spiritual Weapon
    | Stone Shape | Symbol | Thaumaturgy | Tongues | True Resurrection | True Seeing | Warding Bond |
    Water Walk | Word of Recall | Zone of Truth`,
  druid: `
    Animal Friendship | Animal Messenger | Animal Shapes | Antilife Shell | Antipathy/Sympathy | Awaken
    | Barkskin | Blight | Call Lightning | Charm Person | Commune With Nature | Confusion | Conjure
    Animals | Conjure Elemental | Conjure Fey | Conjure Minor Elementals | Conjure Woodland Beings |
    Contagion | Control Water | Control Weather | Create Food and Water | Create or Destroy Water | Cure
    Wounds | Darkvision | Daylight | Detect Magic | Detect Poison and Disease | Dispel Magic |
    Divination | Dominate Beast | Druidcraft | Earthquake | Enhance Ability | Entangle | Faerie Fire |
    Feeblemind | Find Traps | Find the Path | Fire Storm | Flame Blade | Flaming Sphere | Fog Cloud |
    Foresight | Freedom of Movement | Geas | Giant Insect | Goodberry | Greater Restoration | Guidance |
    Gust of Wind | Hallucinatory Terrain | Heal | Healing Word | Heat Metal | Heroes' Feast | Hold
    Person | Ice Storm | Insect Plague | Jump | Lesser Restoration | Locate Animals or Plants | Locate
    Creature | Locate Object | Longstrider | Mass Cure Wounds | Mending | Mirage Arcane | Moonbeam |
    Move Earth | Pass Without Trace | Planar Binding | Plane Shift | Plant Growth | Poison Spray |
    Polymorph | Produce Flame | Protection From Energy | Protection from Poison | Purify Food and Drink
    | Regenerate | Reincarnate | Resistance | Reverse Gravity | Scrying | Shapechange | Shillelagh |
    Sleet Storm | Speak with Animals | Speak with Plants | Spike Growth | Stone Shape | Stoneskin |
    Storm of Vengeance | Sunbeam | Sunburst | Thunderwave | Transport via Plants | Tree Stride | True
    Resurrection | Wall of Fire | Wall of Stone | Wall of Thorns | Water Breathing | Water Walk | Wind
    Walk | Wind Wall`,
  paladin: `
    Aid | Banishment | Bless | Branding Smite | Command | Create Food and Water | Cure Wounds | Daylight
    | Death Ward | Detect Evil and Good | Detect Magic | Detect Poison and Disease | Dispel Evil and
    Good | Dispel Magic | Divine Favor | Find Steed | Geas | Heroism | Lesser Restoration | Locate
    Creature | Locate Object | Magic Circle | Magic Weapon | Protection from Evil and Good | Protection
    from Poison | Purify Food and Drink | Raise Dead | Remove Curse | Revivify | Shield of Faith | Zone
    of Truth`,
  ranger: `
    Alarm | Animal Friendship | Animal Messenger | Barkskin | Commune With Nature | Conjure Animals |
    Conjure Woodland Beings | Cure Wounds | Darkvision | Daylight | Detect Magic | Detect Poison and
    Disease | Find Traps | Fog Cloud | Freedom of Movement | Goodberry | Hunter's Mark | Jump | Lesser
    Restoration | Locate Animals or Plants | Locate Creature | Locate Object | Longstrider |
    Nondetection | Pass Without Trace | Plant Growth | Protection From Energy | Protection from Poison |
    Silence | Speak with Animals | Speak with Plants | Spike Growth | Stoneskin | Tree Stride | Water
    Breathing | Water Walk | Wind Wall`,
  sorcerer: `
    Acid Splash | Alter Self | Animate Objects | Banishment | Blight | Blindness/Deafness | Blink | Blur
    | Burning Hands | Chain Lightning | Charm Person | Chill Touch | Circle of Death | Clairvoyance |
    Cloudkill | Color Spray | Comprehend Languages | Cone of Cold | Confusion | Counterspell | Creation
    | Dancing Lights | Darkness | Darkvision | Daylight | Delayed Blast Fireball | Detect Magic | Detect
    Thoughts | Dimension Door | Disguise Self | Disintegrate | Dispel Magic | Dominate Beast | Dominate
    Monster | Dominate Person | Earthquake | Enhance Ability | Enlarge/Reduce | Etherealness |
    Expeditious Retreat | Eyebite | False Life | Fear | Feather Fall | Finger of Death | Fire Bolt |
    Fire Storm | Fireball | Fly | Fog Cloud | Gaseous Form | Gate | Globe of Invulnerability | Greater
    Invisibility | Gust of Wind | Haste | Hold Monster | Hold Person | Hypnotic Pattern | Ice Storm |
    Incendiary Cloud | Insect Plague | Invisibility | Jump | Knock | Levitate | Light | Lightning Bolt |
    Mage Armor | Mage Hand | Magic Missile | Major Image | Mass Suggestion | Mending | Message | Meteor
    Swarm | Minor Illusion | Mirror Image | Misty Step | Move Earth | Plane Shift | Poison Spray |
    Polymorph | Power Word Kill | Power Word Stun | Prestidigitation | Prismatic Spray | Protection From
    Energy | Ray of Frost | Reverse Gravity | Scorching Ray | See Invisibility | Seeming | Shatter |
    Shield | Shocking Grasp | Silent Image | Sleep | Sleet Storm | Slow | Spider Climb | Stinking Cloud
    | Stoneskin | Suggestion | Sunbeam | Sunburst | Telekinesis | Teleport | Teleportation Circle |
    Thunderwave | Time Stop | Tongues | True Seeing | True Strike | Wall of Fire | Wall of Stone | Water
    Breathing | Water Walk | Web | Wish`,
  warlock: `
    Astral Projection | Banishment | Blight | Charm Person | Chill Touch | Circle of Death | Comprehend
    Languages | Conjure Fey | Contact Other Plane | Counterspell | Create Undead | Darkness | Demiplane
    | Dimension Door | Dispel Magic | Dominate Monster | Dream | Eldritch Blast | Enthrall |
    Etherealness | Expeditious Retreat | Eyebite | Fear | Feeblemind | Finger of Death | Flesh to Stone
    | Fly | Forcecage | Foresight | Gaseous Form | Glibness | Hallucinatory Terrain | Hellish Rebuke |
    Hold Monster | Hold Person | Hypnotic Pattern | Illusory Script | Imprisonment | Invisibility | Mage
    Hand | Magic Circle | Major Image | Mass Suggestion | Minor Illusion | Mirror Image | Misty Step |
    Plane Shift | Poison Spray | Power Word Kill | Power Word Stun | Prestidigitation | Protection from
    Evil and Good | Ray of Enfeeblement | Remove Curse | Scrying | Shatter | Spider Climb | Suggestion |
    Tongues | True Polymorph | True Seeing | True Strike | Unseen Servant | Vampiric Touch`,
  wizard: `
    Acid Arrow | Acid Splash | Alarm | Alter Self | Animate Dead | Animate Objects | Antimagic Field |
    Antipathy/Sympathy | Arcane Eye | Arcane Hand | Arcane Lock | Arcane Sword | Arcanist's Magic Aura |
    Astral Projection | Banishment | Bestow Curse | Black Tentacles | Blight | Blindness/Deafness |
    Blink | Blur | Burning Hands | Chain Lightning | Charm Person | Chill Touch | Circle of Death |
    Clairvoyance | Clone | Cloudkill | Color Spray | Comprehend Languages | Cone of Cold | Confusion |
    Conjure Elemental | Conjure Minor Elementals | Contact Other Plane | Contingency | Continual Flame |
    Control Water | Control Weather | Counterspell | Create Undead | Creation | Dancing Lights |
    Darkness | Darkvision | Delayed Blast Fireball | Demiplane | Detect Magic | Detect Thoughts |
    Dimension Door | Disguise Self | Disintegrate | Dispel Magic | Dominate Monster | Dominate Person |
    Dream | Enlarge/Reduce | Etherealness | Expeditious Retreat | Eyebite | Fabricate | Faithful Hound |
    False Life | Fear | Feather Fall | Feeblemind | Find Familiar | Finger of Death | Fire Bolt | Fire
    Shield | Fireball | Flaming Sphere | Flesh to Stone | Floating Disk | Fly | Fog Cloud | Forcecage |
    Foresight | Freezing Sphere | Gaseous Form | Gate | Geas | Gentle Repose | Globe of Invulnerability
    | Glyph of Warding | Grease | Greater Invisibility | Guards and Wards | Gust of Wind | Hallucinatory
    Terrain | Haste | Hideous Laughter | Hold Monster | Hold Person | Hypnotic Pattern | Ice Storm |
    Identify | Illusory Script | Imprisonment | Incendiary Cloud | Instant Summons | Invisibility |
    Irresistible Dance | Jump | Knock | Legend Lore | Levitate | Light | Lightning Bolt | Locate
    Creature | Locate Object | Longstrider | Mage Armor | Mage Hand | Magic Circle | Magic Jar | Magic
    Missile | Magic Mouth | Magic Weapon | Magnificent Mansion | Major Image | Mass Suggestion | Maze |
    Mending | Message | Meteor Swarm | Mind Blank | Minor Illusion | Mirage Arcane | Mirror Image |
    Mislead | Misty Step | Modify Memory | Move Earth | Nondetection | Passwall | Phantasmal Killer |
    Phantom Steed | Planar Binding | Plane Shift | Poison Spray | Polymorph | Power Word Kill | Power
    Word Stun | Prestidigitation | Prismatic Spray | Prismatic Wall | Private Sanctum | Programmed
    Illusion | Project Image | Protection From Energy | Protection from Evil and Good | Ray of
    Enfeeblement | Ray of Frost | Remove Curse | Resilient Sphere | Reverse Gravity | Rope Trick |
    Scorching Ray | Scrying | Secret Chest | See Invisibility | Seeming | Sending | Sequester |
    Shapechange | Shatter | Shield | Shocking Grasp | Silent Image | Simulacrum | Sleep | Sleet Storm |
    Slow | Spider Climb | Stinking Cloud | Stone Shape | Stoneskin | Suggestion | Sunbeam | Sunburst |
    Symbol | Telekinesis | Telepathic Bond | Teleport | Teleportation Circle | Thunderwave | Time Stop |
    Tiny Hut | Tongues | True Polymorph | True Seeing | True Strike | Unseen Servant | Vampiric Touch |
    Wall of Fire | Wall of Force | Wall of Ice | Wall of Stone | Water Breathing | Web | Weird | Wish`,
};

function norm(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9]/g, "");
}

let byName: Map<string, string[]> | null = null;

/** The classes whose SRD 5.1 list has the spell named `name` (null for a spell not in the SRD 5.1). */
export function srd51SpellClasses(name: string): string[] | null {
  byName ??= groupByKeys(Object.keys(LISTS), (cls) => LISTS[cls]!.split("|").map(norm).filter(Boolean));
  return byName.get(norm(name)) ?? null;
}

/**
 * `classes` of an SRD 5.1 spell as its class lists give them, and a note when upstream's differ
 * (`source` names the upstream: "Open5e v2"). A spell the lists do not know keeps upstream's classes.
 */
export function correctSrd51Classes(
  source: string,
  name: string,
  classes: string[],
): { classes: string[]; notes: string[] } {
  const srd = srd51SpellClasses(name);
  if (!srd) return { classes, notes: [] };
  const have = new Set(classes);
  const want = new Set(srd);
  const extra = classes.filter((c) => !want.has(c));
  const missing = srd.filter((c) => !have.has(c));
  if (!extra.length && !missing.length) return { classes, notes: [] };
  const title = (cs: string[]) => cs.map((c) => c[0]!.toUpperCase() + c.slice(1)).join(", ");
  const what = [
    extra.length ? `adds ${title(extra)} (a subclass's spells, not the class list)` : null,
    missing.length ? `omits ${title(missing)}` : null,
  ]
    .filter(Boolean)
    .join(" and ");
  return {
    classes: [...srd],
    notes: [`${source} ${what}; the SRD 5.1 spell lists (as the D&D 5e API) give ${title(srd)}. Corrected.`],
  };
}
