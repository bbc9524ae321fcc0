/**
 * The query set of `bun run eval`: every ranking scenario of the spec (shared/spec/4 and 5), then
 * our own realistic queries over every tool. Each query is a tool call (the eval captures the
 * SearchQuery the tool builds, so kinds and filters are exactly the tool's) plus the names of the
 * results it should find (`targets`, any document; "kind:Name" when a name is ambiguous).
 * Every target was checked to exist in the synced corpus (open5e v2 + dnd5eapi rules).
 */
import type { Expectation, HitPredicate, RankedEntity, TargetRef } from "./eval-metrics.ts";

export type ToolName =
  | "search_spell"
  | "search_creature"
  | "search_equipment"
  | "search_character_option"
  | "search_rule"
  | "search_all";

export interface EvalQuery {
  id: string;
  /** spec = a scenario of shared/spec with a ranking expectation; own = ours. */
  origin: "spec" | "own";
  tool: ToolName;
  /** The tool's arguments, `search` (or `query` for search_all) included. */
  args: Record<string, unknown>;
  /** Results that answer the query; the best-placed one counts for hit@k and MRR. */
  targets: TargetRef[];
  /** Ranking expectations checked on the hybrid ranking (PASS/FAIL). */
  expect?: Expectation[];
  /** Why the query reads the spec the way it does. */
  note?: string;
  /** A development-set case's own cut-off: a hit when the first target is within the top k. */
  k?: number;
}

const text = (e: RankedEntity) => e.text.toLowerCase();
const heals = (e: RankedEntity) => /\bregains?\b[^.]{0,80}\bhit points?\b/.test(text(e));
/** damage_types is incomplete for some documents, so a "<type> damage" phrase in the text counts too. */
const DAMAGE_TYPES =
  "acid|bludgeoning|cold|fire|force|lightning|necrotic|piercing|poison|psychic|radiant|slashing|thunder";
const DAMAGE_WORDS = new RegExp(String.raw`\b(${DAMAGE_TYPES}) damage\b`);
const damages = (e: RankedEntity) => (e.filters.damage_types?.length ?? 0) > 0 || DAMAGE_WORDS.test(text(e));

export const HEALING_SPELL: HitPredicate = {
  label: "healing spells (restore hit points)",
  test: (e) => e.kind === "spell" && heals(e),
};
export const DAMAGE_SPELL: HitPredicate = {
  label: "damage-only spells",
  test: (e) => e.kind === "spell" && damages(e) && !heals(e),
};
/** The damage_types filter is incomplete for some documents (A5E, Deep Magic), so the text counts too. */
const FIRE_SPELL: HitPredicate = {
  label: "fire-damage spells",
  test: (e) => (e.filters.damage_types ?? []).includes("fire") || /\bfire damage\b/.test(text(e)),
};
const BREATHES_FIRE: HitPredicate = {
  label: "fire breathers (a breath action dealing fire damage)",
  test: (e) =>
    /\bfire breath\b|\bexhales?\b[^.\n]{0,60}\b(fire|flames?|molten)\b|\bbreath\b[^\n]{0,300}\bfire damage\b/.test(
      text(e),
    ),
};

/**
 * Equipment whose text says it wards off ranged attacks (checked by reading every equipment text that mentions them).
 */
const PROJECTILE_GUARDS: TargetRef[] = [
  "armor:Shield",
  "Arrow-Catching Shield",
  "Gloves of Missile Snaring",
  "Shield of Missile Reversal",
  "Shield of Missile Attraction",
  "Rod of Deflection",
  "Zephyr Shield",
];

const FIRE_SHIELD_NOTE =
  "spec 4/5 say level=3, but Fire Shield and Ice Storm are level 4 in every document (SRD " +
  "5.1, SRD 5.2, A5E), so at level 3 neither can rank; the sensible reading is level 4 (both " +
  "candidates present). Level 3 is run as well, with Protection from Energy as its target.";

