/** 5etools `monster` record → canonical creature (pure). */
import type { CreatureAction, CreatureData } from "../../../entities/kinds.ts";
import { formatCr, type JsonObject, type JsonValue } from "../../../entities/types.ts";
import { bonusMap, legendaryCost, skillKey } from "../../../entities/normalize/canonical/creature.ts";
import { ordinal } from "../../../entities/normalize/text.ts";
import { abilityName, xpForCr } from "../../../entities/normalize/vocab.ts";
import type { CreatureFilterKeys } from "../../../entities/normalize/canonical/creature.ts";
import { type FileContext, joinTexts, line, lines, sizeWord, strings, text } from "./common.ts";
import { arr, num, own, rec, recs } from "../../../entities/normalize/read.ts";

const ALIGN: Readonly<Record<string, string>> = {
  L: "lawful",
  N: "neutral",
  NX: "neutral",
  NY: "neutral",
  C: "chaotic",
  G: "good",
  E: "evil",
  U: "unaligned",
  A: "any alignment",
};

function alignmentText(v: JsonValue | undefined, prefix: string | null): string | null {
  const one = (xs: JsonValue[]): string | null => {
    const letters = xs.filter((x): x is string => typeof x === "string");
    if (letters.length === 0) return null;
    const set = new Set(letters);
    if (set.has("A")) return "any alignment";
    if (set.has("U")) return "unaligned";
    const law = ["L", "NX", "C"].every((l) => set.has(l));
    if (letters.length >= 4 && law && (set.has("G") || set.has("E")) && !(set.has("G") && set.has("E")))
      return `any ${set.has("G") ? "good" : "evil"} alignment`;
    if (letters.length >= 4 && ["G", "NY", "E"].every((l) => set.has(l)) && (set.has("L") || set.has("C")))
      return `any ${set.has("L") ? "lawful" : "chaotic"} alignment`;
    if (letters.length >= 4 && set.has("L") && set.has("C") && set.has("G") && set.has("E"))
      return "any non-neutral alignment";
    const lacking = ["G", "E", "L", "C"].find((l) => !set.has(l));
    if (letters.length === 5 && lacking) return `any non-${own(ALIGN, lacking)} alignment`;
    const words = letters.map((l) => own(ALIGN, l) ?? l);
    return words.length === 2 && words[0] === "neutral" && words[1] === "neutral" ? "neutral" : words.join(" ");
  };
  const xs = arr(v);
  let out: string | null;
  if (xs.some((x) => rec(x))) {
    const parts = xs.map((x) => {
      const o = rec(x);
      if (!o) return typeof x === "string" ? (own(ALIGN, x) ?? x) : null;
      if (typeof o.special === "string") return o.special;
      const a = one(arr(o.alignment));
      return a && typeof o.chance === "number" ? `${a} (${o.chance}%)` : a;
    });
    out = parts.filter(Boolean).join(" or ") || null;
  } else out = one(xs);
  return out ? `${prefix ?? ""}${out}`.trim() : null;
}

function crValue(s: string | null): number | null {
  if (!s) return null;
  const frac = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(s);
  if (frac) return Number(frac[1]) / Number(frac[2]);
  const n = Number(s);
  return Number.isFinite(n) ? n : null;
}

/** `"1/2"` or `{ cr, lair, coven }` → the creature's CR and what the stat block shows for it. */
function challenge(v: JsonValue | undefined): { cr: number | null; display: string | null; xp: number | null } {
  const o = rec(v);
  const base =
    typeof v === "string" || typeof v === "number"
      ? String(v)
      : typeof o?.cr === "string" || typeof o?.cr === "number"
        ? String(o.cr)
        : null;
  if (base === "Unknown" || base === "\u2014") return { cr: null, display: base, xp: null };
  const cr = crValue(base);
  const display = formatCr(cr) ?? base;
  const extra = [
    o && o.lair !== undefined ? `${String(o.lair)} in lair` : null,
    o && o.coven !== undefined ? `${String(o.coven)} when part of a coven` : null,
  ].filter(Boolean);
  return {
    cr,
    display: display && extra.length ? `${display} (${extra.join(", ")})` : display,
    xp: num(o?.xp) ?? xpForCr(cr),
  };
}

/** `type`: "construct" or `{ type: "fiend", tags: ["devil"], swarmSize: "T" }`. */
function creatureType(v: JsonValue | undefined): { type: string | null; subtype: string | null; swarm: string | null } {
  const o = rec(v);
  if (!o) return { type: typeof v === "string" ? v : null, subtype: null, swarm: null };
  const t = typeof o.type === "string" ? o.type : strings(rec(o.type)?.choose).join(" or ") || null;
  const tag = (x: JsonValue) =>
    typeof x === "string" ? x : [rec(x)?.prefix, rec(x)?.tag].filter((y) => typeof y === "string").join(" ");
  const tags = arr(o.tags).map(tag).filter(Boolean);
  return {
    type: t,
    subtype: tags.length ? tags.join(", ") : null,
    swarm: typeof o.swarmSize === "string" ? o.swarmSize : null,
  };
}

