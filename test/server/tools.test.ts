/**
 * Every tool through a real MCP client (in-memory transport) over a real SQLite store holding
 * small hand-made entities: listing and schemas, spec scenarios, errors, list_documents, resources
 * and the response budget.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { makeEntity, makeStore, sampleEntities } from "../support/entities.ts";
import { answerOf, connectInMemory, makeDeps, namesOf, textOf, TOOL_NAMES } from "../support/mcp.ts";
import { TOOL_CASES } from "../support/tool-calls.ts";
import { embedAll, readyProvider, TopicEmbedder } from "../search/helpers.ts";
import { DOCUMENT_SOURCES } from "../../src/entities/types.ts";

let client: Client;
let close: () => Promise<void>;
let cleanup: () => void;

beforeAll(async () => {
  const made = makeStore();
  cleanup = made.cleanup;
  const embedder = new TopicEmbedder();
  await embedAll(made.store.db, embedder);
  ({ client, close } = await connectInMemory(makeDeps(made.store, { embedder: readyProvider(embedder) })));
  await client.listTools(); // lets the client validate structured results against the output schemas
});

afterAll(async () => {
  await close();
  cleanup();
});

const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args });
const errorText = async (name: string, args: Record<string, unknown>) => {
  const r = await call(name, args);
  expect(r.isError).toBe(true);
  return textOf(r);
};

const LOOKUP = [
  "search_spell",
  "search_creature",
  "search_character_option",
  "search_equipment",
  "search_rule",
  "search_all",
  "list_documents",
];

describe("tools/list", () => {
  test(
    "every registered tool, the seven named by the spec among " +
      "them, with descriptions, examples, lean schemas and annotations",
    async () => {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toEqual([...TOOL_NAMES]);
      for (const fixed of LOOKUP) expect(TOOL_NAMES).toContain(fixed);
      for (const t of tools) {
        expect(t.description).toContain("E.g. {");
        expect(t.inputSchema.additionalProperties).toBe(false);
        expect(t.outputSchema?.type).toBe("object");
        // Lookup answers page; build_encounter and class_progression answer one computed object.
        if (LOOKUP.includes(t.name))
          expect(t.outputSchema?.required).toEqual(expect.arrayContaining(["total", "has_more"]));
        expect(t.annotations?.readOnlyHint).toBe(true);
        // openWorldHint defaults to true (MCP spec): a tool states it only to say false.
        expect(t.annotations?.openWorldHint).not.toBe(true);
        // No noise: schema URLs, safe-integer bounds, task support that is not offered.
        expect(JSON.stringify(t)).not.toContain("$schema");
        expect(JSON.stringify(t)).not.toContain(String(Number.MAX_SAFE_INTEGER));
        expect("execution" in t).toBe(false);
        // minItems (like maxLength) is checked when a call arrives, not advertised.
        expect(JSON.stringify(t)).not.toContain("minItems");
      }
      // search_all is for an unknown kind; the specific tools say what they hold.
      expect(tools.find((t) => t.name === "search_all")!.description).toContain("only when the kind is unknown");
      // An empty filter list is still refused, with a message naming the parameter.
      const empty = await client.callTool({ name: "search_creature", arguments: { speed: [] } });
      expect(empty.isError).toBe(true);
      expect(JSON.stringify(empty.content)).toContain("speed");
    },
  );

  test("a tool that says it never reaches upstream (openWorldHint: false) never asks for a download", async () => {
    const empty = makeStore([]);
    try {
      const closed: string[] = [];
      for (const t of (await client.listTools()).tools) {
        const asked: string[][] = [];
        const ensureData = async (kinds: readonly string[]) => void asked.push([...kinds]);
        // Its own deps, so its own first-use gate: what one tool loaded does not hide another's load.
        const conn = await connectInMemory(makeDeps(empty.store, { ensureData }));
        try {
          await conn.client.callTool({ name: t.name, arguments: TOOL_CASES[t.name]!.ok });
        } finally {
          await conn.close();
        }
        if (t.annotations?.openWorldHint === false) {
          closed.push(t.name);
          expect({ tool: t.name, asked }).toEqual({ tool: t.name, asked: [] });
        } else if (LOOKUP.includes(t.name)) {
          // The search tools are open-world because their first call downloads what the store lacks.
          expect({ tool: t.name, asked: asked.length > 0 }).toEqual({ tool: t.name, asked: true });
        }
      }
      expect(closed).toContain("list_documents");
    } finally {
      empty.cleanup();
    }
  });

  // tools/list is paid for in every context: the targets (not today's sizes) are ≤ 12,000 characters for
  // the seven lookup tools and ≤ 15,000 for those nine with build_encounter and class_progression.
  // The benchmark holds the targets (bench/phases/answer-size.ts, docs/benchmark.md); this test is the
  // guard against a jump, with a stated margin of 5% over them (600 / 750 characters) so that an
  // ordinary change (a filter parameter, a source id in list_documents' enum) does not trip it.
  // The MCP Apps card links (`_meta.ui.resourceUri`, docs/cards.md) are read by hosts, not handed
  // to the model, so they are measured apart: at most 320 characters for all of them.
  test("tools/list is within its size target", async () => {
    const listed = (await client.listTools()).tools;
    const cardLinks = JSON.stringify(listed).length - JSON.stringify(listed.map(({ _meta, ...t }) => t)).length;
    expect(cardLinks).toBeGreaterThan(0);
    expect(cardLinks).toBeLessThanOrEqual(320);
    const tools = listed.map(({ _meta, ...t }) => t);
    const lookup = tools.filter((t) => LOOKUP.includes(t.name));
    const nine = tools.filter((t) => [...LOOKUP, "build_encounter", "class_progression"].includes(t.name));
    expect(nine).toHaveLength(9);
    const margin = 1.05;
    expect(JSON.stringify({ tools: lookup }).length).toBeLessThanOrEqual(12_000 * margin);
    expect(JSON.stringify({ tools: nine }).length).toBeLessThanOrEqual(15_000 * margin);
  });

  test("portable schemas: no `type: [..]` union (challenge ratings are numbers, nullable fields anyOf)", async () => {
    const { tools } = await client.listTools();
    const unions: string[] = [];
    const walk = (v: unknown, path: string): void => {
      if (Array.isArray(v))
        v.forEach((x, i) => {
          walk(x, `${path}[${i}]`);
        });
      else if (v && typeof v === "object") {
        for (const [k, x] of Object.entries(v)) {
          if (k === "type" && Array.isArray(x)) unions.push(`${path}.type`);
          walk(x, `${path}.${k}`);
        }
      }
    };
    walk(tools, "tools");
    expect(unions).toEqual([]);
    const creature = tools.find((t) => t.name === "search_creature")!.inputSchema.properties as Record<
      string,
      Record<string, unknown>
    >;
    for (const p of ["cr", "cr_min", "cr_max"]) expect(creature[p]!.type).toBe("number");
    const docs = tools.find((t) => t.name === "list_documents")!.outputSchema!.properties!.documents as {
      items: { properties: Record<string, unknown> };
    };
    expect(docs.items.properties.publisher).toEqual({ anyOf: [{ type: "string" }, { type: "null" }] });
    // Fractions are still understood as the numbers they are, and the written forms too.
    for (const cr of [0.25, "1/4", "0.25"]) {
      const r = await call("search_creature", { cr, limit: 1 });
      expect(r.isError ?? false).toBe(false);
    }
  });

  test("fixed vocabularies are enums, bounds are in the schema", async () => {
    const { tools } = await client.listTools();
    const props = (name: string) =>
      tools.find((t) => t.name === name)!.inputSchema.properties as Record<string, Record<string, unknown>>;
    expect(props("search_spell").school!.enum).toContain("evocation");
    expect(props("search_spell").level).toMatchObject({ type: "integer", minimum: 0, maximum: 9 });
    expect(props("search_spell").limit).toMatchObject({ minimum: 1, maximum: 100, default: 20 });
    expect(props("search_creature").size!.enum).toEqual(["tiny", "small", "medium", "large", "huge", "gargantuan"]);
    expect(props("search_creature").type!.enum).toContain("undead");
    // (no asymmetric matcher inside toMatchObject here: bun writes it into the received object,
    // which is the server's shared tools/list answer over the in-memory transport)
    expect(props("search_creature").cr!.type).toBe("number");
    expect(String(props("search_creature").cr!.description)).toContain("0.25");
    expect(props("search_equipment").type).toMatchObject({
      enum: ["weapon", "armor", "item", "magic-item", "all"],
      default: "all",
    });
    expect(props("search_equipment").rarity!.enum).toContain("very rare");
    expect(props("search_rule").rule_type!.enum).toContain("damage-type");
    expect(props("search_character_option").type!.enum).toEqual([
      "class",
      "subclass",
      "species",
      "race",
      "subspecies",
      "background",
      "feat",
    ]);
    expect(props("list_documents").source!.enum).toEqual([...DOCUMENT_SOURCES]); // every source, a new one included
    expect(props("list_documents").format).toMatchObject({ enum: ["json", "text"], default: "json" });
    expect(tools.find((t) => t.name === "search_all")!.inputSchema.required).toEqual(["query"]);
  });
});

describe("results", () => {
  test("structured content and the text block carry the same complete answer", async () => {
    const r = await call("search_spell", { name: "fireball" });
    const a = answerOf(r);
    expect(JSON.parse((r.content as Array<{ type: string; text?: string }>)[0]!.text!)).toEqual(a);
    // One entry per name: the newer SRD's, naming the other version; a lookup comes whole.
    expect(a).toMatchObject({
      count: 1,
      total: 1,
      offset: 0,
      has_more: false,
      detail: "full",
      search_mode: "structured",
    });
    expect(a.metadata.sources).toEqual(["open5e_v2"]);
    expect(Date.parse(a.metadata.generated_at)).not.toBeNaN();
    const first = a.results[0]!;
    expect(first).toMatchObject({
      key: "srd-2024_fireball",
      name: "Fireball",
      kind: "spell",
      document_key: "srd-2024",
      document_name: "System Reference Document 5.2",
      document_source: "open5e_v2",
      uri: "lorekeeper://spell/srd-2024_fireball",
      level: 3,
    });
    expect(first.other_versions).toEqual({ "srd-2014": "lorekeeper://spell/srd_fireball" });
    expect("similarity_score" in first).toBe(false);
    // Every result is also a resource link.
    // Text and structuredContent only (no resource_link per row: each row's uri names its full entry).
    expect((r.content as Array<{ type: string }>).map((c) => c.type)).toEqual(["text"]);
  });

  test("a name lookup limited to one document (spec: search_spell(name, documents))", async () => {
    const a = answerOf(await call("search_spell", { name: "Fireball", documents: ["srd-2024"] }));
    expect(a.results.map((r) => `${r.name}/${r.document_key}`)).toEqual(["Fireball/srd-2024"]);
  });

  test("filters are case-insensitive and accept string numbers", async () => {
    expect(namesOf(await call("search_spell", { school: "DIVINATION", ritual: "true", limit: "5" }))).toEqual([
      "Detect Magic",
      "Identify",
    ]);
    expect(namesOf(await call("search_spell", { level_min: 4, level_max: 4, concentration: true }))).toEqual([
      "Wall of Fire",
    ]);
    expect(namesOf(await call("search_spell", { class_key: "Paladin" }))).toEqual(["Cure Wounds"]);
    expect(namesOf(await call("search_spell", { casting_time: "1 Bonus Action" }))).toEqual(["Healing Word"]);
  });

  test("ranked search: scores 0..1, best first, within the filters (spec: hybrid spell search)", async () => {
    const a = answerOf(await call("search_spell", { search: "protect from fire", level: 4 }));
    expect(a.search_mode).toBe("hybrid");
    const names = a.results.map((r) => r.name);
    expect(names.indexOf("Fire Shield")).toBeLessThan(names.indexOf("Ice Storm"));
    expect(a.results.every((r) => (r.level as number) === 4)).toBe(true);
    const scores = a.results.map((r) => r.similarity_score as number);
    expect(scores.every((s) => s >= 0 && s <= 1)).toBe(true);
    expect([...scores].sort((x, y) => y - x)).toEqual(scores);
  });

  test("creatures: concept search within a type, CR fractions and ranges", async () => {
    const undead = namesOf(await call("search_creature", { search: "undead that drain life", type: "Undead" }));
    expect(undead.slice(0, 2).sort()).toEqual(["Vampire", "Wraith"]);
    expect(undead).not.toContain("Goblin");
    expect(namesOf(await call("search_creature", { cr: "1/4" }))).toEqual(["Goblin", "Zombie"]);
    expect(namesOf(await call("search_creature", { cr: 0.125 }))).toEqual(["Kobold"]);
    expect(namesOf(await call("search_creature", { type: "dragon", cr_min: 8, cr_max: 17, limit: 5 }))).toEqual([
      "Dragon Turtle",
      "Young Green Dragon",
    ]);
    expect(namesOf(await call("search_creature", { name: "ancient-red-dragon" }))).toEqual(["Ancient Red Dragon"]);
    expect(namesOf(await call("search_creature", { name: "*dragon*", documents: ["srd-2014"] }))).toEqual([
      "Ancient Red Dragon",
      "Dragon Turtle",
      "Young Green Dragon",
    ]);
  });

  test("character options by type", async () => {
    expect(namesOf(await call("search_character_option", { type: "class", search: "divine warrior" }))[0]).toBe(
      "Paladin",
    );
    expect(
      namesOf(await call("search_character_option", { type: "CLASSES", name: "wizard", documents: ["srd-2014"] })),
    ).toEqual(["Wizard"]);
    expect(namesOf(await call("search_character_option", { type: "race" }))).toEqual([]);
  });

  test("equipment: one list ranked across kinds, and per-kind filters", async () => {
    const all = answerOf(await call("search_equipment", { search: "weapon that returns when thrown" }));
    expect(all.results[0]!.name).toBe("Dwarven Thrower");
    expect(all.results[0]!.kind).toBe("magic_item");
    const kinds = all.results.map((r) => r.kind);
    expect(kinds).toContain("weapon");
    expect(kinds).toContain("armor");
    expect(namesOf(await call("search_equipment", { type: "weapon", is_simple: true }))).toEqual(["Dagger", "Handaxe"]);
    expect(namesOf(await call("search_equipment", { type: "magic_item", rarity: "Very_Rare" }))).toEqual([
      "Dwarven Thrower",
    ]);
    expect(namesOf(await call("search_equipment", { type: "armor" }))).toEqual(["Chain Mail"]);
    expect(namesOf(await call("search_equipment", { type: "weapon", damage_dice: "1D8" }))).toEqual(["Longsword"]);
    expect(
      namesOf(await call("search_equipment", { type: "weapon", name: "longsword", documents: ["srd-5e"] })),
    ).toEqual(["Longsword"]);
  });

  test("rules: rule_type and section", async () => {
    expect(namesOf(await call("search_rule", { rule_type: "rule", section: "Combat" }))).toEqual([
      "Opportunity Attacks",
    ]);
    const fall = answerOf(await call("search_rule", { rule_type: "rule", search: "what happens when I fall" }));
    expect(fall.search_mode).toBe("hybrid");
    expect(fall.results.map((r) => r.name).sort()).toEqual(["Falling", "Opportunity Attacks"]);
    expect(namesOf(await call("search_rule", { rule_type: "Conditions", name: "grappled" }))).toEqual(["Grappled"]);
  });

  test("search_all ranks across content types and honours content_types and documents", async () => {
    const heal = namesOf(await call("search_all", { query: "spells that heal wounds" }));
    expect(heal[0]).toBe("Cure Wounds");
    const dragons = answerOf(await call("search_all", { query: "dragon", content_types: ["creature"] }));
    expect(dragons.results.length).toBeGreaterThan(0);
    expect(dragons.results.every((r) => r.kind === "creature")).toBe(true);
    const mixed = answerOf(
      await call("search_all", { query: "fire", content_types: ["magic_item", "Spells"], documents: ["tob"] }),
    );
    expect(mixed.results.map((r) => r.name)).toEqual(["Hellfire Orb"]);
  });

  test("documents: [] gives nothing; unknown keys give nothing plus a message naming the available ones", async () => {
    expect(answerOf(await call("search_spell", { documents: [] })).count).toBe(0);
    const a = answerOf(await call("search_all", { query: "spell", documents: ["non-existent"] }));
    expect(a.count).toBe(0);
    expect(a.message).toContain("non-existent");
    expect(a.message).toContain("srd-2014");
  });

  test(
    "lists without `search`: the SRD's entries first, then by name, " +
      "as the descriptions say; `documents` or `all_versions`: by name",
    async () => {
      const { tools } = await client.listTools();
      for (const t of tools.filter((x) => x.name.startsWith("search_") && x.name !== "search_all"))
        expect(t.description).toContain("Lists: SRD first, then A–Z.");
      expect(namesOf(await call("search_creature", { type: "dragon" }))).toEqual([
        "Ancient Red Dragon",
        "Dragon Turtle",
        "Young Green Dragon",
        "Fire Drake",
      ]);
      // Paging keeps the order.
      const page2 = answerOf(await call("search_creature", { type: "dragon", limit: 2, offset: 2 }));
      expect(page2.results.map((x) => x.name)).toEqual(["Young Green Dragon", "Fire Drake"]);
      expect(page2.total).toBe(4);
      expect(namesOf(await call("search_creature", { type: "dragon", documents: ["srd-2014", "tob"] }))).toEqual([
        "Ancient Red Dragon",
        "Dragon Turtle",
        "Fire Drake",
        "Young Green Dragon",
      ]);
      expect(namesOf(await call("search_creature", { type: "dragon", all_versions: true }))).toEqual([
        "Ancient Red Dragon",
        "Dragon Turtle",
        "Fire Drake",
        "Young Green Dragon",
      ]);
      // Homebrew last.
      const spells = answerOf(await call("search_spell", { school: "evocation", limit: 50 })).results.map((x) =>
        String(x.document_key),
      );
      expect(spells.indexOf("homebrew-pack")).toBeGreaterThan(spells.lastIndexOf("tob"));
      expect(spells.lastIndexOf("srd-2014")).toBeLessThan(spells.indexOf("tob"));
    },
  );

  test("limit is respected exactly", async () => {
    expect(answerOf(await call("search_spell", { limit: 3 })).count).toBe(3);
    expect(answerOf(await call("search_all", { query: "fire", limit: 1 })).count).toBe(1);
  });
});

describe("argument errors are tool errors naming the parameter and the valid values", () => {
  // The valid values are the parameter's published enum, whole and in its order (a new kind adds to it).
  const enumOf = async (tool: string, param: string) => {
    const props = (await client.listTools()).tools.find((t) => t.name === tool)!.inputSchema.properties as Record<
      string,
      { enum?: string[] }
    >;
    return props[param]!.enum!;
  };
  test("invalid rule_type lists the valid ones", async () => {
    const t = await errorText("search_rule", { rule_type: "invalid-rule-type" });
    const values = await enumOf("search_rule", "rule_type");
    expect(values).toEqual(expect.arrayContaining(["rule", "rule-section", "condition", "trait"]));
    expect(t).toContain(`rule_type: "invalid-rule-type" is not a valid value. Valid values: ${values.join(", ")}.`);
  });
  test("invalid character option type", async () => {
    const values = await enumOf("search_character_option", "type");
    expect(values).toEqual(expect.arrayContaining(["class", "subclass", "species", "race", "background", "feat"]));
    expect(await errorText("search_character_option", { type: "invalid-type" })).toContain(
      `Valid values: ${values.join(", ")}.`,
    );
  });
  test("bad enum, out of range, wrong type", async () => {
    expect(await errorText("search_spell", { school: "pyromancy" })).toContain(
      'school: "pyromancy" is not a valid value. Valid values: abjuration,',
    );
    expect(await errorText("search_spell", { level: 10 })).toContain("level: must be at most 9 (got 10).");
    expect(await errorText("search_spell", { level: "invalid" })).toContain(
      'level: expected a number, got the string "invalid".',
    );
    expect(await errorText("search_spell", { level: 1.5 })).toContain("level: expected a whole number");
    expect(await errorText("search_spell", { limit: 0 })).toContain("limit: must be at least 1 (got 0).");
    expect(await errorText("search_spell", { limit: 101 })).toContain("limit: must be at most 100 (got 101).");
    expect(await errorText("search_creature", { cr: 31 })).toContain("cr: must be a number from 0 to 30");
    expect(await errorText("search_creature", { cr: "1/3" })).toContain('cr: "1/3" is not a challenge rating');
    expect(await errorText("search_equipment", { damage_dice: "big" })).toContain(
      'damage_dice: must look like "1d8" or "2d6"',
    );
    expect(await errorText("search_spell", { documents: [1] })).toContain(
      "documents[0]: expected a string, got number 1.",
    );
    expect(await errorText("list_documents", { format: "xml" })).toContain("Valid values: json, text.");
  });
  test("unknown parameters are rejected with the list of valid ones", async () => {
    const t = await errorText("search_spell", { spell_level: 3 });
    expect(t).toContain(
      'unknown parameter "spell_level". Valid parameters: name, ' +
        "search, documents, limit, offset, detail, all_versions, level,",
    );
  });
  test("unknown content type lists the valid ones", async () => {
    const t = await errorText("search_all", { query: "x", content_types: ["Spell", "Vehicle"] });
    expect(t).toContain('unknown content type "Vehicle". Valid content types: Spell, Creature,');
  });
  test("an unknown tool is a protocol error without a doubled prefix", async () => {
    const err = await call("search_everything", {}).then(
      () => null,
      (e: Error) => e,
    );
    const message = err ? err.message : "";
    expect(message).toContain('Unknown tool "search_everything". Available tools: search_spell,');
    expect(message.match(/MCP error/g)?.length ?? 0).toBeLessThanOrEqual(1);
  });
});

describe("list_documents", () => {
  test("json: key, name, source, publisher, license, counts, sorted by entity_count", async () => {
    const r = await call("list_documents", {});
    const a = r.structuredContent as { documents: Array<Record<string, unknown>>; count: number };
    expect(a.documents.map((d) => d.key)).toEqual(["srd-2014", "homebrew-pack", "tob", "srd-2024"]);
    const counts = a.documents.map((d) => d.entity_count as number);
    expect([...counts].sort((x, y) => y - x)).toEqual(counts);
    expect(a.documents[0]).toMatchObject({
      name: "System Reference Document 5.1",
      source: "open5e_v2",
      publisher: null,
      license: null,
    });
    expect((a.documents[0]!.counts as Record<string, number>).spell).toBe(
      sampleEntities().filter((e) => e.kind === "spell" && e.document_key === "srd-2014").length,
    );
    expect(JSON.parse(textOf(r))).toEqual(a);
  });
  test("source filter (any spelling)", async () => {
    const a = (await call("list_documents", { source: "OrcBrew" })).structuredContent as {
      documents: Array<{ key: string }>;
    };
    expect(a.documents.map((d) => d.key)).toEqual(["homebrew-pack"]);
  });
  test("text: aligned columns", async () => {
    const lines = textOf(await call("list_documents", { format: "text" })).split("\n");
    expect(lines[0]).toMatch(/^KEY\s+NAME\s+SOURCE\s+ENTITIES\s+BY TYPE$/);
    expect(lines).toHaveLength(5);
    const col = lines[0]!.indexOf("SOURCE");
    for (const l of lines.slice(1)) expect(l.slice(col).split(/\s+/)[0]).toMatch(/^(open5e_v2|orcbrew)$/);
  });
});

describe("resources", () => {
  test("lorekeeper://{kind}/{key} returns the full entity", async () => {
    const r = await client.readResource({ uri: "lorekeeper://creature/srd_vampire" });
    const e = JSON.parse((r.contents[0] as { text: string }).text);
    expect(e).toMatchObject({
      key: "srd_vampire",
      name: "Vampire",
      kind: "creature",
      document_key: "srd-2014",
      cr: 13,
    });
    expect(r.contents[0]!.mimeType).toBe("application/json");
  });
  test("a result's uri resolves", async () => {
    const a = answerOf(await call("search_equipment", { name: "Dwarven Thrower" }));
    const r = await client.readResource({ uri: String(a.results[0]!.uri) });
    expect(JSON.parse((r.contents[0] as { text: string }).text).name).toBe("Dwarven Thrower");
  });
  test("keys with URI-reserved characters round-trip through the uri", async () => {
    const made = makeStore([makeEntity("condition", "Prone", {}, { key: "srd-2014:prone" })]);
    const conn = await connectInMemory(makeDeps(made.store));
    try {
      const a = answerOf(await conn.client.callTool({ name: "search_rule", arguments: { name: "prone" } }));
      // ":" stays readable (it separates a source from a key: lorekeeper://condition/open5e_v1:grappled)
      expect(a.results[0]!.uri).toBe("lorekeeper://condition/srd-2014:prone");
      const r = await conn.client.readResource({ uri: String(a.results[0]!.uri) });
      expect(JSON.parse((r.contents[0] as { text: string }).text).key).toBe("srd-2014:prone");
    } finally {
      await conn.close();
      made.cleanup();
    }
  });
  test("unknown keys and kinds are clear errors", async () => {
    const e1 = await client.readResource({ uri: "lorekeeper://spell/nope" }).then(
      () => null,
      (e: Error) => e.message,
    );
    expect(e1).toContain('No spell with key "nope"');
    const e2 = await client.readResource({ uri: "lorekeeper://vehicle/x" }).then(
      () => null,
      (e: Error) => e.message,
    );
    expect(e2).toContain('Unknown content kind "vehicle"');
  });
  test("lorekeeper://documents and the template are listed", async () => {
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toContain("lorekeeper://documents");
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((t) => t.uriTemplate)).toEqual([
      "lorekeeper://{kind}/{key}",
      "lorekeeper://class/{key}/levels",
    ]);
    const docs = JSON.parse(
      ((await client.readResource({ uri: "lorekeeper://documents" })).contents[0] as { text: string }).text,
    );
    expect(docs.documents[0].key).toBe("srd-2014");
  });
});

describe("response budget", () => {
  test("long entries are shortened to fit, flagged, with a hint to the full entry", async () => {
    const long = (i: number) => {
      const e = makeEntity(
        "creature",
        `Colossus ${i}`,
        { cr: 20, creature_type: "construct", size: "gargantuan" },
        { key: `colossus-${i}` },
      );
      e.data = {
        ...e.data,
        desc: `${"An enormous animated statue of bronze. ".repeat(200)}`,
        actions: [{ name: "Slam", desc: "It slams. ".repeat(300) }],
      };
      return e;
    };
    const made = makeStore(Array.from({ length: 6 }, (_, i) => long(i)));
    const small = await connectInMemory(makeDeps(made.store, { responseBudgetChars: 12_000 }));
    try {
      await small.client.listTools();
      const r = await small.client.callTool({
        name: "search_creature",
        arguments: { type: "construct", detail: "full" },
      });
      const a = answerOf(r);
      expect(textOf(r).length).toBeLessThanOrEqual(12_000);
      expect(a.truncated).toBe(true);
      expect(a.count).toBe(6);
      expect(String(a.results[0]!.desc)).toEndWith("[truncated]");
      expect(a.message).toContain("lorekeeper://creature/colossus-0");
      const full = await small.client.readResource({ uri: "lorekeeper://creature/colossus-0" });
      expect(JSON.parse((full.contents[0] as { text: string }).text).desc).toHaveLength(
        long(0).data.desc!.toString().length,
      );
    } finally {
      await small.close();
      made.cleanup();
    }
  });
});
