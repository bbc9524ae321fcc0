/** build_encounter: encounter XP budgets and difficulty (2014 and 2024 rules), rating a group or proposing some. */
import * as z from "zod";
import { CREATURE_TYPES } from "../entities/catalog.ts";
import { XP_BY_CR } from "../entities/normalize/vocab.ts";
import { formatCr } from "../entities/types.ts";
import type { StructuredFilters } from "../search/types.ts";
import type { ToolDef } from "./kit/define.ts";
import { defineTool } from "./kit/define.ts";
import { normalizePreference, OFFICIAL_SRDS } from "../entities/preference.ts";
import { candidatePool, didYouMean, EDITION_DOC, findCreature, toMonster } from "./encounter/creatures.ts";
import {
  describeParty,
  difficultiesOf,
  type Monster,
  partyStep,
  partyTotals,
  rateGroup,
  type Rating,
  targetWindow,
} from "./encounter/math.ts";
import { proposeGroups } from "./encounter/propose.ts";
import {
  DIFFICULTIES_2014,
  DIFFICULTIES_2024,
  type Difficulty,
  type Edition,
  RULE_SOURCES,
} from "./encounter/tables.ts";
import { tableParam } from "./kit/filter-params.ts";
import { cr, documents, rulesEdition, int, key, text, vocab } from "./kit/params.ts";
import { toolAnswer, toolError } from "./answer/response.ts";
import { loadFirst } from "./kit/run-search.ts";

const DIFFICULTIES = [...DIFFICULTIES_2024, ...DIFFICULTIES_2014] as const;

const monsterIn = z
  .object({
    key: z.string().trim().optional(),
    name: z.string().trim().optional(),
    cr: cr("For a creature not in the store", true).optional(),
    count: int(1, 100, "Default 1").default(1),
  })
  .strict()
  .refine((m) => !!m.key || !!m.name || m.cr !== undefined, { message: "give key, name or cr" })
  .refine((m) => (m.key ?? "").length <= 200 && (m.name ?? "").length <= 200, {
    message: "key and name are at most 200 characters",
  });

const input = z
  .object({
    party_levels: z
      .array(int(1, 20, ""))
      .min(1)
      .max(30)
      .optional()
      .describe("Each character's level"),
    party_size: int(1, 30, "Or size").optional(),
    party_level: int(1, 20, "and level").optional(),
    edition: rulesEdition("Encounter rules (default: the preferred SRD's)"),
    difficulty: vocab(DIFFICULTIES, "2024: low|moderate|high; 2014: easy|medium|hard|deadly").optional(),
    monsters: z.array(monsterIn).min(1).max(20).optional().describe("Group to rate"),
    type: key("Creature type, e.g. undead").optional(),
    environment: text("e.g. forest", 50).optional(),
    alignment: tableParam("alignment"),
    spellcaster: tableParam("spellcaster"),
    casts: tableParam("casts"),
    cr_min: cr("").optional(),
    cr_max: cr("").optional(),
    // As in the search tools (aliases resolve there), with a shorter description.
    documents: documents().describe('e.g. ["srd-2024"]').optional(),
    search: text("Theme in words").optional(),
    proposals: int(1, 5, "Default 3").default(3),
  })
  .strict();

/** Loose: a group's fields are in docs/tools.md; tools/list stays small. */
const group = z.looseObject({});
const output = z.looseObject({
  party: z.string(),
  thresholds: z.record(z.string(), z.number()),
  rating: group.optional(),
  proposals: z.array(group).optional(),
});

type Args = z.output<typeof input>;

function partyLevels(a: Args): number[] | string {
  if (a.party_levels) return a.party_levels;
  if (a.party_size !== undefined && a.party_level !== undefined)
    return Array.from({ length: a.party_size }, () => a.party_level!);
  return "Give the party: party_levels (each character's level, e.g. [5,5,5,5]) or party_size with party_level.";
}

const RULES: Record<Edition, string> = {
  "2014":
    "2014: sum the characters' XP thresholds; multiply the monsters' total XP by the encounter multiplier " +
    "for their number (next higher for fewer than 3 characters, next lower for 6 or more); the adjusted XP's " +
    "highest threshold reached is the difficulty. Monsters far weaker than the rest may be left out of the " +
    "count at the DM's judgment (not done here).",
  "2024":
    "2024: sum the characters' XP budgets for the difficulty; the monsters' total XP (no multiplier) must " +
    "fit in it. The rating is the smallest budget that holds the total.",
};

function sourcesOf(edition: Edition): string[] {
  const { thresholds2014, multipliers2014, budget2024, crXp } = RULE_SOURCES;
  return edition === "2014" ? [thresholds2014, multipliers2014, crXp] : [budget2024, crXp];
}

