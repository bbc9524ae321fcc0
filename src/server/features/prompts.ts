/**
 * MCP prompts: what a DM starts from. Each one turns a few arguments into one user message that
 * tells the assistant which LoreKeeper tools to call and how to present the answer (with the
 * source of every rule and stat block). Arguments are strings (MCP prompt arguments always are);
 * completion/complete suggests values for them (completions.ts).
 */
import { stripInvisible } from "../../text/confusables.ts";
import type { GetPromptResult, ListPromptsResult } from "@modelcontextprotocol/server";
import { invalidParams } from "../protocol/protocol-checks.ts";
import * as z from "zod";
import { type KindInfo, KINDS } from "../../entities/catalog.ts";
import type { FilterName } from "../../entities/filters.ts";
import { ENTITY_KINDS, type EntityKind } from "../../entities/types.ts";
import { KIND_WORDS } from "../../tools/compare-editions.ts";
import { DIFFICULTIES_2014, DIFFICULTIES_2024 } from "../../tools/encounter/tables.ts";
import { canonical, squash } from "../../tools/kit/vocab.ts";
import { isPlainObject } from "../protocol/protocol-checks.ts";

const arg = (description: string) => z.string().max(300).describe(description);
const opt = (description: string) => arg(description).optional();

export interface PromptDef {
  name: string;
  title: string;
  description: string;
  args: Record<string, z.ZodType<string> | z.ZodOptional<z.ZodType<string>>>;
  /** Which completer serves each argument (see completions.ts). */
  complete: Record<string, CompletionSource>;
  text(a: Record<string, string | undefined>): string;
}

/** Completers of entry names from the store: of one kind, the rules, or any kind compare_editions may name. */
type NameSource = "spell" | "creature" | "class" | "rule" | "any";
/** `filter:<name>`: the vocabulary of that filter-table parameter (src/entities/filters.ts). */
export type CompletionSource = NameSource | "document" | "difficulty" | "edition" | "kind" | `filter:${FilterName}`;

/** A list argument's items ("a, b c" → a, b, c); quoted for the prompt text. */
const words = (s: string) => s.split(/[,\s]+/).filter(Boolean);
const quotedList = (s: string) =>
  words(s)
    .map((w) => `"${w}"`)
    .join(", ");
const docsClause = (d?: string) => (d ? ` Restrict every search to documents ["${words(d).join('", "')}"].` : "");
const CITE =
  "Cite the source of everything you use (document_name and document_key from the results); never fill gaps " +
  "from memory without saying so.";

