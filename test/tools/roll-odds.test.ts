/**
 * roll_odds: exact odds checked against listing every roll by brute force, the figures DMs ask for
 * (advantage vs DC 11 is 3/4, Great Weapon Fighting on 2d6, 4d6 keep 3), and a stored creature's
 * damage per round against a hand calculation, through an MCP client.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { Entity } from "../../src/entities/types.ts";
import { d20Odds, naturalRoll } from "../../src/tools/odds/d20.ts";
import { parseAttack, readMultiattack } from "../../src/tools/odds/damage.ts";
import {
  type DiceExpr,
  type DieOptions,
  distribution,
  meanOf,
  parseDice,
  percentile,
} from "../../src/tools/odds/dice.ts";
import { type Fraction, frac, fractionText } from "../../src/tools/odds/fraction.ts";
import { makeEntity, makeStore } from "../support/entities.ts";
import { connectInMemory, makeDeps, textOf } from "../support/mcp.ts";

const expr = (s: string): DiceExpr => {
  const e = parseDice(s);
  if (typeof e === "string") throw new Error(e);
  return e;
};
const same = (a: Fraction, b: Fraction) => expect(fractionText(a)).toBe(fractionText(b));

/**
 * Every roll of `count` dice listed, each die rerolled once at or below `o.rerollAtMost` (as n² equally likely pairs).
 */
function bruteForce(
  count: number,
  sides: number,
  keep: number,
  highest: boolean,
  o: DieOptions = {},
): Map<number, bigint> {
  const faces: number[] = [];
  for (let f = 1; f <= sides; f++) {
    for (let g = 1; g <= sides; g++) {
      const v = o.rerollAtMost && f <= o.rerollAtMost ? g : f;
      faces.push(Math.max(v, o.minimum ?? 1));
    }
  }
  const out = new Map<number, bigint>();
  const idx = new Array<number>(count).fill(0);
  for (;;) {
    const vals = idx.map((i) => faces[i]!).sort((a, b) => (highest ? b - a : a - b));
    const sum = vals.slice(0, keep).reduce((a, b) => a + b, 0);
    out.set(sum, (out.get(sum) ?? 0n) + 1n);
    let i = 0;
    while (i < count && idx[i] === faces.length - 1) idx[i++] = 0;
    if (i === count) break;
    idx[i]!++;
  }
  return out;
}

describe("dice distributions are exact", () => {
  test.each([
    ["4d6kh3", 4, 6, 3, true, {}],
    ["3d8kl2", 3, 8, 2, false, {}],
    ["2d20kh1", 2, 20, 1, true, {}],
    ["3d6", 3, 6, 3, true, { rerollAtMost: 2 }],
    ["3d4kh2", 3, 4, 2, true, { minimum: 3 }],
  ] as const)("%s matches listing every roll", (s, count, sides, keep, highest, o) => {
    const d = distribution(expr(s), o);
    const listed = bruteForce(count, sides, keep, highest, o);
    const total = [...listed.values()].reduce((a, b) => a + b, 0n);
    d.w.forEach((w, i) => {
      same(frac(w, d.den), frac(listed.get(d.min + i) ?? 0n, total));
    });
  });

  test("the figures DMs ask for", () => {
    same(meanOf(distribution(expr("4d6kh3"))), frac(15869n, 1296n));
    // Great Weapon Fighting: each die of 2d6 showing 1 or 2 rerolled once.
    same(meanOf(distribution(expr("2d6"), { rerollAtMost: 2 })), frac(25n, 3n));
    same(meanOf(distribution(expr("8d6"))), frac(28n));
    expect(percentile(distribution(expr("1d20")), 0.5)).toBe(10);
    expect(fractionText(meanOf(distribution(expr("4d6dl1"))))).toBe("15869/1296");
  });

  test("bad expressions are refused with a sentence", () => {
    for (const bad of ["", "2d", "4d6kh5", "2d6+foo", "50d6", "1d1000"]) expect(typeof parseDice(bad)).toBe("string");
  });
});

