/**
 * How the derived filters read their values from an entity's canonical data, whatever its source
 * (creature speeds, senses, immunities and alignment; weapon properties; spell components; what a
 * DM calls a magic item). The filter table (filters.ts) names these functions in its entries'
 * `derive`; the store fills the columns with them on every replace and back-fills a new column.
 * Vocabularies live in the kind catalog (catalog.ts). Pure.
 */
import { ALIGNMENT_WORDS, CONDITIONS, MOVEMENT_MODES, WEAPON_PROPERTIES } from "./catalog.ts";
import { arr, rec, recs, uniq } from "./normalize/read.ts";
import type { EntityKind, JsonObject } from "./types.ts";
import { slugify } from "./types.ts";
import { PRICED_MATERIAL, saysConsumed } from "./material.ts";

export function text(v: unknown): string {
  return typeof v === "string" ? v : "";
}

/** Words of stat blocks that stand for a vocabulary value (A5E "fatigue"), and phrases that do not ("cold iron"). */
const SYNONYMS: Readonly<Record<string, string>> = {
  fatigue: "exhaustion",
  fatigued: "exhaustion",
  exhausted: "exhaustion",
};

/** The vocabulary words a free text mentions ("bludgeoning, piercing, and slashing from nonmagical attacks"). */
export function mentioned(s: string, vocab: readonly string[]): string[] {
  let lower = s.toLowerCase().replace(/\bcold[- ]iron\b/g, "");
  for (const [w, v] of Object.entries(SYNONYMS)) lower = lower.replace(new RegExp(`\\b${w}\\b`, "g"), v);
  return vocab.filter((w) => new RegExp(`\\b${w}\\b`).test(lower));
}

export function speeds(d: JsonObject): string[] {
  const sp = rec(d.speed);
  if (!sp) return [];
  return MOVEMENT_MODES.filter((m) =>
    m === "hover" ? sp.hover === true : typeof sp[m] === "number" && (sp[m] as number) > 0,
  );
}