export const PROMPTS: readonly PromptDef[] = [
  {
    name: "prepare_encounter",
    title: "Prepare a combat encounter",
    description:
      "Build a combat encounter for a party by the 2024 or 2014 rules, with creatures from the local books, " +
      "the XP math and the stat blocks to run it.",
    args: {
      party: arg('The party, e.g. "4 level-5 characters" or "levels 3, 3, 4, 5"'),
      difficulty: opt("2024: low, moderate, high; 2014: easy, medium, hard, deadly (default moderate)"),
      edition: opt('"2024" (default) or "2014" encounter rules'),
      theme: opt('What the fight is about, e.g. "undead in a flooded crypt"'),
      creature_type: opt("Only this creature type, e.g. undead"),
      alignment: opt('Only creatures that may have this alignment, e.g. "evil" or "chaotic evil"'),
      casts: opt('Only creatures that cast this spell, e.g. "fireball"'),
      documents: opt('Books to use (document keys, e.g. "srd-2024")'),
    },
    complete: {
      edition: "edition",
      difficulty: "difficulty",
      creature_type: "filter:creature_type",
      alignment: "filter:alignment",
      casts: "filter:casts",
      documents: "document",
    },
    text: (a) =>
      [
        `Prepare a ${a.difficulty || "moderate"} combat encounter for this party: ${a.party}. Use ` +
          `the ${a.edition || "2024"} encounter rules.`,
        `1. Call build_encounter with the party as party_levels (or party_size + party_level), ` +
          `edition "${a.edition || "2024"}", difficulty "${a.difficulty || "moderate"}"` +
          `${a.creature_type ? `, type "${a.creature_type}"` : ""}` +
          `${a.alignment ? `, alignment [${quotedList(a.alignment)}]` : ""}` +
          `${a.casts ? `, casts ${JSON.stringify(a.casts)}` : ""}${a.theme ? `, search "${a.theme}"` : ""}` +
          `${a.documents ? `, documents [${quotedList(a.documents)}]` : ""}` +
          `. Pick the proposal that best fits${a.theme ? " the theme" : ""}; ` +
          `if none fits, adjust the filters and call it again.`,
        "2. Read each chosen creature's full stat block (its `uri` resource, or search_creature by name) and " +
          "note its tactics-relevant traits and actions.",
        "3. If you change the group, rate the final group with build_encounter `monsters` so the difficulty " +
          "shown is the real one.",
        "4. Present: the XP math step by step (from the tool's steps), each creature with AC, HP, speed and " +
          "key actions, a one-paragraph setup and tactics, and how the fight could go wrong.",
        CITE,
      ].join("\n"),
  },
  {
    name: "find_monsters",
    title: "Monsters that cast, inflict or have a trait",
    description:
      "Creatures from the local books by a spell they cast, the conditions they impose or a trait they have " +
      "(e.g. Pack Tactics), to theme an adventure.",
    args: {
      casts: opt('A spell they cast, e.g. "fireball"'),
      inflicts: opt('Conditions they impose, e.g. "frightened" or "poisoned, prone"'),
      trait: opt('A trait or action they have, e.g. "Pack Tactics"'),
      creature_type: opt("Only this creature type, e.g. undead"),
      documents: opt('Books to use (document keys, e.g. "srd-2024")'),
    },
    complete: {
      casts: "filter:casts",
      inflicts: "filter:inflicts",
      trait: "filter:trait",
      creature_type: "filter:creature_type",
      documents: "document",
    },
    text: (a) => {
      const args = {
        ...(a.casts ? { casts: a.casts } : {}),
        ...(a.inflicts ? { inflicts: words(a.inflicts) } : {}),
        ...(a.trait ? { trait: a.trait } : {}),
        ...(a.creature_type ? { type: a.creature_type } : {}),
        ...(a.documents ? { documents: words(a.documents) } : {}),
        limit: 50,
      };
      return [
        "Find creatures for a DM's adventure from the local books.",
        `1. Call search_creature with ${JSON.stringify(args)}; the answer's \`total\` is how many there are ` +
          `(page with \`offset\` if the DM wants them all). If it finds nothing, its \`message\` names the ` +
          `nearest values the store holds: use one of them.`,
        a.trait
          ? `2. Say what ${a.trait} does in one or two sentences, quoting it: call search_rule with ` +
            `name ${JSON.stringify(a.trait)} (the trait's reference entry: its text and how many creatures have ` +
            `it), or read one creature's stat block (its \`uri\`).`
          : "2. For the few creatures that fit best, read their stat blocks (their `uri` resources) and note " +
            "the line that matches (the spell, the condition, the trait).",
        "3. Present: how many creatures match, then a table of name, CR, type and document (the core SRD's " +
          "first), with the matching line for the best few, and two or three ways to use them together.",
        CITE,
      ].join("\n");
    },
  },
  {
    name: "explain_rule",
    title: "Explain a rule with citations",
    description: "Explain a rule, condition or procedure from the books, quoting the text it comes from.",
    args: {
      topic: arg('The rule or question, e.g. "grappling" or "can I take two reactions?"'),
      edition: opt('"2014" (SRD 5.1) or "2024" (SRD 5.2); default both, with differences noted'),
    },
    complete: { topic: "rule", edition: "edition" },
    text: (a) =>
      [
        `Explain this rule to a DM at the table: ${a.topic}.`,
        `1. Call search_rule with search ` +
          `"${a.topic}"${a.edition ? ` and documents ["srd-${a.edition}"]` : ""}; if the topic names a ` +
          `condition or an exact rule, also try it as \`name\`. Use search_all if search_rule finds nothing ` +
          `relevant.`,
        "2. Read the full text of the best results (their `uri` resources) when an answer is marked truncated.",
        `3. Answer in a few sentences first, then quote the deciding sentences verbatim with their ` +
          `source.${a.edition ? "" : " If SRD 5.1 (srd-2014) and SRD 5.2 (srd-2024) differ, say how."}`,
        CITE,
      ].join("\n"),
  },
  {
    name: "spell_card",
    title: "Spell card for the table",
    description:
      "A compact, printable card for one spell: level, school, casting time, range, components, duration, " +
      "effect and higher-level scaling.",
    args: { name: arg('Spell name, e.g. "Fireball"'), documents: opt('Book to use (document key, e.g. "srd-2014")') },
    complete: { name: "spell", documents: "document" },
    text: (a) =>
      [
        `Make a spell card for ${a.name}.`,
        `1. Call search_spell with name "${a.name}".${docsClause(a.documents)} If several books have it, ` +
          `use ${a.documents ? "that one" : "the SRD 5.2 (srd-2024) text and mention the others"}; if none ` +
          `matches exactly, search with \`search\` and pick the closest, saying so.`,
        "2. Format a card: name, level and school, casting time, range, components (material in full), " +
          "duration (concentration), then the effect in short clear sentences, then At Higher Levels / cantrip " +
          "scaling, then the classes that have it.",
        CITE,
      ].join("\n"),
  },
  {
    name: "creature_card",
    title: "Creature card for the table",
    description: "A stat block card for one creature, trimmed for running it at the table, with tactics.",
    args: { name: arg('Creature name, e.g. "Owlbear"'), documents: opt('Book to use (document key, e.g. "srd-2024")') },
    complete: { name: "creature", documents: "document" },
    text: (a) =>
      [
        `Make a table-ready card for the creature ${a.name}.`,
        `1. Call search_creature with name "${a.name}".${docsClause(a.documents)} If several books have it, ` +
          `use ${a.documents ? "that one" : "the SRD 5.2 (srd-2024) version and mention the others"}.`,
        "2. Format: name, size/type/alignment, AC, HP (dice), speed, ability scores with modifiers, saves, " +
          "skills, resistances/immunities, senses, languages, CR and XP; then traits, actions, bonus actions, " +
          "reactions and legendary actions, each in one or two lines with attack bonuses, damage and save DCs exact.",
        "3. Add three lines of tactics drawn from its abilities.",
        CITE,
      ].join("\n"),
  },
  {
    name: "compare_editions",
    title: "Compare an entry across editions",
    description:
      "What changed for one spell, creature, class, item or rule between the 2014 rules (SRD 5.1) and the " +
      "2024 rules (SRD 5.2).",
    args: {
      name: arg('Entry name, e.g. "Fireball", "Goblin", "Grappled"'),
      kind: opt("spell, creature, class, item, rule... (default: find out)"),
    },
    complete: { name: "any", kind: "kind" },
    // promptRequest has made `kind` the tool's word ("Magic item" → "magic-item", "Monster" → "creature").
    text: (a) =>
      [
        `Compare ${a.name} between the 2014 rules (SRD 5.1, document srd-2014) and the 2024 rules (SRD 5.2, ` +
          `document srd-2024).`,
        `1. Call compare_editions with ${JSON.stringify({ name: a.name, ...(a.kind ? { kind: a.kind } : {}) })}. ` +
          "It answers both versions and names the differences field by field, " +
          'and finds an entry SRD 5.2 renamed by either name ("Thug" → "Tough"). ' +
          "If it says the name is ambiguous, call it again with `kind`; if one edition has no such entry, say so.",
        "2. Where the text changed in a way that matters at the table, read both full entries (each " +
          "version's `uri`) and quote the deciding sentences.",
        "3. Present a table of the fields that differ (numbers, ranges, damage, conditions, wording that " +
          "changes play) and a short verdict on what the change means at the table. Leave out fields that are " +
          "the same.",
        CITE,
      ].join("\n"),
  },
  {
    name: "class_at_level",
    title: "What a class gets by a level",
    description:
      "A class's progression up to a level: features, proficiency bonus and spell slots, with what each new " +
      "feature does.",
    args: {
      class: arg('Class name, e.g. "Wizard"'),
      level: opt("Character level 1–20 (default 20: the whole table)"),
      subclass: opt('Subclass, e.g. "School of Evocation"'),
      documents: opt('Book to use (document key, e.g. "srd-2014")'),
    },
    complete: { class: "class", documents: "document" },
    text: (a) =>
      [
        `Summarize what a ${a.class}${a.subclass ? ` (${a.subclass})` : ""} ` +
          `has${a.level ? ` at level ${a.level}` : " at each level"}.`,
        `1. Call class_progression with class ` +
          `"${a.class}"${a.subclass ? `, subclass "${a.subclass}"` : ""}` +
          `${a.level ? `, level_max ${a.level}` : ""}.${docsClause(a.documents)}`,
        "2. For the features that matter most at that level, read their text with search_character_option " +
          "(the class entry's features) and summarize each in one line.",
        "3. Present the level table (proficiency bonus, features, spell slots) and then the feature summaries.",
        CITE,
      ].join("\n"),
  },
];

