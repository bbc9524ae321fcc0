/**
 * Profiles of core spells and magic items in the tools' answers (shown in searches and name
 * lookups, left out of structured lists), and rule rows found by meaning: the passage that answers,
 * and the edition a rule comes from when the preferred edition has none.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spellEntity } from "../../src/entities/normalize/canonical/spell.ts";
import { magicItemEntity } from "../../src/entities/normalize/canonical/equipment.ts";
import { ruleEntity } from "../../src/entities/normalize/canonical/reference.ts";
import { itemProfile, spellProfile } from "../../src/entities/profiles.ts";
import type { SpellData } from "../../src/entities/kinds.ts";
import { runSearch } from "../../src/search/hybrid.ts";
import type { Store } from "../../src/store/db.ts";
import { DataGate } from "../../src/tools/kit/data-gate.ts";
import type { ToolDeps } from "../../src/tools/kit/deps.ts";
import { TOOLS } from "../../src/tools/index.ts";
import { PROFILE_ROWS, rowsOf } from "../../src/tools/answer/rows.ts";
import type { SearchHit } from "../../src/search/types.ts";
import { makeStore } from "../support/entities.ts";
import { ctxOf } from "../search/helpers.ts";

const DOC_NAMES: Record<string, string> = {
  "srd-2014": "System Reference Document 5.1",
  "srd-2024": "System Reference Document 5.2",
  tob: "Tome of Beasts",
};
const base = (name: string, docKey: string) => ({
  key: `${docKey}_${name.toLowerCase().replace(/\W+/g, "-")}`,
  name,
  doc: { key: docKey, name: DOC_NAMES[docKey]! },
  url: "http://127.0.0.1/x",
});

function spell(name: string, docKey: string, desc: string, level = 1): ReturnType<typeof spellEntity> {
  const d: SpellData = {
    level,
    school: "transmutation",
    casting_time: "1 action",
    range: "60 feet",
    range_ft: 60,
    duration: "1 minute",
    concentration: false,
    ritual: false,
    components: {
      verbal: true,
      somatic: false,
      material: false,
      material_text: null,
      material_cost: null,
      material_consumed: null,
    },
    desc,
    higher_level: null,
    classes: ["wizard"],
    damage_types: [],
    saving_throw: null,
    attack_roll: null,
    damage_roll: null,
    area: null,
    reaction_condition: null,
  };
  return spellEntity("open5e_v2", base(name, docKey), d);
}

const ORDER = [
  "A typical combat encounter is a clash between two sides. The game organizes it into rounds and turns.",
  "### Surprise",
  "Any creature that doesn't notice a threat is surprised at the start of the encounter. " +
    "If you're surprised, you can't move or take an action on your first turn.",
].join("\n");

const FALLING = "Choose up to five falling creatures. A falling creature's rate of descent slows until the spell ends.";
const SWORD = "You can speak this magic sword's command word as a bonus action, making flames erupt from the blade.";
const REACTIONS =
  "Certain abilities allow a special action called a reaction. " +
  "When you take a reaction, you can't take another one until the start of your next turn.";

let store: Store;
let cleanup: () => void;
beforeAll(() => {
  ({ store, cleanup } = makeStore([
    spell("Feather Fall", "srd-2024", FALLING),
    spell("Feather Fall", "srd-2014", FALLING),
    spell("Featherlight Step", "tob", "Your steps become light as a feather falling on snow."),
    magicItemEntity("open5e_v2", base("Flame Tongue (Longsword)", "srd-2014"), {
      type: "weapon",
      rarity: "rare",
      requires_attunement: true,
      attunement_detail: null,
      desc: SWORD,
      base_item: "longsword",
      damage_dice: null,
      damage_type: null,
      cost: null,
      cost_gp: null,
      weight_lb: null,
    }),
    ruleEntity("open5e_v2", base("Reactions", "srd-2014"), {
      desc: REACTIONS,
      section: "Combat Sequence",
      section_key: null,
      order: 5,
    }),
    ruleEntity("open5e_v2", base("The Order of Combat", "srd-2024"), {
      desc: ORDER,
      section: "Combat",
      section_key: null,
      order: 1,
    }),
  ]));
});
afterAll(() => cleanup());

type Row = Record<string, unknown>;

async function call(tool: string, args: Record<string, unknown>): Promise<{ results: Row[]; text: string }> {
  const ctx = ctxOf(store);
  const search: ToolDeps["search"] = (q) => runSearch(ctx, { ...q, omitText: true });
  const deps: ToolDeps = { db: store.db, search, responseBudgetChars: 60_000 };
  const def = TOOLS.find((t) => t.name === tool)!;
  const res = await def.call(args, { deps, gate: new DataGate(deps), progress: () => {} });
  const text = res.content.map((b) => (b.type === "text" ? b.text : "")).join("");
  return { results: (res.structuredContent as { results: Row[] }).results, text };
}

describe("spell and magic item profiles", () => {
  test("a core spell's text leads with its profile and names; another document's look-alike gets none", () => {
    const p = spellProfile("Feather Fall", "srd-2014")!;
    const e = spell("Feather Fall", "srd-2014", "A falling creature's rate of descent slows.");
    expect(e.text.indexOf(p.profile)).toBeGreaterThan(0);
    expect(e.text.indexOf(p.profile)).toBeLessThan(e.text.indexOf("Casting time"));
    expect(e.data.common_names).toEqual(p.names);
    expect(spell("Feather Fall", "tob", "x").data.profile).toBeUndefined();
  });

  test("one item profile serves every variant of its family", () => {
    expect(itemProfile("Flame Tongue (Longsword)", "srd-2014")?.name).toBe("Flame Tongue");
    expect(itemProfile("Flame Tongue (Longsword)", "tob")).toBeNull();
  });

  test("searches and name lookups show the profile; structured lists leave it out", async () => {
    const search = await call("search_spell", { search: "falling", limit: 5 });
    const ff = search.results.find((r) => r.name === "Feather Fall")!;
    expect(String(ff.profile)).toStartWith(spellProfile("Feather Fall", "srd-2024")!.profile.split(".")[0]!);
    const list = await call("search_spell", { level: 1, limit: 5 });
    expect(list.results.length).toBeGreaterThan(0);
    for (const r of list.results) expect(r.profile).toBeUndefined();
    const lookup = await call("search_spell", { name: "Feather Fall" });
    expect(lookup.results[0]!.profile).toBe(spellProfile("Feather Fall", "srd-2024")!.profile);
    const items = await call("search_equipment", { search: "flaming sword", limit: 5 });
    expect(items.results.find((r) => r.name === "Flame Tongue (Longsword)")?.profile).toBeDefined();
  });
});

describe("a search's rows past the first few", () => {
  test("carry no profile or other documents; a profile shown above is not repeated", () => {
    const other = { kind: "spell", key: "srd-2014_x", document_key: "srd-2014", document_source: "open5e_v2" };
    const names = ["Feather Fall", "Fly", "Levitate", "Jump", "Spider Climb", "Misty Step"];
    const hits: SearchHit[] = names.map((n, i) => ({
      entity: { ...spell(n, "srd-2024", FALLING), id: i + 1 },
      similarity_score: 1 - i / 10,
      others: [other],
    }));
    const rows = rowsOf(hits, "summary", { profile: true });
    expect(PROFILE_ROWS).toBeLessThan(names.length);
    rows.forEach((r, i) => {
      const first = i < PROFILE_ROWS;
      expect(r.other_documents !== undefined).toBe(first);
      expect(r.profile !== undefined).toBe(first && spellProfile(names[i]!, "srd-2024") !== null);
      expect(r.name).toBe(names[i]);
    });
    // A structured list (no profiles) names the other documents on its first rows only, too.
    const listed = rowsOf(hits, "summary", { profile: false });
    expect(listed.map((r) => r.other_documents !== undefined)).toEqual(listed.map((_, i) => i < PROFILE_ROWS));
    // A family's variants share one profile: the second row says nothing new.
    const sword = magicItemEntity("open5e_v2", base("Flame Tongue (Longsword)", "srd-2014"), {
      type: "weapon",
      rarity: "rare",
      requires_attunement: true,
      attunement_detail: null,
      desc: SWORD,
      base_item: "longsword",
      damage_dice: null,
      damage_type: null,
      cost: null,
      cost_gp: null,
      weight_lb: null,
    });
    const twice = rowsOf([{ entity: { ...sword, id: 1 } }, { entity: { ...sword, id: 2 } }], "summary", {
      profile: true,
    });
    expect(twice[0]!.profile).toBeDefined();
    expect(twice[1]!.profile).toBeUndefined();
    // A full row keeps everything.
    expect(rowsOf(hits, "full", { profile: true })[PROFILE_ROWS]!.profile).toBeDefined();
  });
});

describe("rule rows found by meaning", () => {
  test("carry the passage that answers instead of the opening words; the full entry is the uri", async () => {
    const { results } = await call("search_rule", { search: "surprised at the start of combat", limit: 5 });
    const row = results.find((r) => r.name === "The Order of Combat")!;
    expect(String(row.passage)).toStartWith("Any creature that doesn't notice a threat is surprised");
    expect(String(row.passage).length).toBeLessThanOrEqual(300);
    expect(row.summary).toBeUndefined();
    expect(String(row.uri)).toStartWith("lorekeeper://rule/");
  });

  test("a rule of the other edition says the preferred one has none; asked for by document, no note", async () => {
    const { results } = await call("search_rule", { search: "how many reactions per round", limit: 5 });
    const row = results.find((r) => r.name === "Reactions")!;
    expect(String(row.edition_note)).toContain("SRD 5.1 (2014)");
    expect(String(row.edition_note)).toContain("SRD 5.2 (2024), the preferred edition, has none of this name");
    const args = { search: "how many reactions per round", documents: ["srd-2014"], limit: 5 };
    const asked = await call("search_rule", args);
    expect(asked.results.find((r) => r.name === "Reactions")?.edition_note).toBeUndefined();
    // A list is not a search by meaning: opening words as usual.
    const list = await call("search_rule", { rule_type: "rule" });
    for (const r of list.results) expect(r.passage).toBeUndefined();
  });
});
