/**
 * roll_odds: exact dice odds for the table — a dice expression's distribution, a d20 test against
 * an AC or DC, expected damage of attacks or save effects, a stored creature's damage per round —
 * and a real roll when asked. Exact fractions from exact distributions, never sampling.
 */
import * as z from "zod";
import type { CreatureAction, CreatureData } from "../entities/kinds.ts";
import type { ToolDef } from "./kit/define.ts";
import { defineTool } from "./kit/define.ts";
import { didYouMean, findCreature } from "./encounter/creatures.ts";
import type { Edition } from "./encounter/tables.ts";
import { type D20Odds, d20Odds, MODES, type Mode } from "./odds/d20.ts";
import { attackDamage, parseAttack, type ParsedAttack, readMultiattack, saveDamage } from "./odds/damage.ts";
import {
  chanceAtLeast,
  type DiceExpr,
  type DieOptions,
  distribution,
  meanOf,
  parseDice,
  percentile,
  rollExpr,
} from "./odds/dice.ts";
import { add, type Fraction, fractionText, percent, round, scale, toNumber, ZERO } from "./odds/fraction.ts";
import { bool, int, rulesEdition, text, vocab } from "./kit/params.ts";
import { toolAnswer, toolError } from "./answer/response.ts";
import { loadFirst } from "./kit/run-search.ts";

/** Dice text that parses, or the parser's sentence as the parameter's error. */
const diceText = (description: string, max: number) =>
  text(description, max).superRefine((s, ctx) => {
    const e = parseDice(s);
    if (typeof e === "string") ctx.addIssue({ code: "custom", message: e });
  });

const input = z
  .object({
    dice: diceText("e.g. 4d6kh3; with ac/dc: damage", 100).optional(),
    reroll_at_most: int(1, 99, "Reroll once at or below (GWF: 2)").optional(),
    die_minimum: int(1, 99, "Die floor (Reliable Talent: 10)").optional(),
    at_least: int(-1000, 5000, "Chance of total ≥ this").optional(),
    roll: bool("Roll for real").optional(),
    bonus: int(-30, 40, "d20 modifier (to-hit, save)").optional(),
    ac: int(1, 50, "Attack vs AC").optional(),
    dc: int(1, 50, "Check/save vs DC").optional(),
    mode: vocab(MODES, "").optional(),
    lucky: bool("Reroll natural 1s").optional(),
    add: diceText("Bless: 1d4", 30).optional(),
    crit_from: int(2, 20, "Default 20").optional(),
    attacks: int(1, 20, "Per round").optional(),
    half_on_save: bool("").optional(),
    creature: text("Its damage per round vs ac", 200).optional(),
    edition: rulesEdition(""),
  })
  .strict();

/** Loose: the parts present depend on what was asked (docs/tools.md). */
const output = z.looseObject({ steps: z.array(z.string()) });
type Args = z.output<typeof input>;

const RULE =
  "A natural 20 hits and a natural 1 misses on attack rolls (SRD 5.1 and 5.2); checks and saves have no " +
  "automatic result.";

function exact(f: Fraction): { fraction: string; percent: number } {
  return { fraction: fractionText(f), percent: percent(f) };
}

function value(f: Fraction): { exact: string; value: number } {
  return { exact: fractionText(f), value: round(toNumber(f), 2) };
}

function dieOptions(a: Args): DieOptions {
  return {
    ...(a.reroll_at_most ? { rerollAtMost: a.reroll_at_most } : {}),
    ...(a.die_minimum ? { minimum: a.die_minimum } : {}),
  };
}

function describeOptions(o: DieOptions): string {
  const parts = [
    o.rerollAtMost ? `each die showing ${o.rerollAtMost} or less rerolled once` : "",
    o.minimum ? `each die counts at least ${o.minimum}` : "",
  ];
  return parts.filter(Boolean).join(", ");
}

function diceAnswer(e: DiceExpr, a: Args, steps: string[]) {
  const o = dieOptions(a);
  const d = distribution(e, o);
  const min = d.min;
  const max = d.min + d.w.length - 1;
  const mean = meanOf(d);
  const opts = describeOptions(o);
  steps.push(`${e.text}${opts ? ` (${opts})` : ""}: every outcome weighed exactly; mean = ${fractionText(mean)}.`);
  const out: Record<string, unknown> = {
    expression: e.text,
    min,
    max,
    mean: value(mean),
    percentiles: Object.fromEntries([10, 25, 50, 75, 90].map((p) => [`p${p}`, percentile(d, p / 100)])),
  };
  if (a.at_least !== undefined) out.at_least = { value: a.at_least, ...exact(chanceAtLeast(d, a.at_least)) };
  // The whole table only while it stays short: a reader needs the shape, not 200 rows.
  if (max - min < 24) {
    const table: Record<string, number> = {};
    d.w.forEach((w, i) => {
      if (w > 0n) table[String(d.min + i)] = percent({ num: w, den: d.den });
    });
    out.distribution_percent = table;
  }
  if (a.roll) out.rolled = rollExpr(e, o);
  return out;
}

