/** 5etools `spell` record → canonical spell (pure). */
import type { SpellData } from "../../../entities/kinds.ts";
import { materialPrice, saysConsumed } from "../../../entities/material.ts";
import type { JsonObject, JsonValue } from "../../../entities/types.ts";
import { damageTypesIn, savingThrowIn } from "../../../entities/normalize/canonical/spell.ts";
import { DAMAGE_TYPES } from "../../../entities/catalog.ts";
import { abilityName } from "../../../entities/normalize/vocab.ts";
import { type FileContext, joinTexts, line, strings, text } from "./common.ts";
import { arr, num, own, rec, recs } from "../../../entities/normalize/read.ts";

/** 5etools' school letters. */
const SCHOOL_LETTERS: Readonly<Record<string, string>> = {
  A: "abjuration",
  C: "conjuration",
  D: "divination",
  E: "enchantment",
  V: "evocation",
  I: "illusion",
  N: "necromancy",
  T: "transmutation",
  P: "psionic",
};

/** Units of casting time 5etools defines ("bonus" reads "bonus action"); others are shown as written, singular. */
const TIME_UNITS = new Set(["action", "bonus", "reaction", "minute", "hour", "round", "day", "turn", "week"]);

function castingTime(v: JsonValue | undefined, ctx: FileContext): string | null {
  const parts = recs(v).map((t) => {
    const n = num(t.number) ?? 1;
    const unitRaw = typeof t.unit === "string" ? t.unit : "action";
    const unit = unitRaw === "bonus" ? "bonus action" : unitRaw;
    const base = unitRaw === "special" ? "Special" : `${n} ${unit}${n === 1 || !TIME_UNITS.has(unitRaw) ? "" : "s"}`;
    const cond = line(t.condition, ctx);
    return cond ? `${base}, ${cond}` : base;
  });
  return parts.length ? parts.join(" or ") : null;
}

function distance(d: JsonObject | null, ctx: FileContext): { text: string; feet: number | null } | null {
  if (!d) return null;
  const type = typeof d.type === "string" ? d.type : "";
  const amount = num(d.amount);
  if (type === "self" || type === "touch" || type === "sight" || type === "unlimited")
    return { text: type[0]!.toUpperCase() + type.slice(1), feet: null };
  if (amount === null) return type ? { text: type, feet: null } : null;
  if (type === "feet") return { text: `${amount} ${amount === 1 ? "foot" : "feet"}`, feet: amount };
  if (type === "miles") return { text: `${amount} mile${amount === 1 ? "" : "s"}`, feet: amount * 5280 };
  const unit = amount === 1 ? (ctx.distanceUnits[type] ?? type) : type;
  return { text: `${amount} ${unit}`, feet: null };
}

function spellRange(
  v: JsonValue | undefined,
  ctx: FileContext,
): { text: string | null; feet: number | null; area: SpellData["area"] } {
  const r = rec(v);
  if (!r) return { text: null, feet: null, area: null };
  const type = typeof r.type === "string" ? r.type : "point";
  const d = distance(rec(r.distance), ctx);
  if (type === "point") return { text: d?.text ?? null, feet: d?.feet ?? null, area: null };
  if (type === "special") return { text: "Special", feet: null, area: null };
  // An area around the caster: "Self (15-foot cone)".
  const size = d?.feet ?? null;
  const shape = type === "radius" ? "radius" : type;
  const areaText = size !== null ? `${size}-foot ${shape}` : shape;
  return { text: `Self (${areaText})`, feet: null, area: { type: type === "radius" ? "sphere" : type, size_ft: size } };
}

/** How a permanent spell can end ("dispel") as the book says it ("Until dispelled"). */
const ENDED: Readonly<Record<string, string>> = { dispel: "dispelled", trigger: "triggered", discharge: "discharged" };

function spellDuration(v: JsonValue | undefined): { text: string | null; concentration: boolean } {
  let concentration = false;
  const parts = recs(v).map((t) => {
    if (t.concentration === true) concentration = true;
    switch (t.type) {
      case "instant":
        return "Instantaneous";
      case "timed": {
        const d = rec(t.duration);
        const n = num(d?.amount) ?? 1;
        const unit = String(d?.type ?? "");
        const span = `${n} ${unit}${n === 1 ? "" : "s"}`;
        return t.concentration === true || d?.upTo === true ? `up to ${span}` : span;
      }
      case "permanent": {
        const words = strings(t.ends).map((e) => own(ENDED, e) ?? e);
        return words.length ? `Until ${words.join(" or ")}` : "Permanent";
      }
      case "special":
        return "Special";
      default:
        return typeof t.type === "string" ? t.type : "";
    }
  });
  return { text: joinTexts(" or ", parts) || null, concentration };
}

/** Copper pieces → "1 sp", "50 gp" (5etools prices are in copper). */
export function copperText(cp: number): string {
  if (cp % 100 === 0) return `${cp / 100} gp`;
  if (cp % 10 === 0) return `${cp / 10} sp`;
  return `${cp} cp`;
}

