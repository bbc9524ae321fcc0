/**
 * Hardening, what a client sends through a real MCP client (in-memory transport) over a
 * real store:
 * - its own U+202E (and other bidi and control characters) came back raw in empty-result
 *   messages, compare_editions' refusal and argument errors: every echo is neutralised now;
 * - an empty or blank `trait` / `casts` was dropped (the answer listed every creature), and a NUL
 *   matched every creature with any value (SQLite ends a LIKE pattern at a NUL): refused now;
 * - the compare_editions prompt took kind "bogus" and wrote "(it is a bogus)" into the prompt:
 *   prompt arguments with a vocabulary are checked against it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { encounterCreatures } from "../support/encounter-creatures.ts";
import { makeStore, sampleEntities } from "../support/entities.ts";
import { connectInMemory, makeDeps, textOf } from "../support/mcp.ts";

/** Raw controls a terminal or a renderer acts on: C0 but tab and newline, DEL, C1, bidi controls. */
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/;
const RLO = "\u202e";

let client: Client;
let close: () => Promise<void>;
let cleanup: () => void;

beforeAll(async () => {
  const s = makeStore([...sampleEntities(), ...encounterCreatures()]);
  cleanup = s.cleanup;
  ({ client, close } = await connectInMemory(makeDeps(s.store)));
});

afterAll(async () => {
  await close();
  cleanup();
});

