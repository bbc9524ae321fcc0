/**
 * 5etools inline tags (`{@spell fireball}`, `{@atk mw}`, `{@hit 5}`, `{@dc 15}`, …) → the words a
 * reader of the rendered page sees ("fireball", "Melee Weapon Attack:", "+5", "DC 15"). Tags nest
 * (`{@b {@spell fireball}}`). A tag this file does not know keeps its display text (the part before
 * the first `|`) and is counted in `unknown`, so nothing is dropped silently. Pure.
 */
import { own } from "../../entities/normalize/read.ts";
import { capitalize } from "../../entities/normalize/text.ts";
import { ABILITIES } from "../../entities/normalize/vocab.ts";

/** What rendering met that it had to guess: unknown tag names → how often. */
export interface TagStats {
  unknown: Map<string, number>;
}

const ATTACKS: Readonly<Record<string, string>> = {
  mw: "Melee Weapon Attack:",
  rw: "Ranged Weapon Attack:",
  "mw,rw": "Melee or Ranged Weapon Attack:",
  "rw,mw": "Melee or Ranged Weapon Attack:",
  ms: "Melee Spell Attack:",
  rs: "Ranged Spell Attack:",
  "ms,rs": "Melee or Ranged Spell Attack:",
  "rs,ms": "Melee or Ranged Spell Attack:",
  mp: "Melee Power Attack:",
  rp: "Ranged Power Attack:",
  "mw,rs": "Melee Weapon or Ranged Spell Attack:",
  m: "Melee Attack Roll:",
  r: "Ranged Attack Roll:",
  "m,r": "Melee or Ranged Attack Roll:",
};

/** Tags shown as fixed words, whatever they hold. */
const FIXED: Readonly<Record<string, string>> = {
  h: "Hit: ",
  m: "Miss: ",
  hom: "Hit or Miss: ",
  actSaveFail: "Failure:",
  actSaveSuccess: "Success:",
  actSaveSuccessOrFail: "Failure or Success:",
  actTrigger: "Trigger:",
  actResponse: "Response:",
  coinflip: "flip a coin",
};

/** Tags whose shown text is their first part (formatting, plain references without a display part). */
const FIRST_PART = new Set([
  "b",
  "bold",
  "i",
  "italic",
  "u",
  "underline",
  "s",
  "strike",
  "s2",
  "strikeDouble",
  "u2",
  "underlineDouble",
  "sup",
  "sub",
  "kbd",
  "code",
  "style",
  "font",
  "color",
  "highlight",
  "help",
  "note",
  "tip",
  "unit",
  "footnote",
  "link",
  "5etools",
  "5etoolsImg",
  "book",
  "adventure",
  "quickref",
  "filter",
  "loader",
  "area",
  "initiative",
  "hitYourSpellAttack",
  "homebrew",
  "comic",
  "comicH1",
  "comicH2",
  "comicH3",
  "comicH4",
  "comicNote",
]);

/** References shown by their name (first part) or, when given, their display part (third). */
const REFERENCES = new Set([
  "spell",
  "item",
  "itemMastery",
  "creature",
  "condition",
  "disease",
  "status",
  "background",
  "race",
  "optfeature",
  "feat",
  "reward",
  "psionic",
  "object",
  "boon",
  "cult",
  "trap",
  "hazard",
  "deity",
  "variantrule",
  "vehicle",
  "vehupgrade",
  "action",
  "language",
  "sense",
  "skill",
  "table",
  "card",
  "deck",
  "legroup",
  "charoption",
  "recipe",
  "facility",
  "class",
  "subclass",
  "classFeature",
  "subclassFeature",
  "itemProperty",
  "itemType",
]);

/** One of 5etools' ability keys as the book writes it ("str" → "Strength"). */
export function abilityWord(key: string): string | undefined {
  const a = own(ABILITIES, key);
  return a ? capitalize(a) : undefined;
}

function signed(raw: string): string {
  const s = raw.trim();
  return /^[+-]/.test(s) || !/^\d/.test(s) ? s : `+${s}`;
}

/** One tag (its inner text already rendered) → what a reader sees. */
function renderTag(tag: string, body: string, stats: TagStats): string {
  const parts = body.split("|");
  const first = parts[0]!.trim();
  const fixed = own(FIXED, tag);
  if (fixed !== undefined) return fixed;
  const attack = first.toLowerCase().replace(/\s+/g, "");
  switch (tag) {
    case "atk":
      return own(ATTACKS, attack) ?? "Attack:";
    case "atkr":
      return (own(ATTACKS, attack) ?? "Attack Roll:").replace("Weapon Attack:", "Attack Roll:");
    case "hit":
      return signed(first);
    case "d20":
      return parts[1]?.trim() || signed(first);
    case "dc":
      return `DC ${parts[1]?.trim() || first}`;
    case "chance":
      return parts[1]?.trim() || `${first} percent`;
    case "recharge":
      return first === "" || first === "6" ? "(Recharge 6)" : `(Recharge ${first}\u20136)`;
    case "actSave":
      return `${abilityWord(first.toLowerCase().slice(0, 3)) ?? first} Saving Throw:`;
    case "savingThrow":
    case "skillCheck":
    case "ability":
      return parts[1] !== undefined ? signed(parts[1]) : first.replace(/_/g, " ");
    case "scaledice":
    case "scaledamage":
    case "scalecreature":
      return (parts[3]?.trim() || parts[2]?.trim() || first).trim();
    case "dice":
    case "damage":
    case "autodice":
      return (parts[1]?.trim() || first).replace(/\s*([+\-×])\s*/g, " $1 ").trim();
  }
  if (REFERENCES.has(tag)) {
    // {@classFeature name|class|classSource|level|source|display}: its display part is the sixth.
    if (tag === "classFeature") return parts[5]?.trim() || first;
    if (tag === "subclassFeature") return parts[7]?.trim() || first;
    return parts[2]?.trim() || first;
  }
  if (FIRST_PART.has(tag)) return first;
  stats.unknown.set(tag, (stats.unknown.get(tag) ?? 0) + 1);
  return first;
}

const MAX_TAG_DEPTH = 32;

/**
 * Render every inline tag of `s`. Innermost tags first, so a tag's parts are plain text when it is
 * rendered. A stray `{@` that never closes is kept as its text without the brace, never as `{@`.
 */
export function renderTags(s: string, stats: TagStats): string {
  if (!s.includes("{@")) return s;
  let out = s;
  // Each pass renders the innermost tags (no "{" inside); nesting is bounded.
  for (let i = 0; i < MAX_TAG_DEPTH && out.includes("{@"); i++) {
    const next = out.replace(/\{@([A-Za-z0-9_]+)(?:\s([^{}]*))?\}/g, (_m, tag: string, body: string | undefined) =>
      renderTag(tag, body ?? "", stats),
    );
    if (next === out) break;
    out = next;
  }
  // Whatever is left (unclosed or malformed tags) loses its markers, never its words.
  return out.includes("{@") ? out.replace(/\{@([A-Za-z0-9_]*)\s?/g, "").replace(/\}/g, "") : out;
}