/** The classes of `fromClassList` and `fromClassListVariant` (names or `{ name }`), lower-case, each once. */
function classesOf(c: JsonObject | null): string[] {
  const named = [...arr(c?.fromClassList), ...arr(c?.fromClassListVariant)].map((x) => rec(x)?.name ?? x);
  return [...new Set(named.flatMap((n) => (typeof n === "string" && n ? n.toLowerCase().trim() : [])))];
}

/** The 5etools fields of a spell and the canonical fields they state. */
const STATED_BY: Readonly<Record<string, readonly (keyof SpellData)[]>> = {
  time: ["casting_time"],
  range: ["range", "range_ft", "area"],
  duration: ["duration", "concentration"],
  meta: ["ritual"],
  components: ["components"],
  entries: ["desc", "damage_types", "saving_throw", "attack_roll", "damage_roll"],
  entriesHigherLevel: ["higher_level"],
};

/**
 * `base`: the spell a copy's missing `_copy` base was found as in the store; what the copy does not
 * state (school, casting time, range, duration, components, classes, text) comes from it.
 */
export function buildSpell(
  d: JsonObject,
  ctx: FileContext,
  roll20: JsonObject | null,
  base: SpellData | null = null,
): SpellData {
  const own = buildOwnSpell(d, ctx, roll20);
  if (!base) return own;
  const out: Record<string, unknown> = { ...own, school: own.school ?? base.school };
  out.classes = own.classes.length ? own.classes : base.classes;
  for (const [field, spellFields] of Object.entries(STATED_BY))
    if (d[field] === undefined) for (const k of spellFields) out[k] = base[k];
  return out as unknown as SpellData;
}

function buildOwnSpell(d: JsonObject, ctx: FileContext, roll20: JsonObject | null): SpellData {
  const letter = typeof d.school === "string" ? d.school : null;
  const school = letter
    ? (own(SCHOOL_LETTERS, letter.toUpperCase()) ?? own(ctx.schools, letter) ?? letter.toLowerCase())
    : null;
  const comps = rec(d.components);
  const m = comps?.m;
  const mo = rec(m);
  const materialText = typeof m === "string" ? line(m, ctx) : mo ? line(mo.text, ctx) : null;
  const cost = mo ? num(mo.cost) : null;
  const consumed =
    mo && (mo.consume === true || mo.consume === "optional") ? true : materialText ? saysConsumed(materialText) : null;
  const range = spellRange(d.range, ctx);
  const dur = spellDuration(d.duration);
  const desc = text(d.entries, ctx);
  // The block's own name ("At Higher Levels") is what the builder labels it with.
  const unnamed = arr(d.entriesHigherLevel).map((e) => (rec(e) ? ({ ...rec(e), name: null } as JsonObject) : e));
  const higher = text(unnamed, ctx) || null;
  const all = [desc, higher ?? ""].join("\n");
  const listed = strings(d.damageInflict).map((x) => x.toLowerCase());
  const rollDamage =
    typeof roll20?.["Damage Type"] === "string" ? [(roll20["Damage Type"] as string).toLowerCase()] : [];
  const damageTypes = (DAMAGE_TYPES as readonly string[]).filter(
    (t) => listed.includes(t) || rollDamage.includes(t) || (listed.length === 0 && damageTypesIn(all).includes(t)),
  );
  const saves = arr(d.savingThrow).flatMap((x) => abilityName(x) ?? []);
  const roll20Save = abilityName(roll20?.Save);
  const dice =
    /\b(\d+d\d+(?:\s*[+-]\s*\d+)?)\b/.exec(desc)?.[1] ?? (typeof roll20?.Damage === "string" ? roll20.Damage : null);
  const reaction = rec(arr(d.time).find((t) => rec(t)?.unit === "reaction"));
  return {
    level: d.level as number,
    school,
    casting_time: castingTime(d.time, ctx),
    range: range.text,
    range_ft: range.feet,
    duration: dur.text,
    concentration: dur.concentration,
    ritual: rec(d.meta)?.ritual === true,
    components: {
      verbal: comps?.v === true,
      somatic: comps?.s === true,
      material: m !== undefined && m !== false && m !== null,
      material_text: materialText,
      material_cost: cost !== null && cost > 0 ? copperText(cost) : materialPrice(materialText),
      material_consumed: consumed,
    },
    desc,
    higher_level: higher,
    classes: classesOf(rec(d.classes)),
    damage_types: damageTypes,
    saving_throw: saves[0] ?? roll20Save ?? savingThrowIn(all),
    attack_roll: arr(d.spellAttack).length > 0 ? true : /\b(?:melee|ranged) spell attack\b/i.test(all) ? true : null,
    damage_roll: dice ? dice.replace(/\s+/g, "") : null,
    area: range.area,
    reaction_condition: reaction ? line(reaction.condition, ctx) : null,
  };
}