function shown(r: Rating, monsters: Monster[], dropFirstStep = false) {
  return {
    monsters: monsters.map((m) => ({ ...m, cr: m.cr === null ? null : formatCr(m.cr) })),
    ...r,
    steps: dropFirstStep ? r.steps.slice(1) : r.steps,
  };
}

/** The CR range worth searching for a window: XP from 1/24 of its low end up to its high end. */
function crRangeFor(min: number, max: number): [number, number] {
  const crs = [...XP_BY_CR.entries()];
  const lo = crs.find(([, xp]) => xp * 24 >= min)?.[0] ?? 0;
  const hi = crs.filter(([, xp]) => xp <= max).pop()?.[0] ?? 0;
  return [lo, hi];
}

/** How the rated group compares with the difficulty asked for, in XP to add or remove. */
function targetNote(edition: Edition, difficulty: Difficulty, r: Rating, totals: Record<string, number>): string {
  const win = targetWindow(edition, difficulty, totals);
  const value = edition === "2014" ? r.adjusted_xp! : r.total_xp;
  const what = edition === "2014" ? "adjusted XP" : "XP";
  const fmt = (n: number) => n.toLocaleString("en-US");
  if (value < win.min)
    return `For ${difficulty}, add about ${fmt(win.min - value)} ${what} (target ${fmt(win.min)}–${fmt(win.max)}).`;
  if (value > win.max)
    return `For ${difficulty}, remove about ${fmt(value - win.max)} ${what} (target ${fmt(win.min)}–${fmt(win.max)}).`;
  return `The group is ${difficulty}, as asked.`;
}

async function run(a: Args, ctx: Parameters<ToolDef["call"]>[1]) {
  const levels = partyLevels(a);
  if (typeof levels === "string") return toolError(levels);
  // The server's document preference chooses the rules when the caller does not (srd-2014 first → 2014).
  const prefer = normalizePreference(ctx.deps.preferDocuments);
  const firstSrd = prefer.find((d) => (OFFICIAL_SRDS as readonly string[]).includes(d)) ?? "srd-2024";
  const edition: Edition = (a.edition as Edition | undefined) ?? (firstSrd === "srd-2014" ? "2014" : "2024");
  // Stat blocks: the chosen edition's SRD first, then the server's preference.
  const statBlocks = a.edition ? [EDITION_DOC[edition], ...prefer] : prefer;
  const difficulty = a.difficulty as Difficulty | undefined;
  const valid = difficultiesOf(edition);
  if (difficulty && !(valid as readonly string[]).includes(difficulty)) {
    return toolError(
      `difficulty "${difficulty}" is not a ${edition} difficulty. ${edition} difficulties: ${valid.join(", ")}.`,
    );
  }
  if (a.type && !(CREATURE_TYPES as readonly string[]).includes(a.type))
    return toolError(`type "${a.type}" is not a creature type. Valid: ${CREATURE_TYPES.join(", ")}.`);
  const needStore = (a.monsters ?? []).some((m) => !!m.key || !!m.name) || (!a.monsters && difficulty !== undefined);
  const failed = needStore ? await loadFirst(ctx, "build_encounter", ["creature"]) : null;
  if (failed) return failed;
  const notes: string[] = [];
  const answer: z.output<typeof output> = {
    edition,
    party: describeParty(levels),
    thresholds: partyTotals(edition, levels),
    rule: RULES[edition],
    sources: sourcesOf(edition),
  };
  if (a.monsters) {
    const monsters: Monster[] = [];
    const unknown: string[] = [];
    for (const m of a.monsters) {
      if (!m.key && !m.name) {
        const cr = m.cr!;
        monsters.push({ name: `CR ${formatCr(cr)} creature`, count: m.count, cr, xp: XP_BY_CR.get(cr) ?? 0 });
        continue;
      }
      const e = findCreature(ctx.deps.db, m, edition);
      if (e?.note) notes.push(`${e.note} ${ratedWith(e.document_key)}`);
      const mon = e ? toMonster(e, m.count) : undefined;
      if (mon) monsters.push(mon);
      else if (e && m.cr !== undefined)
        monsters.push({ name: e.name, count: m.count, cr: m.cr, xp: XP_BY_CR.get(m.cr) ?? 0 });
      else if (e) unknown.push(`${JSON.stringify(m.key || m.name)} (no CR or XP in its data; add cr)`);
      else unknown.push(`${JSON.stringify(m.key || m.name)}${didYouMean(ctx.deps.db, String(m.name || m.key))}`);
    }
    if (unknown.length) {
      return toolError(
        `No creature ${unknown.join(", ")} in the local store. Find the exact name or key with ` +
          `search_creature (e.g. {"name": "ogre*"}), or give {"cr": ..., "count": ...} for a creature that is ` +
          `not there.`,
      );
    }
    const rating = rateGroup(edition, levels, monsters);
    answer.rating = shown(rating, monsters);
    if (difficulty) notes.push(targetNote(edition, difficulty, rating, answer.thresholds));
  } else if (difficulty) {
    const win = targetWindow(edition, difficulty, answer.thresholds);
    const [lo, hi] = crRangeFor(win.min, win.max);
    const crMin = Math.max(lo, a.cr_min ?? 0);
    const crMax = Math.min(hi, a.cr_max ?? 30);
    const pool =
      crMin <= crMax
        ? await candidatePool(ctx.deps.search, {
            // Each value as its table parameter's schema read it (tableParam).
            filters: {
              cr_min: crMin,
              cr_max: crMax,
              creature_type: a.type || undefined,
              alignment: a.alignment,
              spellcaster: a.spellcaster,
              casts: a.casts,
            } as StructuredFilters,
            environment: a.environment || undefined,
            documents: a.documents,
            theme: a.search || undefined,
            prefer: statBlocks,
          })
        : { candidates: [], themed: 0 };
    if ("message" in pool && pool.message) notes.push(pool.message);
    if (a.search)
      notes.push(`${pool.themed} creatures match the theme; they come first, then the others that fit the filters.`);
    const candidates = ofEdition(pool.candidates, a, edition, notes);
    const groups = proposeGroups(edition, levels, difficulty, candidates, a.proposals);
    answer.proposals = groups.map((g) => ({ shape: g.shape, ...shown(g.rating, g.monsters, true) }));
    notes.unshift(
      `${partyStep(edition, levels)} Target ` +
        `for ${difficulty}: ${win.min.toLocaleString("en-US")}–${win.max.toLocaleString("en-US")} ` +
        `${edition === "2014" ? "adjusted " : ""}XP; ` +
        `searched CR ${formatCr(crMin)}–${formatCr(crMax)}.`,
    );
    if (!a.documents?.length) {
      const want = statBlocks[0] ?? "srd-2024";
      const other = [
        ...new Set(
          groups
            .flatMap((g) => g.monsters)
            .filter((m) => m.document_key && m.document_key !== want)
            .map((m) => `${m.name} (${m.document_key})`),
        ),
      ];
      if (other.length)
        notes.push(`Not from ${want} (it has no version that fits these filters): ${other.join(", ")}.`);
    }
    if (groups.length === 0)
      notes.push(
        `No group of the ${pool.candidates.length} matching creatures fits; widen the filters (type, ` +
          `alignment, environment, documents, CR range) or choose another difficulty.`,
      );
  } else {
    notes.push(`${partyStep(edition, levels)} Add monsters to rate a group, or a difficulty to get proposals.`);
  }
  if (notes.length) answer.message = notes.join(" ");
  return toolAnswer(answer);
}