function d20Test(a: Args, attack: boolean, added: DiceExpr | undefined, minimum?: number): D20Odds {
  return d20Odds({
    bonus: a.bonus ?? 0,
    target: (attack ? a.ac : a.dc)!,
    attack,
    mode: (a.mode as Mode | undefined) ?? "normal",
    lucky: a.lucky ?? false,
    critFrom: a.crit_from ?? 20,
    ...(minimum ? { minimum } : {}),
    ...(added ? { added: distribution(added) } : {}),
  });
}

function rollWords(a: Args, added: DiceExpr | undefined): string {
  const bits = [
    a.mode && a.mode !== "normal" ? String(a.mode).replace("_", " ") : "",
    a.lucky ? "lucky (natural 1 rerolled once)" : "",
    added ? `+${added.text}`.replace("+-", "-") : "",
  ];
  const b = a.bonus ?? 0;
  return [`d20${b ? (b > 0 ? `+${b}` : `${b}`) : ""}`, ...bits].filter(Boolean).join(", ");
}

function creatureDpr(a: Args, ctx: Parameters<ToolDef["call"]>[1], steps: string[]): Record<string, unknown> | string {
  const edition = (a.edition ?? "2024") as Edition;
  const e = findCreature(ctx.deps.db, { name: a.creature! }, edition);
  if (!e)
    return (
      `No creature ${JSON.stringify(a.creature)} in the local store${didYouMean(ctx.deps.db, a.creature!)}. ` +
      "Find its exact name with search_creature."
    );
  if (a.ac === undefined) return `Give the target's AC (ac) to work out ${e.name}'s damage per round.`;
  const data = e.data as unknown as CreatureData;
  const actions: CreatureAction[] = Array.isArray(data.actions) ? data.actions : [];
  const attacks = actions.map(parseAttack).filter((x): x is ParsedAttack => x !== null);
  if (attacks.length === 0)
    return (
      `${e.name}'s actions have no attack roll with damage on a hit to work out (its other effects need a ` +
      `save: use dc, bonus and dice).`
    );
  const o = dieOptions(a);
  const per = attacks.map((x) => {
    const odds = d20Test({ ...a, bonus: x.bonus, lucky: false }, true, undefined);
    const dmg = attackDamage(odds, x.damage, o);
    steps.push(
      `${x.name}: +${x.bonus} vs AC ${a.ac} hits ${fractionText(odds.success)} ` +
        `(crit ${fractionText(odds.crit)}); ${x.damage.text} ` +
        `averages ${fractionText(dmg.hit)}, ${fractionText(dmg.crit)} on a crit → ${fractionText(dmg.expected)} ` +
        `per attack.`,
    );
    return { attack: x, odds, dmg };
  });
  const multi = actions.find((x) => /^multiattack/i.test(x.name));
  const read = multi ? readMultiattack(multi.desc, attacks) : null;
  const plan = read?.plan;
  let total: Fraction;
  let used: string;
  if (plan) {
    total = plan.reduce((s, p) => add(s, scale(per.find((q) => q.attack === p.attack)!.dmg.expected, p.count)), ZERO);
    used =
      `Multiattack: ${plan.map((p) => `${p.count} × ${p.attack.name}`).join(" + ")}` +
      `${read?.assumed ? ` (${read.assumed})` : ""}`;
  } else {
    const best = per.reduce((x, y) => (toNumber(y.dmg.expected) > toNumber(x.dmg.expected) ? y : x));
    total = best.dmg.expected;
    used = multi
      ? `best single attack (${best.attack.name}); its Multiattack could not be read: "${multi.desc.slice(0, 160)}"`
      : `best single attack (${best.attack.name})`;
  }
  steps.push(`Per round: ${used} = ${fractionText(total)}.`);
  return {
    name: e.name,
    key: e.key,
    document_key: e.document_key,
    ...(e.note ? { note: e.note } : {}),
    attacks: per.map((p) => ({
      name: p.attack.name,
      to_hit: p.attack.bonus,
      damage: p.attack.parts.join(" + "),
      hit: exact(p.odds.success),
      crit: exact(p.odds.crit),
      expected: value(p.dmg.expected),
    })),
    per_round: value(total),
    counted: used,
  };
}