const call = async (name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;

/** The error message of a request that fails, or undefined. */
async function errorOf(p: Promise<unknown>): Promise<string | undefined> {
  return p.then(
    () => undefined,
    (e: unknown) => (e as Error).message,
  );
}

function expectNoRaw(label: string, s: string): void {
  const m = RAW.exec(s);
  const raw = m ? JSON.stringify(s.slice(Math.max(0, m.index - 30), m.index + 10)) : null;
  expect({ label, raw }).toEqual({ label, raw: null });
}

describe("the client's own controls never come back raw", () => {
  const cases: Array<[string, string, Record<string, unknown>, string]> = [
    ["an empty name lookup", "search_spell", { name: `Fire${RLO}ball` }, "No spell is named"],
    ["an empty trait filter", "search_creature", { trait: `Sun${RLO}light Sens\u2066` }, "No creature has trait"],
    ["an unknown document", "search_spell", { documents: [`srd${RLO}-2024`] }, "No stored document matches"],
    ["compare_editions finding nothing", "compare_editions", { name: `Fire${RLO}ball` }, "Neither SRD 5.1"],
    ["an argument error", "compare_editions", { name: "Fireball", kind: `spe${RLO}ll` }, "is not a valid value"],
    ["build_encounter's notes", "build_encounter", { party_levels: [5, 5, 5, 5], type: `drag${RLO}on` }, ""],
  ];
  for (const [label, tool, args, says] of cases) {
    test(`${label} (${tool})`, async () => {
      const r = await call(tool, args);
      expect(textOf(r)).toContain(says);
      expectNoRaw(label, JSON.stringify(r));
    });
  }

  test("compare_editions' suggestion is a call that parses, whatever the name holds", async () => {
    const r = await call("compare_editions", { name: 'Fire "ball" \\ here' });
    const suggested = /search_all (\{.*\}) to find/.exec(textOf(r))?.[1];
    expect(JSON.parse(suggested!)).toEqual({ query: 'Fire "ball" \\ here' });
  });

  test("an unknown tool or prompt to complete", async () => {
    const tool = await errorOf(client.callTool({ name: `search${RLO}_spell`, arguments: {} }));
    expect(tool).toContain("Unknown tool");
    expectNoRaw("tools/call", tool!);
    const ref = { type: "ref/prompt" as const, name: `spell${RLO}_card` };
    const complete = await errorOf(client.complete({ ref, argument: { name: "name", value: "x" } }));
    expect(complete).toContain("Unknown prompt");
    expectNoRaw("completion/complete", complete!);
  });

  test("prompts/get and resources/read errors", async () => {
    const prompt = await errorOf(client.getPrompt({ name: `spell${RLO}_card`, arguments: {} }));
    expect(prompt).toContain("Unknown prompt");
    expectNoRaw("prompts/get", prompt!);
    const resource = await errorOf(client.readResource({ uri: `lorekeeper://spe${RLO}ll/srd_fireball` }));
    expect(resource).toContain("Unknown content kind");
    expectNoRaw("resources/read", resource!);
  });
});

describe("filter values that say nothing are refused, not dropped", () => {
  for (const [tool, param] of [
    ["search_creature", "trait"],
    ["search_creature", "casts"],
    ["build_encounter", "casts"],
    ["search_rule", "section"],
  ] as const) {
    for (const [what, value, says] of [
      ["empty", "", "must not be empty or blank (leave it out to match any)"],
      ["blank", "   ", "must not be empty or blank (leave it out to match any)"],
      ["a NUL", "\u0000", "must not contain control characters"],
      ["a name cut by a NUL", "pack\u0000 tactics", "must not contain control characters"],
    ] as const) {
      test(`${tool} ${param}: ${what}`, async () => {
        const party = tool === "build_encounter" ? { party_levels: [5, 5, 5, 5] } : {};
        const r = await call(tool, { ...party, [param]: value });
        expect(r.isError).toBe(true);
        expect(textOf(r)).toContain(`${param}: ${says}`);
      });
    }
  }

  test("a NUL in a name is refused too (it cut the pattern short: Fire\\u0000 matched every Fire…)", async () => {
    const r = await call("search_spell", { name: "Fire\u0000" });
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain("name: must not contain control characters");
  });

  test("a real value still filters", async () => {
    const r = await call("search_creature", { trait: "Pack Tactics" });
    expect(r.isError).toBeFalsy();
  });
});

describe("prompt arguments with a vocabulary", () => {
  const promptText = async (name: string, args: Record<string, string>) =>
    ((await client.getPrompt({ name, arguments: args })).messages[0]!.content as { text: string }).text;
  const promptError = (name: string, args: Record<string, string>) =>
    errorOf(client.getPrompt({ name, arguments: args }));

  test('compare_editions kind "bogus" is refused, naming the kinds it takes', async () => {
    const err = await promptError("compare_editions", { name: "Fireball", kind: "bogus" });
    expect(err).toContain('kind "bogus" is not a kind of entry; use one of: spell, creature, weapon');
    expect(err).not.toContain("it is a bogus");
  });

  test("a catalog kind compare_editions does not compare is named as such", async () => {
    const err = await promptError("compare_editions", { name: "Champion", kind: "subclass" });
    expect(err).toContain('kind "subclass" is not compared across editions');
  });

  test("catalog names of a compared kind are the tool's words in the prompt", async () => {
    const owlbear = await promptText("compare_editions", { name: "Owlbear", kind: "Monster" });
    expect(owlbear).toContain('{"name":"Owlbear","kind":"creature"}');
    expect(await promptText("compare_editions", { name: "Elf", kind: "race" })).toContain('"kind":"species"');
  });

  test("edition and difficulty are checked too", async () => {
    const edition = await promptError("explain_rule", { topic: "grappling", edition: "2099" });
    expect(edition).toContain('edition "2099" is not an edition; use "2014" or "2024"');
    const difficulty = await promptError("prepare_encounter", { party: "4 level-5", difficulty: "apocalyptic" });
    expect(difficulty).toContain('difficulty "apocalyptic" is not a difficulty');
    const deadly = await promptText("prepare_encounter", { party: "4 level-5", difficulty: "Deadly", edition: "2014" });
    expect(deadly).toContain('difficulty "deadly"');
  });

  test("completion of the prompt's kind offers only the kinds it takes", async () => {
    const ref = { type: "ref/prompt" as const, name: "compare_editions" };
    const done = await client.complete({ ref, argument: { name: "kind", value: "s" } });
    expect(done.completion.values).toEqual(["spell", "species"]);
  });
});