export const SPEC_QUERIES: EvalQuery[] = [
  {
    id: "spec-protect-fire-l4",
    origin: "spec",
    tool: "search_spell",
    args: { search: "protect from fire", level: 4 },
    targets: ["Fire Shield"],
    expect: [{ type: "above", higher: ["Fire Shield"], lower: ["Ice Storm"] }],
    note: FIRE_SHIELD_NOTE,
  },
  {
    id: "spec-protect-fire-l3",
    origin: "spec",
    tool: "search_spell",
    args: { search: "protect from fire", level: 3 },
    targets: ["Protection from Energy"],
    expect: [{ type: "top", names: ["Protection from Energy"], k: 5 }],
    note:
      "the spec's literal level=3: Fire Shield/Ice Storm are not level 3; " +
      "the level-3 spell that protects from fire is Protection from Energy.",
  },
  {
    id: "spec-fire-breathing-beast",
    origin: "spec",
    tool: "search_creature",
    args: { search: "fire breathing beast", type: "dragon" },
    targets: [
      "Ancient Red Dragon",
      "Adult Red Dragon",
      "Young Red Dragon",
      "Red Dragon Wyrmling",
      "Ancient Gold Dragon",
      "Adult Gold Dragon",
      "Ancient Brass Dragon",
      "Adult Brass Dragon",
    ],
    expect: [{ type: "share", pred: BREATHES_FIRE, k: 5, min: 3 }],
    note: "the spec only says 'dragons ranked by similarity'; we expect fire breathers (red, gold, brass) on top.",
  },
  {
    id: "spec-returns-when-thrown",
    origin: "spec",
    tool: "search_equipment",
    args: { search: "weapon that returns when thrown", type: "magic-item", category: "weapon" },
    targets: ["Dwarven Thrower"],
    expect: [{ type: "top", names: ["Dwarven Thrower"], k: 5 }],
    note:
      "spec says type=weapon, but Dwarven Thrower is a magic item (category weapon); search_equipment " +
      "type=weapon holds mundane weapons only, so the scenario is read as magic weapons.",
  },
  {
    id: "spec-arcane-masters",
    origin: "spec",
    tool: "search_character_option",
    args: { search: "masters of arcane magic", type: "class" },
    targets: ["Wizard", "Sorcerer"],
    expect: [{ type: "above", higher: ["Wizard", "Sorcerer"], lower: ["Fighter"] }],
  },
  {
    id: "spec-divine-warrior",
    origin: "spec",
    tool: "search_character_option",
    args: { search: "divine warrior", type: "class" },
    targets: ["Paladin", "Cleric"],
    expect: [{ type: "above", higher: ["Paladin", "Cleric"], lower: ["Rogue"] }],
  },
  {
    id: "spec-attacking-hidden",
    origin: "spec",
    tool: "search_rule",
    args: { search: "attacking while hidden", rule_type: "rule" },
    targets: ["Unseen Attackers and Targets", "Hide", "Hiding"],
    expect: [{ type: "top", names: ["Unseen Attackers and Targets", "Hide", "Hiding"], k: 3, any: true }],
  },
  {
    id: "spec-undead-drain-life",
    origin: "spec",
    tool: "search_creature",
    args: { search: "undead that drain life", type: "undead" },
    targets: ["Vampire", "Wraith", "Specter"],
    expect: [{ type: "top", names: ["Vampire", "Wraith", "Specter"], k: 10, any: true }],
    note:
      "'returns creatures like Vampire, Wraith, Specter': at " +
      "least one of them in the top 10 (all three are reported).",
  },
  {
    id: "spec-projectiles",
    origin: "spec",
    tool: "search_equipment",
    args: { search: "protects against projectiles" },
    targets: PROJECTILE_GUARDS,
    expect: [{ type: "top", names: PROJECTILE_GUARDS, k: 5, any: true }],
    note:
      "spec says type=armor, yet expects 'items with deflection abilities' (magic items) too; " +
      "search_equipment type=armor holds the 25 mundane armors only, so the scenario is read over all equipment " +
      "(the default type): the Shield or a shield/item that wards off ranged attacks in the top 5.",
  },
  {
    id: "spec-projectiles-armor",
    origin: "spec",
    tool: "search_equipment",
    args: { search: "protects against projectiles", type: "armor" },
    targets: ["armor:Shield"],
    note:
      "the literal type=armor: the only Shield among the armor is SRD 5.2's, whose " +
      "whole text is 'Shield. Armor Class +2. Cost 10 gp. Weight 6 lb. A shield.' " +
      "(nothing about projectiles, in words or meaning); reported, not an expectation.",
  },
  {
    id: "spec-falling",
    origin: "spec",
    tool: "search_rule",
    args: { search: "what happens when I fall", rule_type: "rule" },
    targets: ["Falling"],
    expect: [{ type: "top", names: ["Falling"], k: 3 }],
  },
  {
    id: "spec-heal-wounds",
    origin: "spec",
    tool: "search_all",
    args: { query: "spells that heal wounds" },
    targets: ["Cure Wounds", "Healing Word", "Mass Cure Wounds", "Heal", "Mass Healing Word", "Prayer of Healing"],
    expect: [
      { type: "before", a: HEALING_SPELL, b: DAMAGE_SPELL },
      { type: "more", a: HEALING_SPELL, b: DAMAGE_SPELL, k: 10 },
    ],
  },
  {
    id: "spec-fire-damage",
    origin: "spec",
    tool: "search_all",
    args: { query: "fire damage", content_types: ["Spell"] },
    targets: [
      "Fireball",
      "Fire Bolt",
      "Burning Hands",
      "Scorching Ray",
      "Wall of Fire",
      "Flame Strike",
      "Produce Flame",
      "Fire Storm",
      "Delayed Blast Fireball",
      "Incendiary Cloud",
      "Meteor Swarm",
      "Heat Metal",
    ],
    expect: [{ type: "share", pred: FIRE_SPELL, k: 10, min: 8 }],
  },
  {
    id: "spec-typo-firebal",
    origin: "spec",
    tool: "search_spell",
    args: { search: "firebal" },
    targets: ["Fireball"],
    expect: [{ type: "top", names: ["Fireball"], k: 1 }],
  },
  {
    id: "spec-typo-magik-missle",
    origin: "spec",
    tool: "search_spell",
    args: { search: "magik missle" },
    targets: ["Magic Missile"],
    expect: [{ type: "top", names: ["Magic Missile"], k: 1 }],
  },
];

