/**
 * The in-memory name index (search/filter/name-index.ts) answers what the SQL it replaces answers: the
 * `key` and `partial` name steps (SQLite's ASCII-only case folding, `_` and `%` literal) and
 * "did you mean" (every name within the allowed edits, closest first).
 */
import { afterAll, describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import type { EntityKind } from "../../../src/entities/types.ts";
import { slugify } from "../../../src/entities/types.ts";
import { closestNames } from "../../../src/search/rank/explain.ts";
import { escapeLike } from "../../../src/search/filter/filters.ts";
import { editDistance } from "../../../src/search/rank/fuzzy.ts";
import { letterBits, nameIndex } from "../../../src/search/filter/name-index.ts";
import { resolveName } from "../../../src/search/filter/names.ts";
import { buildFilterWhere } from "../../../src/search/filter/filters.ts";
import { makeEntity, makeStore, sampleEntities } from "../../support/entities.ts";

const extra = [
  "Élan Vital",
  "ÆTHER Bolt",
  "Magic Missile",
  "Magic Circle",
  "Mage Armor",
  "Lich",
  "Light",
  "Goblin",
  "Goblin Boss",
  "Ancient Red Dragon",
  "Ancient Blue Dragon",
  "Blizzard",
  "Lizard",
  "Σίσυφος",
];
const { store, cleanup } = makeStore([
  ...sampleEntities(),
  ...extra.map((n, i) => makeEntity(i % 2 ? "creature" : "spell", n, {}, { doc: i % 3 ? "srd-2014" : "tob" })),
  makeEntity("spell", "Goblin", {}, { doc: "homebrew-pack" }),
]);
afterAll(cleanup);
const db: Database = store.db;
const KINDS: EntityKind[][] = [["spell"], ["creature"], ["spell", "creature"], ["weapon", "armor", "rule"]];

/** What the SQL of the partial step matches (ids), among the answering entities of `kinds`. */
function sqlPartial(kinds: readonly string[], text: string): number[] {
  const slug = slugify(text);
  const sql =
    `SELECT id FROM entities WHERE dup_of IS NULL AND kind IN (${kinds.map(() => "?").join(",")}) ` +
    `AND (name LIKE ? ESCAPE '\\' ${slug ? "OR slug LIKE ? ESCAPE '\\'" : ""}) ORDER BY id`;
  const params = [...kinds, `%${escapeLike(text)}%`, ...(slug ? [`%${escapeLike(slug)}%`] : [])];
  return db
    .query<{ id: number }, string[]>(sql)
    .all(...params)
    .map((r) => r.id);
}

/** The scan "did you mean" made before the index: every distinct name, edit distance to each. */
function scanClosest(kinds: readonly string[], name: string, max = 3): string[] {
  const want = name.trim().toLowerCase().replace(/[*%]/g, "");
  if (want.length < 3) return [];
  const limit = Math.max(2, Math.floor(want.length / 4));
  const names = db
    .query<{ name: string }, string[]>(
      `SELECT DISTINCT name FROM entities WHERE dup_of IS NULL ` +
        `AND kind IN (${kinds.map(() => "?").join(",")}) ORDER BY id`,
    )
    .all(...kinds)
    .map((r) => r.name);
  const seen = new Set<string>();
  const found: Array<{ name: string; d: number }> = [];
  for (const n of names) {
    const low = n.toLowerCase();
    if (seen.has(low)) continue;
    const d = editDistance(want, low, limit);
    if (d <= limit) {
      seen.add(low);
      found.push({ name: n, d });
    }
  }
  return found
    .sort((a, b) => a.d - b.d || a.name.localeCompare(b.name))
    .slice(0, max)
    .map((f) => f.name);
}

/**
 * `name` with one to three edits (substitution, deletion, insertion or a swap of neighbours), chosen by `seed`. Pure.
 */
function mutate(name: string, seed: number): string {
  let x = name;
  let r = seed * 7919 + 17;
  const next = (n: number) => {
    r = (r * 1103515245 + 12345) & 0x7fffffff;
    return r % Math.max(1, n);
  };
  const letters = "abcdefghijklmnopqrstuvwxyz 'é-";
  for (let k = 1 + next(3); k > 0; k--) {
    const i = next(x.length);
    const c = letters[next(letters.length)]!;
    const op = next(4);
    if (op === 0) x = x.slice(0, i) + c + x.slice(i + 1);
    else if (op === 1) x = x.slice(0, i) + x.slice(i + 1);
    else if (op === 2) x = x.slice(0, i) + c + x.slice(i);
    else if (i + 1 < x.length) x = x.slice(0, i) + x[i + 1] + x[i] + x.slice(i + 2);
  }
  return x;
}

const INPUTS = [
  "fire",
  "FIRE",
  "Fire Bolt",
  "ball",
  "bolt",
  "élan",
  "ÉLAN",
  "æther",
  "aether",
  "σίσυφος",
  "_",
  "%",
  "100%",
  "goblin-boss",
  "dragon",
  "ancient-red",
  "zzz",
  "wall of",
];
const TYPOS = [
  "Firebal",
  "Magic Misile",
  "Gobblin",
  "Ancient Rde Dragon",
  "Wizzard",
  "Lihc",
  "mage armour",
  "Fire Blot",
  "Élan Vitall",
  "Sisyfos",
  "Blizard",
  "xxxxxxxxxxxx",
];

describe("name index", () => {
  test("partial matches: the ids SQL's LIKE finds (ASCII folding only, `_` and `%` literal)", () => {
    for (const kinds of KINDS) {
      for (const text of INPUTS) {
        const ids = nameIndex(db).partialIds(kinds, text, slugify(text) || undefined);
        expect({ kinds, text, ids: [...(ids ?? [])].sort((a, b) => a - b) }).toEqual({
          kinds,
          text,
          ids: sqlPartial(kinds, text),
        });
      }
    }
    expect(nameIndex(db).partialIds(["spell"], "a\nb", undefined)).toBeUndefined();
  });

  test("keys: the ids `key = ? COLLATE NOCASE` finds, ascending", () => {
    const keys = db
      .query<{ kind: string; key: string }, []>("SELECT kind, key FROM entities WHERE dup_of IS NULL")
      .all();
    const sqlKey = (kinds: readonly string[], key: string) =>
      db
        .query<{ id: number }, string[]>(
          `SELECT id FROM entities WHERE dup_of IS NULL AND kind IN ` +
            `(${kinds.map(() => "?").join(",")}) AND key = ? COLLATE NOCASE ORDER BY id`,
        )
        .all(...kinds, key)
        .map((r) => r.id);
    expect(keys.length).toBeGreaterThan(20);
    for (const { kind, key } of keys.slice(0, 20)) {
      for (const kinds of [[kind], [kind === "spell" ? "creature" : "spell"], ...KINDS]) {
        for (const k of [key, key.toUpperCase(), `${key}x`])
          expect({ kinds, k, ids: nameIndex(db).keyIds(kinds, k) }).toEqual({ kinds, k, ids: sqlKey(kinds, k) });
      }
      expect(nameIndex(db).keyIds([kind], key).length).toBeGreaterThan(0);
    }
  });

  test("did you mean: the names the full scan finds, in the same order", () => {
    for (const kinds of KINDS)
      for (const t of [...TYPOS, ...INPUTS])
        expect({ kinds, t, near: closestNames(db, kinds, null, t) }).toEqual({ kinds, t, near: scanClosest(kinds, t) });
    expect(closestNames(db, ["spell", "creature"], null, "Magic Misile")).toEqual(["Magic Missile", "Magic Circle"]);
  });

  test(
    "did you mean, over many misspellings of the stored names " +
      "(one to three edits, any letters): the full scan's answer",
    () => {
      const names = db
        .query<{ name: string }, []>("SELECT DISTINCT name FROM entities WHERE dup_of IS NULL ORDER BY id")
        .all()
        .map((r) => r.name);
      const mutated = names.flatMap((n, i) => [mutate(n, i), mutate(n, i + 101), mutate(n, i + 202)]);
      expect(mutated.length).toBeGreaterThan(60);
      // Each twice: the index's scratch counts start from zero every time.
      for (const kinds of KINDS)
        for (const t of mutated)
          for (let k = 0; k < 2; k++)
            expect({ kinds, t, near: closestNames(db, kinds, null, t) }).toEqual({
              kinds,
              t,
              near: scanClosest(kinds, t),
            });
    },
  );

  test("letterBits: strings whose character sets differ in b bits are at least ⌈b ÷ 2⌉ edits apart", () => {
    const words = [
      "fireball",
      "firebolt",
      "goblin",
      "golbin",
      "élan vital",
      "σίσυφος",
      "wizard",
      "lizard",
      "ab",
      "ba",
      "",
      "zz top",
      "a-b c'd",
    ];
    const pairs = words.flatMap((a) =>
      [...words, ...words.map((w, i) => mutate(w, i))].map((b) => [a, b.toLowerCase()] as const),
    );
    for (const [a, b] of pairs) {
      let bits = letterBits(a) ^ letterBits(b);
      let count = 0;
      for (; bits !== 0; bits &= bits - 1) count++;
      expect({ a, b, atLeast: Math.ceil(count / 2) <= editDistance(a, b, 99) }).toEqual({ a, b, atLeast: true });
    }
    expect(letterBits("ab")).toBe(letterBits("ba"));
    expect(letterBits("a")).not.toBe(letterBits("b"));
  });

  test("exact names: what `name = ?` (NOCASE) finds among the answering entities of the kinds", () => {
    const names = db
      .query<{ name: string }, []>("SELECT DISTINCT name FROM entities WHERE dup_of IS NULL")
      .all()
      .map((r) => r.name);
    const sqlHas = (kinds: readonly string[], name: string) =>
      db
        .query<{ x: number }, string[]>(
          `SELECT 1 AS x FROM entities WHERE dup_of IS NULL AND kind ` +
            `IN (${kinds.map(() => "?").join(",")}) AND name = ? LIMIT 1`,
        )
        .get(...kinds, name) !== null;
    const inputs = [
      ...names,
      ...names.map((n) => n.toUpperCase()),
      ...names.map((n) => n.toLowerCase()),
      ...INPUTS,
      ...TYPOS,
      "élan vital",
      "ÉLAN VITAL",
      "Goblin ",
      "",
    ];
    let found = 0;
    for (const kinds of KINDS) {
      for (const name of inputs) {
        const has = nameIndex(db).hasName(kinds, name);
        expect({ kinds, name, has }).toEqual({ kinds, name, has: sqlHas(kinds, name) });
        if (has) found++;
      }
    }
    expect(found).toBeGreaterThan(50);
    // A NUL or a lone surrogate: SQL decides.
    expect(nameIndex(db).hasName(["spell"], "Fire\u0000ball")).toBeUndefined();
    expect(nameIndex(db).hasName(["spell"], "Fire\uD800")).toBeUndefined();
  });

  test("the exact step answered from the index (no filter) is SQL's pick; with filters SQL still decides", () => {
    nameIndex(db);
    const plain = buildFilterWhere(["spell", "creature"], {}, null);
    const filtered = buildFilterWhere(["spell", "creature"], {}, ["srd-2014"]);
    if (!plain.ok || !filtered.ok) throw new Error("filters");
    expect(plain.where.onlyKinds).toEqual(["spell", "creature"]);
    expect(filtered.where.onlyKinds).toBeUndefined();
    const sqlOnly = { sql: plain.where.sql, params: plain.where.params };
    for (const name of [
      "Goblin",
      "GOBLIN",
      "goblin boss",
      "Magic Missile",
      "Gobblin",
      "ancient",
      "Élan Vital",
      "élan vital",
      "fire*",
    ]) {
      const viaIndex = resolveName(db, plain.where, name, ["spell", "creature"]);
      const viaSql = resolveName(db, sqlOnly, name, ["spell", "creature"]);
      expect({ name, how: viaIndex?.how, clause: viaIndex?.clause }).toEqual({
        name,
        how: viaSql?.how,
        clause: viaSql?.clause,
      });
    }
    expect(resolveName(db, filtered.where, "Goblin", ["spell", "creature"])?.how).toBe("exact");
  });

  test("a name step no entity of the kinds can satisfy is not needed to find the one that does", () => {
    const where = buildFilterWhere(["creature"], {}, null);
    if (!where.ok) throw new Error(where.message);
    expect(resolveName(db, where.where, "Goblin", ["creature"])?.how).toBe("exact");
    const partial = resolveName(db, where.where, "ancient", ["creature"]);
    expect(partial?.how).toBe("partial");
    expect(partial?.clause.sql).toMatch(/^e\.id IN \(\d+(,\d+)*\)$/);
    expect(resolveName(db, where.where, "Gobblin", ["creature"])).toBeNull();
    // Without kinds every step is asked of SQL, with the same outcome.
    expect(resolveName(db, where.where, "ancient", undefined)?.how).toBe("partial");
    expect(resolveName(db, where.where, "Gobblin", undefined)).toBeNull();
  });
});