describe("d20 tests", () => {
  test("advantage against DC 11 is 3/4; +7 against AC 16 with advantage is 84 %", () => {
    same(
      d20Odds({ bonus: 0, target: 11, attack: false, mode: "advantage", lucky: false, critFrom: 20 }).success,
      frac(3n, 4n),
    );
    const atk = d20Odds({ bonus: 7, target: 16, attack: true, mode: "advantage", lucky: false, critFrom: 20 });
    same(atk.success, frac(84n, 100n));
    same(atk.crit, frac(39n, 400n));
  });

  test("natural 1 misses and natural 20 hits on attack rolls only", () => {
    same(
      d20Odds({ bonus: 30, target: 10, attack: true, mode: "normal", lucky: false, critFrom: 20 }).success,
      frac(19n, 20n),
    );
    same(
      d20Odds({ bonus: 30, target: 10, attack: false, mode: "normal", lucky: false, critFrom: 20 }).success,
      frac(1n),
    );
    same(
      d20Odds({ bonus: 0, target: 40, attack: true, mode: "normal", lucky: false, critFrom: 19 }).success,
      frac(2n, 20n),
    );
  });

  test("Halfling luck, Elven Accuracy and Bless", () => {
    // One die: a 1 is rerolled once, so a natural 1 stays only as 1 in 400.
    same(naturalRoll("normal", true)[0]!, frac(1n, 400n));
    // Elven Accuracy: the highest of three d20s reaches 11 unless all three are below it.
    same(
      d20Odds({ bonus: 0, target: 11, attack: false, mode: "elven_accuracy", lucky: false, critFrom: 20 }).success,
      frac(7n, 8n),
    );
    // +5 with Bless (1d4) vs DC 15: natural n succeeds when n + 5 + d4 ≥ 15.
    let hand = 0;
    for (let n = 1; n <= 20; n++) for (let b = 1; b <= 4; b++) if (n + 5 + b >= 15) hand++;
    same(
      d20Odds({
        bonus: 5,
        target: 15,
        attack: false,
        mode: "normal",
        lucky: false,
        critFrom: 20,
        added: distribution(expr("1d4")),
      }).success,
      frac(BigInt(hand), 80n),
    );
  });
});

describe("stat block attacks", () => {
  const bite = {
    name: "Bite",
    desc:
      "Melee Weapon Attack: +14 to hit, reach 10 ft., one target. " +
      "Hit: 19 (2d10 + 8) piercing damage plus 7 (2d6) fire damage.",
    usage: null,
    cost: null,
  };
  const claw = {
    name: "Claw",
    desc: "Melee Weapon Attack: +14 to hit, reach 5 ft., one target. Hit: 15 (2d6 + 8) slashing damage.",
    usage: null,
    cost: null,
  };
  test("2014 and 2024 wording", () => {
    expect(parseAttack(bite)).toMatchObject({ bonus: 14, damage: { text: "2d10+2d6+8" } });
    const rend = parseAttack({
      name: "Rend",
      desc: "Melee Attack Roll: +11, reach 10 ft. Hit: 13 (2d6 + 6) Slashing damage plus 4 (1d8) Acid damage.",
      usage: null,
      cost: null,
    });
    expect(rend).toMatchObject({ bonus: 11, damage: { text: "2d6+1d8+6" } });
    // Open5e's SRD 5.2 text has no "Hit:" before the damage.
    const bare = parseAttack({
      name: "Rend",
      desc: "Melee Attack Roll: +14, reach 10 ft. 13 (1d10 + 8) Slashing damage plus 5 (2d4) Fire damage.",
      usage: null,
      cost: null,
    });
    expect(bare).toMatchObject({ bonus: 14, reach: "melee", damage: { text: "1d10+2d4+8" } });
    // The two-handed grip is another way to hit, not extra damage.
    const axe = parseAttack({
      name: "Battleaxe",
      desc:
        "Melee Weapon Attack: +4 to hit, reach 5 ft., one target. Hit: 6 (1d8 + 2) " +
        "slashing damage, or 7 (1d10 + 2) slashing damage if used with two hands.",
      usage: null,
      cost: null,
    });
    expect(axe?.damage.text).toBe("1d8+2");
    expect(
      parseAttack({
        name: "Frightful Presence",
        desc: "Each creature of the dragon's choice must succeed on a DC 21 Wisdom saving throw.",
        usage: null,
        cost: null,
      }),
    ).toBeNull();
  });

  test("Multiattack wordings", () => {
    const atks = [parseAttack(bite)!, parseAttack(claw)!];
    const plan = readMultiattack(
      "The dragon can use its Frightful Presence. It then makes " +
        "three attacks: one with its bite and two with its claws.",
      atks,
    );
    expect(plan?.plan.map((p) => `${p.count} ${p.attack.name}`)).toEqual(["1 Bite", "2 Claw"]);
    expect(readMultiattack("The dragon makes three Claw attacks.", atks)?.plan.map((p) => p.count)).toEqual([3]);
    expect(
      readMultiattack("The dragon makes two attacks with its claws.", atks)?.plan.map(
        (p) => `${p.count} ${p.attack.name}`,
      ),
    ).toEqual(["2 Claw"]);
    // No attack named: the hardest-hitting melee attack is counted, and the answer says so.
    const melee = readMultiattack("The knight makes two melee attacks.", atks);
    expect(melee?.plan.map((p) => `${p.count} ${p.attack.name}`)).toEqual(["2 Bite"]);
    expect(melee?.assumed).toContain("names no attack");
    expect(readMultiattack("The dragon uses its Frightful Presence.", atks)).toBeNull();
  });
});