const own = (
  id: string,
  tool: ToolName,
  args: Record<string, unknown>,
  targets: TargetRef[],
  expect?: Expectation[],
): EvalQuery => ({
  id,
  origin: "own",
  tool,
  args,
  targets,
  ...(expect ? { expect } : {}),
});

export const OWN_QUERIES: EvalQuery[] = [
  // spells by effect
  own("spell-plane-travel", "search_spell", { search: "travel to another plane of existence" }, [
    "Plane Shift",
    "Gate",
    "Etherealness",
  ]),
  own("spell-invisible", "search_spell", { search: "make myself invisible" }, ["Invisibility", "Greater Invisibility"]),
  own("spell-underwater", "search_spell", { search: "breathe underwater" }, ["Water Breathing"]),
  own("spell-raise-dead", "search_spell", { search: "bring a dead ally back to life" }, [
    "Revivify",
    "Raise Dead",
    "Resurrection",
    "True Resurrection",
    "Reincarnate",
  ]),
  own("spell-animals", "search_spell", { search: "talk to animals" }, ["Speak with Animals"]),
  own("spell-slow-fall", "search_spell", { search: "slow a fall", level: 1 }, ["Feather Fall"]),
  own("spell-mount", "search_spell", { search: "summon a steed to ride", class_key: "paladin" }, ["Find Steed"]),
  own("spell-sleep", "search_spell", { search: "put enemies to sleep" }, ["Sleep"]),
  own("spell-read-minds", "search_spell", { search: "read the thoughts of a creature" }, ["Detect Thoughts"]),
  own("spell-counter", "search_spell", { search: "interrupt an enemy casting a spell", casting_time: "reaction" }, [
    "Counterspell",
  ]),
  own("spell-flight", "search_spell", { search: "grant a creature a flying speed" }, ["Fly"]),
  own("spell-wall-fire", "search_spell", { search: "create a wall of flames", school: "evocation" }, ["Wall of Fire"]),
  own("spell-typo-cure", "search_spell", { search: "cure wonds" }, ["Cure Wounds"]),
  own("spell-typo-healing-word", "search_spell", { search: "heling word" }, ["Healing Word"]),
  own("spell-partial-name", "search_spell", { search: "delayed blast" }, ["Delayed Blast Fireball"]),
  own("spell-exact-shield", "search_spell", { search: "shield" }, ["Shield"]),
  // creatures by concept
  own("creature-flying-horse", "search_creature", { search: "winged flying horse" }, ["Pegasus"]),
  own("creature-stone-gaze", "search_creature", { search: "turns people to stone with its gaze" }, [
    "Medusa",
    "Basilisk",
  ]),
  own("creature-mimic", "search_creature", { search: "monster disguised as a treasure chest" }, ["Mimic"]),
  own("creature-undead-caster", "search_creature", { search: "undead wizard with a phylactery", type: "undead" }, [
    "Lich",
    "Demilich",
  ]),
  own("creature-tentacles-sea", "search_creature", { search: "gigantic sea monster with tentacles" }, ["Kraken"]),
  own("creature-regenerates", "search_creature", { search: "giant that regenerates unless burned with fire or acid" }, [
    "Troll",
  ]),
  own("creature-web-spider", "search_creature", { search: "spider that spins webs", type: "beast" }, [
    "Giant Spider",
    "Giant Wolf Spider",
  ]),
  own("creature-ghost", "search_creature", { search: "spirit that possesses the living" }, ["Ghost"]),
  own("creature-typo-owlbear", "search_creature", { search: "owlbaer" }, ["Owlbear"]),
  own("creature-exact-lich", "search_creature", { search: "lich" }, ["Lich"]),
  // equipment by function
  own("item-bag-holding", "search_equipment", { search: "bag that holds more than its size", type: "magic-item" }, [
    "Bag of Holding",
    "Handy Haversack",
    "Portable Hole",
  ]),
  own("item-silent-boots", "search_equipment", { search: "boots that make your steps silent" }, ["Boots of Elvenkind"]),
  own("item-heal-potion", "search_equipment", { search: "potion that restores hit points" }, ["Potion of Healing"]),
  own("item-flaming-sword", "search_equipment", { search: "sword that bursts into flame", type: "magic-item" }, [
    "Flame Tongue*",
  ]),
  own("item-thrower-all", "search_equipment", { search: "weapon that returns when thrown" }, ["Dwarven Thrower"]),
  own("item-climbing", "search_equipment", { search: "gear for climbing a cliff", type: "item" }, [
    "Climber's Kit",
    "Rope, hempen (50 feet)",
    "Rope",
    "Grappling hook",
  ]),
  own("item-light", "search_equipment", { search: "light source for a dark dungeon", type: "item" }, [
    "Torch",
    "Lantern, Hooded",
    "Lantern, Bullseye",
    "Candle",
  ]),
  own("weapon-big-sword", "search_equipment", { search: "big two-handed sword", type: "weapon" }, ["Greatsword"]),
  own("armor-heaviest", "search_equipment", { search: "full plate armor", type: "armor" }, ["Plate Armor"]),
  own("item-exact-ring", "search_equipment", { search: "ring of invisibility" }, ["Ring of Invisibility"]),
  // character options
  own(
    "class-shapeshifter",
    "search_character_option",
    { search: "nature priest who shapeshifts into animals", type: "class" },
    ["Druid"],
  ),
  own("class-rage", "search_character_option", { search: "warrior who flies into a rage", type: "class" }, [
    "Barbarian",
  ]),
  own(
    "class-patron",
    "search_character_option",
    { search: "magic from a pact with an otherworldly patron", type: "class" },
    ["Warlock"],
  ),
  own("class-music", "search_character_option", { search: "magic through music and performance", type: "class" }, [
    "Bard",
  ]),
  own("feat-grapple", "search_character_option", { search: "better at grappling", type: "feat" }, ["Grappler"]),
  own("species-lucky", "search_character_option", { search: "small folk who are unusually lucky", type: "species" }, [
    "Halfling",
  ]),
  own("background-temple", "search_character_option", { search: "raised in service of a temple", type: "background" }, [
    "Acolyte",
  ]),
  own("subclass-healer", "search_character_option", { search: "cleric devoted to healing", type: "subclass" }, [
    "Life Domain",
  ]),
  // rules
  own("rule-breath", "search_rule", { search: "how long can I hold my breath" }, ["Suffocating"]),
  own("rule-jump", "search_rule", { search: "how far can I jump" }, ["Jumping"]),
  own("rule-two-weapons", "search_rule", { search: "fighting with a weapon in each hand" }, ["Two-Weapon Fighting"]),
  own("rule-rest", "search_rule", { search: "recover hit points by resting" }, ["Resting"]),
  own("rule-leave-reach", "search_rule", { search: "enemy moves out of my reach" }, ["Opportunity Attacks"]),
  own("rule-zero-hp", "search_rule", { search: "what happens at 0 hit points" }, [
    "Dropping to 0 Hit Points",
    "Damage and Healing",
  ]),
  own("rule-cover", "search_rule", { search: "hiding behind a wall gives protection from attacks" }, ["Cover"]),
  own("condition-cannot-see", "search_rule", { search: "can't see anything", rule_type: "condition" }, ["Blinded"]),
  own("condition-knocked-down", "search_rule", { search: "knocked to the ground", rule_type: "condition" }, ["Prone"]),
  own("rule-underwater", "search_rule", { search: "fighting underwater" }, ["Underwater Combat"]),
  // search_all
  own(
    "all-exact-fireball",
    "search_all",
    { query: "Fireball" },
    ["Fireball"],
    [{ type: "top", names: ["Fireball"], k: 1 }],
  ),
  own("all-grappled", "search_all", { query: "grappled" }, ["Grappled", "Grappling"]),
  // more spells
  own("spell-detect-magic", "search_spell", { search: "sense magic nearby" }, ["Detect Magic"]),
  own("spell-short-teleport", "search_spell", { search: "teleport a short distance" }, [
    "Misty Step",
    "Dimension Door",
  ]),
  own("spell-food", "search_spell", { search: "conjure food and water for the party" }, [
    "Create Food and Water",
    "Goodberry",
  ]),
  own("spell-weather", "search_spell", { search: "change the weather" }, ["Control Weather"]),
  own("spell-exploding-fire", "search_spell", { search: "a bead of fire that explodes" }, [
    "Fireball",
    "Delayed Blast Fireball",
  ]),
  own("spell-beast-form", "search_spell", { search: "transform a creature into a beast" }, [
    "Polymorph",
    "True Polymorph",
  ]),
  own("spell-curse", "search_spell", { search: "end a curse" }, ["Remove Curse", "Greater Restoration"]),
  own("spell-poison", "search_spell", { search: "neutralize poison and cure disease", level_max: 3 }, [
    "Lesser Restoration",
    "Protection from Poison",
  ]),
  own("spell-paralyze", "search_spell", { search: "paralyze a humanoid" }, ["Hold Person"]),
  own("spell-light-cantrip", "search_spell", { search: "make an object shed light", level: 0 }, [
    "Light",
    "Dancing Lights",
  ]),
  own("spell-dead-talk", "search_spell", { search: "ask questions of a corpse" }, ["Speak with Dead"]),
  own("spell-cold-cantrip", "search_spell", { search: "ray of cold", level: 0, class_key: "wizard" }, ["Ray of Frost"]),
  own(
    "spell-undead-servants",
    "search_spell",
    { search: "raise skeletons and zombies as servants", school: "necromancy" },
    ["Animate Dead", "Create Undead"],
  ),
  own("spell-banish", "search_spell", { search: "send a creature to another plane" }, ["Banishment", "Plane Shift"]),
  own("spell-find-object", "search_spell", { search: "find a lost object" }, ["Locate Object"]),
  own("spell-mass-heal", "search_spell", { search: "heal many allies at once" }, [
    "Mass Cure Wounds",
    "Mass Healing Word",
    "Mass Heal",
    "Prayer of Healing",
  ]),
  own("spell-exact-misty", "search_spell", { search: "misty step" }, ["Misty Step"]),
  // more creatures
  own("creature-lightning-dragon", "search_creature", { search: "dragon that breathes lightning", type: "dragon" }, [
    "Ancient Blue Dragon",
    "Adult Blue Dragon",
    "Young Blue Dragon",
    "Blue Dragon Wyrmling",
  ]),
  own("creature-tiny-dragon", "search_creature", { search: "tiny dragon that makes a good familiar" }, [
    "Pseudodragon",
  ]),
  own("creature-rats", "search_creature", { search: "a swarm of rats" }, ["Swarm of Rats"]),
  own("creature-horse", "search_creature", { search: "horse to ride", type: "beast" }, [
    "Riding Horse",
    "Warhorse",
    "Draft Horse",
  ]),
  own("creature-shark-people", "search_creature", { search: "shark-like sea devils that raid the coast" }, [
    "Sahuagin",
  ]),
  own("creature-impersonator", "search_creature", { search: "shapechanger that impersonates people" }, [
    "Doppelganger",
  ]),
  own("creature-zombie", "search_creature", { search: "rotting corpse animated by necromancy", type: "undead" }, [
    "Zombie",
  ]),
  own("creature-demon", "search_creature", { search: "demon from the Abyss", type: "fiend" }, [
    "Balor",
    "Vrock",
    "Hezrou",
    "Glabrezu",
    "Marilith",
    "Dretch",
    "Quasit",
    "Nalfeshnee",
  ]),
  own("creature-angel", "search_creature", { search: "angel", type: "celestial" }, ["Deva", "Planetar", "Solar"]),
  own("creature-teleporting-dog", "search_creature", { search: "dog that teleports" }, ["Blink Dog"]),
  own("creature-exact-ard", "search_creature", { search: "ancient red dragon" }, ["Ancient Red Dragon"]),
  // more equipment
  own("weapon-bolts", "search_equipment", { search: "ranged weapon that shoots bolts", type: "weapon" }, [
    "Light Crossbow",
    "Heavy Crossbow",
    "Hand Crossbow",
  ]),
  own("item-fireball-wand", "search_equipment", { search: "wand that shoots fireballs" }, ["Wand of Fireballs"]),
  own("item-flying-carpet", "search_equipment", { search: "something to fly on", type: "magic-item" }, [
    "Carpet of Flying",
    "Broom of Flying",
  ]),
  own("item-teleport-helm", "search_equipment", { search: "helmet that teleports you" }, ["Helm of Teleportation"]),
  own("item-lockpicks", "search_equipment", { search: "tools for picking locks", type: "item" }, ["Thieves' tools"]),
  own("item-giant-strength", "search_equipment", { search: "gauntlets that make you as strong as an ogre" }, [
    "Gauntlets of Ogre Power",
  ]),
  own("item-cooking", "search_equipment", { search: "cooking gear", type: "item" }, ["Mess Kit", "Cook's utensils"]),
  // more character options
  own("class-sneak", "search_character_option", { search: "stealthy expert in sneak attacks", type: "class" }, [
    "Rogue",
  ]),
  own(
    "class-bloodline",
    "search_character_option",
    { search: "innate magic from a draconic bloodline", type: "class" },
    ["Sorcerer"],
  ),
  own(
    "feat-initiative",
    "search_character_option",
    { search: "can't be surprised and acts first in combat", type: "feat" },
    ["Alert"],
  ),
  own(
    "species-dragon",
    "search_character_option",
    { search: "dragon ancestry with a breath weapon", type: "species" },
    ["Dragonborn"],
  ),
  own("species-orc", "search_character_option", { search: "strong people with orc blood", type: "species" }, [
    "Half-Orc",
    "Orc",
  ]),
  own("background-soldier", "search_character_option", { search: "served in an army", type: "background" }, [
    "Soldier",
  ]),
  own(
    "subclass-thief",
    "search_character_option",
    { search: "rogue who is a burglar and climbs well", type: "subclass" },
    ["Thief"],
  ),
  own("option-all-evocation", "search_character_option", { search: "wizard specialized in evocation" }, [
    "School of Evocation",
    "Evoker",
  ]),
  // more rules
  own("rule-advantage", "search_rule", { search: "roll two d20s and take the higher" }, [
    "Advantage and Disadvantage",
    "Advantage/Disadvantage",
  ]),
  own("rule-initiative", "search_rule", { search: "who goes first in combat" }, ["Initiative"]),
  own("rule-crit", "search_rule", { search: "rolling a natural 20 on an attack" }, [
    "Critical Hits",
    "Rolling 1 or 20",
  ]),
  own("rule-terrain", "search_rule", { search: "moving through rough ground costs extra movement" }, [
    "Difficult Terrain",
  ]),
  own("rule-armor-casting", "search_rule", { search: "can I cast spells while wearing armor" }, ["Casting in Armor"]),
  own("rule-ritual", "search_rule", { search: "casting a spell as a ritual" }, ["Rituals"]),
  own("rule-travel", "search_rule", { search: "how many miles can we travel in a day" }, ["Travel Pace"]),
  own("condition-tired", "search_rule", { search: "tired and worn out", rule_type: "condition" }, ["Exhaustion"]),
  own("condition-scared", "search_rule", { search: "scared of a creature", rule_type: "condition" }, ["Frightened"]),
  own("skill-notice", "search_rule", { search: "noticing hidden things", rule_type: "skill" }, [
    "Perception",
    "Investigation",
  ]),
  own("language-dragons", "search_rule", { search: "language spoken by dragons", rule_type: "language" }, ["Draconic"]),
  // more search_all
  own("all-vampire", "search_all", { query: "vampire" }, ["Vampire"]),
  own("all-potion-healing", "search_all", { query: "potion of healing" }, ["Potion of Healing"]),
  own("all-grapple-how", "search_all", { query: "how do I grapple someone" }, ["Grappling", "Grappled", "Grappler"]),
  own("all-magic-missile", "search_all", { query: "magic missile" }, ["Magic Missile"]),
  own("all-invisible", "search_all", { query: "become invisible" }, [
    "Invisibility",
    "Invisible",
    "Greater Invisibility",
    "Ring of Invisibility",
    "Potion of Invisibility",
  ]),
  // rules and conditions in plain words, items by what they do, one thing under two name forms
  own("condition-knocked-down", "search_rule", { search: "knocked down flat on the ground", rule_type: "condition" }, [
    "Prone",
  ]),
  own("rule-knocked-down", "search_rule", { search: "what happens when I get knocked down" }, ["Prone"]),
  own("item-breathe-water", "search_equipment", { search: "breathe normally under water", type: "magic-item" }, [
    "Necklace of Adaptation",
  ]),
  own("item-no-fall-damage", "search_equipment", { search: "stops me from getting hurt when I fall" }, [
    "Ring of Feather Falling",
  ]),
  own("item-walk-walls", "search_equipment", { search: "walk up walls and across ceilings" }, [
    "Slippers of Spider Climbing",
  ]),
  own("item-see-dark", "search_equipment", { search: "see in the dark", type: "magic-item" }, ["Goggles of Night"]),
  own("item-cold-weather", "search_equipment", { search: "keeps me warm in freezing weather" }, ["Ring of Warmth"]),
  own(
    "item-fixed-rod",
    "search_equipment",
    { search: "a rod that stays fixed in midair and can hold a lot of weight" },
    ["Immovable Rod"],
  ),
  own(
    "exact-form-draft-horse",
    "search_creature",
    { search: "draft horse" },
    ["Draft Horse"],
    [{ type: "distinct", k: 10 }],
  ),
  own(
    "exact-form-giant-hyena",
    "search_creature",
    { search: "giant hyena" },
    ["Giant Hyena"],
    [{ type: "distinct", k: 10 }],
  ),
  own(
    "rule-form-underwater",
    "search_rule",
    { search: "fighting under water" },
    ["Underwater Combat"],
    [{ type: "distinct", k: 10 }],
  ),
  own("creature-winged-horse", "search_creature", { search: "winged horse", type: "celestial" }, ["Pegasus"]),
  // a spell asked for across every kind (the whole content pack ranked Reef Shark first)
  own(
    "all-breathe-underwater",
    "search_all",
    { query: "let allies breathe underwater" },
    ["spell:Water Breathing"],
    [{ type: "top", names: ["spell:Water Breathing"], k: 5 }],
  ),
  // core spells, items and rules asked for by what people use them for
  own("spell-wall-flames", "search_spell", { search: "a wall of flames to block the corridor" }, ["Wall of Fire"]),
  own("spell-cross-lake", "search_spell", { search: "cross a lake on foot" }, ["Water Walk"]),
  own("spell-died-moment-ago", "search_spell", { search: "my friend died a moment ago, bring them back" }, [
    "Revivify",
  ]),
  own("spell-fell-off-cliff", "search_spell", { search: "save someone who fell off a cliff" }, ["Feather Fall"]),
  own("spell-cross-gap", "search_spell", { search: "get over a wide ravine" }, [
    "Fly",
    "Levitate",
    "Spider Climb",
    "Dimension Door",
    "Misty Step",
    "Jump",
  ]),
  own("all-cross-lake", "search_all", { query: "walk across a river" }, ["Water Walk"]),
  own("all-fire-sword", "search_all", { query: "flaming sword" }, ["Flame Tongue*", "Flame Blade"]),
  own("item-fly-boots", "search_equipment", { search: "boots that let me fly" }, [
    "Winged Boots",
    "Boots of Levitation",
  ]),
  own("rule-surprise", "search_rule", { search: "ambushed enemies that did not see us coming" }, [
    "The Order of Combat",
    "Combat Sequence",
    "Surprise",
  ]),
  own("rule-reactions", "search_rule", { search: "can I take more than one reaction a round" }, ["Reactions"]),
  own("rule-hold-breath", "search_rule", { search: "how long can I hold my breath" }, [
    "Suffocating",
    "Hazards",
    "The Environment",
  ]),
  own("rule-fall-damage", "search_rule", { search: "damage from falling off a cliff" }, [
    "Falling",
    "Hazards",
    "The Environment",
  ]),
  own("rule-cover-ac", "search_rule", { search: "bonus to AC from hiding behind a wall" }, ["Cover"]),
  own("rule-long-rest", "search_rule", { search: "what does sleeping for the night restore" }, [
    "Resting",
    "Long Rest",
  ]),
];

export const ALL_QUERIES: EvalQuery[] = [...SPEC_QUERIES, ...OWN_QUERIES];