const show = (v: unknown) =>
  v === null
    ? "null"
    : Array.isArray(v)
      ? "a list"
      : typeof v === "string"
        ? `the string ${JSON.stringify(v.slice(0, 40))}`
        : typeof v;

/** Every name of a catalog kind: its key, label, tool word and aliases ("Monster", "Race", "MagicItem"). */
function kindNames(k: EntityKind): string[] {
  const c: KindInfo = KINDS[k];
  return [k, c.label, c.toolType, ...c.aliases, ...(c.toolAliases ?? [])];
}

const isKindWord = (w: string) => (KIND_WORDS as readonly string[]).includes(w);

/** compare_editions' words for the names of each kind it compares. */
const KIND_ALIASES: Record<string, string> = Object.fromEntries(
  ENTITY_KINDS.flatMap((k) => (isKindWord(KINDS[k].toolType) ? kindNames(k).map((n) => [n, KINDS[k].toolType]) : [])),
);

/** Every catalog kind's names: those compare_editions does not compare (a subclass, a trait) are named as such. */
const KIND_NAMES = new Set(ENTITY_KINDS.flatMap(kindNames).map(squash));

const quoted = (v: string) => JSON.stringify(v.slice(0, 40));

/**
 * Checks of the prompt arguments with a fixed vocabulary, by what completes them: the value made canonical, or a
 * problem. They are written into the prompt text, so a value the tool would refuse ("bogus") must not get there.
 */