/**
 * The candidates of the edition asked: with an `edition` and no `documents`, the other edition's SRD
 * stat blocks are left out (the SRD 5.2 Oni is a fiend, the SRD 5.1 one a giant: a 2014 fiend
 * encounter must not propose it), unless they are all there is; the answer then says so.
 */
function ofEdition<C extends { document_key?: string }>(
  candidates: C[],
  a: Args,
  edition: Edition,
  notes: string[],
): C[] {
  if (!a.edition || a.documents?.length) return candidates;
  const other = EDITION_DOC[edition === "2014" ? "2024" : "2014"];
  const own = candidates.filter((c) => c.document_key?.toLowerCase() !== other);
  if (own.length > 0 || candidates.length === 0) return own;
  const srd = edition === "2014" ? "SRD 5.2" : "SRD 5.1";
  notes.push(`No ${edition} stat block fits these filters: the proposals use ${other} (${srd}) stat blocks.`);
  return candidates;
}

/** What a renamed creature's note adds: which SRD's stat block the rating used. */
function ratedWith(documentKey: string): string {
  return `Rated with the ${documentKey.toLowerCase() === "srd-2014" ? "SRD 5.1" : "SRD 5.2"} stat block.`;
}

export const buildEncounter: ToolDef = defineTool({
  name: "build_encounter",
  title: "Build an encounter",
  description: [
    "Encounter XP math, 2024 (budget) or 2014 (thresholds × multiplier), step by step: `monsters` to rate a " +
      "group, or `difficulty` to propose some.",
    'E.g. {"party_size":4,"party_level":5,"monsters":[{"name":"Ogre","count":2}]}',
  ].join("\n"),
  input,
  output,
  openWorld: true,
  run,
});