/**
 * `ac`: `[13]`, `[{ ac: 13, from: ["natural armor"] }, { ac: 16, condition: "with mage armor" }]`,
 * `[{ special: "…" }]`.
 */
function armorClass(v: JsonValue | undefined, ctx: FileContext): { ac: number | null; detail: string | null } {
  const xs = Array.isArray(v) ? v : v === undefined ? [] : [v];
  let ac: number | null = null;
  const details: string[] = [];
  xs.forEach((x, i) => {
    const o = rec(x);
    const val = typeof x === "number" ? x : num(o?.ac);
    const from = lines(o?.from, ctx).join(", ");
    const cond = line(o?.condition, ctx);
    if (i === 0) {
      ac = val;
      if (o && typeof o.special === "string") details.push(line(o.special, ctx) ?? "");
      const own = [from, cond].filter(Boolean).join(" ");
      if (own) details.push(own);
    } else if (val !== null) details.push(`${val}${from ? ` (${from})` : ""}${cond ? ` ${cond}` : ""}`);
  });
  const detail = details.filter(Boolean).join("; ");
  return { ac, detail: detail || null };
}

function speedOf(v: JsonValue | undefined, ctx: FileContext): { speed: CreatureData["speed"]; notes: string[] } {
  const speed: CreatureData["speed"] = {};
  const notes: string[] = [];
  if (typeof v === "number") return { speed: { walk: v }, notes };
  const o = rec(v);
  if (!o) return { speed, notes };
  for (const mode of ["walk", "burrow", "climb", "fly", "swim"]) {
    const x = o[mode];
    const n = typeof x === "number" ? x : num(rec(x)?.number);
    if (n !== null) speed[mode] = n;
    const cond = line(rec(x)?.condition, ctx);
    if (cond) notes.push(`${mode} ${cond}`);
    if (x === true) speed[mode] = typeof o.walk === "number" ? o.walk : 0;
  }
  if (o.canHover === true || o.hover === true) speed.hover = true;
  return { speed, notes };
}

/** Damage lists: strings, `{ resist: [...], note, preNote }`, `{ special }`, to any depth. */
function damageList(v: JsonValue | undefined, field: string, ctx: FileContext): string | null {
  const plain: string[] = [];
  const parts: string[] = [];
  for (const x of arr(v)) {
    if (typeof x === "string") plain.push(x);
    const o = rec(x);
    if (!o) continue;
    if (typeof o.special === "string") parts.push(line(o.special, ctx) ?? "");
    const inner = damageList(o[field], field, ctx);
    if (inner) parts.push([line(o.preNote, ctx), inner, line(o.note, ctx)].filter(Boolean).join(" "));
  }
  const xs = [plain.join(", "), ...parts].filter(Boolean);
  return xs.length ? xs.join("; ") : null;
}

function actions(v: JsonValue | undefined, ctx: FileContext, legendary = false): CreatureAction[] {
  return recs(v)
    .map((a) => {
      const rawName = line(a.name, ctx) ?? "";
      const usage = /\((Recharge [^)]*|\d+\/(?:Day|Turn|Short Rest|Long Rest)[^)]*)\)\s*$/i.exec(rawName)?.[1] ?? null;
      const name = usage ? rawName.replace(/\s*\([^)]*\)\s*$/, "") : rawName;
      return { name, desc: text(a.entries ?? a.entry, ctx), usage, cost: legendary ? legendaryCost(rawName) : null };
    })
    .filter((a) => a.name || a.desc);
}

const SLOT_KEYS = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9"];
/** Spell lists by use, as the stat block writes them ("1/Day each"). */
const PER = { daily: "Day", rest: "Rest", weekly: "Week", monthly: "Month", yearly: "Year" } as const;

/**
 * A `spellcasting` block → one trait whose lines are the lists the `casts` filter reads
 * ("1st level (4 slots): …").
 */
function spellcastingBlock(s: JsonObject, ctx: FileContext): { where: string; action: CreatureAction } {
  const lines: string[] = [];
  const spell = (x: JsonValue) => (typeof x === "string" ? line(x, ctx) : line(rec(x)?.entry, ctx));
  const names = (xs: JsonValue | undefined) => joinTexts(", ", arr(xs).map(spell));
  const head = text(s.headerEntries, ctx);
  if (head) lines.push(head);
  const will = names(s.will);
  if (will) lines.push(`At will: ${will}`);
  const spells = rec(s.spells);
  for (const k of SLOT_KEYS) {
    const lvl = rec(spells?.[k]);
    if (!lvl) continue;
    const list = names(lvl.spells);
    if (!list) continue;
    const slots = num(lvl.slots);
    lines.push(
      k === "0"
        ? `Cantrips (at will): ${list}`
        : `${ordinal(Number(k))} level${slots !== null ? ` (${slots} slot${slots === 1 ? "" : "s"})` : ""}: ` +
            `${list}`,
    );
  }
  for (const [freq, word] of Object.entries(PER)) {
    const per = rec(s[freq]);
    if (!per) continue;
    for (const [k, xs] of Object.entries(per)) {
      const list = names(xs);
      if (list) lines.push(`${k.replace(/e$/, "")}/${word}${k.endsWith("e") ? " each" : ""}: ${list}`);
    }
  }
  const foot = text(s.footerEntries, ctx);
  if (foot) lines.push(foot);
  const where = typeof s.displayAs === "string" ? s.displayAs : "trait";
  return {
    where,
    action: { name: line(s.name, ctx) ?? "Spellcasting", desc: lines.join("\n"), usage: null, cost: null },
  };
}