const VOCAB_CHECKS: Partial<Record<CompletionSource, (v: string) => { ok: string } | { problem: string }>> = {
  kind: (v) => {
    const word = canonical(v, KIND_WORDS, KIND_ALIASES);
    if (typeof word === "string" && isKindWord(word)) return { ok: word };
    const what = KIND_NAMES.has(squash(v)) ? "is not compared across editions" : "is not a kind of entry";
    return { problem: `kind ${quoted(v)} ${what}; use one of: ${KIND_WORDS.join(", ")} (or leave it out)` };
  },
  difficulty: (v) => {
    const d = v.toLowerCase();
    if (([...DIFFICULTIES_2024, ...DIFFICULTIES_2014] as readonly string[]).includes(d)) return { ok: d };
    const use = `${DIFFICULTIES_2024.join(", ")} (2024 rules) or ${DIFFICULTIES_2014.join(", ")} (2014 rules)`;
    return { problem: `difficulty ${quoted(v)} is not a difficulty; use ${use}` };
  },
  edition: (v) =>
    v === "2014" || v === "2024"
      ? { ok: v }
      : { problem: `edition ${quoted(v)} is not an edition; use "2014" or "2024" (or leave it out)` },
};

const PROMPT_NAMES = `Prompts: ${PROMPTS.map((x) => x.name).join(", ")}.`;