export function weaponProperties(d: JsonObject): string[] {
  // "Special (Lance)" → special; "Two-Handed" → two-handed
  const names = arr(d.properties).map((p) => slugify(text(rec(p)?.name).replace(/\s*\(.*$/, "")));
  return uniq(names.filter((n) => (WEAPON_PROPERTIES as readonly string[]).includes(n)));
}

/**
 * Spell components. Costly / consumed: the canonical fields, which every normalizer reads from the
 * material text (src/entities/material.ts), or the text itself for data stored without them.
 */
export function components(d: JsonObject): string[] {
  const c = rec(d.components);
  if (!c) return [];
  const out: string[] = [];
  if (c.verbal === true) out.push("verbal");
  if (c.somatic === true) out.push("somatic");
  if (c.material !== true) return out;
  out.push("material");
  const textOf = text(c.material_text);
  if ((typeof c.material_cost === "string" && c.material_cost.trim() !== "") || PRICED_MATERIAL.test(textOf))
    out.push("costly material");
  if (c.material_consumed === true || (c.material_consumed !== false && saysConsumed(textOf)))
    out.push("consumed material");
  return out;
}

const MAGIC_ITEM_NAMES = /^(potions? of|spell scroll|ioun stone|elixir of|oil of|philter of)\b/i;
const MAGIC_ITEM_CATEGORIES = new Set(["potion", "scroll", "wondrous-item", "ring", "rod", "staff", "wand"]);

/**
 * Is this a magic item as a DM means it, whatever kind its document files it under? Every
 * magic_item is; an `item` is when its text says so (2024 "This potion is a magic item") or it is
 * a potion/scroll/wondrous item by name (SRD 5.2 lists Potion of Healing as gear, category Potion).
 */
export function isMagicItem(kind: EntityKind, name: string, data: JsonObject): boolean {
  if (kind === "magic_item") return true;
  if (kind !== "item") return false;
  const cat = text(data.category).toLowerCase();
  if (!MAGIC_ITEM_CATEGORIES.has(cat)) return false;
  return MAGIC_ITEM_NAMES.test(name) || /\bmagic(al)?\b/i.test(text(data.desc));
}

const LAW = ["lawful", "neutral", "chaotic"] as const;
const MORAL = ["good", "neutral", "evil"] as const;

/**
 * One axis of an "any …" alignment: the words it names on that axis,
 * else the axis minus what "non-…" rules out.
 */
function openAxis(
  axis: readonly string[],
  own: readonly string[],
  stated: Set<string>,
  excluded: Set<string>,
): string[] {
  const named = own.filter((w) => stated.has(w));
  return named.length ? named : axis.filter((w) => !excluded.has(w));
}

/**
 * The alignment words a creature may have, from its stated alignment: "chaotic evil" → chaotic,
 * evil; "lawful neutral or evil" → lawful, neutral, evil; "any evil alignment" → evil and every
 * word of the other axis (it may be lawful, neutral or chaotic evil); "any non-good alignment" →
 * lawful, neutral, chaotic, evil; "any alignment" → any; "unaligned" → unaligned.
 */
export function alignmentWords(d: JsonObject): string[] {
  const s = text(d.alignment).toLowerCase();
  if (/\bunaligned\b/.test(s)) return ["unaligned"];
  const negated = /\bnon-?\s*(lawful|chaotic|good|evil|neutral)\b/g;
  const excluded = new Set([...s.matchAll(negated)].map((m) => m[1]!));
  const rest = s.replace(negated, " ");
  const stated = new Set<string>([...LAW, ...MORAL].filter((w) => new RegExp(`\\b${w}\\b`).test(rest)));
  if (!/\bany\b/.test(s)) return ALIGNMENT_WORDS.filter((w) => stated.has(w));
  if (stated.size === 0 && excluded.size === 0) return ["any"];
  const words = new Set([
    ...openAxis(LAW, ["lawful", "chaotic"], stated, excluded),
    ...openAxis(MORAL, ["good", "evil"], stated, excluded),
  ]);
  return ALIGNMENT_WORDS.filter((w) => words.has(w));
}

type Named = { name: string; desc: string };

/** The named blocks of a stat block (traits, actions, bonus actions, reactions, legendary actions). */
function blocks(d: JsonObject): Named[] {
  return ["traits", "actions", "bonus_actions", "reactions", "legendary_actions", "mythic_actions"].flatMap((f) =>
    recs(d[f]).map((o) => ({ name: text(o.name), desc: text(o.desc) })),
  );
}

/** "Fireball*", "mage armor (self only)", "**Detect Magic**" → "fireball", "mage armor", "detect magic". */
function spellName(s: string): string | null {
  const n = s
    .replace(/\([^)]*\)/g, "")
    .replace(/[*_`]/g, "")
    .replace(/\s+/g, " ")
    .replace(/^(?:and|or)\s+/i, "")
    .replace(/[.;:]+$/, "")
    .trim()
    .toLowerCase();
  // A spell name: 1–6 words of letters, apostrophes, hyphens or a slash ("antipathy/sympathy"),
  // none of them words of the sentence around a name ("casts another spell", "is cast as if").
  if (!/^[a-z][a-z'’\-/]*(?: [a-z'’\-/]+){0,5}$/.test(n) || NOT_A_SPELL_WORD.test(n)) return null;
  return straightApostrophes(n);
}

const NOT_A_SPELL_WORD = new RegExp(
  "\\b(?:another|without|using|expends?|expending|if|as|is|are|normally|can|with|higher|original|caster's|" +
    "dc|absorb|counter|spells?|level|slots?|o|it|its|uses|cast|casts)\\b",
);

/** A list label of a spellcasting block: "Cantrips (at will)", "1st level (4 slots)", "At Will", "2/Day Each". */
const SPELL_LIST_LABEL = /(cantrips?|level|at will|\/day|slots?)/i;

/**
 * Spells a creature casts: the lists of its Spellcasting / Innate Spellcasting blocks (2014
 * "Cantrips (at will): …", "1st level (4 slots): …"; 2024 "**At Will:** …", "**1/Day Each:** …"),
 * and any block that casts a named spell ("casts the fireball spell", "casts Counterspell or
 * Shield"). Lower-case names.
 */
export function spellsCast(d: JsonObject): string[] {
  const out = new Set<string>();
  for (const b of blocks(d)) {
    if (/spellcasting/i.test(b.name)) {
      for (const line of b.desc.split(/\n/)) {
        const m = /^[\s*\-•]*(?:\*\*)?([^:]{1,40}?):(?:\*\*)?\s*(.+)$/.exec(line);
        if (!m || !SPELL_LIST_LABEL.test(m[1]!)) continue;
        for (const part of m[2]!.split(/,(?![^(]*\))/)) {
          const n = spellName(part);
          if (n) out.add(n);
        }
      }
    }
    for (const m of b.desc.matchAll(/\bcasts? (?:the )?([A-Za-z][A-Za-z'’ /-]{2,40}?) spell\b/g)) {
      const n = spellName(m[1]!);
      if (n && !/^(a|an|one|this|that|the|its|his|her|their|any|each|same|following)\b/.test(n)) out.add(n);
    }
    for (const n of namedCasts(b.desc)) out.add(n);
  }
  return [...out].sort();
}

/** A spell name as SRD 5.2 writes it in running text: Title Case words, small words between ("Wall of Ice"). */
const TITLED_NAME = /^[A-Z][A-Za-z'’-]*(?: (?:(?:of|from|the|to) )?[A-Z][A-Za-z'’-]*)*/;
/** What may follow a name in a list before the next one: a version note, then ", ", " or ", ", and ", … */
const LIST_GLUE = /^(?: \([^)]*\))?(?:,? (?:or|and) |, )/;

/**
 * Spells named in running text after "casts", as SRD 5.2 actions, bonus actions, reactions and
 * legendary actions write them: "casts Counterspell or Shield in response to …", "casts Cure
 * Wounds (level 2 version), Lesser Restoration, or Remove Curse, using …", "casts Fear". A list
 * goes on while Title Case names follow its commas and or/and; lower-case words end it.
 */
function namedCasts(desc: string): string[] {
  const out: string[] = [];
  for (const m of desc.matchAll(/\bcasts? (?=[A-Z])/g)) {
    let rest = desc.slice(m.index! + m[0].length);
    for (;;) {
      const name = TITLED_NAME.exec(rest);
      if (!name) break;
      const n = spellName(name[0]);
      if (n) out.push(n);
      rest = rest.slice(name[0].length);
      const glue = LIST_GLUE.exec(rest);
      if (!glue || !/^[A-Z]/.test(rest.slice(glue[0].length))) break;
      rest = rest.slice(glue[0].length);
    }
  }
  return out;
}

const CONDITION_WORDS = CONDITIONS.filter((c) => c !== "exhaustion").join("|");
/** "… or be frightened", "is knocked prone", "has the Paralyzed condition", "becomes restrained". */
const IMPOSES = new RegExp(
  `\\b(?:be|is|are|become|becomes|becoming|left|knocked|knocks? (?:it|the target|them)|falls?|has the|have the|` +
    `gains? the|gets? the|remains?|is then)\\s+(?:(?:also|instead|magically|now|then|both)\\s+)?` +
    `(${CONDITION_WORDS})\\b`,
  "gi",
);
/** Sentences that speak of a condition without imposing it ("can't be frightened", "immune to being charmed"). */
const NOT_IMPOSED = /\b(?:can't|cannot|can not|not|immune|immunity|advantage on saving throws against)\b/i;
/** A state as a condition of something else: "while the vampire is incapacitated", "if it is prone". */
const STATE_CLAUSE = /\b(?:while|if|unless|when|until|as long as)\s+(?:it|they|the [\w-]+|its [\w-]+|[\w-]+)\s+$/i;

/** Conditions a creature's actions and traits impose on others (its own immunities aside). */
export function conditionsInflicted(d: JsonObject, e?: { name: string }): string[] {
  const out = new Set<string>();
  // "the vampire is paralyzed until the stake is removed": its own state, not one it imposes.
  const word = e?.name.toLowerCase().split(/[ ,(]/)[0] ?? "";
  const self = e ? new RegExp(`\\bthe ${word.replace(/[^a-z-]/g, "")}\\s+$`, "i") : null;
  for (const b of blocks(d)) {
    for (const sentence of b.desc.split(/(?<=[.!?])\s+/)) {
      if (NOT_IMPOSED.test(sentence)) continue;
      for (const m of sentence.matchAll(IMPOSES)) {
        const before = sentence.slice(Math.max(0, m.index! - 40), m.index!);
        // A sentence that opens with "It is …" speaks of the creature itself.
        if (!STATE_CLAUSE.test(before) && !self?.test(before) && !/^\s*It\s+$/.test(before))
          out.add(m[1]!.toLowerCase());
      }
      if (/\bexhaustion\b/i.test(sentence) && /\b(?:gains?|suffers?|levels? of)\b/i.test(sentence))
        out.add("exhaustion");
    }
  }
  return CONDITIONS.filter((c) => out.has(c));
}

/**
 * Curly apostrophes and backticks as "'" (books write both; the `trait` and `casts` filters fold what they are given
 * the same way).
 */
export function straightApostrophes(s: string): string {
  return s.replace(/[‘’`]/g, "'");
}

/**
 * A trait or action name without its usage note, as a book shows
 * it: "Legendary Resistance (3/Day)" → "Legendary Resistance".
 */
export function withoutUsage(raw: string): string {
  return raw
    .replace(/\([^)]*\)/g, "")
    .replace(/\s+/g, " ")
    .trim();
}

/**
 * A trait or action name as stored and matched: "Legendary Resistance (3/Day)" → "legendary resistance",
 * "Devil’s Sight" → "devil's sight".
 */
export function blockName(raw: string): string {
  return straightApostrophes(withoutUsage(raw)).toLowerCase();
}

/** Trait and action names of a stat block (blockName), without Multiattack. */
export function blockNames(d: JsonObject): string[] {
  const out = new Set<string>();
  for (const b of blocks(d)) {
    const n = blockName(b.name);
    if (n && n.length <= 60 && !/^multiattack$/.test(n)) out.add(n);
  }
  return [...out].sort();
}

/** A creature's environments, lower-case ("forest or jungle", "swamp"): the words the `environment` filter looks in. */
export function environments(d: JsonObject): string[] {
  return uniq(
    arr(d.environments)
      .map((x) => text(x).trim().toLowerCase().replace(/\|/g, " "))
      .filter((x) => x.length > 0),
  );
}