describe("roll_odds through an MCP client", () => {
  let client: Client;
  let close: () => Promise<void>;
  let cleanup: () => void;
  beforeAll(async () => {
    const dragon: Entity = makeEntity("creature", "Adult Red Dragon", {
      cr: 17,
      creature_type: "dragon",
      size: "huge",
    });
    Object.assign(dragon.data, {
      actions: [
        {
          name: "Multiattack",
          desc:
            "The dragon can use its Frightful Presence. It then makes " +
            "three attacks: one with its bite and two with its claws.",
          usage: null,
          cost: null,
        },
        {
          name: "Bite",
          desc:
            "Melee Weapon Attack: +14 to hit, reach 10 ft., one target. " +
            "Hit: 19 (2d10 + 8) piercing damage plus 7 (2d6) fire damage.",
          usage: null,
          cost: null,
        },
        {
          name: "Claw",
          desc: "Melee Weapon Attack: +14 to hit, reach 5 ft., one target. Hit: 15 (2d6 + 8) slashing damage.",
          usage: null,
          cost: null,
        },
      ],
    });
    const made = makeStore([dragon]);
    cleanup = made.cleanup;
    ({ client, close } = await connectInMemory(makeDeps(made.store)));
  });
  afterAll(async () => {
    await close();
    cleanup();
  });
  const call = async (args: Record<string, unknown>) => client.callTool({ name: "roll_odds", arguments: args });

  test("a creature's damage per round matches the hand calculation", async () => {
    const r = await call({ creature: "Adult Red Dragon", ac: 19, edition: "2014" });
    expect(r.isError).toBeFalsy();
    // +14 vs AC 19 hits on a natural 5–19 without a crit (15 in 20) and crits on a 20 (1 in 20).
    // Bite: 11 + 7 + 8 = 26 on a hit; 22 + 14 + 8 = 44 on a crit. Claw: 7 + 8 = 15; 14 + 8 = 22.
    const bite = (15 / 20) * 26 + (1 / 20) * 44;
    const claw = (15 / 20) * 15 + (1 / 20) * 22;
    const c = (r.structuredContent as { creature: { per_round: { exact: string; value: number }; counted: string } })
      .creature;
    expect(c.per_round.value).toBeCloseTo(bite + 2 * claw, 10);
    expect(c.per_round.exact).toBe("232/5");
    expect(c.counted).toContain("2 × Claw");
  });

  test("odds, damage and a real roll", async () => {
    const atk = await call({ bonus: 7, ac: 16, mode: "advantage", dice: "1d8+4" });
    const a = atk.structuredContent as {
      test: { success: { fraction: string; percent: number } };
      damage: { per_attack: { exact: string } };
    };
    expect(a.test.success).toEqual({ fraction: "21/25", percent: 84 });
    // 8.5 on a hit, 13 on a crit: 0.84 − 39/400 plain hits, 39/400 crits.
    expect(a.damage.per_attack.exact).toBe(fractionText(frac((336n - 39n) * 17n * 2n + 39n * 13n * 4n, 1600n)));
    const save = await call({ bonus: 2, dc: 15, dice: "8d6", half_on_save: true });
    expect((save.structuredContent as { damage: { on_save: { exact: string } } }).damage.on_save.exact).toBe(
      fractionText(meanOf(distribution(expr("8d6")).w.length ? halfOf8d6() : distribution(expr("8d6")))),
    );
    for (let i = 0; i < 20; i++) {
      const rolled = (await call({ dice: "4d6kh3", roll: true })).structuredContent as {
        dice: { rolled: { total: number; terms: { rolls: number[]; kept: number[] }[] } };
      };
      expect(rolled.dice.rolled.total).toBeGreaterThanOrEqual(3);
      expect(rolled.dice.rolled.total).toBeLessThanOrEqual(18);
      expect(rolled.dice.rolled.terms[0]!.kept).toHaveLength(3);
    }
  });

  test("wrong requests get a sentence that says what to send", async () => {
    for (const [args, words] of [
      [{}, "Give dice"],
      [{ dice: "2d" }, "- dice: Could not read"],
      [{ ac: 15, dc: 12 }, "not both"],
      [{ creature: "Adult Red Dragn", ac: 18 }, "did you mean"],
      [{ creature: "Adult Red Dragon" }, "AC"],
      [{ roll: true }, "Give dice"],
    ] as const) {
      const r = await call(args);
      expect(r.isError).toBe(true);
      expect(textOf(r)).toContain(words);
    }
  });
});

function halfOf8d6() {
  const d = distribution(expr("8d6"));
  const m = new Map<number, bigint>();
  d.w.forEach((w, i) => {
    m.set(Math.floor((d.min + i) / 2), (m.get(Math.floor((d.min + i) / 2)) ?? 0n) + w);
  });
  const min = Math.min(...m.keys());
  const w = Array.from({ length: Math.max(...m.keys()) - min + 1 }, (_, i) => m.get(min + i) ?? 0n);
  return { min, w, den: d.den };
}
