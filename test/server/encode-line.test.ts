/** server/encode-line.ts: a line holds the same bytes JSON.stringify gives, with a tool answer's structured content encoded once. */
import { afterAll, describe, expect, test } from "bun:test";
import type { JSONRPCMessage } from "@modelcontextprotocol/server";
import { encodeMessage } from "../../src/server/encode-line.ts";
import { DataGate } from "../../src/tools/data-gate.ts";
import { TOOL_BY_NAME } from "../../src/tools/index.ts";
import { answerJson, toolAnswer } from "../../src/tools/response.ts";
import { makeStore } from "../support/entities.ts";
import { makeDeps } from "../support/mcp.ts";

const made = makeStore();
afterAll(made.cleanup);

const CALLS: Array<[string, Record<string, unknown>]> = [
  ["search_spell", { name: "Fireball" }],
  ["search_spell", { level: 3 }],
  ["search_spell", { search: "fire \"quoted\" \\ \u2028 text" }],
  ["search_creature", { name: "Goblin", detail: "full" }],
  ["search_creature", { cr_max: 2, limit: 3 }],
  ["search_equipment", { type: "weapon" }],
  ["search_rule", { name: "Grappled" }],
  ["search_all", { query: "dragon" }],
  ["search_spell", { name: "Nothing Like This" }],
  ["build_encounter", { party: [{ level: 3, count: 4 }], difficulty: "moderate" }],
  ["search_spell", { level: "nine" }],
];

describe("encodeMessage", () => {
  test("every tool answer: the bytes of JSON.stringify, with the structured content from its text", async () => {
    const deps = makeDeps(made.store);
    const ctx = { deps, gate: new DataGate(deps), progress: () => {} };
    let spliced = 0;
    for (const [i, [tool, args]] of CALLS.entries()) {
      const result = await TOOL_BY_NAME.get(tool)!.call(args, ctx);
      if (result.structuredContent) {
        expect(answerJson(result.structuredContent)).toBe(JSON.stringify(result.structuredContent));
        spliced++;
      }
      for (const id of [i, `req-${i}`, "\u0000lorekeeper:structuredContent\u0000"]) {
        const message = { result, jsonrpc: "2.0", id } as unknown as JSONRPCMessage;
        expect(encodeMessage(message)).toBe(JSON.stringify(message));
      }
    }
    expect(spliced).toBeGreaterThan(8);
  });

  test("anything else is JSON.stringify itself: errors, requests, results not made by toolAnswer", () => {
    const made = toolAnswer({ a: 1 });
    const copy = { ...made, structuredContent: { a: 1 } };
    const messages = [
      { jsonrpc: "2.0", id: 1, error: { code: -32602, message: "bad" } },
      { jsonrpc: "2.0", id: 2, method: "ping" },
      { jsonrpc: "2.0", id: 3, result: copy },
      { jsonrpc: "2.0", id: 4, result: { ...made, structuredContent: null } },
      { jsonrpc: "2.0", id: 5, result: made },
    ] as unknown as JSONRPCMessage[];
    for (const m of messages) expect(encodeMessage(m)).toBe(JSON.stringify(m));
    expect(answerJson(copy.structuredContent)).toBeUndefined();
  });
});