async function run(a: Args, ctx: Parameters<ToolDef["call"]>[1]) {
  if (!a.dice && a.ac === undefined && a.dc === undefined && !a.creature) {
    return toolError(
      'Give dice (e.g. {"dice": "4d6kh3"}), a d20 test (bonus with ac or dc), or a creature with ac. E.g. ' +
        '{"bonus": 7, "ac": 16, "mode": "advantage"}.',
    );
  }
  if (a.ac !== undefined && a.dc !== undefined)
    return toolError("Give ac (an attack roll) or dc (a check or save), not both.");
  // Both parse: the schema refused anything else.
  const parsed = a.dice ? (parseDice(a.dice) as DiceExpr) : undefined;
  const added = a.add ? (parseDice(a.add) as DiceExpr) : undefined;
  if (a.roll && !parsed) return toolError('roll needs dice to roll, e.g. {"dice": "1d20+5", "roll": true}.');
  if (a.half_on_save && (a.dc === undefined || !parsed))
    return toolError("half_on_save needs dc (the save's DC), bonus (the target's save bonus) and dice (the damage).");
  const steps: string[] = [];
  const answer: Record<string, unknown> = {};

  if (a.creature) {
    const failed = await loadFirst(ctx, "roll_odds", ["creature"]);
    if (failed) return failed;
    const c = creatureDpr(a, ctx, steps);
    if (typeof c === "string") return toolError(c);
    answer.creature = c;
  } else if (a.ac !== undefined || a.dc !== undefined) {
    const attack = a.ac !== undefined;
    // Reliable Talent raises a check's d20, not a die of the damage.
    const odds = d20Test(a, attack, added, attack ? undefined : a.die_minimum);
    const against = attack ? `AC ${a.ac}` : `DC ${a.dc}`;
    steps.push(
      `${rollWords(a, added)} vs ${against} succeeds ${fractionText(odds.success)} of the time` +
        (attack
          ? `; natural ${a.crit_from && a.crit_from < 20 ? `${a.crit_from}–20` : "20"} crits ` +
            `(${fractionText(odds.crit)})`
          : "") +
        ".",
    );
    answer.test = {
      roll: rollWords(a, added),
      against,
      success: exact(odds.success),
      ...(attack ? { crit: exact(odds.crit) } : {}),
      rule: RULE,
    };
    if (parsed) {
      const n = a.attacks ?? 1;
      const o: DieOptions = a.reroll_at_most ? { rerollAtMost: a.reroll_at_most } : {};
      if (attack) {
        const dmg = attackDamage(odds, parsed, o);
        const round = scale(dmg.expected, n);
        steps.push(
          `${parsed.text} averages ${fractionText(dmg.hit)} on a hit and ${fractionText(dmg.crit)} on a crit ` +
            `(dice doubled) → ${fractionText(dmg.expected)} per ` +
            `attack${n > 1 ? ` × ${n} = ${fractionText(round)}` : ""}.`,
        );
        answer.damage = {
          dice: parsed.text,
          on_hit: value(dmg.hit),
          on_crit: value(dmg.crit),
          per_attack: value(dmg.expected),
          ...(n > 1 ? { per_round: value(round) } : {}),
        };
      } else {
        // The roller is the target making the save: a success saves it from (half) the damage.
        const dmg = saveDamage(odds.success, parsed, a.half_on_save ?? false, o);
        steps.push(
          `${parsed.text} averages ${fractionText(dmg.full)} on a failed save` +
            (a.half_on_save
              ? ` and ${fractionText(dmg.half)} (half, rounded down) on a success`
              : ", nothing on a success") +
            ` → ${fractionText(dmg.expected)} expected${n > 1 ? ` × ${n}` : ""}.`,
        );
        answer.damage = {
          dice: parsed.text,
          on_fail: value(dmg.full),
          ...(a.half_on_save ? { on_save: value(dmg.half) } : {}),
          expected: value(scale(dmg.expected, n)),
        };
      }
    }
  } else if (parsed) {
    answer.dice = diceAnswer(parsed, a, steps);
  }
  answer.steps = steps;
  return toolAnswer(answer);
}

export const rollOdds: ToolDef = defineTool({
  name: "roll_odds",
  title: "Dice odds and damage per round",
  description: [
    "Exact dice odds: dice totals; d20 vs AC/DC; expected damage; a creature's damage per round; roll: true rolls.",
    'E.g. {"bonus": 7, "ac": 16, "mode": "advantage", "dice": "1d8+4"}',
  ].join("\n"),
  input,
  output,
  openWorld: true,
  run,
});