/** The prompt named `name`, or a readable -32602 error. */
export function promptNamed(name: unknown): PromptDef {
  const prompt = PROMPTS.find((x) => x.name === name);
  if (!prompt) throw invalidParams(`Unknown prompt ${JSON.stringify(String(name).slice(0, 100))}. ${PROMPT_NAMES}`);
  return prompt;
}

/** The prompt and its arguments from a prompts/get `params`, or a readable -32602 (unknown arguments ignored). */
function promptRequest(params: unknown): { prompt: PromptDef; args: Record<string, string | undefined> } {
  const p = isPlainObject(params) ? params : undefined;
  if (!p || typeof p.name !== "string")
    throw invalidParams(`prompts/get needs params {"name": <prompt>, "arguments": {...}}. ${PROMPT_NAMES}`);
  const prompt = promptNamed(p.name);
  const raw = p.arguments ?? {};
  if (!isPlainObject(raw))
    throw invalidParams(
      `Invalid arguments for prompt ${prompt.name}: arguments must be an object of strings (got ${show(raw)}).`,
    );
  const problems: string[] = [];
  const args: Record<string, string | undefined> = {};
  for (const [k, schema] of Object.entries(prompt.args)) {
    const v = raw[k];
    const r = schema.safeParse(v);
    // Invisible and bidi control characters never reach the prompt text (they could hide or reorder it).
    if (r.success) args[k] = r.data === undefined ? undefined : stripInvisible(r.data).trim() || undefined;
    else if (v === undefined) problems.push(`${k} is required`);
    else if (typeof v !== "string") problems.push(`${k} must be a string (got ${show(v)})`);
    else problems.push(`${k} must be at most 300 characters`);
  }
  // A level is a number (a string on the wire): checked before it reaches the prompt text.
  const level = args.level;
  if (level !== undefined && !(/^\d{1,2}$/.test(level) && Number(level) >= 1 && Number(level) <= 20)) {
    const got = `${JSON.stringify(level.slice(0, 20))}${level.length > 20 ? "…" : ""}`;
    problems.push(`level must be a whole number from 1 to 20 (got ${got})`);
  }
  for (const [k, source] of Object.entries(prompt.complete)) {
    const check = VOCAB_CHECKS[source];
    const v = args[k];
    if (!check || v === undefined) continue;
    const r = check(v);
    if ("ok" in r) args[k] = r.ok;
    else problems.push(r.problem);
  }
  const missing = Object.entries(prompt.args)
    .filter(([k, sc]) => !sc.isOptional() && args[k] === undefined)
    .map(([k]) => k);
  for (const k of missing) if (!problems.some((x) => x.startsWith(k))) problems.push(`${k} must not be empty`);
  if (problems.length) throw invalidParams(`Invalid arguments for prompt ${prompt.name}: ${problems.join("; ")}.`);
  return { prompt, args };
}

/** prompts/list: each prompt with its arguments (a description where the argument's schema has one). */
export const PROMPT_LIST: ListPromptsResult = {
  prompts: PROMPTS.map((p) => ({
    name: p.name,
    title: p.title,
    description: p.description,
    arguments: Object.entries(p.args).map(([name, schema]) => ({
      name,
      ...(schema.description ? { description: schema.description } : {}),
      required: !schema.isOptional(),
    })),
  })),
};

/** prompts/get, checked by promptRequest (a readable -32602 for a bad name or arguments). */
export function getPrompt(params: unknown): GetPromptResult {
  const { prompt, args } = promptRequest(params);
  return {
    description: prompt.description,
    messages: [{ role: "user", content: { type: "text", text: prompt.text(args) } }],
  };
}