export interface LegendaryGroup {
  lair: CreatureAction[];
  regional: string | null;
}

export function buildCreature(
  d: JsonObject,
  ctx: FileContext,
  group: LegendaryGroup | null,
  fluff: string | null,
): { data: CreatureData; keys: CreatureFilterKeys } {
  const size = sizeWord(d.size);
  const t = creatureType(d.type);
  const ac = armorClass(d.ac, ctx);
  const hp = rec(d.hp);
  const { speed, notes: speedNotes } = speedOf(d.speed, ctx);
  const cr = challenge(d.cr);
  const traits = actions(d.trait, ctx);
  const acts = actions(d.action, ctx);
  const bonus = actions(d.bonus, ctx);
  const reactions = actions(d.reaction, ctx);
  const byWhere: Record<string, CreatureAction[]> = { action: acts, bonus, reaction: reactions };
  for (const s of recs(d.spellcasting)) {
    const b = spellcastingBlock(s, ctx);
    (own(byWhere, b.where) ?? traits).push(b.action);
  }
  const legendary = actions(d.legendary, ctx, true);
  const mythic = actions(d.mythic, ctx, true);
  const legendaryHeader = text(d.legendaryHeader, ctx) || null;
  const legendaryCount = num(d.legendaryActions) ?? 3;
  const defaultLegendary = legendary.length
    ? `The creature can take ${legendaryCount} legendary actions, choosing from the options below. ` +
      "Only one legendary action option can be used at a time and only at the end of another creature's turn. " +
      "The creature regains spent legendary actions at the start of its turn."
    : null;
  // Lists of strings, or one string in hand-made files.
  const senses = lines(typeof d.senses === "string" ? [d.senses] : d.senses, ctx);
  const passive = num(d.passive);
  const languages = lines(typeof d.languages === "string" ? [d.languages] : d.languages, ctx);
  const swarm = t.swarm ? `swarm of ${(sizeWord(t.swarm) ?? t.swarm).toLowerCase()} ` : "";
  const desc = joinTexts("\n\n", [
    fluff,
    mythic.length ? `Mythic actions:\n${mythic.map((m) => `${m.name}. ${m.desc}`).join("\n")}` : null,
    group?.regional ? `Regional effects: ${group.regional}` : null,
    speedNotes.length ? `Speed notes: ${speedNotes.join("; ")}` : null,
  ]);
  const data: CreatureData = {
    size,
    type: t.type ? `${swarm}${t.type}` : null,
    subtype: t.subtype,
    alignment: alignmentText(d.alignment, typeof d.alignmentPrefix === "string" ? d.alignmentPrefix : null),
    armor_class: ac.ac,
    armor_detail: ac.detail,
    hit_points: num(hp?.average),
    hit_dice:
      typeof hp?.formula === "string"
        ? hp.formula.replace(/\s+/g, "")
        : typeof hp?.special === "string"
          ? hp.special
          : null,
    speed,
    ability_scores: {
      strength: num(d.str),
      dexterity: num(d.dex),
      constitution: num(d.con),
      intelligence: num(d.int),
      wisdom: num(d.wis),
      charisma: num(d.cha),
    },
    saving_throws: bonusMap(d.save, abilityName),
    skills: bonusMap(d.skill, (k) => (k === "other" ? null : skillKey(k))),
    damage_vulnerabilities: damageList(d.vulnerable, "vulnerable", ctx),
    damage_resistances: damageList(d.resist, "resist", ctx),
    damage_immunities: damageList(d.immune, "immune", ctx),
    condition_immunities: damageList(d.conditionImmune, "conditionImmune", ctx),
    senses: [...senses, passive !== null ? `passive Perception ${passive}` : null].filter(Boolean).join(", ") || null,
    passive_perception: passive,
    languages: languages.length ? languages.join(", ") : null,
    cr: cr.cr,
    cr_display: cr.display,
    xp: cr.xp,
    proficiency_bonus:
      num(d.pbNote) ?? (cr.cr === null ? null : Math.max(2, Math.floor((Math.max(cr.cr, 1) - 1) / 4) + 2)),
    traits,
    actions: acts,
    bonus_actions: bonus,
    reactions,
    legendary_desc: legendaryHeader ?? defaultLegendary,
    legendary_actions: legendary,
    lair_actions: group?.lair ?? [],
    environments: strings(d.environment).map((x) => x.toLowerCase()),
    desc: desc || null,
  };
  return { data, keys: { typeKey: t.type ? t.type.toLowerCase() : null, sizeKey: size ? size.toLowerCase() : null } };
}
